"""model_files.py: readers of GGUF and safetensors files written in the
tests from the formats' specifications (Python's struct and json), not with
the extension's parsers: what the writers' tests read their outputs with.

    import model_files
    order, keys, tensors = model_files.read_gguf(path)
    meta, tensors, header_len = model_files.read_safetensors(path)

read_gguf: either byte order (the version field tells: a big-endian file's
reads 00 00 00 03), version 3; keys {key: (type, value)} in file order, an
array's value (element type, [elements]); tensors [(name, ggml type, ne,
data bytes)] in tensor-info order, for the types of SIZES.
read_safetensors: the __metadata__ ({} when absent), {name: (dtype, shape,
data bytes)}, and the header's length N.
"""
import json
import struct

# ggml type id: (elements per block, bytes per block)
SIZES = {0: (1, 4), 1: (1, 2), 8: (32, 34), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8),
         28: (1, 8), 30: (1, 2)}  # F32, F16, Q8_0, I8, I16, I32, I64, F64, BF16
# GGUF value type: struct code (8 STRING and 9 ARRAY are read apart)
SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
           12: "d"}


def read_gguf(path):
    b = open(path, "rb").read()
    assert b[:4] == b"GGUF", path
    order = ">" if b[4:8] == b"\0\0\0\3" else "<"
    pos = 4

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from(order + fmt, b, pos)
        pos += struct.calcsize(order + fmt)
        return v[0] if len(v) == 1 else v

    def string():
        nonlocal pos
        n = take("Q")
        pos += n
        return b[pos - n:pos].decode("utf-8", "replace")

    def value(t):
        if t == 8:
            return string()
        if t == 9:
            et, n = take("I"), take("Q")
            return (et, [value(et) for _ in range(n)])
        return take(SCALARS[t])

    assert take("I") == 3, path
    n_t, n_kv = take("Q"), take("Q")
    keys = {}
    for _ in range(n_kv):
        k = string()
        t = take("I")
        keys[k] = (t, value(t))
    infos = []
    for _ in range(n_t):
        name = string()
        ne = [take("Q") for _ in range(take("I"))]
        infos.append((name, take("I"), ne, take("Q")))
    align = keys.get("general.alignment", (4, 32))[1]
    start = pos + (-pos % align)
    tensors = []
    for name, t, ne, off in infos:
        n = 1
        for x in ne:
            n *= x
        blk, size = SIZES[t]
        tensors.append((name, t, ne, b[start + off:start + off + n // blk * size]))
    return order, keys, tensors


def read_safetensors(path):
    b = open(path, "rb").read()
    n = struct.unpack_from("<Q", b)[0]
    head = json.loads(b[8:8 + n])
    meta = head.pop("__metadata__", {})
    return meta, {k: (v["dtype"], v["shape"], b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
                  for k, v in head.items()}, n
