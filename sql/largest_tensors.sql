-- largest_tensors.sql: the biggest tensors of a GGUF file, with their shape in
-- GGUF order (ne[0] first) and in PyTorch order, and where their bytes are.
-- Here: the demo's tiny llama, Q8_0 (`make demo`, tests/gen_model.c).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/largest_tensors.sql
.headers on
.mode column

SELECT name, dtype, shape AS gguf_shape,
       (SELECT json_group_array(value) FROM
          (SELECT value FROM json_each(t.shape) ORDER BY key DESC)) AS torch_shape,
       nbytes, printf('0x%x', offset) AS file_offset
FROM gguf('build/demo/tiny-llama.gguf') AS t
ORDER BY nbytes DESC, name
LIMIT 5;
