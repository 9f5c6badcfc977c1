#!/bin/sh
# llama_amx_test.sh MODULE: gguf_memory(..., cpu 'amx') against llama.cpp's
# CPU variant with AMX (node-llama-cpp's libggml-cpu-sapphirerapids.so,
# which tests/llama_install.sh keeps aside in build/llama/amx so that the
# other oracles run the AVX-512 variant): per model, the model buffers
# (AMX, CPU_Mapped, CPU_REPACK) and the compute buffer llama.cpp logs, each
# equal to 0.005 MiB, and deepseek2, whose graph llama.cpp cannot schedule
# with its AMX buffer (it aborts), an error of the planner.  Skipped, with
# the reason, where llama.cpp cannot be installed or the CPU has no AMX.
set -u
name=llama_amx
. tests/llama_install.sh
module=$1
bins=$dir/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
if ! grep -q -w amx_int8 /proc/cpuinfo || ! grep -q -w avx512_vnni /proc/cpuinfo; then
  echo "llama_amx: skipped: the CPU has no AMX-INT8 and AVX512-VNNI"
  exit 0
fi
[ -f "$dir/amx/libggml-cpu-sapphirerapids.so" ] || {
  echo "llama_amx: skipped: no libggml-cpu-sapphirerapids.so in this node-llama-cpp"
  exit 0
}
cp tests/llama_amx.mjs "$dir/llama_amx.mjs"
cp "$dir/amx/libggml-cpu-sapphirerapids.so" "$bins/"
trap 'rm -f "$bins/libggml-cpu-sapphirerapids.so"' EXIT
pass=0 fail=0
for f in build/arch/quants/tiny-llama-F16.gguf build/arch/quants/tiny-llama-Q8_0.gguf \
    build/arch/quants/tiny-llama-Q4_0.gguf build/arch/tiny-llama-wide.gguf build/arch/tiny-qwen2-wide.gguf \
    build/arch/tiny-qwen2-wide-Q4_0.gguf build/arch/tiny-gemma2.gguf build/arch/tiny-qwen3moe.gguf \
    build/arch/tiny-mamba.gguf build/demo/tiny-llama.gguf build/arch/tiny-deepseek2.gguf; do
  theirs=$(cd "$dir" && exec sh -c 'node llama_amx.mjs "$1" 2>/dev/null' sh "../../$f" 2>/dev/null)
  rc=$?
  if ! printf '%s\n' "$theirs" | grep -q '^variant AMX_INT8'; then
    echo "llama_amx: skipped: llama.cpp did not load its AMX variant"
    exit 0
  fi
  if [ $rc -ne 0 ]; then
    # llama.cpp aborted: the planner must refuse the setting
    ours=$(sqlite3 -cmd ".load $module" :memory: \
      "SELECT count(*) FROM gguf_memory('$f', 2048, 'f16', 'f16', 1, 512, 'off', 'amx')" 2>&1)
    case $ours in
    *"in its AMX buffer"*) pass=$((pass + 1)) ;;
    *) echo "FAILED: $f: llama.cpp aborted, the planner said: $ours"; fail=$((fail + 1)) ;;
    esac
    continue
  fi
  theirs=$(printf '%s\n' "$theirs" | grep -v '^variant' | sort)
  ours=$(sqlite3 -cmd ".load $module" :memory: "
    SELECT CASE WHEN part = 'compute' THEN 'compute' ELSE device END || ' ' ||
           printf('%.2f', sum(nbytes) / 1048576.0)
    FROM gguf_memory('$f', 2048, 'f16', 'f16', 1, 512, 'off', 'amx')
    WHERE part IN ('weights', 'repack', 'compute')
    GROUP BY part = 'compute', device" 2>&1 | sort)
  if [ "$theirs" = "$ours" ]; then
    pass=$((pass + 1))
  else
    echo "FAILED: $f: llama.cpp: $(echo $theirs); the planner: $(echo $ours)"
    fail=$((fail + 1))
  fi
done
echo "llama_amx: $pass passed, $fail failed"
[ $fail -eq 0 ]
