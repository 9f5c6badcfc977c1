-- fit_context.sql: will it fit?  With gguf_fit() (what llama.cpp
-- allocates: weights, repacked weights, KV cache, output and compute
-- buffers, added up, and whether that fits a budget), for each model of a
-- folder: the largest context of a list that fits a memory budget, the same
-- found by bisection in a recursive CTE, and the memory of each
-- quantization of one model at 8k and 32k tokens (gguf_memory()).  Here the
-- budget is 64 MiB, f16 cache, one sequence, flash attention llama.cpp's
-- 'auto', and the CPU an x86 one with AVX2 ('avx2': llama.cpp repacks Q4_0
-- weights for it; say 'host' for this machine); the models are the demo
-- model, tiny-llama in F16, Q8_0 and Q4_0 (`make demo` makes them) and a
-- model of an architecture the planner does not know, which never fits:
-- its memory cannot be said (fits NULL, and the reason).  For a real folder:
-- replace the paths and say 24 * 1073741824.  The models come from
-- weights_models(), each once (a split GGUF by its part 1, which
-- gguf_fit() reads with all its parts).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/fit_context.sql
.headers on
.mode column --wrap 100

-- 1. the largest context of a list that fits in 64 MiB
WITH models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'
       UNION ALL SELECT 'build/arch/tiny-unknown-arch.gguf'),
     contexts(tokens) AS (VALUES (4096), (8192), (16384), (32768), (65536), (131072)),
     fit AS (
       SELECT models.file, tokens, f.nbytes, f.fits, f.reason
       FROM models, contexts, gguf_fit(models.file, 64 * 1048576, tokens, 'f16', 'f16', 1, 512, 'auto', 'avx2') AS f
       WHERE f.part = 'total')
SELECT replace(file, 'build/', '') AS model, max(tokens) FILTER (WHERE fits) AS largest_context,
       CASE WHEN max(fits) THEN printf('%.2f', max(nbytes) FILTER (WHERE fits) / 1048576.0) END AS mib,
       min(reason) FILTER (WHERE fits IS NULL) AS cannot_say
FROM fit GROUP BY file ORDER BY file;

-- 2. the same by bisection: lo always fits, hi never does (contexts are
-- multiples of 256, as llama.cpp pads them); a model that does not fit
-- 256 tokens, or whose memory cannot be said, is not searched
WITH RECURSIVE
     models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'
       UNION ALL SELECT 'build/arch/tiny-unknown-arch.gguf'),
     search(file, lo, hi) AS (
       SELECT file, 256, 1048576 FROM models
       WHERE (SELECT fits FROM gguf_fit(models.file, 64 * 1048576, 256, 'f16', 'f16', 1, 512, 'auto', 'avx2')
              WHERE part = 'total')
       UNION ALL
       SELECT file,
              CASE WHEN (SELECT fits FROM gguf_fit(search.file, 64 * 1048576, (lo + hi) / 512 * 256,
                                                   'f16', 'f16', 1, 512, 'auto', 'avx2') WHERE part = 'total')
                   THEN (lo + hi) / 512 * 256 ELSE lo END,
              CASE WHEN (SELECT fits FROM gguf_fit(search.file, 64 * 1048576, (lo + hi) / 512 * 256,
                                                   'f16', 'f16', 1, 512, 'auto', 'avx2') WHERE part = 'total')
                   THEN hi ELSE (lo + hi) / 512 * 256 END
       FROM search WHERE hi - lo > 256)
SELECT replace(file, 'build/', '') AS model, lo AS largest_context
FROM search WHERE hi - lo <= 256 ORDER BY file;

-- 3. each quantization of one model at 8k and 32k tokens: Q4_0's weights
-- are mapped from the file and repacked for the CPU besides
SELECT replace(replace(w.model, 'build/arch/quants/tiny-llama-', ''), '.gguf', '') AS quant,
       c.tokens,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part = 'weights') / 1048576.0) AS weights_mib,
       printf('%.3f', coalesce(sum(g.nbytes) FILTER (WHERE g.part = 'repack'), 0) / 1048576.0) AS repack_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part IN ('k_cache', 'v_cache')) / 1048576.0) AS kv_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part IN ('output', 'compute')) / 1048576.0) AS buffers_mib,
       printf('%.3f', sum(g.nbytes) / 1048576.0) AS total_mib
FROM weights_models('build/arch/quants') AS w,
     (SELECT 8192 AS tokens UNION ALL SELECT 32768) AS c,
     gguf_memory(w.model, c.tokens, 'f16', 'f16', 1, 512, 'auto', 'avx2') AS g
GROUP BY w.model, c.tokens ORDER BY c.tokens, sum(g.nbytes) FILTER (WHERE g.part = 'weights');
