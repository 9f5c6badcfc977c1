-- first_layers.sql: a smaller model for a test, taken out of a checkpoint
-- with a query: safetensors_write() writes the tensors of its rows into one
-- new safetensors file (the bytes copied from their files, never through
-- SQLite), as the safetensors crate writes one, read back and compared
-- before it is kept.  Here: the first layer of the sharded demo fine-tune
-- (`make demo`) and everything that is not a layer; then a GGUF's F32 and
-- F16 tensors (the qwen2 demo) as safetensors, shapes in PyTorch's order.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/first_layers.sql
.headers on
.mode column

-- 1. layer 0 and the rest, from the two shards through their index; the size in bytes
SELECT safetensors_write('build/first-layer.safetensors', name, path) AS bytes
FROM tensors('build/demo/sharded')
WHERE name GLOB 'model.layers.0.*' OR name NOT GLOB 'model.layers.*';

-- 2. what it holds, each tensor against the checkpoint's
SELECT a.name, a.dtype, a.shape, tensor_hash(a.path, a.name) = tensor_hash(b.path, b.name) AS same_bytes
FROM tensors('build/first-layer.safetensors') AS a
JOIN tensors('build/demo/sharded') AS b USING (name)
ORDER BY a.offset;

-- 2b. the __metadata__ both shards have ({"format": "pt"}), kept
SELECT key, value FROM safetensors_metadata('build/first-layer.safetensors');

-- 3. a GGUF's tensors as safetensors: the types safetensors has keep theirs
SELECT safetensors_write('build/tiny-qwen2.safetensors', name, path) AS bytes
FROM tensors('build/demo/tiny-qwen2.gguf');

SELECT dtype, count(*) AS tensors, sum(nbytes) AS bytes
FROM tensors('build/tiny-qwen2.safetensors') GROUP BY dtype ORDER BY dtype;
