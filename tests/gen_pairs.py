#!/usr/bin/python3
"""gen_pairs.py DIR: Hugging Face checkpoints and the GGUF files llama.cpp's
converter writes of them, one pair per architecture, for the diff report's
tests (tests/report.test compares weights_report(checkpoint, gguf) with
tensor_compare()).

  DIR/qwen2/model.safetensors, config.json   a Qwen2ForCausalLM checkpoint
      (BF16; 2 layers, hidden 64, 4 heads of 16, 2 KV heads, q/k/v biases)
  DIR/qwen2/tiny-qwen2.gguf                   its conversion
  DIR/gemma2/model.safetensors, config.json  a Gemma2ForCausalLM checkpoint
      (BF16; 2 layers, hidden 64, 4 heads of 32, 2 KV heads, the four norms
      of a Gemma 2 layer, no lm_head: tied to the embedding)
  DIR/gemma2/tiny-gemma2.gguf                 its conversion

What the conversion does, from llama.cpp's convert_hf_to_gguf.py
(ggml-org/llama.cpp, commit a458664fc83b6513baea7adafcb0ef0626b006f8):
names mapped as gguf-py's tensor_mapping.py maps them; matrices written F16
(--outtype f16), 1-D tensors F32; ne[] the checkpoint's shape reversed, the
same values in the same order; q and k rows NOT permuted (only LlamaModel
and its subclasses permute them); Gemma2Model.modify_tensors adds 1 to
every tensor whose name ends in "norm.weight" (Gemma's RMSNorm multiplies
by 1 + weight).  The layouts and metadata are gen_arch_gguf.py's.

Every value is k / 1024 with |k| < 128, exact in BF16, F16 and F32, so a
faithful pair differs by nothing but Gemma's +1: tensor_compare's rel_l2 is
0 for every tensor of the qwen2 pair and for every tensor but the norms of
the gemma2 pair.  Standard library only; the output is deterministic.
"""
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_arch_gguf as arch  # noqa: E402

# GGUF stem -> Hugging Face stem (gguf-py tensor_mapping.py), "{N}" the layer
HF_STEMS = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
    "blk.{N}.attn_norm": "model.layers.{N}.input_layernorm",
    "blk.{N}.attn_q": "model.layers.{N}.self_attn.q_proj",
    "blk.{N}.attn_k": "model.layers.{N}.self_attn.k_proj",
    "blk.{N}.attn_v": "model.layers.{N}.self_attn.v_proj",
    "blk.{N}.attn_output": "model.layers.{N}.self_attn.o_proj",
    "blk.{N}.ffn_norm": "model.layers.{N}.post_attention_layernorm",
    "blk.{N}.ffn_gate": "model.layers.{N}.mlp.gate_proj",
    "blk.{N}.ffn_up": "model.layers.{N}.mlp.up_proj",
    "blk.{N}.ffn_down": "model.layers.{N}.mlp.down_proj",
}
# Gemma 2 names its norms after where they sit
GEMMA2_STEMS = dict(HF_STEMS)
GEMMA2_STEMS.update({
    "blk.{N}.ffn_norm": "model.layers.{N}.pre_feedforward_layernorm",
    "blk.{N}.post_attention_norm": "model.layers.{N}.post_attention_layernorm",
    "blk.{N}.post_ffw_norm": "model.layers.{N}.post_feedforward_layernorm",
})


def hf_name(stems, gguf):
    stem, suffix = gguf.rsplit(".", 1)
    layer = None
    if stem.startswith("blk."):
        layer, rest = stem[4:].split(".", 1)
        stem = "blk.{N}." + rest
    return stems[stem].replace("{N}", layer or "") + "." + suffix


def config(arch_name, n_layer, hidden, ff, heads, kv_heads, head_dim, extra):
    c = {
        "architectures": [arch_name],
        "head_dim": head_dim,
        "hidden_size": hidden,
        "intermediate_size": ff,
        "num_attention_heads": heads,
        "num_hidden_layers": n_layer,
        "num_key_value_heads": kv_heads,
        "rms_norm_eps": 1e-06,
        "torch_dtype": "bfloat16",
        "vocab_size": arch.N_VOCAB,
    }
    c.update(extra)
    return c


def write_pair(d, file, stems, kvs, tensors, cfg, seed, norm_shift=0):
    """The checkpoint (BF16, HF names and shapes) and its conversion."""
    rng = random.Random(seed)
    header, blob, gguf_data = {"__metadata__": {"format": "pt"}}, b"", {}
    for name, ne, ty in tensors:
        n = 1
        for x in ne:
            n *= x
        vals = [rng.randrange(-127, 128) / 1024 for _ in range(n)]
        # BF16: the high half of the float32 (exact: 7 significant bits)
        raw = b"".join(struct.pack("<f", v)[2:] for v in vals)
        header[hf_name(stems, name)] = {"dtype": "BF16", "shape": ne[::-1],
                                        "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
        if norm_shift and name.endswith("norm.weight"):
            vals = [v + norm_shift for v in vals]
        gguf_data[name] = struct.pack("<%d%s" % (n, "f" if ty == arch.F32 else "e"), *vals)
    os.makedirs(d, exist_ok=True)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + blob)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    arch.write_gguf(os.path.join(d, file), kvs + arch.vocab(), tensors, seed, gguf_data)


def main():
    out = sys.argv[1]
    kvs, t = arch.dense("qwen2", bias=True)
    write_pair(os.path.join(out, "qwen2"), "tiny-qwen2.gguf", HF_STEMS, kvs, t,
               config("Qwen2ForCausalLM", 2, 64, 128, 4, 2, 16, {"model_type": "qwen2"}), 300)
    kvs, t = arch.gemma("gemma2", 2, 256, False)
    write_pair(os.path.join(out, "gemma2"), "tiny-gemma2.gguf", GEMMA2_STEMS, kvs, t,
               config("Gemma2ForCausalLM", 2, 64, 128, 4, 2, 32,
                      {"model_type": "gemma2", "sliding_window": 256, "attn_logit_softcapping": 50.0,
                       "final_logit_softcapping": 30.0, "tie_word_embeddings": True}),
               301, norm_shift=1)


if __name__ == "__main__":
    main()
