#!/usr/bin/env python3
"""write_endian_test.py MODULE: the writers on big-endian GGUF files (issue 34).

A big-endian GGUF (as ggml writes one on s390x, and gguf-py's
gguf_convert_endian.py makes one) holds every number of its header and
every element of its tensors most significant byte first.  This script
writes such files itself (Python's struct, '>'), with tensors of every type
that can change byte order element by element (F32, F16, BF16, F64, I8,
I16, I32, I64), values chosen by hand (-0.0064 among them: read in the
wrong order it is 1.2e-24), and a Q8_0 tensor whose blocks mix a 16-bit
scale and bytes.  Then it reads what the writers make with readers of its
own (struct again, not the extension's parsers or decoders):
  1. gguf_rewrite() keeps the byte order: the output is big-endian, header
     (version bytes 00 00 00 03, every key as edited) and data (the tensor
     bytes the input's, so every value the same), the Q8_0 tensor too;
  2. gguf_rewrite() with {"byte_order": "little"}: a little-endian file of
     the same values, each element swapped; the Q8_0 tensor is refused
     (its blocks cannot be swapped element by element) and nothing is
     written; back to big-endian with {"byte_order": "big"}: the original
     file byte for byte; a little-endian file to big-endian and back too;
  3. safetensors_write() and safetensors_split() from the big-endian file:
     little-endian safetensors with every value the input's (shapes
     outermost first); the Q8_0 tensor is refused;
  4. gguf_split() keeps the byte order, and gguf_rewrite() merges the parts
     back into the original bytes;
  5. tensor_values() of what was written agrees with the values put in.
Prints "write_endian: N passed, M failed".
"""
import os
import shutil
import sqlite3
import struct
import sys
import tempfile

import checks
from checks import ok as check
from model_files import read_gguf, read_safetensors

MODULE = os.path.abspath(sys.argv[1])

# ggml type id: (name, struct code of one element, bytes per element)
TYPES = {0: ("F32", "f", 4), 1: ("F16", "e", 2), 30: ("BF16", None, 2), 28: ("F64", "d", 8),
         24: ("I8", "b", 1), 25: ("I16", "h", 2), 26: ("I32", "i", 4), 27: ("I64", "q", 8)}
Q8_0 = 8

# Values exact in every type that holds them (BF16: the top half of an F32).
VALUES = {
    0: [-0.0064, 1.5, -2.25, 3e-5, 65504.0, -0.0, 7.0, 1e-30],
    1: [-0.0064, 1.5, -2.25, 3e-5, 65504.0, -0.0, 7.0, 0.099975586],
    30: [1.5, -2.25, 0.15625, -3.0e38, 1.0e-38, 7.0, -0.0, 65536.0],
    28: [-0.0064, 1.5, -2.25, 1e300, -1e-300, 7.0, -0.0, 2.5],
    24: [-128, 127, 0, -1, 5, -6, 7, 100],
    25: [-32768, 32767, 258, -2, 1000, -1000, 7, 0x1234],
    26: [-2**31, 2**31 - 1, 0x01020304, -5, 7, 8, 9, 10],
    27: [-2**63, 2**63 - 1, 0x0102030405060708, -7, 1, 2, 3, 4],
}


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def bf16_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0] >> 16


def pack_elems(t, vals, bo):
    name, code, size = TYPES[t]
    if t == 30:
        return b"".join(struct.pack(bo + "H", bf16_bits(v)) for v in vals)
    return b"".join(struct.pack(bo + code, v) for v in vals)


def unpack_elems(t, data, bo):
    name, code, size = TYPES[t]
    n = len(data) // size
    if t == 30:
        return [struct.unpack(bo + "f", struct.pack(bo + "I", x << 16))[0]
                for x in struct.unpack(bo + "%dH" % n, data)]
    return list(struct.unpack(bo + "%d%s" % (n, code), data))


def expected(t):
    """The values as the type holds them."""
    if t == 0:
        return [f32(v) for v in VALUES[t]]
    if t == 1:
        return [struct.unpack("<e", struct.pack("<e", v))[0] for v in VALUES[t]]
    if t == 30:
        return [struct.unpack("<f", struct.pack("<I", bf16_bits(v) << 16))[0] for v in VALUES[t]]
    return list(VALUES[t])


def q8_0_block(bo, d, qs):
    return struct.pack(bo + "e", d) + bytes(q & 255 for q in qs)


# ---- a GGUF writer of this script's own, in either byte order (tests/model_files.py reads) ----

