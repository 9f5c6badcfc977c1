#!/usr/bin/python3
"""model_config_test.py [MODULE]: model_config() against Python's json.

Run from the repository root with Debian's /usr/bin/python3 after
`make demo`:

    /usr/bin/python3 tests/model_config_test.py build/weights.so

For the demo's config.json and configs written here (nested objects two
levels deep, arrays, unicode and escapes, numbers of every shape, empty
objects, a multimodal Gemma 3 config with its text_config), flattens the
file with Python's json module (one level: "outer.inner" for each member of
a non-empty object member) and checks that model_config() gives the same
keys in the same order, values that json.loads() reads as the same values
and the JSON type of each.  Then the architecture that tensors()'
gguf_name follows: every Hugging Face architectures[0] of the converter
list gives GGUF names, an unknown one none.  Last line
"model_config: N passed, M failed"; exit 1 on failure.
"""

import json
import os
import shutil
import sqlite3
import sys
import tempfile

import checks
from checks import ok

MODULE = sys.argv[1] if len(sys.argv) > 1 else "build/weights.so"
DEMO = "build/demo/tiny-llama.safetensors"

def json_type(v):
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    return "number"


def flatten(doc):
    """The entries model_config() should give, from json's own reading."""
    out = []
    for k, v in doc.items():
        if isinstance(v, dict) and v:
            for k2, v2 in v.items():
                out.append((k + "." + k2, v2))
        else:
            out.append((k, v))
    return out


def check(conn, path, label, config=None):
    with open(config or path, "rb") as f:
        want = flatten(json.loads(f.read().decode("utf-8")))
    got = conn.execute("SELECT key, value, type FROM model_config(?)", (path,)).fetchall()
    ok(len(got) == len(want), label + ": entry count", "%d vs %d" % (len(got), len(want)))
    for (k, v), (gk, gv, gt) in zip(want, got):
        ok(gk == k, label + ": key", "%r vs %r" % (gk, k))
        ok(json.loads(gv) == v, label + ": value of " + k, "%r vs %r" % (gv, v))
        ok(gt == json_type(v), label + ": type of " + k, "%r vs %r" % (gt, json_type(v)))


def main():
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(os.path.abspath(MODULE))
    check(conn, "build/demo/config.json", "demo")
    check(conn, "build/demo/sharded/config.json", "demo shards")
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(DEMO, os.path.join(tmp, "model.safetensors"))
        cfg = os.path.join(tmp, "config.json")
        docs = {
            "gemma3": {
                "architectures": ["Gemma3ForConditionalGeneration"],
                "model_type": "gemma3",
                "text_config": {
                    "hidden_size": 2560,
                    "num_hidden_layers": 34,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "sliding_window_pattern": 6,
                    "query_pre_attn_scalar": 256,
                },
                "vision_config": {"hidden_size": 1152, "image_size": 896},
                "mm_tokens_per_image": 256,
                "eos_token_id": [1, 106],
                "initializer_range": 0.02,
            },
            "odd": {
                "empty": {},
                "list": [],
                "deep": {"a": {"b": {"c": [1, {"d": None}]}}},
                "text": "tab\t quote\" backslash\\ \u00e9\u4e2d\U0001f600",
                "numbers": {"int": -7, "big": 9007199254740993, "tiny": 1e-300, "e": 1.5e10,
                            "neg0": -0.0, "frac": 0.1},
                "bools": [True, False, None],
                "key with . and \"": 1,
            },
        }
        for label, doc in docs.items():
            with open(cfg, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2, ensure_ascii=(label == "odd"))
            check(conn, cfg, label + " (via the config)")
            check(conn, os.path.join(tmp, "model.safetensors"), label + " (via the model)", cfg)
        # The architectures the converter registers (convert_hf_to_gguf.py)
        # give GGUF names; model_type alone does not.
        archs = {"LlamaForCausalLM": "blk.0.attn_q.weight", "MistralForCausalLM": "blk.0.attn_q.weight",
                 "Qwen2ForCausalLM": "blk.0.attn_q.weight", "Qwen3ForCausalLM": "blk.0.attn_q.weight",
                 "GemmaForCausalLM": "blk.0.attn_q.weight", "Gemma2ForCausalLM": "blk.0.attn_q.weight",
                 "Gemma3ForCausalLM": "blk.0.attn_q.weight", "Phi3ForCausalLM": None,
                 "NoSuchModelForCausalLM": None}
        for arch, want in archs.items():
            with open(cfg, "w") as f:
                json.dump({"architectures": [arch], "model_type": "llama"}, f)
            got = conn.execute("SELECT gguf_name FROM tensors(?) WHERE name = "
                               "'model.layers.0.self_attn.q_proj.weight'",
                               (os.path.join(tmp, "model.safetensors"),)).fetchone()[0]
            ok(got == want, "gguf_name under " + arch, "%r vs %r" % (got, want))
    finally:
        shutil.rmtree(tmp)
    print(checks.summary("model_config"))
    return checks.status()


sys.exit(main())
