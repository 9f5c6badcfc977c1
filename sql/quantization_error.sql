-- quantization_error.sql: how much a GGUF quantization changed each tensor,
-- against the safetensors checkpoint it was converted from: rmse, largest
-- difference and cosine similarity per tensor, from tensor_compare(), which
-- decodes both sides (here BF16 and Q8_0 blocks) as it goes.  The tensors
-- pair on tensors()' gguf_name.  Here: the demo's tiny llama (`make demo`,
-- tests/gen_model.c), BF16 against its Q8_0 conversion; its norms stay F32
-- in the GGUF.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/quantization_error.sql
.headers on
.mode column

-- Per tensor, in the GGUF's order.  Q8_0 keeps 8 bits per weight with one
-- f16 scale per block of 32, so the error of a matrix is about a thousandth
-- of its range (these weights lie in [-0.125, 0.125): rmse about 3e-4, cosine
-- 0.99999).  llama.cpp's converter permutes the rows of attn_q and attn_k
-- for its rotary embedding (per head: reshape(n_head, 2, head_dim/2,
-- n_embd).swapaxes(1, 2)); tensor_compare() undoes that by itself for a
-- q_proj/k_proj against the attn_q/attn_k of a llama GGUF (heads from
-- llama.attention.head_count and head_count_kv) and says so in
-- unpermuted_heads.  The norms are F32 on both sides of a real conversion
-- (no error); the demo's GGUF holds the unrounded originals, so their error
-- is the checkpoint's own BF16 rounding (at most half a BF16 step: 2^-8 for
-- values near 1).
WITH e AS (
  SELECT g.name, g.dtype, g.offset,
         tensor_compare(s.file, s.name, g.file, g.name) AS j
  FROM tensors('build/demo/tiny-llama.gguf') AS g
  JOIN tensors('build/demo/tiny-llama.safetensors') AS s ON s.gguf_name = g.name)
SELECT name, dtype, printf('%.3e', json_extract(j, '$.rmse')) AS rmse,
       printf('%.3e', json_extract(j, '$.max_abs_diff')) AS max_abs_diff,
       round(json_extract(j, '$.cosine'), 6) AS cosine,
       coalesce(json_extract(j, '$.unpermuted_heads') || ' heads un-permuted', '') AS note
FROM e ORDER BY offset;

-- What the un-permutation does: layer 0's attn_q and attn_k compared row
-- for row as stored (the fifth argument 'none'), which pairs different
-- weights of the same scale (cosine near 0.1), and un-permuted.
SELECT g.name,
       round(json_extract(tensor_compare(s.file, s.name, g.file, g.name, 'none'), '$.cosine'), 6)
         AS as_stored,
       round(json_extract(tensor_compare(s.file, s.name, g.file, g.name), '$.cosine'), 6)
         AS unpermuted
FROM tensors('build/demo/tiny-llama.gguf') AS g
JOIN tensors('build/demo/tiny-llama.safetensors') AS s ON s.gguf_name = g.name
WHERE g.name IN ('blk.0.attn_q.weight', 'blk.0.attn_k.weight') ORDER BY g.offset;
