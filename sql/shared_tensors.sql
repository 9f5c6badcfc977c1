-- shared_tensors.sql: the tensors that several files of a folder share,
-- byte for byte (the same SHA-256 of their bytes, tensor_hash(..., 'sha256')):
-- which parts of a fine-tune are still the base model's, which checkpoints
-- are copies.  Every model of the folder that reads is hashed, one tensor at a
-- time, each model once (weights_models: an index with its shards, a split
-- GGUF with its parts; t.file is the file each tensor is in); models that
-- fail, like the truncated GGUF, are left out.
-- Here: the demo folder (`make demo`, tests/gen_model.c): the fine-tune keeps
-- 14 of the checkpoint's 21 tensors (not its 5 norms, saved as F32, nor the
-- two tensors it scaled), the diverged run 20 (not the up_proj it broke),
-- and the two GGUF conversions share their 5 F32 norms.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/shared_tensors.sql
.headers on
.mode column --wrap 0

CREATE TEMP TABLE h AS
SELECT replace(t.file, 'build/demo/', '') AS file, t.name, t.nbytes,
       tensor_hash(t.file, t.name, 'sha256') AS sha256
FROM weights_models('build/demo') AS m, tensors(m.model) AS t
WHERE m.error IS NULL AND m.format IS NOT NULL;

-- each set of identical bytes found in more than one file
SELECT substr(sha256, 1, 12) AS sha256, group_concat(DISTINCT name) AS name, nbytes,
       count(DISTINCT file) AS files, group_concat(DISTINCT file) AS in_files
FROM (SELECT * FROM h ORDER BY file) AS x
GROUP BY x.sha256 HAVING count(DISTINCT file) > 1
ORDER BY files DESC, name;

-- per pair of files: how many tensors (and bytes) they share
SELECT a.file AS file_a, b.file AS file_b, count(*) AS shared_tensors,
       sum(a.nbytes) AS shared_bytes,
       (SELECT count(*) FROM h WHERE h.file = a.file) AS tensors_a
FROM h AS a JOIN h AS b ON a.sha256 = b.sha256 AND a.file < b.file
GROUP BY a.file, b.file
ORDER BY shared_tensors DESC, file_a, file_b;
