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

-- The architecture and shape come from the model's own description: a
-- GGUF's metadata (general.architecture, then {arch}.embedding_length,
-- block_count, context_length), a safetensors model's config.json beside
-- it (model_config(): model_type, hidden_size, num_hidden_layers,
-- max_position_embeddings; a multimodal config has them under
-- text_config.).  A model with neither has NULLs.
CREATE TEMP TABLE catalogue AS
SELECT replace(model, 'build/demo/', '') AS model, format, files, files_present, tensors, params,
       nbytes, revision, error,
       CASE WHEN error IS NOT NULL THEN NULL
            WHEN format = 'gguf' THEN
              (SELECT json_object('arch', max(value) FILTER (WHERE key = 'general.architecture'),
                                  'meta', json_group_object(key, value))
               FROM gguf_metadata(m.model) WHERE type <> 'ARRAY')
            ELSE (SELECT json_group_object(key, json(value)) FROM model_config(m.model)) END
         AS facts
FROM weights_models('build/demo/**') AS m;

CREATE TEMP VIEW described AS
SELECT model, format, files, tensors, params, nbytes,
       CASE format WHEN 'gguf' THEN facts ->> '$.arch'
                   ELSE coalesce(facts ->> '$.model_type', facts ->> '$."text_config.model_type"') END
         AS architecture,
       CASE format WHEN 'gguf' THEN facts -> '$.meta' ->> ('$."' || (facts ->> '$.arch') || '.embedding_length"')
                   ELSE coalesce(facts ->> '$.hidden_size', facts ->> '$."text_config.hidden_size"') END
         AS hidden,
       CASE format WHEN 'gguf' THEN facts -> '$.meta' ->> ('$."' || (facts ->> '$.arch') || '.block_count"')
                   ELSE coalesce(facts ->> '$.num_hidden_layers',
                                 facts ->> '$."text_config.num_hidden_layers"') END
         AS layers,
       CASE format WHEN 'gguf' THEN facts -> '$.meta' ->> ('$."' || (facts ->> '$.arch') || '.context_length"')
                   ELSE coalesce(facts ->> '$.max_position_embeddings',
                                 facts ->> '$."text_config.max_position_embeddings"') END
         AS context
FROM catalogue WHERE error IS NULL;

SELECT model, format, architecture, hidden, layers, context, files, tensors, params, nbytes
FROM described ORDER BY model;

-- What cannot be read, and why (a missing shard, a file that does not parse).
SELECT model, files_present || '/' || files AS present, error FROM catalogue WHERE error IS NOT NULL;

-- Files of the folder that belong to no readable model.
SELECT file, error FROM weights_files('build/demo/**') WHERE error IS NOT NULL;

-- Totals per format: each model counted once, however many files it has.
SELECT format, count(*) AS models, sum(files) AS files, sum(params) AS params, sum(nbytes) AS bytes
FROM catalogue WHERE error IS NULL GROUP BY format;
