-- params_per_dtype.sql: parameter count and bytes per dtype, for a GGUF file
-- and a safetensors checkpoint, with each dtype's share of the bytes.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/params_per_dtype.sql
-- (a test: this is sql/params_per_dtype.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes,
       round(100.0 * sum(nbytes) / (SELECT sum(nbytes) FROM gguf('../shared/fixtures/gguf/llama-2-tiny-random.gguf')), 1) AS pct_bytes
FROM gguf('../shared/fixtures/gguf/llama-2-tiny-random.gguf')
GROUP BY dtype ORDER BY bytes DESC;

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM safetensors('../shared/fixtures/safetensors/jl_torch_all_dtypes_with_metadata.safetensors')
GROUP BY dtype ORDER BY params DESC, dtype;
