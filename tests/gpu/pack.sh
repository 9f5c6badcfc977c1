#!/bin/sh
# pack.sh: make .gpu/ (lib.tar.xz, models.tar.xz) for tests/gpu/run.sh, on a
# linux-x64 machine with npm, gcc and git, from the repository root.
# Needs the npm registry; ../shared/reference/gpu-memory for two headers.
set -eu
v=3.22.1
tmp=$(mktemp -d)
(cd "$tmp" && npm pack -q "@node-llama-cpp/linux-x64-cuda@$v" "node-llama-cpp@$v" >/dev/null &&
  tar xzf node-llama-cpp-linux-x64-cuda-$v.tgz && mkdir nlc && tar xzf node-llama-cpp-$v.tgz -C nlc &&
  git clone -q nlc/package/llama/gitRelease.bundle llama.cpp)
b=$tmp/package/bins/linux-x64-cuda
mkdir -p "$tmp/lib" .gpu
cp $b/libllama.cuda.v0.5.0.so $b/libggml.cuda.v0.5.0.so $b/libggml-base.so "$tmp/lib/"
# every CPU variant but sapphirerapids (its AMX buffer type: tests/llama_install.sh)
for f in $b/libggml-cpu-*.so; do case $f in *sapphirerapids*) ;; *) cp "$f" "$tmp/lib/" ;; esac; done
/usr/bin/python3 tests/gpu/strip_fatbin.py $b/libggml-cuda.so "$tmp/lib/libggml-cuda.so" 90
gcc -O1 -Wall -Wextra -I"$tmp/llama.cpp/include" -I"$tmp/llama.cpp/ggml/include" -o "$tmp/lib/gpu_probe" \
  tests/gpu/gpu_probe.c -L"$tmp/lib" -l:libllama.cuda.v0.5.0.so -l:libggml.cuda.v0.5.0.so -l:libggml-base.so \
  -ldl -Wl,-rpath,'$ORIGIN'
tar cf - -C "$tmp" lib | xz -T2 -6 > .gpu/lib.tar.xz
m=../shared/reference/gpu-memory/models
mkdir -p "$tmp/models" && cp $m/llama3-8b-q4km-shape.gguf $m/llama.gguf $m/sizes.json "$tmp/models/"
tar cf - -C "$tmp" models | xz -6 > .gpu/models.tar.xz
rm -rf "$tmp"
ls -la .gpu