def gguf_bytes(bo, keys, tensors, align=32):
    """keys: [(key, type, value)] (4 UINT32, 8 STRING, 9 ARRAY of (elem type, list), 12 FLOAT64);
    tensors: [(name, ggml type, ne list, data bytes)]."""
    out = bytearray(b"GGUF" + struct.pack(bo + "IQQ", 3, len(tensors), len(keys)))

    def s(x):
        b = x.encode()
        return struct.pack(bo + "Q", len(b)) + b

    def val(t, v):
        if t == 8:
            return s(v)
        if t == 9:
            et, items = v
            return struct.pack(bo + "IQ", et, len(items)) + b"".join(val(et, x) for x in items)
        return struct.pack(bo + {4: "I", 5: "i", 6: "f", 10: "Q", 12: "d"}[t], v)

    for k, t, v in keys:
        out += s(k) + struct.pack(bo + "I", t) + val(t, v)
    offset, data = 0, bytearray()
    for name, t, ne, blob in tensors:
        out += s(name) + struct.pack(bo + "I", len(ne)) + b"".join(struct.pack(bo + "Q", x) for x in ne)
        out += struct.pack(bo + "IQ", t, offset)
        data += blob + b"\0" * (-len(blob) % align)
        offset = len(data)
    out += b"\0" * (-len(out) % align)
    return bytes(out + data)


def model(bo, with_q8=True):
    keys = [("general.architecture", 8, "llama"), ("general.alignment", 4, 64),
            ("x.f64", 12, -2.25), ("x.strs", 9, (8, ["a", "bc"])), ("x.ids", 9, (5, [-1, 2, 70000]))]
    tensors = []
    for t in TYPES:
        tensors.append(("t.%s" % TYPES[t][0].lower(), t, [4, 2], pack_elems(t, VALUES[t], bo)))
    if with_q8:
        blocks = q8_0_block(bo, -0.0064, range(-16, 16)) + q8_0_block(bo, 2.5, range(32))
        tensors.append(("t.q8_0", Q8_0, [32, 2], blocks))
    return keys, tensors


def connect():
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(MODULE)
    return db


def error_of(db, sql, args=()):
    try:
        db.execute(sql, args).fetchall()
        return None
    except sqlite3.Error as e:
        return str(e)


def same_values(tensors, bo, what):
    """Every plain tensor of tensors (read in byte order bo) holds its VALUES."""
    bad = [name for name, t, ne, data in tensors if t in TYPES and unpack_elems(t, data, bo) != expected(t)]
    check(bad == [] and len(tensors) >= len(TYPES), what, repr(bad))


def decoded(db, path, what):
    """tensor_values() of every plain tensor of path: the values put in."""
    bad = []
    for t in TYPES:
        name = "t.%s" % TYPES[t][0].lower()
        got = [r[0] for r in db.execute("SELECT value FROM tensor_values(?, ?) ORDER BY idx", (path, name))]
        if got != expected(t):
            bad.append((name, got))
    check(bad == [], what, repr(bad))


def kept(db, work, be_path, k0, t0):
    """1. gguf_rewrite keeps the byte order."""
    out = os.path.join(work, "kept.gguf")
    db.execute("SELECT gguf_rewrite(?, ?, json_object('general.name', 'Kept', 'x.f64', 0.5))",
               (out, be_path)).fetchall()
    raw = open(out, "rb").read()
    check(raw[4:8] == b"\0\0\0\3", "rewrite: the version field is big-endian", raw[4:8].hex())
    bo, k1, t1 = read_gguf(out)
    want = dict(k0)
    want["x.f64"] = (12, 0.5)
    want["general.name"] = (8, "Kept")
    check(k1 == want and list(k1) == list(want), "rewrite: every key as edited, read big-endian",
          repr(k1))
    check(t1 == t0, "rewrite: every tensor's bytes the input's (Q8_0 too)")
    same_values(t1, bo, "rewrite: every value the input's, read in the output's byte order")
    decoded(db, out, "rewrite: tensor_values() of the output, every type")


def converted(db, work, be_path):
    """2. to little-endian and back."""
    le = os.path.join(work, "le.gguf")
    e = error_of(db, "SELECT gguf_rewrite(?, ?, NULL, '{\"byte_order\": \"little\"}')", (le, be_path))
    check(e is not None and "'t.q8_0' is Q8_0, which cannot change byte order" in e and
          not os.path.exists(le), "to little-endian: the Q8_0 tensor is refused, nothing written", e)
    be8 = os.path.join(work, "be-plain.gguf")
    keys, tensors = model(">", with_q8=False)
    open(be8, "wb").write(gguf_bytes(">", keys, tensors, 64))
    db.execute("SELECT gguf_rewrite(?, ?, NULL, '{\"byte_order\": \"little\"}')", (le, be8)).fetchall()
    bo, k2, t2 = read_gguf(le)
    check(bo == "<" and k2 == read_gguf(be8)[1], "to little-endian: a little-endian file, the same keys")
    same_values(t2, "<", "to little-endian: every value the input's, each element swapped")
    decoded(db, le, "to little-endian: tensor_values() of the output, every type")
    keys, tensors = model("<", with_q8=False)
    check(open(le, "rb").read() == gguf_bytes("<", keys, tensors, 64),
          "to little-endian: the file this script writes little-endian, byte for byte")
    back = os.path.join(work, "back.gguf")
    db.execute("SELECT gguf_rewrite(?, ?, NULL, '{\"byte_order\": \"big\"}')", (back, le)).fetchall()
    check(open(back, "rb").read() == open(be8, "rb").read(),
          "and back to big-endian: the original file byte for byte")
    e = error_of(db, "SELECT gguf_rewrite(?, ?, NULL, '{\"byte_order\": \"middle\"}')", (back, le))
    check(e is not None and "byte_order must be 'little' or 'big'" in e, "an unknown byte order is refused", e)
    e = error_of(db, "SELECT safetensors_rewrite(?, 'build/demo/tiny-llama.safetensors', NULL, "
                 "'{\"byte_order\": \"big\"}')", (os.path.join(work, "x.safetensors"),))
    check(e is not None and "safetensors is little-endian" in e, "safetensors_rewrite: big refused", e)


