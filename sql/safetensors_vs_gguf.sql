-- safetensors_vs_gguf.sql: a llama checkpoint (Hugging Face names) against
-- its GGUF conversion (llama.cpp names): pair the tensors, compare shapes
-- (GGUF stores ne[0] first, so its shape is reversed; tensors() reverses it
-- back), and list what has no counterpart.  tensors() gives every row both
-- names: gguf_name of a safetensors row is its llama.cpp name (by the
-- architecture its config.json names: LlamaForCausalLM is llama), hf_name
-- of a GGUF row its Hugging Face name (by general.architecture), so the two
-- join on one column.  Here: the demo's tiny llama, made by `make demo`
-- (tests/gen_model.c, with a config.json beside it), BF16 against its Q8_0
-- conversion.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/safetensors_vs_gguf.sql
.headers on
.mode column

CREATE TEMP TABLE hf AS
  SELECT name, dtype, shape, gguf_name FROM tensors('build/demo/tiny-llama.safetensors');
CREATE TEMP TABLE gg AS
  SELECT name, dtype, shape, hf_name FROM tensors('build/demo/tiny-llama.gguf');

SELECT hf.name, hf.dtype, gg.dtype AS gguf_dtype, hf.shape,
       CASE WHEN hf.shape = gg.shape THEN 'same' ELSE gg.shape END AS gguf_shape
FROM hf JOIN gg ON gg.name = hf.gguf_name
ORDER BY hf.name LIMIT 8;

-- Both directions of the map agree: every pair maps back.
SELECT count(*) AS mapped, sum(hf.shape = gg.shape) AS same_shape,
       sum(gg.hf_name = hf.name) AS maps_back
FROM hf JOIN gg ON gg.name = hf.gguf_name;

-- Tensors without a counterpart on the other side (none here).
SELECT 'safetensors' AS side, name FROM hf WHERE gguf_name IS NULL OR gguf_name NOT IN (SELECT name FROM gg)
UNION ALL
SELECT 'gguf', name FROM gg WHERE hf_name IS NULL OR hf_name NOT IN (SELECT name FROM hf);
