-- gguf_by_architecture.sql: GGUF models by architecture, context length and
-- dominant quantization type (the ggml type holding most of the bytes),
-- skipping models that do not parse.  One row per model (weights_models: a
-- split GGUF once, by its part 1, with the types of all its parts).  Here: the GGUF files of build/demo
-- (`make demo`): a llama (Q8_0), a qwen2 (F16) and a truncated file, skipped.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/gguf_by_architecture.sql
.headers on
.mode column

WITH files AS MATERIALIZED (
       SELECT model AS file FROM weights_models('build/demo')
       WHERE format = 'gguf' AND error IS NULL),
     meta AS (
       SELECT files.file, m.key, m.value FROM files, gguf_metadata(files.file) AS m
       WHERE m.type <> 'ARRAY'),
     arch AS (SELECT file, value AS architecture FROM meta WHERE key = 'general.architecture'),
     quant AS (
       SELECT files.file, t.dtype, sum(t.nbytes) AS bytes,
              row_number() OVER (PARTITION BY files.file ORDER BY sum(t.nbytes) DESC) AS rank
       FROM files, gguf(files.file) AS t GROUP BY files.file, t.dtype)
SELECT replace(files.file, 'build/demo/', '') AS file,
       arch.architecture,
       (SELECT value FROM meta WHERE meta.file = files.file
          AND key = arch.architecture || '.context_length') AS context_length,
       (SELECT dtype FROM quant WHERE quant.file = files.file AND rank = 1) AS dominant_type
FROM files LEFT JOIN arch USING (file)
ORDER BY architecture, file;
