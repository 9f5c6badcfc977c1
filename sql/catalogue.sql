-- catalogue.sql: catalogue a folder of models (a downloads folder, a Hugging
-- Face cache, a training run) into a table: one row per model (an index and
-- its shards, the parts of a split GGUF, or one file), with its format,
-- files, tensors, parameters and bytes, then query it.  weights_models()
-- never stops at a broken file: a model that cannot be read is a row with
-- its error, and weights_files() lists every file with its own.
-- Here: everything `make demo` writes under build/demo (tests/gen_model.c):
-- the tiny llama, its GGUF conversion, a fine-tune (also in two shards
-- with an index), a checkpoint with NaN in it, a second GGUF (qwen2) and a
-- truncated GGUF.  Run after `make demo`:
--   sqlite3 -cmd '.load ./build/weights' :memory: < sql/catalogue.sql
.headers on
.mode column --wrap 0

-- What each model is comes with it: its kind (model, adapter, projector,
-- embedding, ...), architecture, training context and quantization, from a
-- GGUF's metadata or a checkpoint's config.json and tensors (the rules:
-- docs/reference.md, weights_models).  A model that cannot be read has
-- NULL tensors, params and nbytes: unknown, never 0.
CREATE TEMP TABLE catalogue AS
SELECT replace(model, 'build/demo/', '') AS model, format, kind, architecture,
       context_length AS context, quantization, files, files_present, tensors, params, nbytes,
       revision, error
FROM weights_models('build/demo/**');

SELECT model, format, kind, architecture, context, quantization, files, tensors, params, nbytes
FROM catalogue WHERE error IS NULL ORDER BY model;

-- What cannot be read, and why (a missing shard, a file that does not parse).
SELECT model, files_present || '/' || files AS present, error FROM catalogue WHERE error IS NOT NULL;

-- Files of the folder that belong to no readable model.
SELECT file, error FROM weights_files('build/demo/**') WHERE error IS NOT NULL;

-- Totals per format: each model counted once, however many files it has.
SELECT format, count(*) AS models, sum(files) AS files, sum(params) AS params, sum(nbytes) AS bytes
FROM catalogue WHERE error IS NULL GROUP BY format;
