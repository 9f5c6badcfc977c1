-- demo.sql: a first look inside a model with sqlite-weights.
-- Run by `make demo` on build/demo/tiny-llama.{safetensors,gguf}, a small
-- llama checkpoint and its GGUF (Q8_0) conversion made by tests/gen_model.c.
.mode box

-- The version of the loaded module.
SELECT weights_version() AS version;

-- Every tensor of a safetensors file: name, dtype, shape, where its bytes are.
SELECT name, dtype, shape, numel, offset, nbytes
FROM safetensors('build/demo/tiny-llama.safetensors')
LIMIT 6;

-- The file's __metadata__ and its facts.
SELECT key, value FROM safetensors_metadata('build/demo/tiny-llama.safetensors');
SELECT safetensors_info('build/demo/tiny-llama.safetensors') AS info;

-- GGUF: the keys, their types, and scalar values (arrays only counted).
SELECT key, type, element_type, count,
       CASE WHEN type = 'ARRAY' THEN NULL ELSE value END AS value
FROM gguf_metadata('build/demo/tiny-llama.gguf');

-- Parameters and bytes per ggml type.
SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
FROM gguf('build/demo/tiny-llama.gguf')
GROUP BY dtype ORDER BY bytes DESC;

-- Search the vocabulary without building any JSON.
SELECT idx, value FROM gguf_array('build/demo/tiny-llama.gguf', 'tokenizer.ggml.tokens')
WHERE value LIKE '%hello%';

-- The first bytes of a tensor, read through mmap.
SELECT hex(safetensors_blob('build/demo/tiny-llama.safetensors', 'model.norm.weight', 0, 8)) AS first_bytes;
