#!/usr/bin/env python3
"""gen_values.py OUTDIR: small files with chosen values for the histogram and
NVFP4-scale tests (tests/histogram.test), written with struct, not by the
extension.

OUTDIR/hist.safetensors (values listed in tests/histogram.test):
  edges     F32 [8]   0, 1, 2, 3, 4, 2.5, 0.5, 4
  specials  F32 [8]   NaN, +Inf, -Inf, 1, 2, 3, NaN, -1
  equal     F32 [5]   7 five times
  nonfinite F32 [3]   NaN, NaN, +Inf
  empty     F32 [0]
  tenths    F32 [10]  float32(k / 10), k = 0 .. 9
  ramp      U8 [1024] i mod 256
  f64edges  F64 [4]   0, 0.3/3 and 2 * 0.3/3 as doubles (0.09999999999999999,
                      0.19999999999999998: the edges of 3 bins over [0, 0.3]), 0.3

OUTDIR/nvfp4-scale.gguf (GGUF v3, little-endian): four NVFP4 [64] tensors
holding the same block (UE4M3 scales 0x38 0x38 0x40 0x30 = 1, 1, 2, 0.5;
nibbles 0x7F then 0x21 x 31), and their scale tensors:
  blk.0.ffn_up.weight     with blk.0.ffn_up.scale F32 [1] = 3
  blk.0.ffn_down.weight   with blk.0.ffn_down.weight.scale F32 [1] = 0.5
  blk.0.ffn_gate.weight   without a scale
  blk.0.attn_q.weight     with blk.0.attn_q.scale F32 [2] = 2, 2 (not a scalar: not applied)
"""
import json
import os
import struct
import sys

NAN = float("nan")
INF = float("inf")


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


def safetensors(path, tensors):
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf(path, tensors):
    """tensors: (name, ggml type id, ne list, bytes), alignment 32."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 1)
    out += gguf_str("general.architecture") + struct.pack("<I", 8) + gguf_str("test")
    data = b""
    for name, typ, ne, raw in tensors:
        out += gguf_str(name) + struct.pack("<I", len(ne)) + struct.pack("<%dQ" % len(ne), *ne)
        out += struct.pack("<IQ", typ, len(data))
        data += raw + b"\0" * (-len(raw) % 32)
    out += b"\0" * (-len(out) % 32)
    with open(path, "wb") as f:
        f.write(out + data)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    safetensors(os.path.join(out, "hist.safetensors"), [
        ("edges", "F32", [8], f32(0, 1, 2, 3, 4, 2.5, 0.5, 4)),
        ("specials", "F32", [8], f32(NAN, INF, -INF, 1, 2, 3, NAN, -1)),
        ("equal", "F32", [5], f32(7, 7, 7, 7, 7)),
        ("nonfinite", "F32", [3], f32(NAN, NAN, INF)),
        ("empty", "F32", [0], b""),
        ("tenths", "F32", [10], f32(*[k / 10 for k in range(10)])),
        ("ramp", "U8", [1024], bytes(i % 256 for i in range(1024))),
        ("f64edges", "F64", [4], struct.pack("<4d", 0, 0.09999999999999999, 0.19999999999999998, 0.3)),
    ])
    block = bytes([0x38, 0x38, 0x40, 0x30, 0x7F]) + bytes([0x21] * 31)
    gguf(os.path.join(out, "nvfp4-scale.gguf"), [
        ("blk.0.ffn_up.weight", 40, [64], block),
        ("blk.0.ffn_up.scale", 0, [1], f32(3)),
        ("blk.0.ffn_down.weight", 40, [64], block),
        ("blk.0.ffn_down.weight.scale", 0, [1], f32(0.5)),
        ("blk.0.ffn_gate.weight", 40, [64], block),
        ("blk.0.attn_q.weight", 40, [64], block),
        ("blk.0.attn_q.scale", 0, [2], f32(2, 2)),
    ])


if __name__ == "__main__":
    main()
