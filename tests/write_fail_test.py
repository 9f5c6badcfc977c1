#!/usr/bin/env python3
"""write_fail_test.py MODULE: what gguf_rewrite() and safetensors_rewrite()
leave behind when they fail after the output was started, and what a reader
written here (Python's standard library only, not our parsers) makes of what
they write.

Each failure case starts from a folder holding the input and an older file at
the output path, and checks after the failed call that the output path still
holds the older bytes and that the folder holds nothing else (no temporary
file):
  1. ulimit -f (RLIMIT_FSIZE) below the output's size, SIGXFSZ ignored: the
     sqlite3 shell in a subprocess (EFBIG);
  2. a full disk: a 256 KiB tmpfs mounted in a user and mount namespace of
     its own (unshare -rm; skipped where that is refused) (ENOSPC), and a
     safetensors_split() whose third shard does not fit a 160 KiB one, and a
     gguf_split() whose third part does not fit a 112 KiB one;
  3. sqlite3_interrupt() from another thread 50 ms into the rewrite of a
     192 MiB GGUF (the copy polls it every 64 MiB): SQLITE_INTERRUPT;
  4. the source file appended to while it is copied: "changed";
  5. safetensors_write() interrupted between rows (two million rows), and
     an error in a later row of it (a path that is not there);
  6. an output that is a symbolic link (or a link to one) is written
     through, as cp(1) writes: the file it leads to is replaced and the link
     stays; a link to the input is the input; a link to nothing is refused.
Then the readers: a GGUF and a safetensors reader written from the
formats' specifications (tests/model_files.py) read the rewritten demo files: every key with its
value as edited, every tensor's bytes equal to the input's.
Prints "write_fail: N passed, M failed, K skipped"; exits 1 on a failure.
"""
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

import checks
from checks import ok as check
from model_files import read_gguf, read_safetensors

MODULE = os.path.abspath(sys.argv[1])
DEMO = os.path.abspath("build/demo")
def connect():
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.enable_load_extension(True)
    db.load_extension(MODULE)
    return db


def left_as_it_was(folder, target, old, inputs, what):
    """The target holds old, and the folder nothing but it and inputs."""
    with open(target, "rb") as f:
        check(f.read() == old, what + ": the target is untouched")
    extra = sorted(set(os.listdir(folder)) - {os.path.basename(target)} - set(inputs))
    check(extra == [], what + ": no temporary file left", repr(extra))


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# ---- 1. ulimit -f ----
def test_fsize(work):
    folder = os.path.join(work, "fsize")
    os.mkdir(folder)
    target = os.path.join(folder, "out.gguf")
    with open(target, "wb") as f:
        f.write(b"old")
    sql = "SELECT gguf_rewrite('%s', '%s/tiny-llama.gguf', json_object('general.name', 'x'))" % (
        target, DEMO)
    # 60 blocks of 1024 bytes: below the output's 121 KB
    cmd = "trap '' XFSZ; ulimit -f 60; exec sqlite3 -bail -cmd %s :memory: %s" % (
        sh_quote(".load " + MODULE), sh_quote(sql))
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    check(r.returncode != 0 and "File too large" in r.stderr, "ulimit -f: the call fails (EFBIG)",
          r.stderr.strip())
    left_as_it_was(folder, target, b"old", [], "ulimit -f")


