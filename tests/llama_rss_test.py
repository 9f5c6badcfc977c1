#!/usr/bin/python3
"""llama_rss_test.py MODULE LLAMA_DIR MODEL...: gguf_fit()'s resident RAM
against a llama.cpp process (node-llama-cpp's prebuilt CPU build, run by
tests/llama_rss.mjs from LLAMA_DIR), for real-sized models whose tensor
data is a hole (tests/gen_big_gguf.py).  tests/llama_rss_test.sh installs
llama.cpp, makes the models and runs this.

What is measured, per model, at 4096 tokens (one sequence, n_ubatch 512,
F16 cache, flash attention on): the process's RssAnon and RssFile
(/proc/PID/status) and the resident bytes of the model's mapping
(/proc/PID/smaps), after loading, after decoding a batch of 512 tokens,
and after the mapping's pages are paged out (process_madvise MADV_PAGEOUT,
as memory pressure would reclaim them) and 512 more tokens decoded: what
the model needs resident, the pages read once (the sources of the repacked
weights, read at load) gone.  A first process loads the vocabulary alone
(vocab_only): what llama.cpp keeps beside its buffers (the vocabulary, the
model's description), measured rather than guessed.

Checked against gguf_fit(path, json_object('ram', ..., 'n_ctx', 4096,
'flash_attn', 'on', 'cpu', the variant llama.cpp ran)) (host RAM: repacked weights, the mapped weights read,
KV cache, output, compute; the mapped span apart):
  - after loading, the new anonymous memory is the repacked weights and
    the vocabulary's (within 24 MiB: node.js's and the C library's heaps
    move between two processes and two readings; the same load read 727.1
    to 743.0 MiB of new anonymous memory in four runs, for 662.9 + 78 MiB),
    and the mapping holds the span (llama.cpp maps it with MAP_POPULATE;
    at least 90% of it: on a busy machine the kernel may take clean pages
    back at any time): right after a load RSS counts it,
    which is why the span is shown apart rather than as needed memory;
  - a decode adds the KV cache and the output, and at most the compute
    buffer (reserved for a worst case, every token's logits, so a decode
    touches part of it);
  - paged out and decoded again, the mapping keeps at most the mapped
    weights gguf_fit counts (within 1 MiB): the pages of the repacked
    tensors, read once at load, do not come back;
  - what the process keeps then (anonymous + mapping) is at most gguf_fit's
    RAM total plus the vocabulary's memory, which gguf_fit does not count
    (llama.cpp's vocabulary and tokenizer tables, about 78 MiB for 128,256
    tokens); and for the model llama.cpp repacks, below the old count
    (every buffer, the mapped span included).
"""
import ctypes
import json
import os
import sqlite3
import subprocess
import sys

import checks
from checks import ok

MIB = 1048576
N_CTX = 4096
SYS_PIDFD_OPEN, SYS_PROCESS_MADVISE, MADV_PAGEOUT = 434, 440, 21


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def page_out(pid, path):
    """MADV_PAGEOUT over every mapping of path in process pid; the bytes
    advised (0 when the kernel refuses)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    ranges = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].strip() == path:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                ranges.append((lo, hi - lo))
    if not ranges:
        return 0
    iov = (Iovec * len(ranges))(*[Iovec(lo, n) for lo, n in ranges])
    fd = libc.syscall(SYS_PIDFD_OPEN, ctypes.c_int(pid), ctypes.c_uint(0))
    if fd < 0:
        return 0
    try:
        n = libc.syscall(SYS_PROCESS_MADVISE, ctypes.c_int(fd), iov, ctypes.c_size_t(len(ranges)),
                         ctypes.c_int(MADV_PAGEOUT), ctypes.c_uint(0))
    finally:
        os.close(fd)
    return max(n, 0)


def node(llama_dir, model, mode, pageout=False):
    """Run llama_rss.mjs; its lines as {what: [numbers]}."""
    path = os.path.realpath(model)
    p = subprocess.Popen(["node", "llama_rss.mjs", path, str(N_CTX), mode], cwd=llama_dir,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = {}
    for line in p.stdout:
        f = line.split()
        if f and f[0] == "cpu":
            out["cpu"] = f[1]
            continue
        if not f or f[0] not in ("before", "vocab", "base", "loaded", "decoded", "ready", "again"):
            continue
        if f[0] == "ready":
            out["advised"] = [page_out(int(f[1]), path) if pageout else 0]
            p.stdin.write("go\n")
            p.stdin.flush()
            continue
        out[f[0]] = [int(x) for x in f[1:]]
    p.wait()
    if p.returncode != 0:
        raise RuntimeError("llama_rss.mjs %s %s: exit %d" % (model, mode, p.returncode))
    return out


def fit(db, model, cpu):
    """gguf_fit's RAM rows for the CPU variant llama.cpp ran: {part: bytes}."""
    rows = db.execute("SELECT part, nbytes FROM gguf_fit(?, ?) WHERE memory = 'ram'",
                      (model, json.dumps({"ram": 1 << 40, "n_ctx": N_CTX, "flash_attn": "on",
                                          "cpu": cpu})))
    return {p: n for p, n in rows}


