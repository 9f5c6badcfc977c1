#!/bin/sh
# llama_rss_test.sh MODULE: gguf_fit()'s resident RAM against what a
# llama.cpp process keeps (tests/llama_rss_test.py says how), for
# Llama-3.2-1B's shape as Q4_0 (repacked on x86) and as Q8_0 (not), made by
# tests/gen_big_gguf.py as sparse files.  llama.cpp comes from npm
# (tests/llama_install.sh); skipped, with the reason, when it cannot be
# installed, or on a CPU without AVX2 (nothing repacked: the rule is
# then the mapped span's, which memory.test checks).
set -u
name=llama_rss
. tests/llama_install.sh
grep -q -w avx2 /proc/cpuinfo || { echo "llama_rss: skipped: the CPU has no AVX2"; exit 0; }
cp tests/llama_rss.mjs "$dir/llama_rss.mjs"
[ -f build/big/.stamp ] || make -s build/big/.stamp >/dev/null || exit 1
/usr/bin/python3 tests/llama_rss_test.py "$1" "$dir" \
  build/big/llama3-1b-q4_0-shape.gguf build/big/llama3-1b-q8_0-shape.gguf > build/llama_rss.log 2>&1
rc=$?
grep -v '^\[node-llama-cpp\]' build/llama_rss.log
exit $rc
