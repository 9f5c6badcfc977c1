-- finetune_diff.sql on ../shared/fixtures (the cookbook's sql/finetune_diff.sql
-- runs on the demo files): which tensors a fine-tune changed most.
-- tensor_compare(path_a, name_a, path_b, name_b) decodes both tensors side by
-- side, whatever their dtypes and formats, and returns JSON with rel_l2 =
-- |b - a| / |a|, the relative size of the change: 0 for an untouched tensor,
-- a few thousandths for rounding to another dtype (BF16 to Q8_0 below), about
-- 1.4 (the square root of 2) for unrelated weights of the same scale.  Sorting
-- by it puts the tensors that moved most on top.  rel_l2 is null when |a| = 0
-- (an all-zero tensor).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/finetune_diff.sql
-- (a test: this is sql/finetune_diff.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

-- 1. A checkpoint against its sharded copy (6 shards and an index): the same
-- 36 tensors, so every change is 0.  The index path finds each tensor's shard
-- (the hidden file column of tensors()).
WITH a AS (SELECT name, file FROM tensors('../shared/fixtures/safetensors/jl_torch_all_dtypes_with_metadata.safetensors')),
b AS (SELECT name, file FROM tensors('../shared/fixtures/safetensors/sharded/model.safetensors.index.json')),
d AS (SELECT a.name, tensor_compare(a.file, a.name, b.file, b.name) AS j FROM a JOIN b USING (name))
SELECT count(*) AS tensors, sum(json_extract(j, '$.max_abs_diff') = 0) AS unchanged,
       max(json_extract(j, '$.rel_l2')) AS max_rel_l2,
       sum(json_extract(j, '$.rel_l2') IS NULL) AS all_zero
FROM d;
