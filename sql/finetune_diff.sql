-- finetune_diff.sql: which tensors (and layers) a fine-tune changed most.
-- tensor_compare(path_a, name_a, path_b, name_b) decodes both tensors side by
-- side, whatever their dtypes and formats, and returns JSON with rel_l2 =
-- |b - a| / |a|, the relative size of the change: 0 for an untouched tensor,
-- a few thousandths for rounding to another dtype (BF16 to Q8_0 below), about
-- 1.4 (the square root of 2) for unrelated weights of the same scale, 1 for
-- a tensor doubled.  Sorting by it puts the tensors that moved most on top.
-- rel_l2 is null when |a| = 0 (an all-zero tensor).
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/finetune_diff.sql
.headers on
.mode column

-- 1. The demo's tiny llama against its fine-tune (`make demo`,
-- tests/gen_model.c): the same 21 tensors, two of layer 1 changed (v_proj
-- halved: rel_l2 0.5; down_proj doubled: rel_l2 1; the direction is kept,
-- so the cosine stays 1), the norms saved as F32 with the same values (0).
WITH d AS (
  SELECT name, tensor_compare('build/demo/tiny-llama.safetensors', name,
                              'build/demo/tiny-llama-finetuned.safetensors', name) AS j
  FROM tensors('build/demo/tiny-llama.safetensors'))
SELECT name, round(json_extract(j, '$.rel_l2'), 6) AS rel_l2,
       round(json_extract(j, '$.cosine'), 6) AS cosine,
       json_extract(j, '$.max_abs_diff') AS max_abs_diff
FROM d ORDER BY json_extract(j, '$.rel_l2') DESC, name LIMIT 4;

-- The same per layer (model.layers.N), with the most changed tensor of each;
-- layer NULL holds the tensors outside the layers.
WITH d AS (
  SELECT CASE WHEN name LIKE 'model.layers.%'
              THEN CAST(substr(name, 14, instr(substr(name, 14), '.') - 1) AS INTEGER) END AS layer,
         name,
         json_extract(tensor_compare('build/demo/tiny-llama.safetensors', name,
                                     'build/demo/tiny-llama-finetuned.safetensors', name),
                      '$.rel_l2') AS rel_l2
  FROM tensors('build/demo/tiny-llama.safetensors'))
SELECT layer, count(*) AS tensors, round(max(rel_l2), 6) AS max_rel_l2,
       (SELECT name FROM d AS e WHERE e.layer IS d.layer ORDER BY e.rel_l2 DESC, e.name LIMIT 1)
         AS most_changed,
       round(avg(rel_l2), 6) AS mean_rel_l2
FROM d GROUP BY layer ORDER BY layer;

-- 2. The same checkpoint (BF16) against its Q8_0 GGUF conversion, paired
-- on tensors()' gguf_name (the llama.cpp name of each Hugging Face tensor,
-- as in safetensors_vs_gguf.sql), sorted by rel_l2.  Every tensor differs by
-- rounding only (rel_l2 about 0.004: BF16 and Q8_0 each keep 8 bits or so).
-- attn_q and attn_k are stored with their rows permuted (llama.cpp's
-- converter interleaves rotary pairs); tensor_compare() undoes that by
-- itself here (quantization_error.sql shows them compared as stored).
WITH d AS (
  SELECT s.gguf_name, tensor_compare(s.file, s.name, g.file, g.name) AS j
  FROM tensors('build/demo/tiny-llama.safetensors') AS s
  JOIN tensors('build/demo/tiny-llama.gguf') AS g ON g.name = s.gguf_name)
SELECT gguf_name, round(json_extract(j, '$.rel_l2'), 6) AS rel_l2,
       round(json_extract(j, '$.cosine'), 6) AS cosine
FROM d ORDER BY json_extract(j, '$.rel_l2') DESC, gguf_name;