# ---- 2. a full disk ----
def test_disk_full(work):
    mnt = os.path.join(work, "full")
    os.mkdir(mnt)
    target = os.path.join(mnt, "out.gguf")
    script = (
        "mount -t tmpfs -o size=256k tmpfs {m} || exit 77\n"
        "head -c 200000 /dev/zero > {t}\n"
        "sqlite3 -bail -cmd {load} :memory: {sql} 2> {m}/../full.err && exit 3\n"
        "cmp -s {t} /dev/zero; head -c 200000 /dev/zero | cmp -s - {t} || exit 4\n"
        "ls -A {m} > {m}/../full.ls\n"
        # a split whose third shard does not fit (3 x 75 KB in 160 KB)
        "umount {m} && mount -t tmpfs -o size=160k tmpfs {m} && mkdir {m}/out || exit 77\n"
        "sqlite3 -bail -cmd {load} :memory: {split} 2> {m}/../split.err && exit 5\n"
        "ls -A {m}/out > {m}/../split.ls\n"
        # a gguf_split whose third part does not fit
        "umount {m} && mount -t tmpfs -o size={gsize}k tmpfs {m} || exit 77\n"
        "sqlite3 -bail -cmd {load} :memory: {gsplit} 2> {m}/../gsplit.err && exit 6\n"
        "ls -A {m} > {m}/../gsplit.ls\n").format(
            gsize=GSPLIT_TMPFS_KB,
            gsplit=sh_quote("SELECT gguf_split('%s/part', '%s/tiny-llama.gguf', '{\"max_tensors\": 8}')"
                            % (mnt, DEMO)),
            m=sh_quote(mnt), t=sh_quote(target), load=sh_quote(".load " + MODULE),
            sql=sh_quote("SELECT gguf_rewrite('%s', '%s/tiny-llama.gguf', NULL)" % (target, DEMO)),
            split=sh_quote("SELECT safetensors_split('%s/out', '%s/tiny-llama.safetensors', 80000)"
                           % (mnt, DEMO)))
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True)
    if r.returncode == 77 or "unshare" in r.stderr:
        checks.skip("write_fail: a full disk", "no user and mount namespace for a small tmpfs")
        return
    err = open(os.path.join(work, "full.err")).read()
    check(r.returncode == 0 and "No space left on device" in err,
          "disk full: the call fails (ENOSPC), the target keeps its bytes", "%d %s %s" % (r.returncode, err, r.stderr))
    listing = open(os.path.join(work, "full.ls")).read().split()
    check(listing == ["out.gguf"], "disk full: no temporary file left", repr(listing))
    err = open(os.path.join(work, "split.err")).read()
    check("No space left on device" in err, "disk full: the split fails at its third shard", err)
    listing = open(os.path.join(work, "split.ls")).read().split()
    check(listing == [], "disk full: the split leaves no shard and no temporary file", repr(listing))
    err = open(os.path.join(work, "gsplit.err")).read()
    check("No space left on device" in err, "disk full: gguf_split fails at its third part", err)
    listing = open(os.path.join(work, "gsplit.ls")).read().split()
    check(listing == [], "disk full: gguf_split leaves no part and no temporary file", repr(listing))


# A tmpfs that holds the first two of the demo GGUF's three 8-tensor parts
# (46 and 32 KB) but not the third (44 KB).
GSPLIT_TMPFS_KB = 112


