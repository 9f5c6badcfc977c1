#!/bin/bash
# run.sh: the measurement behind tests/gpu/records.jsonl, on a machine with
# an NVIDIA GPU, from the repository root.  .gpu/lib.tar.xz holds
# node-llama-cpp 3.22.1's CUDA build of llama.cpp (@node-llama-cpp/linux-x64-cuda:
# libllama, libggml, libggml-base, the CPU variants but sapphirerapids, and
# libggml-cuda.so with only its compute_90 PTX kept) and gpu_probe built
# against llama.cpp de3ff815's headers; .gpu/models.tar.xz two headers of
# ../shared/reference/gpu-memory.  Writes $OUT/records.jsonl.xz and
# $OUT/run.log.  Settings: tests/gpu/jobs.py.
set -u
OUT=${OUT:-/tmp/out}
start=$(date +%s)
budget=${BUDGET:-380}
log=$OUT/run.log
exec > >(tee -a "$log") 2>&1
work=/tmp/gpu
mkdir -p $work && tar xJf .gpu/lib.tar.xz -C $work && tar xJf .gpu/models.tar.xz -C $work || exit 1
cudart=$(dirname "$(find / -name 'libcudart.so.13*' -not -path '/proc/*' 2>/dev/null | head -1)")
cublas=$(dirname "$(find / -name 'libcublas.so.13*' -not -path '/proc/*' 2>/dev/null | head -1)")
echo "cudart in $cudart, cublas in $cublas"
export LD_LIBRARY_PATH=$work/lib:$cudart:$cublas:${LD_LIBRARY_PATH:-}
export CUDA_MODULE_LOADING=LAZY CUDA_CACHE_MAXSIZE=4294967296
nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv
lscpu | grep -E 'Model name|Flags' | cut -c1-400
ldd $work/lib/libggml-cuda.so | grep -E 'not found|cudart|cublas'
python3 tests/gen_arch_gguf.py build/arch >/dev/null && python3 tests/gen_big_gguf.py build/big >/dev/null
echo "models made at $(( $(date +%s) - start )) s"
(cd $work && for f in $(python3 -c "import json;print(' '.join(json.load(open('models/sizes.json'))))"); do
   [ -f models/$f ] && truncate -s $(python3 -c "import json;print(json.load(open('models/sizes.json'))['$f']['file_bytes'])") models/$f; done)
rec=$work/records.jsonl
: > $rec
# one model (its lines up to '#') per process
run_group() { # name, parallel, jobs file
  local n=0 pids=""
  while IFS= read -r -d '#' chunk; do
    chunk=$(printf '%s' "$chunk" | sed '/^$/d')
    [ -z "$chunk" ] && continue
    if [ $(( $(date +%s) - start )) -gt $budget ]; then echo "budget spent: skipped $(printf '%s\n' "$chunk" | head -1)"; continue; fi
    n=$((n + 1))
    if [ "$2" -gt 1 ]; then
      (cd_dir=$3; printf '%s\n' "$chunk" | (cd $cd_dir && timeout 150 $work/lib/gpu_probe $work/lib) > $work/part.$1.$n 2> $work/err.$1.$n; echo "$1 $n rc=$? $(head -c 80 <<<"$chunk")") &
      pids="$pids $!"
      while :; do
        live=0; for p in $pids; do kill -0 $p 2>/dev/null && live=$((live + 1)); done
        [ $live -lt $2 ] && break; sleep 0.2
      done
    else
      printf '%s\n' "$chunk" | (cd $3 && timeout 200 $work/lib/gpu_probe $work/lib) > $work/part.$1.$n 2> $work/err.$1.$n
      echo "$1 $n rc=$? $(head -c 80 <<<"$chunk") at $(( $(date +%s) - start )) s"
    fi
  done
  [ -n "$pids" ] && wait $pids
  for f in $work/part.$1.*; do [ -f "$f" ] && sed "s/^{/{\"group\":\"$1\",\"parallel\":$([ "$2" -gt 1 ] && echo true || echo false),/" "$f" >> $rec; done
  tail -n 5 $work/err.$1.* 2>/dev/null | tail -40
}
run_group check 1 $work < <(python3 tests/gpu/jobs.py check)
grep -o '"buffer size[^"]*' $rec | head -0
python3 - $rec <<'PY'
import json, re, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if 'model' not in r: print(r); continue
    logs = r.get('load_log', '') + r['context_log']
    print(r['model'], r['ngl'], r['n_ctx'], r['device_bytes'], re.findall(r'(\S+ +\S+) buffer size = +([\d.]+) MiB', logs))
PY
run_group tiny 4 $PWD < <(python3 tests/gpu/jobs.py tiny)
echo "tiny done at $(( $(date +%s) - start )) s"
run_group big 1 $PWD < <(python3 tests/gpu/jobs.py big)
echo "all done at $(( $(date +%s) - start )) s; $(wc -l < $rec) records"
xz -T4 -c $rec > $OUT/records.jsonl.xz
tar cJf $OUT/errs.tar.xz -C $work $(cd $work && ls err.* 2>/dev/null) 2>/dev/null
