#!/usr/bin/python3
"""llama_oracle_test.py VERSION < build/memory_oracle.tsv: turn the lines of
tests/llama_oracle.sh (FILE CTX SEQS FA TYPE_K TYPE_V CPU, then what
tests/llama_oracle.mjs printed: llama.cpp's figures for FILE at that
setting, or its refusal) into sqllogictest records that check gguf_memory()
against them.  Used by tests/llama_oracle.sh; the expected results are
llama.cpp's numbers and messages as it printed them, never gguf_memory()'s
own output.  CPU is the repack rules of the CPU variant llama.cpp ran
('avx512', 'avx2' or 'none', from its system info), passed to gguf_memory()
so that the records hold on any machine."""
import os
import re
import sys

# The models whose graph the planner builds as llama.cpp does (llama's, and
# the architectures that add to it: mistral3, qwen2, qwen3, qwen2moe,
# qwen3moe, granite, granitemoe, exaone, xverse, internlm2, arcee, smollm3,
# starcoder2, orion, baichuan, gemma, gemma2, gemma3, phi3, cohere2, deci,
# deepseek2; and mamba's), so their compute buffer is known; for the others
# it is a lower bound.
EXACT_COMPUTE = {"tiny-llama.gguf", "tiny-mistral3.gguf", "tiny-qwen2.gguf", "tiny-qwen3.gguf",
                 "tiny-qwen2moe.gguf", "tiny-qwen3moe.gguf", "tiny-granite.gguf",
                 "tiny-granitemoe.gguf", "tiny-granitemoe-shared.gguf", "tiny-exaone.gguf",
                 "tiny-xverse.gguf", "tiny-internlm2.gguf", "tiny-arcee.gguf", "tiny-smollm3.gguf",
                 "tiny-starcoder2.gguf", "tiny-orion.gguf", "tiny-baichuan.gguf",
                 "tiny-baichuan-32.gguf",
                 "tiny-gemma.gguf", "tiny-gemma2.gguf", "tiny-gemma3.gguf", "tiny-phi3.gguf",
                 "tiny-cohere2.gguf", "tiny-deci.gguf", "tiny-deepseek2.gguf",
                 "tiny-mamba.gguf",
                 "tiny-llama-F16.gguf", "tiny-llama-Q8_0.gguf", "tiny-llama-Q4_0.gguf",
                 "tiny-llama-wide.gguf", "tiny-qwen2-wide.gguf", "tiny-qwen2-wide-Q4_0.gguf"}


def exact_compute(f):
    """Whether the planner's compute for f is exact: its graph is modelled,
    with a quantized cache's Hadamard rotations (llama_kv_cache's attn_rot_k
    and attn_rot_v, src/llama-kv-cache.cpp) as well."""
    return os.path.basename(f) in EXACT_COMPUTE


def mib(x):
    """SQL showing the integer byte count x as C's printf("%.2f", x / 2^20)
    does in llama.cpp's log: round half to even (SQLite's printf would round
    half up, and 0.125 MiB must read 0.12)."""
    q = "((%s) * 100 / 1048576)" % x
    r = "((%s) * 100 %% 1048576)" % x
    v = "(%s + (%s * 2 > 1048576 OR (%s * 2 = 1048576 AND %s %% 2 = 1)))" % (q, r, r, q)
    return "printf('%%d.%%02d', %s / 100, %s %% 100)" % (v, v)


def part_bytes(cond):
    return "coalesce(sum(nbytes) FILTER (WHERE %s), 0)" % cond


def part_sum(cond):
    return mib(part_bytes(cond))


def mapped():
    """SQL giving the planner's figure for llama.cpp's CPU_Mapped buffer: the
    weights rows, the tensors that stay mapped and the rest of the span of
    the file llama.cpp maps (from the first byte of those tensors to the
    last: padding and the repacked tensors between them), to the hundredth."""
    return part_sum("part = 'weights'")


def sql_string(s):
    return "'" + s.replace("'", "''") + "'"


def regex(s):
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", s)


def record(f, ctx, seqs, fa, tk, tv, cpu, *rest):
    fa_arg = "'auto'" if fa == "auto" else fa
    args = "'%s', %s, '%s', '%s', %s, 512, %s, '%s'" % (f, ctx, tk, tv, seqs, fa_arg, cpu)
    print()
    print("# %s: n_ctx %s, %s sequences, flash attention %s, K %s, V %s" % (f, ctx, seqs, fa, tk, tv))
    if rest[0] == "refused":
        print("# llama.cpp refuses it: %s" % rest[1])
        print('statement error ^gguf_memory\\(\\): %s: .*"%s"$' % (regex(f), regex(rest[1])))
        print("SELECT * FROM gguf_memory(%s)" % args)
        return
    n_ctx, n_ubatch, flash, caches, mapped_mib, repack_mib, output, compute = rest
    print("# llama.cpp: n_ctx %s, n_ubatch %s, flash attention %s, compute buffer %s MiB"
          % (n_ctx, n_ubatch, flash, compute))
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
    print("SELECT %s || ' ' || %s || ' ' || %s FROM gguf_memory(%s)"
          % (mapped(), part_sum("part = 'repack'"), part_sum("part = 'output'"), args))
    print("----")
    print("%s %s %s" % (mapped_mib, repack_mib, output))
    print()
    if exact_compute(f):
        # The planner models this graph (ext/plan/llama_graph.c): its
        # compute buffer must read as llama.cpp's, to the hundredth.
        print("query T nosort")
        print("SELECT %s || ' ' || (detail LIKE '%%, ' || %s || ' tokens, flash attention %s')"
              " FROM gguf_memory(%s) WHERE part = 'compute'" % (mib("nbytes"), n_ubatch, flash, args))
        print("----")
        print("%s 1" % compute)
        return
    # Otherwise the compute buffer is unknown to the planner (NULL), with a
    # size llama.cpp's cannot be below: llama.cpp's figure, rounded to the
    # hundredth, must be at least that size, less the rounding.
    print("query III nosort")
    print("SELECT nbytes IS NULL, at_least <= (%s + 0.005) * 1048576, detail LIKE 'unknown: %%, ' || %s || ' tokens, flash attention %s'"
          " FROM gguf_memory(%s) WHERE part = 'compute'" % (compute, n_ubatch, flash, args))
    print("----")
    print("1\t1\t1")


print("# What llama.cpp (node-llama-cpp %s, its prebuilt CPU build) allocates" % sys.argv[1])
print("# for the models of tests/gen_arch_gguf.py, against gguf_memory().  Written by")
print("# tests/llama_oracle.sh from llama.cpp's info log; do not edit by hand.  Each")
print("# record's expected result is llama.cpp's figures as it printed them (MiB, two")
print("# decimals; the caches in the order llama.cpp creates them), or its message")
print("# when it refuses the setting.  llama.cpp got exactly these n_ctx, n_seq_max,")
print("# n_ubatch 512 and flash attention, through node-llama-cpp's binding.")
n = 0
for line in sys.stdin:
    record(*line.rstrip("\n").split("\t"))
    n += 1
print()
print("# %d settings" % n)