def mib(n):
    return "%.1f MiB" % (n / MIB)


def main():
    module, llama_dir, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath(module))
    for model in models:
        name = os.path.basename(model)
        v = node(llama_dir, model, "vocab")
        beside = v["vocab"][0] - v["before"][0]
        r = node(llama_dir, model, "run", pageout=True)
        f = fit(db, model, r["cpu"])
        base_anon = r["base"][0]
        anon = r["again"][0] - base_anon
        kept_map = r["again"][2]
        repack, kv = f.get("repack", 0), f["k_cache"] + f["v_cache"]
        anon_parts = repack + kv + f["output"] + f["compute"]
        old = f["mapped"] + anon_parts
        print("%s: gguf_fit RAM %s (mapped weights read %s, repacked %s, KV %s, output %s, "
              "compute %s), mapped span %s, old count %s" % (
                  name, mib(f["total"]), mib(f["weights"]), mib(repack), mib(kv), mib(f["output"]),
                  mib(f["compute"]), mib(f["mapped"]), mib(old)))
        print("%s: process: after load anon %s, mapping %s; after a decode anon %s, mapping %s; "
              "paged out %s, after another decode anon %s, mapping %s; vocabulary alone %s" % (
                  name, mib(r["loaded"][0] - base_anon), mib(r["loaded"][2]),
                  mib(r["decoded"][0] - base_anon), mib(r["decoded"][2]), mib(r["advised"][0]),
                  mib(anon), mib(kept_map), mib(beside)))
        if r["advised"][0] == 0:
            checks.skip(name + ": the resident rule", "process_madvise(MADV_PAGEOUT) refused")
            continue
        loaded = r["loaded"][0] - base_anon
        ok(abs(loaded - (repack + beside)) <= 24 * MIB,
           name + ": loading adds the repacked weights and the vocabulary's memory",
           "%s, not %s + %s" % (mib(loaded), mib(repack), mib(beside)))
        ok(0.9 * f["mapped"] <= r["loaded"][2] <= f["mapped"] + MIB,
           name + ": loaded, the span is mapped and read",
           "%s, not %s" % (mib(r["loaded"][2]), mib(f["mapped"])))
        ctx = r["decoded"][0] - r["loaded"][0]
        ok(kv + f["output"] <= ctx + MIB and ctx <= kv + f["output"] + f["compute"],
           name + ": a decode adds the KV cache, the output and part of the compute buffer",
           "%s" % mib(ctx))
        ok(kept_map <= f["weights"] + MIB,
           name + ": paged out and decoded, the mapping keeps at most the mapped weights read",
           "%s > %s" % (mib(kept_map), mib(f["weights"])))
        ok(anon + kept_map <= f["total"] + beside,
           name + ": the process keeps at most gguf_fit's RAM total (and the vocabulary's)",
           "%s > %s + %s" % (mib(anon + kept_map), mib(f["total"]), mib(beside)))
        if repack:
            ok(old > anon + kept_map + beside,
               name + ": the old count (every buffer, the mapped span) is above what it keeps",
               "%s <= %s" % (mib(old), mib(anon + kept_map + beside)))
    print(checks.summary("llama_rss"))
    return checks.status()


if __name__ == "__main__":
    sys.exit(main())