def big_gguf(path, mib):
    """A GGUF v3 with one key and one F32 tensor of mib MiB (sparse)."""
    n = mib << 18  # F32 elements
    key = b"general.architecture"
    kv = struct.pack("<Q", len(key)) + key + struct.pack("<IQ", 8, 5) + b"llama"
    name = b"big"
    ti = struct.pack("<Q", len(name)) + name + struct.pack("<IQIQ", 1, n, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + kv + ti
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        f.seek(len(head) + n * 4 - 1)
        f.write(b"\1")


def big_case(work, name):
    """A folder with a 192 MiB GGUF and an older out.gguf: (folder, src, target)."""
    folder = os.path.join(work, name)
    os.mkdir(folder)
    src = os.path.join(folder, "big.gguf")
    big_gguf(src, 192)
    target = os.path.join(folder, "out.gguf")
    with open(target, "wb") as f:
        f.write(b"old")
    return folder, src, target


def run_while(db, sql, action, delay):
    """Run sql on db while another thread does action() after delay seconds."""
    t = threading.Timer(delay, action)
    t.start()
    try:
        db.execute(sql).fetchall()
        return None
    except sqlite3.Error as e:
        return e
    finally:
        t.cancel()
        t.join()


# ---- 3. sqlite3_interrupt ----
def test_interrupt(work):
    folder, src, target = big_case(work, "interrupt")
    db = connect()
    sql = "SELECT gguf_rewrite('%s', '%s', NULL, '{\"verify\": 0}')" % (target, src)
    t0 = time.time()
    e = run_while(db, sql, db.interrupt, 0.05)
    check(isinstance(e, sqlite3.OperationalError) and "interrupt" in str(e),
          "interrupt: the call stops with SQLITE_INTERRUPT", repr(e))
    left_as_it_was(folder, target, b"old", ["big.gguf"], "interrupt")
    # left alone, the same call writes the file
    e = db.execute(sql).fetchall()
    check(os.path.getsize(target) == os.path.getsize(src), "interrupt: uninterrupted, it writes")
    db.close()
    return time.time() - t0


# ---- 4. the source changed while it is copied ----
def test_source_changed(work):
    folder, src, target = big_case(work, "changed")
    db = connect()

    def append():
        with open(src, "ab") as f:
            f.write(b"x")

    e = run_while(db, "SELECT gguf_rewrite('%s', '%s', NULL)" % (target, src), append, 0.05)
    check(isinstance(e, sqlite3.OperationalError) and "changed" in str(e),
          "source changed: the call fails", repr(e))
    left_as_it_was(folder, target, b"old", ["big.gguf"], "source changed")
    db.close()


# ---- 5. the aggregate: interrupted between rows, an error in a later row ----
def test_aggregate(work):
    folder = os.path.join(work, "aggregate")
    os.mkdir(folder)
    target = os.path.join(folder, "out.safetensors")
    with open(target, "wb") as f:
        f.write(b"old")
    db = connect()
    # two million one-byte tensors: the rows take seconds, the interrupt comes at 50 ms
    sql = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) "
           "SELECT safetensors_write('%s', 't' || i, x'01', 'U8', '[1]') FROM n" % target)
    e = run_while(db, sql, db.interrupt, 0.05)
    check(isinstance(e, sqlite3.OperationalError) and "interrupt" in str(e),
          "aggregate interrupted: SQLITE_INTERRUPT", repr(e))
    left_as_it_was(folder, target, b"old", [], "aggregate interrupted")
    e = None
    try:
        db.execute("SELECT safetensors_write(?, name, CASE WHEN name = 'model.norm.weight' "
                   "THEN 'nope' ELSE path END) FROM tensors(?)",
                   (target, DEMO + "/tiny-llama.safetensors")).fetchall()
    except sqlite3.Error as x:
        e = x
    check(e is not None and "nope" in str(e), "aggregate, an error in a later row: the call fails", repr(e))
    left_as_it_was(folder, target, b"old", [], "aggregate, an error in a later row")
    db.close()


# The safetensors crate's Dtype enum, in its order (safetensors/src/tensor.rs).
DTYPES = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
          "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64",
          "F64", "I64", "U64"]


def error_of(db, sql, args):
    """The error sql raises on db, or None."""
    try:
        db.execute(sql, args).fetchall()
        return None
    except sqlite3.Error as e:
        return e


