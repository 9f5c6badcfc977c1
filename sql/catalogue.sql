-- catalogue.sql: catalogue a folder of model files into a table (file,
-- format, architecture, parameter count, size), then query it.  Files that do
-- not parse are kept with their error instead of stopping the scan:
-- weights_files() lists every file a path names, whether it parses or not.
-- Here: everything `make demo` writes under build/demo (tests/gen_model.c):
-- the tiny llama, its GGUF conversion, a fine-tune (also in two shards), a
-- checkpoint with NaN in it, a second GGUF (qwen2) and a truncated GGUF.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/catalogue.sql
.headers on
.mode column --wrap 0

CREATE TEMP TABLE catalogue AS
WITH files AS MATERIALIZED (
  SELECT file, format, size, tensors, error FROM weights_files('build/demo/**'))
SELECT replace(file, 'build/demo/', '') AS file, format, size, tensors,
       CASE WHEN format = 'gguf' AND error IS NULL THEN
         (SELECT value FROM gguf_metadata(files.file) WHERE key = 'general.architecture') END
         AS architecture,
       CASE WHEN error IS NULL THEN (SELECT sum(numel) FROM tensors(files.file)) END AS params,
       error
FROM files;

SELECT file, format, architecture, params, size FROM catalogue WHERE error IS NULL ORDER BY file;

-- What did not parse, and why.
SELECT file, error FROM catalogue WHERE error IS NOT NULL;

-- Totals per format.
SELECT format, count(*) AS files, sum(params) AS params, sum(size) AS bytes
FROM catalogue WHERE error IS NULL GROUP BY format;
