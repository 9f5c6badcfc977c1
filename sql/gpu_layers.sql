-- gpu_layers.sql: will it fit on my GPU?  For each GGUF of a folder and a
-- card of 8, 12 or 24 GB (and, to see the search at work on these tiny
-- models, one of 64 MB), the most layers llama.cpp's CUDA build can
-- offload at 8192 tokens with 16 GB of RAM: gguf_fit() with settings as a
-- JSON object and no n_gpu_layers looks for them, from every layer (the
-- output layer counting as one, as llama.cpp counts "offloaded 33/33
-- layers") down, and answers with the first setting whose resident memory
-- fits both budgets: VRAM (the CUDA buffers in the driver's 2 MiB pages)
-- and RAM (what the process keeps in host memory; the mapped file's span
-- is shown apart by gguf_fit, not added).  gguf_fit never answers "fits"
-- for a part it cannot back: a model whose compute buffer it only bounds
-- shows fits NULL, with the reason in the 'answer' row.
-- The models are the demo folder's (`make demo`); the CPU is pinned to an
-- x86 one with AVX2 ('avx2') so that the figures are the same on every
-- machine: say 'host' for this one.  For a real folder: replace the path,
-- and the n_ctx you run at.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < sql/gpu_layers.sql
.headers on
.mode column

WITH cards(card, vram) AS (VALUES ('8 GB', 8 * 1073741824), ('12 GB', 12 * 1073741824),
                                  ('24 GB', 24 * 1073741824), ('64 MB', 64 * 1048576))
SELECT replace(w.model, 'build/demo/', '') AS model, cards.card,
       max(f.gpu_layers) || ' of ' || max(f.layers) AS layers_on_gpu,
       max(f.nbytes) FILTER (WHERE f.memory = 'vram') AS vram_bytes,
       max(f.nbytes) FILTER (WHERE f.memory = 'ram') AS ram_bytes,
       max(f.fits) FILTER (WHERE f.part = 'answer') AS fits
FROM weights_models('build/demo') AS w, cards,
     gguf_fit(w.model, json_object('vram', cards.vram, 'ram', 16 * 1073741824, 'n_ctx', 8192,
                                   'cpu', 'avx2')) AS f
WHERE w.format = 'gguf' AND w.error IS NULL AND f.part IN ('total', 'answer')
GROUP BY w.model, cards.card
ORDER BY w.model, cards.vram;

-- The answer for one model and card, with what each memory takes per part.
.mode column --wrap 110
SELECT memory, part, nbytes, fits, reason
FROM gguf_fit('build/demo/tiny-llama.gguf',
              json_object('vram', 64 * 1048576, 'ram', 16 * 1073741824, 'n_ctx', 8192, 'cpu', 'avx2'));
