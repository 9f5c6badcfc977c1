#!/bin/sh
# seeds.sh CORPUS DATA [ARCH]: seed inputs of the fuzz targets that take no
# whole file (fuzz_decode, fuzz_report, fuzz_hf_names, fuzz_paths_index,
# fuzz_hf_config, fuzz_memory, fuzz_paths_names, fuzz_settings), written into
# CORPUS/<target>/.  DATA is a file whose bytes become tensor bytes (a
# generated model); ARCH the folder of tests/gen_arch_gguf.py's models.  Then every tests/fuzz/regressions/<target>-* file is
# added to its target's corpus.
set -eu
corpus=$1
data=$2
dir=$(dirname "$0")
mkdir -p "$corpus/fuzz_decode" "$corpus/fuzz_report" "$corpus/fuzz_hf_names"

# fuzz_decode: every codec of the tables (22 safetensors dtypes, 43 ggml
# ids in both byte orders), a slice from 5 of 300 values, tensor bytes from
# DATA; one plain and one repeated into several decode steps.
body=$corpus/fuzz_decode/.body
tail -c 300 "$data" > "$body"
for f in 0 1 2; do
  n=43
  [ $f -eq 0 ] && n=22
  t=0
  while [ $t -lt $n ]; do
    for flags in 0 14; do
      o=$corpus/fuzz_decode/seed-$f-$t-$flags
      printf "\\$(printf %03o $f)\\$(printf %03o $t)\\005\\000\\000\\000\\054\\001\\000\\000\\100\\000\\$(printf %03o $flags)" > "$o"
      cat "$body" >> "$o"
    done
    t=$((t + 1))
  done
done
rm -f "$body"

# fuzz_report: names of both schemes, hostile ones, values.
r=$corpus/fuzz_report
printf '\041\000\000\000\000\000\100\040\003' > "$r/seed-names"
head -c 128 /dev/zero >> "$r/seed-names"
printf 'model.layers.3.self_attn.q_proj.weight\000blk.3.attn_q.weight\000model.embed_tokens.weight\000lm_head.weight\000<script>alert("x")</script>\000a&b'"'"'c\000' >> "$r/seed-names"
printf '\063\000\000\000\000\000\000\100\040' > "$r/seed-values"
printf '\000\000\000\000\000\000\360\077\000\000\000\000\000\000\000\300\000\000\000\000\000\000\370\177' >> "$r/seed-values"
printf 'model.layers.0.mlp.down_proj.weight\000output_norm.weight' >> "$r/seed-values"

# fuzz_hf_names: repo folder names and a path.
h=$corpus/fuzz_hf_names
printf '\040models--org--name\000snapshots/abc/model.safetensors' > "$h/seed-model"
printf '\000datasets--a--b--c\000x' > "$h/seed-dataset"
printf '\377spaces--x\000/' > "$h/seed-space"
printf '\010models--\303\251\377"\\\000\001' > "$h/seed-bytes"

# fuzz_paths_index: an index of the target's two shards (the generated
# and fixture indexes are added by the Makefile).
mkdir -p "$corpus/fuzz_paths_index"
printf '{"metadata":{"total_size":8},"weight_map":{"t":"model-00001-of-00002.safetensors","u":"sub/model-00002-of-00002.safetensors","v":"model-00001-of-00002.safetensors"}}' \
  > "$corpus/fuzz_paths_index/seed-two-shards"
printf '{"weight_map":{"t":"sub/../model-00001-of-00002.safetensors"}}' > "$corpus/fuzz_paths_index/seed-dotdot"

# fuzz_hf_config: a multimodal config (nested objects, arrays, escapes,
# numbers written every way); the Makefile adds the demo's config.json.
mkdir -p "$corpus/fuzz_hf_config"
printf '{"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3","text_config":{"hidden_size":2560,"rope_scaling":{"factor":8.0,"rope_type":"linear"},"layer_types":["sliding_attention","full_attention"]},"vision_config":{},"eos_token_id":[1,106],"q":null,"t":true,"n":-1.5e-3,"s":"caf\\u00e9 \\"x\\"\\ud83d\\ude00"}' \
  > "$corpus/fuzz_hf_config/seed-gemma3"
printf '{\n  "architectures": [\n    "Qwen2ForCausalLM"\n  ],\n  "rope_scaling": null,\n  "torch_dtype": "bfloat16"\n}\n' \
  > "$corpus/fuzz_hf_config/seed-qwen2"

