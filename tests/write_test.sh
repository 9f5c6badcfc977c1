#!/bin/sh
# write_test.sh WRITE_TEST: run the header encoders' unit tests on every
# generated file, and on the fixtures when they are there (the sharded
# checkpoint and two single files were written by the safetensors crate:
# their headers must come out byte for byte).
set -e
t=$1
F=${FIXTURES:-../shared/fixtures}
set -- build/testdata/gguf/*.gguf build/testdata/safetensors/*.safetensors build/demo/*.gguf \
  build/demo/*.safetensors build/arch/*.gguf
if [ -d "$F" ]; then
  set -- "$@" "$F"/gguf/*.gguf --crate "$F"/safetensors/sharded/*.safetensors \
    "$F"/safetensors/burn_boolean.safetensors "$F"/safetensors/candle_whisper_mel_filters.safetensors
else
  echo "write_test: $F absent: the crate's headers are not compared (skipped)"
fi
"$t" "$@" > build/write_test.log || { cat build/write_test.log; exit 1; }
tail -1 build/write_test.log
