#!/bin/sh
# llama_install.sh: sourced by the scripts that ask llama.cpp itself
# (tests/llama_oracle.sh, tests/write_others_test.sh), with $name set to the
# caller's name for its messages.  Installs node-llama-cpp $version and its
# prebuilt CPU build @node-llama-cpp/linux-x64 (about 85 MB) once into
# $dir (build/llama); ends the caller with "$name: skipped: REASON" (status 0)
# when node or npm is missing, the registry cannot be reached or the machine
# is not linux-x64.
version=3.22.1
dir=build/llama
for tool in node npm /usr/bin/python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "$name: skipped: $tool not found"
    exit 0
  fi
done
if [ "$(uname -sm)" != "Linux x86_64" ]; then
  echo "$name: skipped: the prebuilt llama.cpp is for linux-x64, not $(uname -sm)"
  exit 0
fi
if ! (cd "$dir" 2>/dev/null && node -e "
    if (require('node-llama-cpp/package.json').version !== '$version') process.exit(1);
    require.resolve('@node-llama-cpp/linux-x64/package.json');" >/dev/null 2>&1); then
  mkdir -p "$dir"
  echo '{"name":"llama-oracle","private":true}' > "$dir/package.json"
  if ! (cd "$dir" && npm install --omit=optional --ignore-scripts --no-audit --no-fund \
        "node-llama-cpp@$version" "@node-llama-cpp/linux-x64@$version") > "$dir/npm.log" 2>&1; then
    if grep -q -E 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network' "$dir/npm.log"; then
      echo "$name: skipped: the npm registry cannot be reached ($(grep -m1 -o -E 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network' "$dir/npm.log"))"
      exit 0
    fi
    cat "$dir/npm.log"
    echo "$name: FAILED: npm install node-llama-cpp@$version"
    exit 1
  fi
fi
# The prebuilt llama.cpp loads the CPU variant that best fits the machine.
# On a CPU with AMX that is libggml-cpu-sapphirerapids.so, whose AMX buffer
# type aborts llama.cpp on deepseek2's graph (GGML_ASSERT(*cur_backend_id !=
# -1), ggml/src/ggml-backend.cpp:1294 of node-llama-cpp 3.22.1's llama.cpp)
# and holds weights in a buffer of its own.  Our private copy keeps it
# aside, in $dir/amx, so that llama.cpp takes the next variant (AVX-512
# without AMX) and gives the same figures on every x86-64 machine;
# tests/llama_amx_test.sh puts it back for its own run.
amx=$dir/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-cpu-sapphirerapids.so
if [ -f "$amx" ]; then
  mkdir -p "$dir/amx"
  mv "$amx" "$dir/amx/"
fi
