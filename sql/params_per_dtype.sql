-- params_per_dtype.sql: parameter count and bytes per dtype, for a GGUF file
-- and a safetensors checkpoint, with each dtype's share of the bytes.
-- Here: the demo's Q8_0 GGUF (its norms stay F32) and the fine-tuned
-- checkpoint, BF16 with its norms saved as F32 (`make demo`, tests/gen_model.c).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/params_per_dtype.sql
.headers on
.mode column

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes,
       round(100.0 * sum(nbytes) / (SELECT sum(nbytes) FROM gguf('build/demo/tiny-llama.gguf')), 1) AS pct_bytes
FROM gguf('build/demo/tiny-llama.gguf')
GROUP BY dtype ORDER BY bytes DESC;

SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM safetensors('build/demo/tiny-llama-finetuned.safetensors')
GROUP BY dtype ORDER BY params DESC, dtype;
