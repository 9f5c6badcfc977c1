-- fit_context.sql: will it fit?  With gguf_fit() (the memory llama.cpp
-- keeps resident: the weights it reads from the mapped file, the repacked
-- ones, KV cache, output and compute buffers, added up, and whether that
-- fits a budget; the mapped span is shown apart), for each model of a
-- folder: the largest context of a list that fits a memory budget and the
-- largest that is not ruled out, the same found by bisection in a
-- recursive CTE, and the memory of each quantization of one model at 8k
-- and 32k tokens (gguf_memory()).  For llama (dense or MoE), mistral3,
-- qwen2, qwen2moe, qwen3, qwen3moe, granite, granitemoe, exaone, xverse,
-- internlm2, arcee, smollm3, starcoder2, orion, baichuan, gemma, gemma2,
-- gemma3, phi3, cohere2, deci, deepseek2 and mamba models (a split one with
-- all its parts) the planner gives llama.cpp's compute buffer exactly, so
-- gguf_fit() says 1 (fits) or 0 (does not); for its other architectures
-- it knows the caches and only a size the compute buffer cannot be below
-- (at_least), so it says 0 when the known parts and that size exceed the
-- budget and NULL (cannot say) otherwise; for an architecture it does not
-- know, NULL unless the weights alone exceed it.
-- Here the budget is 64 MiB, f16 cache, one sequence, flash attention
-- llama.cpp's 'auto', and the CPU an x86 one with AVX2 ('avx2': llama.cpp
-- repacks Q4_0 weights for it; say 'host' for this machine); the models
-- are the demo model, tiny-llama in F16, Q8_0 and Q4_0 (`make demo` makes
-- them), tiny-mamba (a state-space model: its state does not grow with
-- the context) and a model of an architecture
-- the planner does not know.  For a real folder: replace the paths and say
-- 24 * 1073741824.  The models come from weights_models(), each once (a
-- split GGUF by its part 1, which gguf_fit() reads with all its parts).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/fit_context.sql
.headers on
.mode column --wrap 100

-- 1. the largest context of a list that fits in 64 MiB (fits 1) and what
-- it needs, the largest not ruled out (fits 1 or NULL) and the smallest
-- ruled out (fits 0)
WITH models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'
       UNION ALL SELECT 'build/arch/tiny-mamba.gguf'
       UNION ALL SELECT 'build/arch/tiny-unknown-arch.gguf'),
     contexts(tokens) AS (VALUES (4096), (8192), (16384), (32768), (65536), (131072)),
     fit AS (
       SELECT models.file, tokens, f.nbytes, f.fits
       FROM models, contexts, gguf_fit(models.file, 64 * 1048576, tokens, 'f16', 'f16', 1, 512, 'auto', 'avx2') AS f
       WHERE f.part = 'total')
SELECT replace(file, 'build/', '') AS model, max(tokens) FILTER (WHERE fits = 1) AS fits,
       round(max(nbytes) FILTER (WHERE fits = 1) / 1048576.0, 2) AS needs_mib,
       max(tokens) FILTER (WHERE fits IS NOT 0) AS not_ruled_out,
       min(tokens) FILTER (WHERE fits = 0) AS ruled_out
FROM fit GROUP BY file ORDER BY file;

-- 2. the largest not ruled out, by bisection: lo is never ruled out, hi
-- always is (contexts are multiples of 256, as llama.cpp pads them); a
-- model ruled out at 256 tokens is not searched; fits says whether lo
-- fits (1) or cannot be said to (NULL)
WITH RECURSIVE
     models(file) AS (
       SELECT model FROM weights_models('build/arch/quants')
       UNION ALL SELECT 'build/demo/tiny-llama.gguf'
       UNION ALL SELECT 'build/arch/tiny-mamba.gguf'
       UNION ALL SELECT 'build/arch/tiny-unknown-arch.gguf'),
     search(file, lo, hi) AS (
       SELECT file, 256, 1048576 FROM models
       WHERE (SELECT fits IS NOT 0 FROM gguf_fit(models.file, 64 * 1048576, 256, 'f16', 'f16', 1, 512, 'auto', 'avx2')
              WHERE part = 'total')
       UNION ALL
       SELECT file,
              CASE WHEN (SELECT fits IS NOT 0 FROM gguf_fit(search.file, 64 * 1048576, (lo + hi) / 512 * 256,
                                                   'f16', 'f16', 1, 512, 'auto', 'avx2') WHERE part = 'total')
                   THEN (lo + hi) / 512 * 256 ELSE lo END,
              CASE WHEN (SELECT fits IS NOT 0 FROM gguf_fit(search.file, 64 * 1048576, (lo + hi) / 512 * 256,
                                                   'f16', 'f16', 1, 512, 'auto', 'avx2') WHERE part = 'total')
                   THEN hi ELSE (lo + hi) / 512 * 256 END
       FROM search WHERE hi - lo > 256)
SELECT replace(file, 'build/', '') AS model, lo AS not_ruled_out,
       (SELECT fits FROM gguf_fit(search.file, 64 * 1048576, lo, 'f16', 'f16', 1, 512, 'auto', 'avx2')
        WHERE part = 'total') AS fits
FROM search WHERE hi - lo <= 256 ORDER BY file;

-- 3. each quantization of one model at 8k and 32k tokens: Q4_0's weights
-- are repacked for the CPU, and the span of the file between the ones that
-- stay mapped is mapped too; the compute buffer is llama.cpp's, exactly
-- (llama's graph), and so is the total
SELECT replace(replace(w.model, 'build/arch/quants/tiny-llama-', ''), '.gguf', '') AS quant,
       c.tokens,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part = 'weights') / 1048576.0) AS weights_mib,
       printf('%.3f', coalesce(sum(g.nbytes) FILTER (WHERE g.part = 'repack'), 0) / 1048576.0) AS repack_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part IN ('k_cache', 'v_cache')) / 1048576.0) AS kv_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part = 'output') / 1048576.0) AS output_mib,
       printf('%.3f', sum(g.nbytes) FILTER (WHERE g.part = 'compute') / 1048576.0) AS compute_mib,
       printf('%.3f', sum(g.nbytes) / 1048576.0) AS total_mib
FROM weights_models('build/arch/quants') AS w,
     (SELECT 8192 AS tokens UNION ALL SELECT 32768) AS c,
     gguf_memory(w.model, c.tokens, 'f16', 'f16', 1, 512, 'auto', 'avx2') AS g
GROUP BY w.model, c.tokens ORDER BY c.tokens, sum(g.nbytes) FILTER (WHERE g.part = 'weights');
