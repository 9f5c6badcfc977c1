-- gguf_hash.sql: the per-tensor lines of llama.cpp's `llama-gguf-hash --all
-- FILE`, from SQL.  llama-gguf-hash hashes each tensor's data (ggml_nbytes
-- bytes from the tensor's offset: no alignment padding) and prints, per
-- tensor in the order of the tensor infos (here ordered by offset, the same
-- order in files that llama.cpp writes), "TYPE  HEX  FILE:NAME" with TYPE padded to 8
-- characters, in the order xxh64, xxh3 (XXH3 64-bit: tensor_hash's
-- 'xxh3-64'), sha1, sha256; hex lower case, the 64-bit hashes big-endian
-- (canonical).  Its whole-file lines (one hash over every tensor's bytes)
-- and its UUIDv5 are not per-tensor hashes and are not printed here.
-- A manifest written by `llama-gguf-hash --all FILE > manifest` can be
-- checked against these lines with diff (after dropping its file lines).
-- Here: the demo's tiny llama (`make demo`).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/gguf_hash.sql
.mode list

WITH algo(k, name, label) AS (VALUES (1, 'xxh64', 'xxh64'), (2, 'xxh3-64', 'xxh3'),
                                     (3, 'sha1', 'sha1'), (4, 'sha256', 'sha256'))
SELECT printf('%-8s  %s  %s:%s', a.label, tensor_hash(t.path, t.name, a.name), t.path, t.name)
FROM gguf('build/demo/tiny-llama.gguf') AS t CROSS JOIN algo AS a
ORDER BY t.offset, a.k;
