-- fit_context.sql: will it fit?  With gguf_memory() (what llama.cpp
-- allocates: weights, KV cache, output and compute buffers), for each
-- model of a folder: the largest context of a list that fits a memory
-- budget, the same found by bisection in a recursive CTE, and the memory
-- of each quantization of one model at 8k and 32k tokens.  Here the budget
-- is 64 MiB, flash attention on, f16 cache, one sequence; the models are
-- the demo model and tiny-llama in F16, Q8_0 and Q4_0 (`make demo` makes
-- them).  For a real folder: replace the paths and say 24 * 1073741824.
-- The models come from weights_models(), each once (a split GGUF by its
-- part 1, which gguf_memory() reads with all its parts).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/fit_context.sql
.headers on
.mode column

-- 1. the largest context of a list that fits in 64 MiB
WITH models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'),
     contexts(tokens) AS (VALUES (4096), (8192), (16384), (32768), (65536), (131072)),
     need AS (
       SELECT models.file, tokens, sum(m.nbytes) AS nbytes
       FROM models, contexts, gguf_memory(models.file, tokens, 'f16', 'f16', 1, 512, 1) AS m
       GROUP BY models.file, tokens)
SELECT replace(file, 'build/', '') AS model, max(tokens) AS largest_context,
       printf('%.2f', max(nbytes) / 1048576.0) AS mib
FROM need WHERE nbytes <= 64 * 1048576
GROUP BY file ORDER BY file;

-- 2. the same by bisection: lo always fits, hi never does (contexts are
-- multiples of 256, as llama.cpp pads them)
WITH RECURSIVE
     models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'),
     search(file, lo, hi) AS (
       SELECT file, 256, 1048576 FROM models
       UNION ALL
       SELECT file,
              CASE WHEN (SELECT sum(nbytes) FROM gguf_memory(search.file, (lo + hi) / 512 * 256,
                                                             'f16', 'f16', 1, 512, 1)) <= 64 * 1048576
                   THEN (lo + hi) / 512 * 256 ELSE lo END,
              CASE WHEN (SELECT sum(nbytes) FROM gguf_memory(search.file, (lo + hi) / 512 * 256,
                                                             'f16', 'f16', 1, 512, 1)) <= 64 * 1048576
                   THEN hi ELSE (lo + hi) / 512 * 256 END
       FROM search WHERE hi - lo > 256)
SELECT replace(file, 'build/', '') AS model, lo AS largest_context
FROM search WHERE hi - lo <= 256 ORDER BY file;

-- 3. each quantization of one model at 8k and 32k tokens
SELECT replace(replace(w.model, 'build/arch/quants/tiny-llama-', ''), '.gguf', '') AS quant,
       c.tokens,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part = 'weights') / 1048576.0) AS weights_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part IN ('k_cache', 'v_cache')) / 1048576.0) AS kv_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part IN ('output', 'compute')) / 1048576.0) AS buffers_mib,
       printf('%.3f', sum(g.nbytes) / 1048576.0) AS total_mib
FROM weights_models('build/arch/quants') AS w,
     (SELECT 8192 AS tokens UNION ALL SELECT 32768) AS c,
     gguf_memory(w.model, c.tokens, 'f16', 'f16', 1, 512, 1) AS g
GROUP BY w.model, c.tokens ORDER BY c.tokens, sum(g.nbytes) FILTER (WHERE g.part = 'weights');
