-- params_per_layer.sql: parameters and bytes per layer, from tensor names
-- (model.layers.N.* in Hugging Face checkpoints, blk.N.* in GGUF files), and
-- per dtype.  Here: an MLX LoRA adapter for Qwen2.5-0.5B: lora_a and lora_b
-- matrices on q_proj and v_proj of its last 4 layers (20 to 23).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/params_per_layer.sql
-- (a test: this is sql/params_per_layer.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

WITH t AS (
  SELECT name, dtype, numel, nbytes,
         CASE WHEN name LIKE 'model.layers.%'
              THEN CAST(substr(name, 14, instr(substr(name, 14), '.') - 1) AS INTEGER)
              WHEN name LIKE 'blk.%'
              THEN CAST(substr(name, 5, instr(substr(name, 5), '.') - 1) AS INTEGER) END AS layer
  FROM safetensors('../shared/fixtures/safetensors/mlx_lm_lora_adapters.safetensors'))
SELECT layer, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM t GROUP BY layer ORDER BY layer;

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM safetensors('../shared/fixtures/safetensors/mlx_lm_lora_adapters.safetensors')
GROUP BY dtype;