def to_safetensors(db, work, be_path, t0):
    """3. safetensors from the big-endian file."""
    st = os.path.join(work, "from-be.safetensors")
    db.execute("SELECT safetensors_write(?, name, path) FROM tensors(?) WHERE dtype != 'Q8_0'",
               (st, be_path)).fetchall()
    got = read_safetensors(st)[1]
    bad = [n for n, t, ne, _ in t0 if t in TYPES and
           (got[n][0] != TYPES[t][0] or got[n][1] != ne[::-1] or
            unpack_elems(t, got[n][2], "<") != expected(t))]
    check(len(got) == 8 and bad == [], "safetensors_write: little-endian values, the input's, "
          "shapes outermost first", repr(bad))
    decoded(db, st, "safetensors_write: tensor_values() of the output, every type")
    e = error_of(db, "SELECT safetensors_write(?, name, path) FROM tensors(?)",
                 (os.path.join(work, "q.safetensors"), be_path))
    check(e is not None and "Q8_0" in e and not os.path.exists(os.path.join(work, "q.safetensors")),
          "safetensors_write: the Q8_0 tensor is refused", e)
    folder = os.path.join(work, "shards")
    be8 = os.path.join(work, "be-shards.gguf")
    keys, tensors = model(">", with_q8=False)
    open(be8, "wb").write(gguf_bytes(">", keys, tensors, 64))
    db.execute("SELECT safetensors_split(?, ?, 40)", (folder, be8)).fetchall()
    shards = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".safetensors"):
            shards.update(read_safetensors(os.path.join(folder, f))[1])
    bad = [n for n, t, ne, _ in read_gguf(be8)[2] if unpack_elems(t, shards[n][2], "<") != expected(t)]
    check(len(shards) == 8 and bad == [], "safetensors_split: little-endian shards, the values", repr(bad))


def split(db, work, be_path):
    """4. gguf_split keeps the byte order; merged back, the original."""
    prefix = os.path.join(work, "part")
    n = db.execute("SELECT gguf_split(?, ?, '{\"max_tensors\": 4}')", (prefix, be_path)).fetchone()[0]
    first = prefix + "-00001-of-00003.gguf"
    check(n == 3 and all(read_gguf(prefix + "-%05d-of-00003.gguf" % (k + 1))[0] == ">" for k in range(3)),
          "gguf_split: three big-endian parts")
    merged = os.path.join(work, "merged.gguf")
    db.execute("SELECT gguf_rewrite(?, ?, json_object('split.count', NULL, 'split.no', NULL, "
               "'split.tensors.count', NULL))", (merged, first)).fetchall()
    check(open(merged, "rb").read() == open(be_path, "rb").read(),
          "gguf_split then gguf_rewrite: the original big-endian file byte for byte")


def main():
    work = tempfile.mkdtemp(prefix="write-endian-")
    db = connect()
    try:
        be_path = os.path.join(work, "be.gguf")
        keys, tensors = model(">")
        open(be_path, "wb").write(gguf_bytes(">", keys, tensors, 64))
        bo, k0, t0 = read_gguf(be_path)
        check(bo == ">" and len(t0) == 9, "the input is big-endian, 9 tensors")
        same_values(t0, ">", "the input holds the values put in (the reader reads them back)")
        for part, args in ((kept, (k0, t0)), (converted, ()), (to_safetensors, (t0,)), (split, ())):
            try:
                part(db, work, be_path, *args)
            except (sqlite3.Error, OSError, KeyError, AssertionError) as e:
                check(False, part.__doc__, repr(e))
    finally:
        db.close()
        shutil.rmtree(work, ignore_errors=True)
    print(checks.summary("write_endian"))
    sys.exit(checks.status())


main()
