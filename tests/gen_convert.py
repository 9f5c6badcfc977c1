#!/usr/bin/python3
"""gen_convert.py DIR: tiny Hugging Face checkpoints for gguf_convert()'s
tests (tests/convert_cases.test), one folder per case, each with its
config.json, a SentencePiece tokenizer.model written here (protobuf by
hand), tokenizer_config.json and generation_config.json.

  tiny-llama3       LlamaForCausalLM, BF16, one file, tied (no lm_head), GQA
                    (4 heads, 2 KV heads), no head_dim, RoPE scaling "llama3"
                    (the converter generates rope_freqs), a signaling NaN
                    (0x7F81, written as bits) in one BF16 weight
  tiny-mistral      MistralForCausalLM, F16, 3 shards and an index, lm_head
  tiny-odd          LlamaForCausalLM, F32 and one F64 tensor, an FFN of 80
                    (no multiple of 32: Q8_0 falls back to F16), F32 values
                    that tie in F16 and ones past its range
  tiny-qwen2        Qwen2ForCausalLM, F32, q/k/v biases, YaRN scaling
  tiny-qwen3        Qwen3ForCausalLM, BF16, head_dim 32 (4 heads of 32 over
                    a hidden size of 64), q/k norms, tied, sampling values in
                    generation_config.json (de3ff815 writes them)
  tiny-gemma        GemmaForCausalLM, F32, head_dim 32, an lm_head (as AutoAWQ
                    saves one) that the converter drops
  tiny-gemma2       Gemma2ForCausalLM, F16 (its norms + 1 are rounded to F16
                    by the converter), the four norms of a layer, an lm_head
                    the converter drops
  tiny-phi3         Phi3ForCausalLM, BF16, fused qkv_proj and gate_up_proj,
                    "longrope" scaling (rope_factors_long/_short and
                    rope.scaling.attn_factor)

and broken ones, for the errors (each a clear message naming the file and
the item, nothing written):

  bad-index-extra   a shard holds a tensor its index does not list
  bad-index-place   the index places a tensor in a shard that lacks it
  bad-shape         a q_proj of 48 rows where config.json gives 64
  bad-vocab         config.json's vocab_size 300, an embedding of 288 rows
  bad-config        config.json without num_attention_heads
  bad-arch          BertModel, which the converter does not take here
  bad-f8            an F8_E4M3 weight
  bad-int           an I32 weight
  bad-noconfig      no config.json
  bad-notokenizer   neither tokenizer.model nor tokenizer.json
  bad-utf8-config   config.json with a byte that is not UTF-8
  bad-utf8-generation  generation_config.json with one (a Qwen3 checkpoint:
                    de3ff815's converter reads it)
  bad-qwen3-config  a Qwen3 config.json whose rms_norm_eps is a string

Values are seeded Gaussian noise (random.Random), so that Q8_0's scales and
roundings vary; F16 with Python's struct 'e' (round to nearest even), BF16
the float32 bits rounded to nearest even.  Tensors are written in an order
that is not the name order (the converter sorts them).  Standard library
only; the output is the same on every run.

  gen_convert.py --bpe qwen3|qwen2|llama3 TOKENIZER_DIR OUT

writes OUT/bpe-KIND instead: a real byte-level BPE tokenizer's
tokenizer.json and tokenizer_config.json over tiny weights (one layer, an
embedding of the tokenizer's vocab_size rows), for the runs of llama.cpp's
converter that need transformers (not in Debian 12: run them where it is);
no test makes them.
"""
import json
import os
import random
import shutil
import struct
import sys

# ------------------------------------------------------------------ values

def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf16_of(x):
    """float32 x to BF16 bits, round to nearest even."""
    u = f32_bits(x)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def encode(values, dtype):
    if dtype == "F32":
        return struct.pack("<%df" % len(values), *values)
    if dtype == "F64":
        return struct.pack("<%dd" % len(values), *values)
    if dtype == "F16":
        return struct.pack("<%de" % len(values), *values)
    if dtype == "BF16":
        return struct.pack("<%dH" % len(values), *[bf16_of(v) for v in values])
    raise ValueError(dtype)


def noise(rng, n, scale=0.05):
    return [rng.gauss(0.0, scale) for _ in range(n)]


# ------------------------------------------------------------- safetensors

