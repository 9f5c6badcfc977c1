-- nan_scan.sql: look for NaN and infinite values in whole checkpoints before
-- using them.  tensor_stats() decodes every tensor in one streaming pass
-- (nothing is loaded whole) and counts NaN (nan_count) and +-Inf (inf_count)
-- apart; min and max include the infinities, mean, std and l2 are over the
-- finite values.  The path may also be a folder, a glob or a sharded index.
-- Here: the demo's tiny llama (`make demo`, tests/gen_model.c), BF16, and its
-- Q8_0 GGUF, both clean, and a copy of the checkpoint saved by a run that
-- diverged: 3 NaN, 2 +Inf and 1 -Inf in model.layers.1.mlp.up_proj.weight.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/nan_scan.sql
.headers on
.mode column

-- The tensors that hold a NaN or an infinity.
WITH checkpoint(label, path) AS (VALUES
  ('tiny-llama', 'build/demo/tiny-llama.safetensors'),
  ('tiny-llama-diverged', 'build/demo/tiny-llama-diverged.safetensors'),
  ('tiny-llama.gguf', 'build/demo/tiny-llama.gguf'))
SELECT c.label AS checkpoint, s.name, s.dtype, s.count AS "values", s.nan_count AS nan,
       s.inf_count AS inf, s.min, s.max
FROM checkpoint AS c, tensor_stats(c.path) AS s
WHERE s.nan_count + s.inf_count > 0
ORDER BY s.nan_count + s.inf_count DESC, c.label, s.name;

-- One line per checkpoint: how many tensors and values were read, how many
-- values are NaN or infinite and in how many tensors, and the range of the
-- values (min and max of the non-NaN values).
WITH checkpoint(label, path) AS (VALUES
  ('tiny-llama', 'build/demo/tiny-llama.safetensors'),
  ('tiny-llama-diverged', 'build/demo/tiny-llama-diverged.safetensors'),
  ('tiny-llama.gguf', 'build/demo/tiny-llama.gguf'))
SELECT c.label AS checkpoint, count(*) AS tensors, sum(s.count) AS "values",
       sum(s.nan_count) AS nan, sum(s.inf_count) AS inf,
       sum(s.nan_count + s.inf_count > 0) AS tensors_hit,
       round(min(s.min), 6) AS min, round(max(s.max), 6) AS max
FROM checkpoint AS c, tensor_stats(c.path) AS s
GROUP BY c.label ORDER BY c.label;
