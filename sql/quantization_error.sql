-- quantization_error.sql: how much a GGUF quantization changed each tensor,
-- against the safetensors checkpoint it was converted from: rmse, largest
-- difference and cosine similarity per tensor, from tensor_compare(), which
-- decodes both sides (here BF16 and Q8_0 blocks) as it goes.  Here: the demo's
-- tiny llama (`make demo`, tests/gen_model.c), BF16 against its Q8_0
-- conversion; its norms stay F32 in the GGUF.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/quantization_error.sql
.headers on
.mode column

-- Per tensor, in the GGUF's order.  Q8_0 keeps 8 bits per weight with one
-- f16 scale per block of 32, so the error of a matrix is about a thousandth
-- of its range (these weights lie in [-0.125, 0.125): rmse about 3e-4, cosine
-- 0.99999).  attn_q and attn_k look far worse, but that is not quantization:
-- llama.cpp's converter permutes their rows for its rotary embedding
-- (per head: reshape(n_head, 2, head_dim/2, n_embd).swapaxes(1, 2)), so row r
-- of the GGUF holds another row of the checkpoint and a row-for-row comparison
-- pairs different weights.  The next query undoes the permutation.  The norms
-- are F32 on both sides of a real conversion (no error); the demo's GGUF holds
-- the unrounded originals, so their error is the checkpoint's own BF16
-- rounding (at most half a BF16 step: 2^-8 for values near 1).
WITH name_map(hf, gg) AS (VALUES
  ('self_attn.q_proj', 'attn_q'), ('self_attn.k_proj', 'attn_k'), ('self_attn.v_proj', 'attn_v'),
  ('self_attn.o_proj', 'attn_output'), ('mlp.gate_proj', 'ffn_gate'), ('mlp.up_proj', 'ffn_up'),
  ('mlp.down_proj', 'ffn_down'), ('input_layernorm', 'attn_norm'),
  ('post_attention_layernorm', 'ffn_norm')),
hf AS (
  SELECT name,
         CASE name WHEN 'model.embed_tokens.weight' THEN 'token_embd.weight'
                   WHEN 'model.norm.weight' THEN 'output_norm.weight'
                   WHEN 'lm_head.weight' THEN 'output.weight'
                   ELSE (SELECT 'blk.' || substr(name, 14, instr(substr(name, 14), '.') - 1) || '.'
                                || gg || '.weight'
                         FROM name_map WHERE name LIKE 'model.layers.%.' || hf || '.weight') END
         AS gguf_name
  FROM tensors('build/demo/tiny-llama.safetensors')),
e AS (
  SELECT g.name, g.dtype, g.offset,
         tensor_compare('build/demo/tiny-llama.safetensors', hf.name, 'build/demo/tiny-llama.gguf', g.name) AS j
  FROM tensors('build/demo/tiny-llama.gguf') AS g JOIN hf ON hf.gguf_name = g.name)
SELECT name, dtype, printf('%.3e', json_extract(j, '$.rmse')) AS rmse,
       printf('%.3e', json_extract(j, '$.max_abs_diff')) AS max_abs_diff,
       round(json_extract(j, '$.cosine'), 6) AS cosine,
       CASE WHEN name LIKE '%attn_q.%' OR name LIKE '%attn_k.%' THEN 'rows permuted' ELSE '' END AS note
FROM e ORDER BY offset;

-- The true error of layer 0's attn_q and attn_k: read both tensors value by
-- value with tensor_values() and pair each GGUF weight with the checkpoint
-- weight it came from.  Flat index = row * n_embd + column on both sides (the
-- checkpoint is row-major [rows, 64]; the GGUF's ne = [64, rows], ne[0]
-- fastest).  With per_head = head_dim rows per head and half = head_dim / 2,
-- GGUF row r = head * per_head + i * 2 + j comes from checkpoint row
-- head * per_head + j * half + i.  head_dim is llama.rope.dimension_count.
WITH t(hf, gg) AS (VALUES
  ('model.layers.0.self_attn.q_proj.weight', 'blk.0.attn_q.weight'),
  ('model.layers.0.self_attn.k_proj.weight', 'blk.0.attn_k.weight')),
hd(n) AS (SELECT value FROM gguf_metadata('build/demo/tiny-llama.gguf') WHERE key = 'llama.rope.dimension_count'),
g AS MATERIALIZED (
  SELECT t.gg, v.idx / 64 AS r, v.idx % 64 AS c, v.value
  FROM t, tensor_values('build/demo/tiny-llama.gguf', t.gg) AS v),
s AS MATERIALIZED (
  SELECT t.gg, v.idx / 64 AS r, v.idx % 64 AS c, v.value
  FROM t, tensor_values('build/demo/tiny-llama.safetensors', t.hf) AS v)
SELECT g.gg AS name, count(*) AS "values",
       printf('%.3e', sqrt(avg((s.value - g.value) * (s.value - g.value)))) AS rmse,
       printf('%.3e', max(abs(s.value - g.value))) AS max_abs_diff,
       round(sum(s.value * g.value) / sqrt(sum(s.value * s.value) * sum(g.value * g.value)), 6) AS cosine
FROM hd, g JOIN s ON s.gg = g.gg AND s.c = g.c
  AND s.r = (g.r / hd.n) * hd.n + (g.r % 2) * (hd.n / 2) + (g.r % hd.n) / 2
GROUP BY g.gg ORDER BY g.gg DESC;
