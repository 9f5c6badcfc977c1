#!/usr/bin/python3
"""gen_big_gguf.py DIR: GGUF files with the shapes of real models, whose
tensor data is a hole (a sparse file: the header, then the size the tensors
claim, unwritten), for the memory planner's compute buffer at real scale.

llama.cpp loads them (every key and tensor it requires, a 'llama' SPM
vocabulary of the model's size), so its own figures for them can be taken
with a build of llama.cpp (tests/memory_big.test says which); the planner
reads only the header.  Written: Llama-3-70B (80 layers), Qwen3-30B-A3B
(48 layers, 128 experts), granite-3.0-3B-A800M (32 layers, 40 experts),
SmolLM3-3B and AFM-4.5B (36 layers each), StarCoder2-7B (32 layers),
Gemma-3-27B (62 layers, sliding window), and two
deepseek2 models with DeepSeek-V3's (6 layers) and DeepSeek-V2-Lite's (27)
attention and routing, as Q8_0; and Llama-3.2-1B (16 layers) as Q4_0 and
as Q8_0.
Each takes a few MB on disk whatever its apparent size.  Standard library
only; the output is deterministic.
"""
import os
import struct
import sys

Q4_0, Q8_0 = 2, 8
T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR = 4, 5, 6, 7, 8, 9
ALIGN = 32


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, t, v):
    """One metadata entry; arrays are (element type, values)."""
    out = s(key) + struct.pack("<I", t)
    if t == T_U32:
        return out + struct.pack("<I", v)
    if t == T_F32:
        return out + struct.pack("<f", v)
    if t == T_BOOL:
        return out + struct.pack("<B", 1 if v else 0)
    if t == T_STR:
        return out + s(v)
    et, vals = v
    out += struct.pack("<IQ", et, len(vals))
    if et == T_STR:
        return out + b"".join(s(x) for x in vals)
    return out + struct.pack("<%d%s" % (len(vals), "f" if et == T_F32 else "i"), *vals)


def vocab(n):
    """A SentencePiece-style vocabulary of n tokens: <unk>, <s>, </s>, the
    256 byte tokens, then plain ones."""
    toks = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    toks += ["t%d" % i for i in range(n - len(toks))]
    types = [2, 3, 3] + [6] * 256 + [1] * (n - 259)
    return [
        kv("tokenizer.ggml.model", T_STR, "llama"),
        kv("tokenizer.ggml.tokens", T_ARR, (T_STR, toks)),
        kv("tokenizer.ggml.scores", T_ARR, (T_F32, [0.0] * n)),
        kv("tokenizer.ggml.token_type", T_ARR, (T_I32, types)),
    ]


def model(arch, n_layer, n_embd, n_ff, n_head, n_kv, head, n_vocab, extra_kv=(), qk_norm=False,
          post_norms=False, experts=None, gate=True, biases=False):
    """The metadata and tensor list of a dense or mixture-of-experts model
    (a dense FFN without a gate when gate is False; with biases, LayerNorms
    with biases and a bias on every projection, as starcoder2 has them)."""
    kvs = [
        kv("general.architecture", T_STR, arch),
        kv(arch + ".block_count", T_U32, n_layer),
        kv(arch + ".context_length", T_U32, 131072),
        kv(arch + ".embedding_length", T_U32, n_embd),
        kv(arch + ".feed_forward_length", T_U32, n_ff),
        kv(arch + ".attention.head_count", T_U32, n_head),
        kv(arch + ".attention.head_count_kv", T_U32, n_kv),
        kv(arch + ".attention.key_length", T_U32, head),
        kv(arch + ".attention.value_length", T_U32, head),
        kv(arch + ".rope.dimension_count", T_U32, head),
        kv(arch + ".attention.layer_norm_rms_epsilon", T_F32, 1e-6),
    ] + [kv(arch + "." + k, t, v) for k, t, v in extra_kv] + vocab(n_vocab)
    ts = [("token_embd.weight", [n_embd, n_vocab]), ("output_norm.weight", [n_embd]),
          ("output.weight", [n_embd, n_vocab])]
    if biases:
        kvs.append(kv(arch + ".attention.layer_norm_epsilon", T_F32, 1e-5))
        ts.append(("output_norm.bias", [n_embd]))
    for i in range(n_layer):
        p = "blk.%d." % i
        ts += [(p + "attn_norm.weight", [n_embd]), (p + "attn_q.weight", [n_embd, n_head * head]),
               (p + "attn_k.weight", [n_embd, n_kv * head]), (p + "attn_v.weight", [n_embd, n_kv * head]),
               (p + "attn_output.weight", [n_head * head, n_embd]), (p + "ffn_norm.weight", [n_embd])]
        if biases:
            ts += [(p + "attn_norm.bias", [n_embd]), (p + "attn_q.bias", [n_head * head]),
                   (p + "attn_k.bias", [n_kv * head]), (p + "attn_v.bias", [n_kv * head]),
                   (p + "attn_output.bias", [n_embd]), (p + "ffn_norm.bias", [n_embd]),
                   (p + "ffn_up.bias", [n_ff]), (p + "ffn_down.bias", [n_embd])]
        if qk_norm:
            ts += [(p + "attn_q_norm.weight", [head]), (p + "attn_k_norm.weight", [head])]
        if post_norms:
            ts += [(p + "post_attention_norm.weight", [n_embd]), (p + "post_ffw_norm.weight", [n_embd])]
        if experts:
            n_exp, n_ff_exp = experts
            ts += [(p + "ffn_gate_inp.weight", [n_embd, n_exp]),
                   (p + "ffn_up_exps.weight", [n_embd, n_ff_exp, n_exp]),
                   (p + "ffn_gate_exps.weight", [n_embd, n_ff_exp, n_exp]),
                   (p + "ffn_down_exps.weight", [n_ff_exp, n_embd, n_exp])]
        else:
            ts += [(p + "ffn_up.weight", [n_embd, n_ff])] + \
                  ([(p + "ffn_gate.weight", [n_embd, n_ff])] if gate else []) + \
                  [(p + "ffn_down.weight", [n_ff, n_embd])]
    return kvs, ts