# fuzz_paths_names: a part number byte, then split-GGUF names and others.
p=$corpus/fuzz_paths_names
mkdir -p "$p"
printf '\002dir/model-00001-of-00003.gguf' > "$p/seed-split"
printf '\007/m/x-99999-of-99999.gguf' > "$p/seed-split-max"
printf '\001a-00002-of-00001.gguf' > "$p/seed-split-bad"
printf '\003models/m/model-00001-of-00002.safetensors' > "$p/seed-shard"
printf '\004dir/**' > "$p/seed-walk"
printf '\005a/model.safetensors.index.json' > "$p/seed-index"

# fuzz_paths_arg: a format byte, a home length (then home), the argument,
# over the tree of fuzz_paths_arg.c.
p=$corpus/fuzz_paths_arg
mkdir -p "$p"
i=0
for a in '**' 'sub/**' '/**' 'sub/deeper/self/**' 'emp/**' 'x.gguf/**' 'nowhere/**' '*.gguf' \
  '*' 'sub/*' '*/*' '[[]x].gguf' 'q[?].gguf' 'g[1]/*' 'g[[]1]/*' '*.json' 'm*' 'sub' 'sub/' \
  'emp' '.' '~' '~/sub' '~/*.gguf' '~/**' 's-00001-of-00002.gguf' 't-00002-of-00003.gguf' \
  'm.safetensors.index.json' 'sub/c.json' 'plain.json' 'fifo' 'dang.gguf' 'link.gguf' \
  'missing.gguf' 'missing*' 'hf://org/repo' 'HTTP://x/y.gguf'; do
  i=$((i + 1))
  printf '\000\000%s' "$a" > "$p/seed-$i"
done
printf '\001\003abc~/x.gguf' > "$p/seed-home"
printf '\002\000~' > "$p/seed-home-empty"

# fuzz_memory: 20 bytes of settings (see fuzz_memory.c) and the first 16 KB
# (the header) of every architecture's model: llama.cpp's defaults (every
# layer on the GPU beside, a 24 GiB VRAM budget), and 4096 tokens of Q8_0
# cache, flash attention, 2 sequences, n_ubatch 256 (2 layers on a
# compute capability 8.9 GPU, swa_full, 1 GiB of VRAM), and 2048 tokens on
# a CPU with AMX.
mkdir -p "$corpus/fuzz_memory"
if [ -n "${3:-}" ]; then
  for f in $(find "$3" -name '*.gguf' | sort); do
    o=$corpus/fuzz_memory/seed-$(echo "${f#$3/}" | tr / _)
    printf '\002\000\000\000\000\000\001\001\001\000\000\000\000\002\000\000\003\377\000\140' > "$o-default"
    head -c 16368 "$f" >> "$o-default"
    printf '\001\000\000\020\000\000\010\010\002\000\000\000\000\001\000\000\012\002\000\004' > "$o-q8"
    head -c 16368 "$f" >> "$o-q8"
    printf '\040\000\000\010\000\000\001\001\001\000\000\000\000\002\000\000\003\377\000\140' > "$o-amx"
    head -c 16368 "$f" >> "$o-amx"
  done
fi

# fuzz_settings: the settings of the queries as text (first byte
# odd), and a written object (first byte even; 4 bytes an entry: n_ctx
# 8, type_k "Q8_0", n_gpu_layers 131, op_offload true; see
# fuzz_settings.c).
mkdir -p "$corpus/fuzz_settings"
printf '\001{"n_ctx": 32768, "n_gpu_layers": 20, "gpu": "cuda"}' > "$corpus/fuzz_settings/layers"
printf '\001{"vram": 12884901888, "ram": 17179869184, "n_ctx": 32768, "cuda_cc": "8.9"}' \
  > "$corpus/fuzz_settings/budgets"
printf '\000\000\000\010\000\003\003\003\000\010\000\203\000\012\004\000\000' \
  > "$corpus/fuzz_settings/written"

# Findings kept as regression inputs.
for f in "$dir"/regressions/*; do
  [ -f "$f" ] || continue
  t=$(basename "$f" | cut -d- -f1)
  mkdir -p "$corpus/fuzz_$t"
  cp "$f" "$corpus/fuzz_$t/"
done
