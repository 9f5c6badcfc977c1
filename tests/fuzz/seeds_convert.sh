#!/bin/sh
# seeds_convert.sh CORPUS FIXTURES BUILD: seed inputs of fuzz_convert_config
# (tests/fuzz/README.md), written into CORPUS/fuzz_convert_config/: the
# config.json (and generation_config.json) of tests/gen_convert.py's
# checkpoints (BUILD/convert, when made) and of the converter's reference
# checkpoints (FIXTURES/../reference/convert, when there), each with the
# folder's name, under a few first bytes (architecture, output type,
# dtype) and a second byte of 0 (the shapes as config.json says) or not.
set -eu
corpus=$1/fuzz_convert_config
ref=$(dirname "$2")/reference/convert
build=$3
mkdir -p "$corpus"
sep='\377\376\375'
n=0
seed() { # seed DIR ARCH-INDEX
  dir=$1
  [ -f "$dir/config.json" ] || return 0
  for first in "$2" $(($2 + 8)) $(($2 + 16 + 64)) $(($2 + 24 + 128)); do
    for second in 0 3; do
      n=$((n + 1))
      {
        printf "\\$(printf %03o "$first")\\$(printf %03o "$second")"
        cat "$dir/config.json"
        printf "$sep"
        [ ! -f "$dir/generation_config.json" ] || cat "$dir/generation_config.json"
        printf "$sep%s" "$(basename "$dir")"
        [ "$second" = 0 ] || printf "${sep}Some-Model-7B-v1.5-Instruct"
      } > "$corpus/seed-$n"
    done
  done
}
# The harness's architecture index (fuzz_convert_config.c ARCHS).
for d in "$build"/convert/tiny-*; do
  case $d in
    *llama*) i=0 ;; *mistral*) i=1 ;; *qwen2*) i=2 ;; *qwen3*) i=3 ;;
    *gemma2*) i=5 ;; *gemma*) i=4 ;; *phi3*) i=6 ;; *) i=7 ;;
  esac
  seed "$d" $i
done
seed "$ref/hf/llama" 0
seed "$ref/hf/gemma" 4
seed "$build"/demo 0
