-- gguf_overview.sql: what a GGUF file is: architecture, name, context length,
-- size of the model, from its metadata (the keys are prefixed by the
-- architecture, e.g. llama.context_length).  Here: the demo's tiny llama
-- (`make demo`, tests/gen_model.c).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/gguf_overview.sql
.headers on
.mode column

WITH file(p) AS (VALUES ('build/demo/tiny-llama.gguf')),
     meta AS (SELECT m.key, m.value FROM file, gguf_metadata(file.p) AS m),
     arch AS (SELECT value AS a FROM meta WHERE key = 'general.architecture')
SELECT (SELECT value FROM meta WHERE key = 'general.name') AS name,
       arch.a AS architecture,
       (SELECT value FROM meta WHERE key = arch.a || '.context_length') AS context_length,
       (SELECT value FROM meta WHERE key = arch.a || '.block_count') AS layers,
       (SELECT value FROM meta WHERE key = arch.a || '.embedding_length') AS hidden,
       (SELECT count(*) FROM file, gguf_array(file.p, 'tokenizer.ggml.tokens')) AS vocab,
       (SELECT json_extract(gguf_info(p), '$.version') FROM file) AS gguf_version
FROM arch;