def deepseek2(n_layer, n_lead, n_embd, n_head, q_lora, kv_lora, rope, nope, v_head, n_ff, n_exp,
              n_used, n_ff_exp, n_vocab, routing):
    """A deepseek2 model with multi-head latent attention: n_lead dense
    layers, then experts with one shared expert; routing is the keys of
    its router (gating function, groups, scale, norm) and whether the
    routing scores have a bias (exp_probs_b)."""
    arch = "deepseek2"
    head_k = nope + rope
    kvs = [
        kv("general.architecture", T_STR, arch),
        kv(arch + ".block_count", T_U32, n_layer),
        kv(arch + ".context_length", T_U32, 163840),
        kv(arch + ".embedding_length", T_U32, n_embd),
        kv(arch + ".feed_forward_length", T_U32, n_ff),
        kv(arch + ".attention.head_count", T_U32, n_head),
        kv(arch + ".attention.head_count_kv", T_U32, 1),
        kv(arch + ".attention.key_length", T_U32, kv_lora + rope),
        kv(arch + ".attention.value_length", T_U32, kv_lora),
        kv(arch + ".attention.key_length_mla", T_U32, head_k),
        kv(arch + ".attention.value_length_mla", T_U32, v_head),
        kv(arch + ".attention.kv_lora_rank", T_U32, kv_lora),
        kv(arch + ".rope.dimension_count", T_U32, rope),
        kv(arch + ".attention.layer_norm_rms_epsilon", T_F32, 1e-6),
        kv(arch + ".leading_dense_block_count", T_U32, n_lead),
        kv(arch + ".expert_count", T_U32, n_exp),
        kv(arch + ".expert_used_count", T_U32, n_used),
        kv(arch + ".expert_shared_count", T_U32, 1),
        kv(arch + ".expert_feed_forward_length", T_U32, n_ff_exp),
        kv(arch + ".expert_weights_scale", T_F32, routing["scale"]),
        kv(arch + ".expert_weights_norm", T_BOOL, routing["norm"]),
        kv(arch + ".expert_gating_func", T_U32, routing["gating"]),
    ] + vocab(n_vocab)
    if q_lora:
        kvs.append(kv(arch + ".attention.q_lora_rank", T_U32, q_lora))
    if routing["groups"]:
        kvs += [kv(arch + ".expert_group_count", T_U32, routing["groups"][0]),
                kv(arch + ".expert_group_used_count", T_U32, routing["groups"][1])]
    ts = [("token_embd.weight", [n_embd, n_vocab]), ("output_norm.weight", [n_embd]),
          ("output.weight", [n_embd, n_vocab])]
    for i in range(n_layer):
        p = "blk.%d." % i
        ts += [(p + "attn_norm.weight", [n_embd])]
        if q_lora:
            ts += [(p + "attn_q_a.weight", [n_embd, q_lora]), (p + "attn_q_a_norm.weight", [q_lora]),
                   (p + "attn_q_b.weight", [q_lora, n_head * head_k])]
        else:
            ts += [(p + "attn_q.weight", [n_embd, n_head * head_k])]
        ts += [(p + "attn_kv_a_mqa.weight", [n_embd, kv_lora + rope]),
               (p + "attn_kv_a_norm.weight", [kv_lora]),
               (p + "attn_k_b.weight", [nope, kv_lora, n_head]),
               (p + "attn_v_b.weight", [kv_lora, v_head, n_head]),
               (p + "attn_output.weight", [n_head * v_head, n_embd]), (p + "ffn_norm.weight", [n_embd])]
        if i < n_lead:
            ts += [(p + "ffn_gate.weight", [n_embd, n_ff]), (p + "ffn_up.weight", [n_embd, n_ff]),
                   (p + "ffn_down.weight", [n_ff, n_embd])]
            continue
        ts += [(p + "ffn_gate_inp.weight", [n_embd, n_exp]),
               (p + "ffn_gate_exps.weight", [n_embd, n_ff_exp, n_exp]),
               (p + "ffn_up_exps.weight", [n_embd, n_ff_exp, n_exp]),
               (p + "ffn_down_exps.weight", [n_ff_exp, n_embd, n_exp]),
               (p + "ffn_gate_shexp.weight", [n_embd, n_ff_exp]), (p + "ffn_up_shexp.weight", [n_embd, n_ff_exp]),
               (p + "ffn_down_shexp.weight", [n_ff_exp, n_embd])]
        if routing["probs_bias"]:
            ts += [(p + "exp_probs_b.bias", [n_exp])]
    return kvs, ts