# ---- 6. an output that is a symbolic link: written through, as cp does ----
def test_symlink(work):
    folder = os.path.join(work, "links")
    real = os.path.join(folder, "real")
    os.makedirs(real)
    src = DEMO + "/tiny-llama.gguf"
    target = os.path.join(real, "target.gguf")
    with open(target, "wb") as f:
        f.write(b"old")
    link = os.path.join(folder, "out.gguf")
    os.symlink("real/target.gguf", link)
    chain = os.path.join(folder, "chain.gguf")  # a link to the link
    os.symlink("out.gguf", chain)
    db = connect()
    db.execute("SELECT gguf_rewrite(?, ?, NULL)", (link, src)).fetchall()
    check(os.path.islink(link) and os.readlink(link) == "real/target.gguf",
          "symlink: the link stays, pointing where it did")
    check(open(target, "rb").read() == open(src, "rb").read(), "symlink: its target holds the new file")
    check(sorted(os.listdir(folder)) == ["chain.gguf", "out.gguf", "real"] and os.listdir(real) == ["target.gguf"],
          "symlink: nothing else in either folder", repr((os.listdir(folder), os.listdir(real))))
    db.execute("SELECT safetensors_write(?, name, path) FROM tensors(?)",
               (chain, DEMO + "/tiny-llama.safetensors")).fetchall()
    check(os.path.islink(chain) and os.path.islink(link) and
          read_safetensors(target)[1] == read_safetensors(DEMO + "/tiny-llama.safetensors")[1],
          "symlink: through a link to a link, the file at the end is written")
    # a link to the input is the input: refused unless overwrite
    inp = os.path.join(real, "in.gguf")
    shutil.copy(src, inp)
    to_in = os.path.join(folder, "to-in.gguf")
    os.symlink("real/in.gguf", to_in)
    e = error_of(db, "SELECT gguf_rewrite(?, ?, json_object('general.name', 'x'))", (to_in, inp))
    check(e is not None and "is an input file: refusing to replace it" in str(e), "symlink to the input: refused", repr(e))
    db.execute("SELECT gguf_rewrite(?, ?, json_object('general.name', 'x'), '{\"overwrite\": 1}')",
               (to_in, inp)).fetchall()
    check(os.path.islink(to_in) and read_gguf(inp)[1]["general.name"] == (8, "x"),
          "symlink to the input, overwrite: the input rewritten, the link kept")
    # a link to nothing: refused, the link left as it was
    dangling = os.path.join(folder, "dangling.gguf")
    os.symlink("real/nothing.gguf", dangling)
    e = error_of(db, "SELECT gguf_rewrite(?, ?, NULL)", (dangling, src))
    check(e is not None and "a symbolic link to nothing" in str(e) and os.path.islink(dangling) and
          not os.path.exists(os.path.join(real, "nothing.gguf")), "dangling symlink: refused, nothing written",
          repr(e))
    db.close()


