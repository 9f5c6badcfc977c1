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
import subprocess
import sys

MODULE = os.environ.get("WEIGHTS_MODULE", "build/weights")


def sql_rows(query):
    """The rows of query on a connection with the module loaded (the sqlite3
    shell, as the tests use it), each a list of its fields."""
    out = subprocess.run(["sqlite3", "-cmd", ".load " + os.path.abspath(MODULE), ":memory:", query],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines()]


# The architectures whose compute graph the planner builds as llama.cpp does
# (ext/plan/compute_plan.c): gguf_memory_architectures(), the one list the
# docs read too.  For their files the compute buffer must equal llama.cpp's
# figure; for the others it is a lower bound.  A change of the list changes
# the records made here, which `tests/llama_oracle.sh --check` compares with
# the checked-in tests/memory_oracle.test.
MODELLED = {r[0] for r in sql_rows("SELECT value ->> 'architecture' FROM json_each("
                                   "gguf_memory_architectures()) WHERE value ->> 'compute' = 'modelled'")}
_arch_of = {}


def exact_compute(f):
    """Whether the planner's compute for f is exact: its architecture's graph
    is modelled (with a quantized cache's Hadamard rotations, llama_kv_cache's
    attn_rot_k and attn_rot_v in src/llama-kv-cache.cpp, as well)."""
    if f not in _arch_of:
        rows = sql_rows("SELECT value FROM gguf_metadata('%s') WHERE key = 'general.architecture'"
                        % f.replace("'", "''"))
        _arch_of[f] = rows[0][0] if rows else None
    return _arch_of[f] in MODELLED


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
