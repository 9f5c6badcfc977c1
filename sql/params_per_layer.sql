-- params_per_layer.sql: parameters and bytes per layer, from tensor names
-- (model.layers.N.* in Hugging Face checkpoints, blk.N.* in GGUF files), and
-- per dtype.  Here: the demo's tiny llama as safetensors (BF16) and as GGUF
-- (Q8_0) (`make demo`, tests/gen_model.c): 2 layers of 9 tensors, and 3
-- tensors outside the layers (embeddings, final norm, output head).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/params_per_layer.sql
.headers on
.mode column

WITH f(format, path) AS (VALUES
  ('safetensors', 'build/demo/tiny-llama.safetensors'), ('gguf', 'build/demo/tiny-llama.gguf')),
t AS (
  SELECT f.format, name, dtype, numel, nbytes,
         CASE WHEN name LIKE 'model.layers.%'
              THEN CAST(substr(name, 14, instr(substr(name, 14), '.') - 1) AS INTEGER)
              WHEN name LIKE 'blk.%'
              THEN CAST(substr(name, 5, instr(substr(name, 5), '.') - 1) AS INTEGER) END AS layer
  FROM f, tensors(f.path))
SELECT format, layer, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM t GROUP BY format, layer ORDER BY format DESC, layer;

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM tensors('build/demo/tiny-llama.gguf')
GROUP BY dtype ORDER BY bytes DESC;
