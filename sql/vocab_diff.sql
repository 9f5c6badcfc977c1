-- vocab_diff.sql: the vocabulary difference between two GGUF tokenizers,
-- read element by element with gguf_array() (no JSON built): tokens only in
-- one of them, and the same id mapped to another token.  Here: the demo's
-- llama (SentencePiece-style tokens) against its qwen2 relative (GPT-2-style):
-- both have 260 tokens, 4 of them differ (`make demo`, tests/gen_model.c).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/vocab_diff.sql
.headers on
.mode column

CREATE TEMP TABLE v1 AS
  SELECT idx, value AS token FROM gguf_array('build/demo/tiny-llama.gguf', 'tokenizer.ggml.tokens');
CREATE TEMP TABLE v2 AS
  SELECT idx, value AS token FROM gguf_array('build/demo/tiny-qwen2.gguf', 'tokenizer.ggml.tokens');

SELECT (SELECT count(*) FROM v1) AS tokens_llama, (SELECT count(*) FROM v2) AS tokens_qwen2,
       (SELECT count(*) FROM v1 WHERE token NOT IN (SELECT token FROM v2)) AS only_in_llama,
       (SELECT count(*) FROM v2 WHERE token NOT IN (SELECT token FROM v1)) AS only_in_qwen2,
       (SELECT count(*) FROM v1 JOIN v2 USING (idx) WHERE v1.token IS NOT v2.token) AS id_changed;

-- The ids whose token changed.
SELECT idx, v1.token AS llama, v2.token AS qwen2
FROM v1 JOIN v2 USING (idx) WHERE v1.token IS NOT v2.token ORDER BY idx;

-- Keys that one file has and the other does not, and scalar values that differ.
SELECT coalesce(a.key, b.key) AS key, a.value AS llama, b.value AS qwen2
FROM (SELECT key, value FROM gguf_metadata('build/demo/tiny-llama.gguf') WHERE type <> 'ARRAY') AS a
FULL JOIN (SELECT key, value FROM gguf_metadata('build/demo/tiny-qwen2.gguf') WHERE type <> 'ARRAY') AS b
  USING (key)
WHERE a.value IS NOT b.value
ORDER BY key;
