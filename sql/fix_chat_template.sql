-- fix_chat_template.sql: give a GGUF a new chat template and name without
-- re-converting it: gguf_rewrite() writes a new file (atomically, read back
-- and compared before it is kept) with the metadata edited and every tensor
-- byte for byte.  Here the demo model (`make demo`) gets a ChatML template,
-- a new name, and loses general.file_type; the copy goes beside build/demo.
-- For your own model: a template kept in a file is
-- CAST(readfile('chat_template.jinja') AS TEXT) in the sqlite3 shell.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/fix_chat_template.sql
.headers on
.mode column

-- 1. the new file; the result is its size in bytes
SELECT gguf_rewrite('build/tiny-llama-chat.gguf', 'build/demo/tiny-llama.gguf',
  json_object('tokenizer.chat_template',
                '{% for m in messages %}<|im_start|>{{ m.role }}' || char(10) ||
                '{{ m.content }}<|im_end|>' || char(10) || '{% endfor %}',
              'general.name', 'Tiny Llama (chat)',
              'general.file_type', NULL)) AS bytes;

-- 2. what changed in the metadata
SELECT coalesce(a.key, b.key) AS key, b.value AS before, a.value AS after
FROM gguf_metadata('build/tiny-llama-chat.gguf') AS a
FULL JOIN gguf_metadata('build/demo/tiny-llama.gguf') AS b USING (key)
WHERE a.value IS NOT b.value;

-- 3. the tensors: all of them, each with the bytes of the original
SELECT count(*) AS tensors, sum(tensor_hash(a.path, a.name) = tensor_hash(b.path, b.name)) AS same_bytes
FROM tensors('build/tiny-llama-chat.gguf') AS a
JOIN tensors('build/demo/tiny-llama.gguf') AS b USING (name);
