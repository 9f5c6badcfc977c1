-- histogram.sql: the distribution of a tensor's values as a text bar chart,
-- from tensor_histogram(path, name [, bins [, lo, hi]]), which decodes the
-- tensor in one pass (after a first pass for its finite min and max when no
-- range is given) and returns one row per bin: bin, lo, hi, count, and on
-- every row the counts of NaN, infinite and out-of-range values.  Bins are
-- [lo, hi) except the last, which also holds hi.  Here: the demo's tiny
-- llama (`make demo`, tests/gen_model.c): its weights are uniform
-- pseudo-random numbers, its norms near 1.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/histogram.sql
.headers off
.mode list

-- A norm's 64 values in 8 bins; each bar is count / (largest count) x 40
-- blocks (replace(hex(zeroblob(n)), '00', x) repeats x n times).
SELECT printf('[%.4f, %.4f%s %3d %s', lo, hi, iif(bin = 7, ']', ')'), count,
              replace(hex(zeroblob(count * 40 / max(count) OVER ())), '00', '█'))
FROM tensor_histogram('build/demo/tiny-llama.safetensors',
                      'model.layers.0.input_layernorm.weight', 8);

SELECT '';

-- The embedding, BF16 in the checkpoint and Q8_0 in its GGUF conversion, over
-- the same range (the checkpoint's min .. max, passed as lo and hi) in 10
-- bins: quantizing moves a few values across bin edges and none outside.
WITH st AS (SELECT min, max FROM tensor_stats('build/demo/tiny-llama.safetensors',
                                               'model.embed_tokens.weight')),
     a AS (SELECT h.* FROM st, tensor_histogram('build/demo/tiny-llama.safetensors',
                                                'model.embed_tokens.weight', 10, st.min, st.max) h),
     b AS (SELECT h.* FROM st, tensor_histogram('build/demo/tiny-llama.gguf',
                                                'token_embd.weight', 10, st.min, st.max) h)
SELECT printf('%+.3f %5d %-!20s %5d %s', a.lo, a.count,
              replace(hex(zeroblob(a.count / 100)), '00', '█'), b.count,
              replace(hex(zeroblob(b.count / 100)), '00', '█'))
FROM a JOIN b USING (bin) ORDER BY bin;

SELECT printf('outside the range: BF16 %d, Q8_0 %d; NaN %d, infinite %d',
              (SELECT max(below + above) FROM tensor_histogram('build/demo/tiny-llama.safetensors',
                                                               'model.embed_tokens.weight', 10, -0.125, 0.125)),
              (SELECT max(below + above) FROM tensor_histogram('build/demo/tiny-llama.gguf',
                                                               'token_embd.weight', 10, -0.125, 0.125)),
              (SELECT max(nan) FROM tensor_histogram('build/demo/tiny-llama.gguf', 'token_embd.weight')),
              (SELECT max(inf) FROM tensor_histogram('build/demo/tiny-llama.gguf', 'token_embd.weight')));
