#!/usr/bin/python3
"""vocab_from_gguf.py GGUF OUTDIR PRE_TOKENIZER_JSON [N_BASE]

Write OUTDIR/tokenizer.json from the vocabulary of a GGUF that llama.cpp's
converter wrote (its tokenizer.ggml.tokens, token_type and merges), with the
pre-tokenizer given as JSON text: model.vocab holds the first N_BASE tokens
(default: all), added_tokens every CONTROL token (special) and every
USER_DEFINED one at or past N_BASE.  Used by tests/vocab_test.sh to rebuild
a tokenizer.json for which llama.cpp's own ggml-vocab-*.gguf is the
converter's output (GPT-2's, whose tokenizer.json no npm package ships).
Reads GGUF v3 little-endian with the standard library only.
"""
import json
import struct
import sys

TYPES = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def read_gguf_kv(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"GGUF":
        raise SystemExit(f"{path}: not a GGUF file")
    _, n_tensors, n_kv = struct.unpack_from("<IQQ", data, 4)
    pos = 24

    def string(pos):
        (n,) = struct.unpack_from("<Q", data, pos)
        return data[pos + 8 : pos + 8 + n], pos + 8 + n

    def value(t, pos):
        if t == 8:
            return string(pos)
        if t == 9:
            et, count = struct.unpack_from("<IQ", data, pos)
            pos += 12
            out = []
            for _ in range(count):
                v, pos = value(et, pos)
                out.append(v)
            return out, pos
        fmt = "<" + TYPES[t]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)

    kv = {}
    for _ in range(n_kv):
        key, pos = string(pos)
        (t,) = struct.unpack_from("<I", data, pos)
        v, pos = value(t, pos + 4)
        kv[key.decode()] = v
    return kv


def main():
    path, outdir, pre = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    kv = read_gguf_kv(path)
    tokens = [t.decode("utf-8") for t in kv["tokenizer.ggml.tokens"]]
    types = kv["tokenizer.ggml.token_type"]
    merges = [m.decode("utf-8") for m in kv.get("tokenizer.ggml.merges", [])]
    n_base = int(sys.argv[4]) if len(sys.argv) > 4 else len(tokens)
    vocab = {tokens[i]: i for i in range(n_base)}
    added = [
        {"id": i, "content": tokens[i], "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": types[i] == 3}
        for i in range(len(tokens))
        if types[i] == 3 or (i >= n_base and types[i] == 4)
    ]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": merges},
    }
    with open(f"{outdir}/tokenizer.json", "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)


main()