def test_readers(work):
    db = connect()
    out = os.path.join(work, "read.gguf")
    db.execute("SELECT gguf_rewrite(?, ?, json_object('general.name', 'Renamed' || char(0) || '!', "
               "'tokenizer.chat_template', '{% for m in messages %}{{ m }}{% endfor %}', "
               "'x.ids', json_object('type', 'INT32', 'value', json('[-1, 2]')), "
               "'tokenizer.ggml.bos_token_id', NULL))", (out, DEMO + "/tiny-llama.gguf")).fetchall()
    _, k0, t0 = read_gguf(DEMO + "/tiny-llama.gguf")
    _, k1, t1 = read_gguf(out)
    want = dict(k0)
    del want["tokenizer.ggml.bos_token_id"]
    want["general.name"] = (8, "Renamed\x00!")  # the NUL kept
    want["tokenizer.chat_template"] = (8, "{% for m in messages %}{{ m }}{% endfor %}")
    want["x.ids"] = (9, (5, [-1, 2]))
    check(k1 == want, "GGUF reader: every key as edited", repr([k for k in set(k1) | set(want) if k1.get(k) != want.get(k)]))
    check(list(k1) == list(want), "GGUF reader: the keys' order")
    check(t1 == t0 and len(t1) == 21, "GGUF reader: 21 tensors, each the input's bytes")
    out = os.path.join(work, "read.safetensors")
    db.execute("SELECT safetensors_rewrite(?, ?, json_object('format', 'pt', 'note', 'é \"q\" \\ ' || char(1) || char(0)))",
               (out, DEMO + "/tiny-llama.safetensors")).fetchall()
    m0, s0, _ = read_safetensors(DEMO + "/tiny-llama.safetensors")
    m1, s1, n1 = read_safetensors(out)
    check(m1 == {"format": "pt", "note": 'é "q" \\ \x01\x00'}, "safetensors reader: the metadata", repr(m1))
    check(s1 == s0 and len(s1) == 21, "safetensors reader: 21 tensors, each the input's bytes")
    check(n1 % 8 == 0, "safetensors reader: the header padded to 8", str(n1))
    # the sharded fine-tune merged by safetensors_write: every tensor of every
    # shard (read here from the shards' own headers), in the crate's order
    out = os.path.join(work, "merged.safetensors")
    db.execute("SELECT safetensors_write(?, name, path) FROM tensors(?)",
               (out, DEMO + "/sharded")).fetchall()
    want = {}
    for shard in sorted(os.listdir(DEMO + "/sharded")):
        if shard.endswith(".safetensors"):
            want.update(read_safetensors(os.path.join(DEMO, "sharded", shard))[1])
    meta, got, n = read_safetensors(out)
    check(got == want and len(got) == 21, "safetensors reader: the merge holds every shard's tensors")
    check(meta == {"format": "pt"}, "safetensors reader: the merge keeps the shards' __metadata__", repr(meta))
    order = sorted(got, key=lambda k: json.loads(open(out, "rb").read()[8:8 + n])[k]["data_offsets"][0])
    crate = sorted(got, key=lambda k: (-DTYPES.index(got[k][0]), k.encode()))
    check(order == crate, "safetensors reader: the crate's order (dtype, wider first, then name)")
    # safetensors_split: the shards huggingface_hub's split_torch_state_dict_into_shards()
    # makes (a new shard when the next tensor would pass the bound), each read here,
    # and the index as transformers writes it (json.dumps, indent 2, sorted keys)
    folder = os.path.join(work, "split")
    db.execute("SELECT safetensors_split(?, ?, 80000)", (folder, DEMO + "/tiny-llama.safetensors")).fetchall()
    m0, s0, n0 = read_safetensors(DEMO + "/tiny-llama.safetensors")
    head = json.loads(open(DEMO + "/tiny-llama.safetensors", "rb").read()[8:8 + n0])
    order = sorted((k for k in head if k != "__metadata__"), key=lambda k: head[k]["data_offsets"][0])
    shards, size = [], 0
    for k in order:
        nb = len(s0[k][2])
        if not shards or (size > 0 and size + nb > 80000):
            shards.append([])
            size = 0
        shards[-1].append(k)
        size += nb
    names = ["model-%05d-of-%05d.safetensors" % (i + 1, len(shards)) for i in range(len(shards))]
    want = {"metadata": {"total_size": sum(len(v[2]) for v in s0.values())},
            "weight_map": {k: names[i] for i, sh in enumerate(shards) for k in sh}}
    text = open(os.path.join(folder, "model.safetensors.index.json")).read()
    check(text == json.dumps(want, indent=2, sort_keys=True) + "\n",
          "split: the index as transformers writes it", text[:200])
    check(sorted(os.listdir(folder)) == sorted(names + ["model.safetensors.index.json"]),
          "split: the shards' names", repr(os.listdir(folder)))
    for i, sh in enumerate(shards):
        meta, got, _ = read_safetensors(os.path.join(folder, names[i]))
        check(got == {k: s0[k] for k in sh}, "split: shard %d holds its tensors, the original's bytes" % (i + 1))
        check(meta == m0, "split: shard %d keeps the original's __metadata__" % (i + 1), repr(meta))
    db.close()


def main():
    work = tempfile.mkdtemp(prefix="write-fail-")
    try:
        test_fsize(work)
        test_disk_full(work)
        test_interrupt(work)
        test_source_changed(work)
        test_aggregate(work)
        test_symlink(work)
        test_readers(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(checks.summary("write_fail", with_skipped=True))
    sys.exit(checks.status())


main()
