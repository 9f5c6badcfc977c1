-- vocab_diff.sql: the vocabulary difference between two GGUF tokenizers,
-- read element by element with gguf_array() (no JSON built): tokens only in
-- one of them, and the same id mapped to another token.  Here: the first
-- GGUF release of the llama vocabulary (GGUF v1, 2023) against today's.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/vocab_diff.sql
-- (a test: this is sql/vocab_diff.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

CREATE TEMP TABLE v1 AS
  SELECT idx, value AS token FROM gguf_array('../shared/fixtures/gguf/ggml-vocab-llama-v1.gguf', 'tokenizer.ggml.tokens');
CREATE TEMP TABLE v3 AS
  SELECT idx, value AS token FROM gguf_array('../shared/fixtures/gguf/ggml-vocab-llama-spm.gguf', 'tokenizer.ggml.tokens');

SELECT (SELECT count(*) FROM v1) AS tokens_v1, (SELECT count(*) FROM v3) AS tokens_v3,
       (SELECT count(*) FROM v1 WHERE token NOT IN (SELECT token FROM v3)) AS only_in_v1,
       (SELECT count(*) FROM v3 WHERE token NOT IN (SELECT token FROM v1)) AS only_in_v3,
       (SELECT count(*) FROM v1 JOIN v3 USING (idx) WHERE v1.token IS NOT v3.token) AS id_changed;

-- Keys that one file has and the other does not, and scalar values that differ.
SELECT coalesce(a.key, b.key) AS key, a.value AS v1, b.value AS v3
FROM (SELECT key, value FROM gguf_metadata('../shared/fixtures/gguf/ggml-vocab-llama-v1.gguf') WHERE type <> 'ARRAY') AS a
FULL JOIN (SELECT key, value FROM gguf_metadata('../shared/fixtures/gguf/ggml-vocab-llama-spm.gguf') WHERE type <> 'ARRAY') AS b
  USING (key)
WHERE a.value IS NOT b.value
ORDER BY key;