def write_safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, raw bytes), written in that order."""
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_checkpoint(folder, tensors, shards=1):
    """One model.safetensors, or `shards` files and their index."""
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        return
    weight_map, total = {}, 0
    for k in range(shards):
        name = "model-%05d-of-%05d.safetensors" % (k + 1, shards)
        part = tensors[k::shards]
        write_safetensors(os.path.join(folder, name), part)
        for t in part:
            weight_map[t[0]] = name
            total += len(t[3])
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)


# ------------------------------------------------------ SentencePiece model

def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 5:
        return key + struct.pack("<f", payload)
    return key + varint(len(payload)) + payload


def spm_model(words):
    """A BPE SentencePiece model: <unk>, <s>, </s>, the 256 byte pieces
    (byte fallback), then words with falling scores."""
    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)]
    pieces += [("<0x%02X>" % b, 0.0, 6) for b in range(256)]
    pieces += [(w, -float(i), 1) for i, w in enumerate(words)]
    out = b""
    for text, score, kind in pieces:
        out += field(1, 2, field(1, 2, text.encode()) + field(2, 5, score) + field(3, 0, kind))
    trainer = (field(3, 0, 2) + field(4, 0, len(pieces)) + field(35, 0, 1) +
               field(40, 0, 0) + field(41, 0, 1) + field(42, 0, 2) +
               field(43, 0, (1 << 64) - 1))
    normalizer = field(1, 2, b"identity") + field(3, 0, 1) + field(4, 0, 1) + field(5, 0, 1)
    return out + field(2, 2, trainer) + field(3, 2, normalizer), len(pieces)


WORDS = ["\u2581the", "\u2581a", "\u2581of", "\u2581to", "\u2581and", "\u2581in", "\u2581is",
         "\u2581it", "\u2581that", "\u2581on", "er", "in", "on", "an", "re", "at", "en",
         "\u2581t", "\u2581s", "\u2581w", "ing", "ed", "es", "\u2581h", "\u2581b", "\u2581c",
         "\u2581m", "or", "\u2581f"]
TOKENIZER, N_VOCAB = spm_model(WORDS)


# ------------------------------------------------------------------ models

def layer_names(arch, i, n_head, n_kv, head_dim, hidden, ff):
    """(HF name, shape) of layer i's tensors."""
    p = "model.layers.%d." % i
    q, kv = n_head * head_dim, n_kv * head_dim
    if arch == "phi3":
        return [(p + "self_attn.qkv_proj.weight", (q + 2 * kv, hidden)),
                (p + "self_attn.o_proj.weight", (hidden, q)),
                (p + "mlp.gate_up_proj.weight", (2 * ff, hidden)),
                (p + "mlp.down_proj.weight", (hidden, ff)),
                (p + "input_layernorm.weight", (hidden,)),
                (p + "post_attention_layernorm.weight", (hidden,))]
    out = [(p + "self_attn.q_proj.weight", (q, hidden)),
           (p + "self_attn.k_proj.weight", (kv, hidden)),
           (p + "self_attn.v_proj.weight", (kv, hidden)),
           (p + "self_attn.o_proj.weight", (hidden, q)),
           (p + "mlp.gate_proj.weight", (ff, hidden)),
           (p + "mlp.up_proj.weight", (ff, hidden)),
           (p + "mlp.down_proj.weight", (hidden, ff)),
           (p + "input_layernorm.weight", (hidden,)),
           (p + "post_attention_layernorm.weight", (hidden,))]
    if arch == "qwen2":
        out += [(p + "self_attn.%s_proj.bias" % x, (n,)) for x, n in (("q", q), ("k", kv), ("v", kv))]
    if arch == "qwen3":
        out += [(p + "self_attn.q_norm.weight", (head_dim,)), (p + "self_attn.k_norm.weight", (head_dim,))]
    if arch == "gemma2":
        out += [(p + "pre_feedforward_layernorm.weight", (hidden,)),
                (p + "post_feedforward_layernorm.weight", (hidden,))]
    return out


