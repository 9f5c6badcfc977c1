#!/usr/bin/python3
"""llama_oracle_test.py VERSION < build/memory_oracle.tsv: turn the lines of
tests/llama_oracle.sh (FILE CTX SEQS FA TYPE_K TYPE_V, then what
tests/llama_oracle.mjs printed: llama.cpp's figures for FILE at that
setting) into sqllogictest records that check gguf_memory() against them.  Used by
tests/llama_oracle.sh; the expected results are llama.cpp's numbers as it
printed them, never gguf_memory()'s own output."""
import sys


def mib(x):
    """SQL showing the integer byte count x as C's printf("%.2f", x / 2^20)
    does in llama.cpp's log: round half to even (SQLite's printf would round
    half up, and 0.125 MiB must read 0.12)."""
    q = "((%s) * 100 / 1048576)" % x
    r = "((%s) * 100 %% 1048576)" % x
    v = "(%s + (%s * 2 > 1048576 OR (%s * 2 = 1048576 AND %s %% 2 = 1)))" % (q, r, r, q)
    return "printf('%%d.%%02d', %s / 100, %s %% 100)" % (v, v)


def part_sum(cond):
    return mib("coalesce(sum(nbytes) FILTER (WHERE %s), 0)" % cond)


# The compute buffer is an estimate: it must come within this fraction of
# what llama.cpp reserves, plus 0.05 MiB.
COMPUTE_TOLERANCE = 0.25


def record(f, ctx, seqs, fa, tk, tv, n_ctx, n_ubatch, caches, model, output, compute, ins_kv, ins_all):
    args = "'%s', %d, '%s', '%s', %s, %s, %s" % (f, int(ctx) * int(seqs), tk, tv, seqs, n_ubatch, fa)
    print()
    print("# %s: %s tokens x %s sequences, flash attention %s, K %s, V %s" % (f, ctx, seqs, fa, tk, tv))
    print("# llama.cpp: n_ctx %s, n_ubatch %s, compute buffer %s MiB;" % (n_ctx, n_ubatch, compute))
    print("# node-llama-cpp GgufInsights (v1): KV %s MiB, context total %s MiB" % (ins_kv, ins_all))
    print("query T nosort")
    if caches.startswith("rs:"):
        print("SELECT 'rs:' || %s || '/' || %s FROM gguf_memory(%s) WHERE part = 'recurrent_state'"
              % (part_sum("detail LIKE 'r %'"), part_sum("detail LIKE 's %'"), args))
        print("----")
        print(caches)
    else:
        # one row per cache: cells/layers/total/K/V, the dense cache first
        print("SELECT max(CAST(substr(detail, instr(detail, ', ') + 2) AS INTEGER))"
              " FILTER (WHERE part = 'k_cache') || '/' || count(DISTINCT layer) || '/' || %s"
              " || '/' || %s || '/' || %s FROM gguf_memory(%s) WHERE part IN ('k_cache', 'v_cache')"
              " GROUP BY detail LIKE '%%sliding%%' ORDER BY detail LIKE '%%sliding%%'"
              % (mib("sum(nbytes)"), part_sum("part = 'k_cache'"), part_sum("part = 'v_cache'"), args))
        print("----")
        for c in caches.split("+"):
            print(c)
    print()
    print("query T nosort")
    print("SELECT %s || ' ' || %s FROM gguf_memory(%s)"
          % (part_sum("part = 'weights'"), part_sum("part = 'output'"), args))
    print("----")
    print("%s %s" % (model, output))
    print()
    print("query I nosort")
    print("SELECT abs(nbytes / 1048576.0 - %s) <= %s FROM gguf_memory(%s) WHERE part = 'compute'"
          % (compute, "%s * %s + 0.05" % (COMPUTE_TOLERANCE, compute), args))
    print("----")
    print("1")


print("# What llama.cpp (node-llama-cpp %s, its prebuilt CPU build) allocates" % sys.argv[1])
print("# for the models of tests/gen_arch_gguf.py, against gguf_memory().  Written by")
print("# tests/llama_oracle.sh from llama.cpp's info log; do not edit by hand.  Each")
print("# record's expected result is llama.cpp's figures as it printed them (MiB, two")
print("# decimals; the caches in the order llama.cpp creates them).")
n = 0
for line in sys.stdin:
    record(*line.rstrip("\n").split("\t"))
    n += 1
print()
print("# %d settings" % n)
