-- diff_checkpoints.sql: what changed between two checkpoints: tensors added,
-- removed, with another dtype or shape, and with other bytes (compared by
-- their XXH3-128 hash, without loading either model).  Either side may be a
-- file, a folder, a glob or a sharded index.
-- Here: a single-file checkpoint against the sharded copy of it (6 shards
-- and an index), which should hold the same 36 tensors, byte for byte.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/diff_checkpoints.sql
-- (a test: this is sql/diff_checkpoints.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

CREATE TEMP TABLE a AS
  SELECT name, dtype, shape, tensor_hash(file, name) AS hash
  FROM safetensors('../shared/fixtures/safetensors/jl_torch_all_dtypes_with_metadata.safetensors');
CREATE TEMP TABLE b AS
  SELECT name, dtype, shape, tensor_hash(file, name) AS hash
  FROM safetensors('../shared/fixtures/safetensors/sharded/model.safetensors.index.json');

WITH diff AS (
  SELECT name, 'removed' AS change FROM a WHERE name NOT IN (SELECT name FROM b)
  UNION ALL
  SELECT name, 'added' FROM b WHERE name NOT IN (SELECT name FROM a)
  UNION ALL
  SELECT a.name, CASE WHEN a.dtype <> b.dtype THEN 'dtype ' || a.dtype || ' -> ' || b.dtype
                      WHEN a.shape <> b.shape THEN 'shape ' || a.shape || ' -> ' || b.shape
                      WHEN a.hash <> b.hash THEN 'bytes'
                      ELSE 'same' END
  FROM a JOIN b USING (name))
SELECT change, count(*) AS tensors FROM diff GROUP BY change ORDER BY change;

-- The tensors that differ, if any.
SELECT a.name, a.dtype, b.dtype AS new_dtype, a.shape, b.shape AS new_shape
FROM a JOIN b USING (name) WHERE a.hash <> b.hash ORDER BY a.name;
