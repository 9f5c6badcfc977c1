-- gguf_by_architecture.sql: GGUF files by architecture, context length and
-- dominant quantization type (the ggml type holding most of the bytes),
-- skipping files that do not parse.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/gguf_by_architecture.sql
-- (a test: this is sql/gguf_by_architecture.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

WITH files AS MATERIALIZED (
       SELECT file FROM weights_files('../shared/fixtures/gguf') WHERE error IS NULL),
     meta AS (
       SELECT files.file, m.key, m.value FROM files, gguf_metadata(files.file) AS m
       WHERE m.type <> 'ARRAY'),
     arch AS (SELECT file, value AS architecture FROM meta WHERE key = 'general.architecture'),
     quant AS (
       SELECT files.file, t.dtype, sum(t.nbytes) AS bytes,
              row_number() OVER (PARTITION BY files.file ORDER BY sum(t.nbytes) DESC) AS rank
       FROM files, gguf(files.file) AS t GROUP BY files.file, t.dtype)
SELECT replace(files.file, '../shared/fixtures/gguf/', '') AS file,
       arch.architecture,
       (SELECT value FROM meta WHERE meta.file = files.file
          AND key = arch.architecture || '.context_length') AS context_length,
       (SELECT dtype FROM quant WHERE quant.file = files.file AND rank = 1) AS dominant_type
FROM files LEFT JOIN arch USING (file)
ORDER BY architecture, file;
