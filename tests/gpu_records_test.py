#!/usr/bin/python3
"""gpu_records_test.py MODULE [RECORDS_DIR]: gguf_memory() against llama.cpp's
CUDA build, every buffer of the records shared/reference/gpu-memory holds
(default ../shared/reference/gpu-memory; skipped, with the count, when it is
absent).

Those records were taken on an H200 with llama.cpp de3ff815 as
node-llama-cpp 3.22.1 builds it for CUDA: for each setting, every buffer
llama.cpp logged (its MiB with two decimals) and what cudaMemGetInfo saw
leave the device.  The models' headers are there too; this script restores
each to the size it had (a sparse file: the header, then a hole) under
build/gpuref, plans each setting with gguf_memory(path, json_object(...)),
adds up its rows as llama.cpp's buffers (the weights per device: CPU_Mapped
and CUDA0 model; the K and V rows per cache (the sliding-window one apart)
and device: "CPU KV" or "CUDA0 KV"; the output's device; the compute buffer
per device) and checks that they print as llama.cpp printed them: the same
buffers, each equal to 0.005 MiB.  A setting llama.cpp refused (no context
lines) must be an error of gguf_memory, its model buffers still equal.

Also checked, per record: the VRAM gguf_fit() says the process takes (the
CUDA buffers, each rounded up to the 2 MiB the driver allocates in, and one
page more; the small ones share pages) is at least device_bytes and at
most 2 MiB above it (docs/reference.md, gguf_fit: "VRAM"); counted, how
many records lost exactly the buffers' pages.
"""
import json
import os
import shutil
import sqlite3
import sys

import checks
from checks import ok, skip

MIB = 1048576.0
PAGE = 2 * 1048576  # the CUDA driver's allocation granularity on the records' GPU


def restore(src, dst):
    """The models' headers as full-size sparse files in dst."""
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "models", "sizes.json")) as f:
        sizes = json.load(f)
    for name, sz in sizes.items():
        out = os.path.join(dst, name)
        if not (os.path.exists(out) and os.path.getsize(out) == sz["file_bytes"]):
            shutil.copyfile(os.path.join(src, "models", name), out)
            os.chmod(out, 0o644)
            os.truncate(out, sz["file_bytes"])


def settings(r):
    """A record's setting as gguf_memory()'s JSON settings."""
    fa = {-1: "auto", 0: "off", 1: "on"}[r["fa"]]
    return json.dumps({"gpu": "cuda", "n_gpu_layers": r["ngl"], "n_ctx": r["n_ctx"],
                       "type_k": r["type_k"], "type_v": r["type_v"], "n_seq": r["n_seq"],
                       "n_ubatch": r["n_ubatch"], "flash_attn": fa, "swa_full": True})


def ours(db, path, r):
    """The plan's buffers as llama.cpp names them: [(phase, name, bytes)], or
    the error."""
    try:
        rows = db.execute("SELECT part, device, nbytes, detail FROM gguf_memory(?, ?)",
                          (path, settings(r))).fetchall()
    except sqlite3.Error as e:
        return str(e)
    bufs = {}
    for part, dev, nbytes, detail in rows:
        if part in ("weights", "repack"):
            key = ("load", dev + " model")
        elif part in ("k_cache", "v_cache"):
            key = ("context", dev + " KV", "sliding" in detail)
        elif part == "output":
            key = ("context", dev + " output")
        elif part == "compute":
            key = ("context", dev + " compute")
        else:
            continue  # recurrent states: llama.cpp logs them apart, not in the records
        if nbytes is None:
            return "unknown %s row: %s" % (part, detail)
        bufs[key] = bufs.get(key, 0) + nbytes
    return [(k[0], k[1], v) for k, v in bufs.items()]


def mib(n):
    """Bytes as llama.cpp prints MiB: two decimals, ties to even as printf."""
    return "%.2f" % (n / MIB)


def main():
    module = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else "../shared/reference/gpu-memory"
    records = os.path.join(src, "records.jsonl")
    if not os.path.exists(records):
        skip("100 GPU records (every buffer)", src + " is absent")
        print(checks.summary("gpu_records"))
        return 0
    restore(src, "build/gpuref")
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath(module))
    equal = total = rec_ok = vram_ok = exact_pages = 0
    with open(records) as f:
        recs = [json.loads(line) for line in f]
    for r in recs:
        path = os.path.join("build/gpuref", r["model"])
        theirs = [(b[0], b[1], "%.2f" % b[2]) for b in r["buffers"]]
        refused = not any(b[0] == "context" for b in r["buffers"])
        got = ours(db, path, r)
        what = "%s ngl %d n_ctx %d %s/%s n_seq %d n_ubatch %d fa %d" % (
            r["model"], r["ngl"], r["n_ctx"], r["type_k"], r["type_v"], r["n_seq"],
            r["n_ubatch"], r["fa"])
        if isinstance(got, str):
            # llama.cpp refused it: our error, and the model buffers alone
            ok(refused, what + ": planned", got)
            total += len(theirs)
            rec_ok += refused
            equal += len(theirs) if refused else 0
            continue
        mine = sorted((p, n, mib(b)) for p, n, b in got)
        want = sorted(theirs)
        if refused:
            ok(False, what + ": llama.cpp refused it, the plan did not", mine)
            total += len(want)
            continue
        left = list(mine)
        for w in want:
            total += 1
            if w in left:
                left.remove(w)
                equal += 1
        good = not left and len(mine) == len(want)
        rec_ok += good
        ok(good, what + ": every buffer", "llama.cpp %s, plan %s" % (want, mine))
        # VRAM as gguf_fit counts it: each CUDA buffer rounded up to the
        # driver's 2 MiB pages, and one page more; never below what the
        # device lost, at most that page above it
        ask = json.loads(settings(r))
        ask.update(ram=1 << 50, vram=1 << 50)
        vram = db.execute("SELECT nbytes FROM gguf_fit(?, ?) WHERE part = 'total' AND memory = 'vram'",
                          (path, json.dumps(ask))).fetchone()
        dev = r["device_bytes"]["load"] + r["device_bytes"]["context"]
        good = vram is not None and vram[0] is not None and dev <= vram[0] <= dev + PAGE
        vram_ok += good
        exact_pages += good and vram[0] - PAGE == dev
        ok(good, what + ": gguf_fit's VRAM from device_bytes to 2 MiB above",
           "gguf_fit %s, device %d" % (vram, dev))
    print("gpu_records: %d of %d records equal in every buffer, %d of %d buffers equal to "
          "0.005 MiB; gguf_fit's VRAM from device_bytes to 2 MiB above it in %d, its pages "
          "without the page more equal to device_bytes in %d" % (rec_ok, len(recs), equal, total,
                                                                  vram_ok, exact_pages))
    print(checks.summary("gpu_records"))
    return checks.status()


if __name__ == "__main__":
    sys.exit(main())
