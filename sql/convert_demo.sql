-- convert_demo.sql: a Hugging Face checkpoint to GGUF with gguf_convert(),
-- the file llama.cpp's convert_hf_to_gguf.py writes (names, types, shapes,
-- bytes, metadata and tokenizer), then every tensor of the result compared
-- with the checkpoint tensor it came from.  Here the demo checkpoint (`make
-- demo`: BF16, with its config.json and tokenizer.model) becomes a Q8_0
-- GGUF beside build/demo.  For your own model the source may be a folder,
-- an index, or hf://ORG/REPO; the outtype f32, f16, bf16, q8_0 or auto (the
-- default: the checkpoint's 16-bit type).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/convert_demo.sql
.headers on
.mode column

-- 1. the conversion; the result is the file's size in bytes
SELECT gguf_convert('build/tiny-llama-converted.gguf', 'build/demo/tiny-llama.safetensors',
                    json_object('outtype', 'q8_0')) AS bytes;

-- 2. what it holds: the converter's keys (the tokenizer's arrays counted)
SELECT key, type, CASE WHEN type = 'ARRAY' THEN count || ' values' ELSE value END AS value
FROM gguf_metadata('build/tiny-llama-converted.gguf');

-- 3. every tensor against the checkpoint's (tensor_compare puts llama's
-- permuted q/k rows back in the checkpoint's order): the norms, kept in
-- F32, are the same numbers; the Q8_0 matrices are off by ~0.4% (rel_l2)
SELECT name, dtype, hf_name,
       round(json_extract(c, '$.rel_l2'), 4) AS rel_l2,
       round(json_extract(c, '$.cosine'), 6) AS cosine,
       json_extract(c, '$.unpermuted_heads') AS unpermuted_heads
FROM (SELECT rowid, name, dtype, hf_name,
             tensor_compare('build/demo/tiny-llama.safetensors', hf_name,
                            'build/tiny-llama-converted.gguf', name) AS c
      FROM tensors('build/tiny-llama-converted.gguf'))
ORDER BY rowid;