def make(dir_, name, arch, hf_arch, dtype, config, rng, lm_head=True, shards=1, layers=2,
         special=None, gen=None, tokenizer_extra=None, shapes=None, raw=None, bits=None,
         n_vocab=N_VOCAB, tokenizer_from=None):
    hidden, n_head = config["hidden_size"], config["num_attention_heads"]
    n_kv = config.get("num_key_value_heads", n_head)
    head_dim = config.get("head_dim", hidden // n_head)
    ff = config["intermediate_size"]
    folder = os.path.join(dir_, name)
    os.makedirs(folder, exist_ok=True)
    names = [("model.embed_tokens.weight", (n_vocab, hidden)), ("model.norm.weight", (hidden,))]
    if lm_head:
        names.append(("lm_head.weight", (n_vocab, hidden)))
    for i in range(layers):
        names += layer_names(arch, i, n_head, n_kv, head_dim, hidden, ff)
    tensors = []
    for tname, shape in names:
        shape = (shapes or {}).get(tname, shape)
        n = 1
        for d in shape:
            n *= d
        values = noise(rng, n) if len(shape) > 1 else [1.0 + v for v in noise(rng, n, 0.1)]
        td = dtype
        if special and tname in special:
            td, patch = special[tname]
            values[:len(patch)] = patch
        data = (raw or {}).get(tname)
        data = encode(values, td) if data is None else data
        if bits and tname in bits:  # bytes no Python float carries (a signaling NaN)
            data = bits[tname] + data[len(bits[tname]):]
        tensors.append((tname, td, shape, data))
    tensors.reverse()  # not the name order
    write_checkpoint(folder, tensors, shards)
    cfg = {"architectures": [hf_arch], "model_type": arch, "num_hidden_layers": layers,
           "vocab_size": n_vocab, "torch_dtype": {"F32": "float32", "F16": "float16"}.get(dtype, "bfloat16")}
    cfg.update(config)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    if tokenizer_from is not None:  # a byte-level BPE tokenizer's two files, as they are
        for fname in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copyfile(os.path.join(tokenizer_from, fname), os.path.join(folder, fname))
    else:
        write_spm(folder, tokenizer_extra)
    g = {"bos_token_id": 1, "eos_token_id": 2}
    g.update(gen or {})
    with open(os.path.join(folder, "generation_config.json"), "w") as f:
        json.dump(g, f, indent=2)


def write_spm(folder, tokenizer_extra):
    """tokenizer.model and tokenizer_config.json of the SentencePiece words."""
    with open(os.path.join(folder, "tokenizer.model"), "wb") as f:
        f.write(TOKENIZER)
    tok = {"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>",
           "unk_token": "<unk>", "add_bos_token": True, "add_eos_token": False,
           "chat_template": "{% for m in messages %}{{ m['content'] }}</s>{% endfor %}"}
    tok.update(tokenizer_extra or {})
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(tok, f, indent=2)


BASE = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "max_position_embeddings": 2048, "rms_norm_eps": 1e-05,
        "rope_theta": 10000.0, "bos_token_id": 1, "eos_token_id": 2}


def cfg(**kw):
    c = dict(BASE)
    c.update(kw)
    return {k: v for k, v in c.items() if v is not None}