def write(path, kvs, ts, quant=Q8_0):
    """The header, then the tensors' bytes as a hole (F32 norms, the
    matrices Q8_0 or Q4_0, each aligned to 32)."""
    infos, off = b"", 0
    block = {Q8_0: 34, Q4_0: 18}[quant]
    for name, dims in ts:
        n = 1
        for d in dims:
            n *= d
        t, size = (0, 4 * n) if len(dims) == 1 else (quant, n // 32 * block)
        infos += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", t, off)
        off += (size + ALIGN - 1) // ALIGN * ALIGN
    head = b"GGUF" + struct.pack("<IQQ", 3, len(ts), len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * (-len(head) % ALIGN)
    with open(path + ".tmp", "wb") as f:
        f.write(head)
        f.truncate(len(head) + off)
    os.replace(path + ".tmp", path)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "llama-70b-shape.gguf"),
          *model("llama", 80, 8192, 28672, 64, 8, 128, 128256))
    write(os.path.join(d, "qwen3moe-30b-shape.gguf"),
          *model("qwen3moe", 48, 2048, 6144, 32, 4, 128, 151936, qk_norm=True,
                 extra_kv=[("expert_count", T_U32, 128), ("expert_used_count", T_U32, 8),
                           ("expert_feed_forward_length", T_U32, 768)],
                 experts=(128, 768)))
    # DeepSeek-V3's router (sigmoid, 8 groups of which 4, scores biased,
    # weights normalised and scaled by 2.5) and attention, fewer and
    # narrower layers; and V2-Lite's (softmax, Q projected directly, which
    # llama.cpp accepts for 26 or 27 layers)
    write(os.path.join(d, "deepseek-v3-like.gguf"),
          *deepseek2(6, 1, 2048, 16, 768, 256, 32, 64, 64, 4096, 64, 6, 512, 32000,
                     {"gating": 2, "groups": (8, 4), "scale": 2.5, "norm": True, "probs_bias": True}))
    write(os.path.join(d, "deepseek-v2-lite-like.gguf"),
          *deepseek2(27, 1, 2048, 16, 0, 512, 64, 128, 128, 10944, 64, 6, 1408, 102400,
                     {"gating": 1, "groups": None, "scale": 1.0, "norm": False, "probs_bias": False}))
    # granite-3.0-3b-a800m: granite's graph with 40 experts (8 used), each
    # feed_forward_length wide, and its scales
    write(os.path.join(d, "granitemoe-3b-shape.gguf"),
          *model("granitemoe", 32, 1536, 512, 24, 8, 64, 49155,
                 extra_kv=[("expert_count", T_U32, 40), ("expert_used_count", T_U32, 8),
                           ("logit_scale", T_F32, 6.0), ("embedding_scale", T_F32, 12.0),
                           ("residual_scale", T_F32, 0.22), ("attention.scale", T_F32, 0.015625)],
                 experts=(40, 512)))
    # SmolLM3-3B (no RoPE in every 4th layer) and Arcee's AFM-4.5B (an FFN
    # of up, squared ReLU, down)
    write(os.path.join(d, "smollm3-3b-shape.gguf"),
          *model("smollm3", 36, 2048, 11008, 16, 4, 128, 128256))
    write(os.path.join(d, "arcee-4.5b-shape.gguf"),
          *model("arcee", 36, 2560, 18432, 20, 4, 128, 128004, gate=False))
    # StarCoder2-7B: LayerNorms and biases, a GELU FFN of up and down
    write(os.path.join(d, "starcoder2-7b-shape.gguf"),
          *model("starcoder2", 32, 4608, 18432, 36, 4, 128, 49152, gate=False, biases=True))
    # Llama-3.2-1B's shape (with an output matrix of its own) as Q4_0, which
    # llama.cpp repacks on x86, and as Q8_0, which it does not: the
    # resident memory of a process (tests/llama_rss_test.sh)
    for name, q in (("q4_0", Q4_0), ("q8_0", Q8_0)):
        write(os.path.join(d, "llama3-1b-%s-shape.gguf" % name),
              *model("llama", 16, 2048, 8192, 32, 8, 64, 128256), quant=q)
    write(os.path.join(d, "gemma3-27b-shape.gguf"),
          *model("gemma3", 62, 5376, 21504, 32, 16, 128, 262208, qk_norm=True, post_norms=True,
                 extra_kv=[("attention.sliding_window", T_U32, 1024)]))


if __name__ == "__main__":
    main()
