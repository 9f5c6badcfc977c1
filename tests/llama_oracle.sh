#!/bin/sh
# llama_oracle.sh [OUT]: ask llama.cpp itself how much memory it allocates
# for the tiny models of tests/gen_arch_gguf.py, keep its figures in
# build/memory_oracle.tsv (one line per setting) and write them, through
# tests/llama_oracle_test.py, as the sqllogictest file OUT (default build/memory_oracle.test) that checks
# gguf_memory() against them.  tests/memory_oracle.test is this file,
# checked in; with --check, the script re-derives it and fails when llama.cpp
# now says something else (run from the repository root):
#
#   sh tests/llama_oracle.sh --check
#
# llama.cpp comes from npm: node-llama-cpp $version and its prebuilt CPU
# build @node-llama-cpp/linux-x64 (about 85 MB), installed once into
# build/llama.  Skipped, with the reason, when node or npm is missing, the
# registry cannot be reached or the machine is not linux-x64.  Last line:
# "llama_oracle: N settings checked" or "llama_oracle: skipped: REASON".
set -u
check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
out=${1:-build/memory_oracle.test}

name=llama_oracle
. tests/llama_install.sh
cp tests/llama_oracle.mjs "$dir/llama_oracle.mjs"
/usr/bin/python3 tests/gen_arch_gguf.py build/arch || exit 1

# The settings: n_ctx as llama.cpp gets it (all sequences together),
# sequences, flash attention (auto, 1, 0), K and V types.  Besides plain
# ones: flash attention's default (auto), several sequences in a small
# context (llama.cpp gives each stream at least 256 cells), and settings
# llama.cpp refuses on some models: a quantized V without flash attention,
# a quantized K whose block does not divide the head (16 wide in most tiny
# models, 32 in gemma's and qwen3moe's), K and V types that differ on an
# MLA model (deepseek2), more than 256 sequences.  On the wide models
# (heads 64 wide) the quantized caches are accepted, and llama.cpp rotates
# them with Hadamard matrices, which the planner's graph has too.
settings_all="2048,1,0,f16,f16 1000,1,0,f16,f16 3000,2,1,f16,f16 2100,3,0,f32,f32 2400,4,1,f16,f16 8192,1,1,f16,f16"
settings_all="$settings_all 2048,1,auto,f16,f16 300,3,auto,f16,f16 512,3,0,f16,f16 256,2,auto,f16,f16"
settings_all="$settings_all 4096,1,1,q8_0,q8_0 2100,3,1,q4_0,q8_0 2048,1,auto,q8_0,f16 2048,1,auto,f16,q8_0"
settings_all="$settings_all 2048,1,0,f16,q8_0 4096,257,auto,f16,f16"
# The demo model (make demo) is a Q8_0 llama; make test builds it first.
[ -f build/demo/tiny-llama.gguf ] || make -s build/demo/.stamp >/dev/null || exit 1
for arch in llama qwen2 qwen2moe qwen3 qwen3moe gemma gemma2 gemma3 cohere2 deci phi3 deepseek2 mamba \
    mistral3 granite exaone granitemoe granitemoe-shared xverse internlm2 arcee smollm3 starcoder2 \
    orion baichuan baichuan-32 llama-wide qwen2-wide qwen2-wide-Q4_0 demo quants/tiny-llama-F16 \
    quants/tiny-llama-Q8_0 quants/tiny-llama-Q4_0; do
  settings=$settings_all
  f=build/arch/tiny-$arch.gguf
  case $arch in
  demo)
    f=build/demo/tiny-llama.gguf
    settings="2048,1,0,f16,f16 2048,1,1,f16,f16 32768,1,1,f16,f16 2048,1,auto,f16,f16"
    ;;
  qwen2-wide-Q4_0)
    # a tied output repacked as a copy beside the mapped embeddings
    settings="2048,1,auto,f16,f16 2048,1,0,f16,f16"
    ;;
  quants/*)
    # the weights llama.cpp repacks for the CPU (CPU_REPACK): Q4_0 on x86
    f=build/arch/$arch.gguf
    settings="2048,1,auto,f16,f16 2048,1,0,f16,f16"
    ;;
  esac
  lines=$(cd "$dir" && node llama_oracle.mjs "../../$f" $settings 2>"../llama_oracle.err") || {
    cat build/llama_oracle.err >&2
    echo "llama_oracle: FAILED: llama.cpp on $f" >&2
    exit 1
  }
  echo "$lines" | sed "s|^|$f\t|"
done > build/memory_oracle.tsv || exit 1
/usr/bin/python3 tests/llama_oracle_test.py "$version" < build/memory_oracle.tsv > "$out.tmp" || exit 1
mv "$out.tmp" "$out"
n=$(wc -l < build/memory_oracle.tsv)
if [ $check = 1 ]; then
  if ! diff -u tests/memory_oracle.test "$out"; then
    echo "llama_oracle: FAILED: llama.cpp's figures differ from tests/memory_oracle.test"
    exit 1
  fi
fi
echo "llama_oracle: $n settings checked"