def main():
    out = sys.argv[1]
    rng = random.Random(20250220)
    make(out, "tiny-llama3", "llama", "LlamaForCausalLM", "BF16",
         cfg(rope_theta=500000.0, tie_word_embeddings=True,
             rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                           "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
         rng, lm_head=False,
         bits={"model.layers.1.mlp.up_proj.weight": struct.pack("<3H", 0x3E80, 0x7F81, 0xBF00)})
    make(out, "tiny-mistral", "mistral", "MistralForCausalLM", "F16",
         cfg(sliding_window=4096, head_dim=16), rng, shards=3)
    ties = [1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65520.0, -70000.0, 2 ** -25, 3 * 2 ** -26, 1e-8]
    make(out, "tiny-odd", "llama", "LlamaForCausalLM", "F32", cfg(intermediate_size=80), rng,
         special={"model.layers.0.mlp.down_proj.weight": ("F32", ties),
                  "model.layers.1.self_attn.v_proj.weight": ("F64", [0.1, 1e-300, 3.4e38])})
    make(out, "tiny-qwen2", "qwen2", "Qwen2ForCausalLM", "F32",
         cfg(max_position_embeddings=131072, rope_theta=1000000.0,
             rope_scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
             sliding_window=131072, use_sliding_window=False),
         rng)
    make(out, "tiny-qwen3", "qwen3", "Qwen3ForCausalLM", "BF16",
         cfg(head_dim=32, rms_norm_eps=1e-06, rope_theta=1000000.0, tie_word_embeddings=True,
             rope_scaling=None, max_position_embeddings=40960),
         rng, lm_head=False,
         gen={"do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95,
              "repetition_penalty": 1.1})
    make(out, "tiny-gemma", "gemma", "GemmaForCausalLM", "F32",
         cfg(head_dim=32, num_key_value_heads=1, rms_norm_eps=1e-06, max_position_embeddings=8192),
         rng)
    make(out, "tiny-gemma2", "gemma2", "Gemma2ForCausalLM", "F16",
         cfg(head_dim=16, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
             sliding_window=4096, query_pre_attn_scalar=16, rms_norm_eps=1e-06,
             max_position_embeddings=8192),
         rng)
    make(out, "tiny-phi3", "phi3", "Phi3ForCausalLM", "BF16",
         cfg(num_key_value_heads=4, max_position_embeddings=4096,
             original_max_position_embeddings=512, sliding_window=2047,
             rope_scaling={"type": "longrope",
                           "long_factor": [1.0 + 0.25 * i for i in range(8)],
                           "short_factor": [1.0 + 0.01 * i for i in range(8)]}),
         rng,
         # as Phi-3 adds <|endoftext|> (llama.cpp looks it up in a model named phi3)
         tokenizer_extra={"added_tokens_decoder": {
             str(N_VOCAB - 1): {"content": "<|endoftext|>", "special": True}}})


def edit_json(path, fn):
    with open(path) as f:
        doc = json.load(f)
    fn(doc)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


def broken(out):
    rng = random.Random(7)
    small = cfg(head_dim=16)
    for name in ("bad-index-extra", "bad-index-place"):
        make(out, name, "llama", "LlamaForCausalLM", "BF16", small, rng, shards=2, layers=1)
    index = os.path.join(out, "bad-index-extra", "model.safetensors.index.json")
    edit_json(index, lambda d: d["weight_map"].pop("model.norm.weight"))
    index = os.path.join(out, "bad-index-place", "model.safetensors.index.json")

    def move(d):
        w = d["weight_map"]
        w["model.norm.weight"] = [s for s in set(w.values()) if s != w["model.norm.weight"]][0]
    edit_json(index, move)
    make(out, "bad-shape", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1,
         shapes={"model.layers.0.self_attn.q_proj.weight": (48, 64)})
    make(out, "bad-vocab", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1)
    edit_json(os.path.join(out, "bad-vocab", "config.json"), lambda d: d.update(vocab_size=300))
    make(out, "bad-config", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1)
    edit_json(os.path.join(out, "bad-config", "config.json"), lambda d: d.pop("num_attention_heads"))
    make(out, "bad-arch", "bert", "BertModel", "BF16", small, rng, layers=1)
    make(out, "bad-f8", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1,
         special={"model.layers.0.mlp.up_proj.weight": ("F8_E4M3", [])},
         raw={"model.layers.0.mlp.up_proj.weight": bytes(128 * 64)})
    make(out, "bad-int", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1,
         special={"model.layers.0.mlp.up_proj.weight": ("I32", [])},
         raw={"model.layers.0.mlp.up_proj.weight": bytes(4 * 128 * 64)})
    make(out, "bad-noconfig", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1)
    os.remove(os.path.join(out, "bad-noconfig", "config.json"))
    make(out, "bad-notokenizer", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1)
    os.remove(os.path.join(out, "bad-notokenizer", "tokenizer.model"))
    # a Latin-1 byte (caf\xe9) in config.json and in generation_config.json:
    # the converter opens both as UTF-8 text, and stops there
    make(out, "bad-utf8-config", "llama", "LlamaForCausalLM", "BF16", small, rng, layers=1)
    path = os.path.join(out, "bad-utf8-config", "config.json")
    with open(path, "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text.replace(b"{", b'{\n  "_name_or_path": "caf\xe9",', 1))
    make(out, "bad-utf8-generation", "qwen3", "Qwen3ForCausalLM", "BF16",
         cfg(head_dim=32, tie_word_embeddings=True), rng, layers=1, lm_head=False)
    with open(os.path.join(out, "bad-utf8-generation", "generation_config.json"), "wb") as f:
        f.write(b'{"temperature": 0.6, "sequence": "caf\xe9"}')
    make(out, "bad-qwen3-config", "qwen3", "Qwen3ForCausalLM", "BF16",
         cfg(head_dim=32, tie_word_embeddings=True, rms_norm_eps="tiny"), rng, layers=1, lm_head=False)


# Checkpoints no test makes: a real byte-level BPE tokenizer (tokenizer.json
# and tokenizer_config.json of TOKENIZER_DIR) over tiny weights whose
# embedding has its vocab_size rows, for runs of llama.cpp's converter that
# need transformers (not in Debian 12), made where it can run.
BPE = {
    "qwen3": ("qwen3", "Qwen3ForCausalLM", 151936,
              dict(head_dim=32, rms_norm_eps=1e-06, rope_theta=1000000.0,
                   tie_word_embeddings=True, max_position_embeddings=40960), False),
    "qwen2": ("qwen2", "Qwen2ForCausalLM", 151936,
              dict(rope_theta=1000000.0, max_position_embeddings=32768), True),
    "llama3": ("llama", "LlamaForCausalLM", 128256,
               dict(rope_theta=500000.0, tie_word_embeddings=True,
                    rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                  "high_freq_factor": 4.0,
                                  "original_max_position_embeddings": 8192}), False),
}


def bpe(kind, tokenizer_dir, out):
    """gen_convert.py --bpe KIND TOKENIZER_DIR OUT: OUT/bpe-KIND, BF16, one layer."""
    arch, hf_arch, n_vocab, extra, lm_head = BPE[kind]
    make(out, "bpe-" + kind, arch, hf_arch, "BF16", cfg(**extra), random.Random(kind), layers=1,
         lm_head=lm_head, n_vocab=n_vocab, tokenizer_from=tokenizer_dir)


if __name__ == "__main__":
    if sys.argv[1] == "--bpe":
        bpe(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
        broken(sys.argv[1])
