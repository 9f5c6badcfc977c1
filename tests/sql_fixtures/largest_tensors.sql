-- largest_tensors.sql: the biggest tensors of a GGUF file, with their shape in
-- GGUF order (ne[0] first) and in PyTorch order, and where their bytes are.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/largest_tensors.sql
-- (a test: this is sql/largest_tensors.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

SELECT name, dtype, shape AS gguf_shape,
       (SELECT json_group_array(value) FROM
          (SELECT value FROM json_each(t.shape) ORDER BY key DESC)) AS torch_shape,
       nbytes, printf('0x%x', offset) AS file_offset
FROM gguf('../shared/fixtures/gguf/llama-2-tiny-random.gguf') AS t
ORDER BY nbytes DESC, name
LIMIT 5;
