-- nan_scan.sql: look for NaN and infinite values in whole checkpoints before
-- using them.  tensor_stats() decodes every tensor in one streaming pass
-- (nothing is loaded whole) and counts NaN (nan_count) and +-Inf (inf_count)
-- apart; min and max include the infinities, mean, std and l2 are over the
-- finite values.  The path may also be a folder, a glob or a sharded index.
-- Here: a checkpoint written by PyTorch holding 12 dtypes (integers, BOOL and
-- floats down to FP8) and a llama converted to GGUF by llama.cpp (F16 and
-- F32).  Neither holds a NaN or an infinity, so the first query lists
-- nothing, and the summary says so.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/nan_scan.sql
-- (a test: this is sql/nan_scan.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

-- The tensors that hold a NaN or an infinity (none here: no rows).
WITH checkpoint(label, path) AS (VALUES
  ('jl_torch_all_dtypes', '../shared/fixtures/safetensors/jl_torch_all_dtypes_with_metadata.safetensors'),
  ('llama-2-tiny-random', '../shared/fixtures/gguf/llama-2-tiny-random.gguf'))
SELECT c.label AS checkpoint, s.name, s.dtype, s.count AS "values", s.nan_count AS nan,
       s.inf_count AS inf, s.min, s.max
FROM checkpoint AS c, tensor_stats(c.path) AS s
WHERE s.nan_count + s.inf_count > 0
ORDER BY s.nan_count + s.inf_count DESC, c.label, s.name;

-- One line per checkpoint: how many tensors and values were read, how many
-- values are NaN or infinite and in how many tensors, and the range of the
-- values (min and max of the non-NaN values).
WITH checkpoint(label, path) AS (VALUES
  ('jl_torch_all_dtypes', '../shared/fixtures/safetensors/jl_torch_all_dtypes_with_metadata.safetensors'),
  ('llama-2-tiny-random', '../shared/fixtures/gguf/llama-2-tiny-random.gguf'))
SELECT c.label AS checkpoint, count(*) AS tensors, sum(s.count) AS "values",
       sum(s.nan_count) AS nan, sum(s.inf_count) AS inf,
       sum(s.nan_count + s.inf_count > 0) AS tensors_hit,
       round(min(s.min), 6) AS min, round(max(s.max), 6) AS max
FROM checkpoint AS c, tensor_stats(c.path) AS s
GROUP BY c.label ORDER BY c.label;
