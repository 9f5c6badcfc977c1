-- safetensors_vs_gguf.sql: a llama checkpoint (Hugging Face names) against
-- its GGUF conversion (llama.cpp names): map the names, compare shapes (GGUF
-- stores ne[0] first, so its shape is reversed; tensors() reverses it back),
-- and list what has no counterpart.  Here: the demo's tiny llama, made by
-- `make demo` (tests/gen_model.c), BF16 against its Q8_0 conversion.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/safetensors_vs_gguf.sql
.headers on
.mode column

CREATE TEMP TABLE name_map(hf, gg);
INSERT INTO name_map VALUES
  ('self_attn.q_proj', 'attn_q'), ('self_attn.k_proj', 'attn_k'), ('self_attn.v_proj', 'attn_v'),
  ('self_attn.o_proj', 'attn_output'), ('mlp.gate_proj', 'ffn_gate'), ('mlp.up_proj', 'ffn_up'),
  ('mlp.down_proj', 'ffn_down'), ('input_layernorm', 'attn_norm'),
  ('post_attention_layernorm', 'ffn_norm');

CREATE TEMP TABLE hf AS
  SELECT name, dtype, shape,
         CASE name WHEN 'model.embed_tokens.weight' THEN 'token_embd.weight'
                   WHEN 'model.norm.weight' THEN 'output_norm.weight'
                   WHEN 'lm_head.weight' THEN 'output.weight'
                   ELSE (SELECT 'blk.' || substr(name, 14, instr(substr(name, 14), '.') - 1) || '.'
                                || gg || '.weight'
                         FROM name_map WHERE name LIKE 'model.layers.%.' || hf || '.weight') END
         AS gguf_name
  FROM tensors('build/demo/tiny-llama.safetensors');
CREATE TEMP TABLE gg AS SELECT name, dtype, shape FROM tensors('build/demo/tiny-llama.gguf');

SELECT hf.name, hf.dtype, gg.dtype AS gguf_dtype, hf.shape,
       CASE WHEN hf.shape = gg.shape THEN 'same' ELSE gg.shape END AS gguf_shape
FROM hf JOIN gg ON gg.name = hf.gguf_name
ORDER BY hf.name LIMIT 8;

SELECT count(*) AS mapped, sum(hf.shape = gg.shape) AS same_shape
FROM hf JOIN gg ON gg.name = hf.gguf_name;

-- Tensors without a counterpart on the other side.
SELECT 'safetensors' AS side, name FROM hf WHERE gguf_name IS NULL OR gguf_name NOT IN (SELECT name FROM gg)
UNION ALL
SELECT 'gguf', name FROM gg WHERE name NOT IN (SELECT gguf_name FROM hf WHERE gguf_name IS NOT NULL);
