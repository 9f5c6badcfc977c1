#!/usr/bin/python3
"""convert_oracle.py LLAMA_CPP CASES OUT: run llama.cpp's own converter on
the checkpoints of tests/gen_convert.py and print what it wrote as records
of the SQL test runner (tests/convert_cases.test takes them as they are).

  python3 tests/gen_convert.py build/convert
  python3 tests/convert_oracle.py /tmp/llama.cpp build/convert /tmp/oracle > records.txt

LLAMA_CPP is a checkout of llama.cpp (de3ff815, the release node-llama-cpp
3.22.1 carries) with convert_hf_to_gguf.py and gguf-py; Debian 12's
python3-numpy, python3-torch and python3-sentencepiece run it.  What those
packages lack is stood in for here, never changing a number: transformers
(AutoConfig fails, so the converter reads config.json itself, its own
fallback), tqdm (no progress bar), and torch 1.13's missing float8 and
unsigned dtypes (names the converter puts in tables, never used here).

For each checkpoint and --outtype (f32, f16, bf16, q8_0): every tensor of
the converter's file as gguf-py's GGUFReader reads it, in order: name, ggml
type, shape (ne[0] first) and the SHA-256 of its bytes; for the Qwen3
checkpoint (the one architecture converted as de3ff815 converts it) also
every metadata key but the tokenizer's, in order, with its type and value,
and the SHA-256 of the whole file (the tokenizer's keys included).
Only the tensors of the other checkpoints are recorded: de3ff815 orders
their metadata otherwise than c392e50, which gguf_convert follows.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import types

SHIM = '''
import sys, runpy, types, torch
for n in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint16", "uint32", "uint64"):
    if not hasattr(torch, n):
        setattr(torch, n, type("fake_dtype_" + n, (), {})())
tf = types.ModuleType("transformers")
class _Auto:
    @staticmethod
    def from_pretrained(*a, **k):
        raise OSError("no transformers here")
tf.AutoConfig = tf.AutoTokenizer = _Auto
sys.modules["transformers"] = tf
tq = types.ModuleType("tqdm")
class _Bar:
    def __init__(self, *a, **k): pass
    def update(self, *a, **k): pass
    def set_description(self, *a, **k): pass
    def reset(self, *a, **k): pass
    def close(self): pass
tq.tqdm = _Bar
sys.modules["tqdm"] = tq
conv = sys.argv[1]
sys.argv = [conv] + sys.argv[2:]
sys.path.insert(0, conv.rsplit("/", 1)[0])
runpy.run_path(conv, run_name="__main__")
'''

TYPES = ["f32", "f16", "bf16", "q8_0"]


def value_text(field, reader_types):
    """A metadata value as gguf_metadata() shows it."""
    t = field.types[0]
    if t == reader_types.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8")
    v = field.parts[field.data[0]][0]
    if t in (reader_types.FLOAT32, reader_types.FLOAT64):
        r = "%.15g" % float(v)
        return r if ("e" in r or "." in r or "n" in r) else r + ".0"
    return str(int(v))


def main():
    llama_cpp, cases, work = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, os.path.join(llama_cpp, "gguf-py"))
    from gguf.gguf_reader import GGUFReader
    from gguf.constants import GGUFValueType
    os.makedirs(work, exist_ok=True)
    shim = os.path.join(work, "shim.py")
    with open(shim, "w") as f:
        f.write(SHIM)
    for case in sorted(c for c in os.listdir(cases) if not c.startswith("bad-")):
        src = os.path.join(work, case)
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(os.path.join(cases, case), src)
        for t in TYPES:
            out = os.path.join(work, "%s-%s.gguf" % (case, t))
            subprocess.run([sys.executable, shim, os.path.join(llama_cpp, "convert_hf_to_gguf.py"),
                            src, "--outtype", t, "--outfile", out],
                           check=True, capture_output=True)
            r = GGUFReader(out)
            name = "__TEST_DIR__/%s-%s.gguf" % (case, t)
            print("\n# %s --outtype %s" % (case, t))
            print("statement ok")
            print("SELECT gguf_convert('%s', 'build/convert/%s', json_object('outtype', '%s'))"
                  % (name, case, t))
            print("\nquery TTTT nosort")
            print("SELECT name, dtype, shape, tensor_hash('%s', name, 'sha256') FROM gguf('%s')"
                  % (name, name))
            print("----")
            for x in r.tensors:
                print(x.name)
                print(x.tensor_type.name)
                print("[" + ",".join(str(int(d)) for d in x.shape) + "]")
                print(hashlib.sha256(bytes(x.data.tobytes())).hexdigest())
            if not case.startswith("tiny-qwen3"):
                continue
            print("\n# the whole file, tokenizer included")
            print("query T nosort")
            print("SELECT file_sha256('%s')" % name)
            print("----")
            with open(out, "rb") as f:
                print(hashlib.sha256(f.read()).hexdigest())
            print("\nquery TTT nosort")
            print("SELECT key, type, CAST(CASE WHEN type = 'ARRAY' THEN count ELSE value END AS TEXT)")
            print("FROM gguf_metadata('%s') WHERE key NOT LIKE 'tokenizer.%%'" % name)
            print("----")
            for fld in r.fields.values():
                if fld.name.startswith("tokenizer.") or fld.name.startswith("GGUF."):
                    continue
                print(fld.name)
                print(GGUFValueType(fld.types[0]).name)
                print(value_text(fld, GGUFValueType) if fld.types[0] != GGUFValueType.ARRAY
                      else str(len(fld.data)))


if __name__ == "__main__":
    main()
