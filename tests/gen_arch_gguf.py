#!/usr/bin/python3
"""gen_arch_gguf.py DIR: write one tiny GGUF per architecture into DIR.

Each file has the tensor names and shapes llama.cpp's loader expects for its
architecture (llama, qwen2, qwen2moe, qwen3, qwen3moe, gemma, gemma2, gemma3,
cohere2, deci, phi3, deepseek2, mamba, mistral3, granite, granitemoe, exaone, xverse,
internlm2, arcee, smollm3, starcoder2, orion, baichuan), small dimensions, random weights (F16
matrices, F32 vectors) and a 272-token SPM vocabulary (the 256 byte tokens
included), so that llama.cpp (the memory oracle, tests/llama_oracle.sh)
loads them and prints its buffer sizes.  Two wider ones have a real model's
proportions (heads 64 wide, a vocabulary whose logits outweigh the layers):
tiny-llama-wide and tiny-qwen2-wide, Q8_0 matrices, about 19 and 13 MB.  Plus files for the planner's own
tests: an unknown architecture, hostile metadata, header-only files shaped
like Llama-3-8B and DeepSeek-V3, tiny-llama in three quantizations
(quants/) and split in two (split/; split_bad/: part 2's magic broken).  Standard library only; the output is
deterministic.
"""
import os
import random
import struct
import sys

F32, F16, Q4_0, Q8_0 = 0, 1, 2, 8
BLOCK = {Q4_0: (32, 18), Q8_0: (32, 34)}  # elements, bytes per block
T_U16 = 2
T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, T_U64 = 4, 5, 6, 7, 8, 9, 10
N_VOCAB = 272


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv_value(t, v):
    if t == T_U16:
        return struct.pack("<H", v)
    if t == T_U32:
        return struct.pack("<I", v)
    if t == T_I32:
        return struct.pack("<i", v)
    if t == T_F32:
        return struct.pack("<f", v)
    if t == T_BOOL:
        return struct.pack("<B", 1 if v else 0)
    if t == T_STR:
        return s(v)
    if t == T_U64:
        return struct.pack("<Q", v)
    raise ValueError(t)


def write_gguf(path, kvs, tensors, seed, data=None):
    """kvs: [(key, type, value)] where an array value is (elem_type, [items]);
    tensors: [(name, ne list, ggml type)]; data: {name: bytes} of tensors
    whose values are given (the others are random)."""
    rng = random.Random(seed)
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, t, v in kvs:
        out += s(key) + struct.pack("<I", t)
        if t == T_ARR:
            et, items = v
            out += struct.pack("<IQ", et, len(items))
            for it in items:
                out += kv_value(et, it)
        else:
            out += kv_value(t, v)
    offset, blobs = 0, []
    for name, ne, ty in tensors:
        n = 1
        for d in ne:
            n *= d
        if ty in BLOCK:
            nbytes = n // BLOCK[ty][0] * BLOCK[ty][1]
        else:
            nbytes = n * (4 if ty == F32 else 2)
        out += s(name) + struct.pack("<I", len(ne))
        out += b"".join(struct.pack("<Q", d) for d in ne)
        out += struct.pack("<IQ", ty, offset)
        if data is not None and name in data:
            raw = data[name]
        elif ty in BLOCK:  # an f16 scale, then random quants
            raw = b"".join(struct.pack("<e", 0.001) + rng.randbytes(BLOCK[ty][1] - 2)
                           for _ in range(n // BLOCK[ty][0]))
        elif ty == F32:
            raw = struct.pack("<%df" % n, *[rng.uniform(-0.1, 0.1) for _ in range(n)])
        else:
            raw = struct.pack("<%de" % n, *[rng.uniform(-0.1, 0.1) for _ in range(n)])
        blobs.append(raw)
        offset += (nbytes + 31) // 32 * 32
    out += b"\0" * ((-len(out)) % 32)
    for raw in blobs:
        out += raw + b"\0" * ((-len(raw)) % 32)
    with open(path, "wb") as f:
        f.write(out)


def vocab(n_vocab=N_VOCAB):
    toks = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    toks += ["<|endoftext|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]
    toks += ["t%d" % i for i in range(n_vocab - len(toks))]
    return [
        ("tokenizer.ggml.model", T_STR, "llama"),
        ("tokenizer.ggml.tokens", T_ARR, (T_STR, toks)),
        ("tokenizer.ggml.scores", T_ARR, (T_F32, [0.0] * n_vocab)),
        ("tokenizer.ggml.token_type", T_ARR, (T_I32, [2, 3, 3] + [6] * 256 + [1] * (n_vocab - 259))),
        ("tokenizer.ggml.unknown_token_id", T_U32, 0),
        ("tokenizer.ggml.bos_token_id", T_U32, 1),
        ("tokenizer.ggml.eos_token_id", T_U32, 2),
    ]


def header(arch, n_layer, n_embd, n_ff, n_head, n_head_kv, ctx=4096):
    a = arch
    return [
        ("general.architecture", T_STR, a),
        ("general.name", T_STR, "tiny-" + a),
        (a + ".context_length", T_U32, ctx),
        (a + ".embedding_length", T_U32, n_embd),
        (a + ".block_count", T_U32, n_layer),
        (a + ".feed_forward_length", T_U32, n_ff),
        (a + ".attention.head_count", T_U32, n_head),
        (a + ".attention.head_count_kv", T_U32, n_head_kv)
        if not isinstance(n_head_kv, list)
        else (a + ".attention.head_count_kv", T_ARR, (T_U32, n_head_kv)),
        (a + ".attention.layer_norm_rms_epsilon", T_F32, 1e-6),
        ("general.file_type", T_U32, 1),
    ]


def attn(i, n_embd, n_head, n_kv, hk, hv, bias=False, qk_norm=False):
    b = "blk.%d." % i
    t = [
        (b + "attn_norm.weight", [n_embd], F32),
        (b + "attn_q.weight", [n_embd, hk * n_head], F16),
        (b + "attn_k.weight", [n_embd, hk * n_kv], F16),
        (b + "attn_v.weight", [n_embd, hv * n_kv], F16),
        (b + "attn_output.weight", [hv * n_head, n_embd], F16),
    ]
    if bias:
        t += [
            (b + "attn_q.bias", [hk * n_head], F32),
            (b + "attn_k.bias", [hk * n_kv], F32),
            (b + "attn_v.bias", [hv * n_kv], F32),
        ]
    if qk_norm:
        t += [(b + "attn_q_norm.weight", [hk], F32), (b + "attn_k_norm.weight", [hk], F32)]
    return t


def ffn(i, n_embd, n_ff):
    b = "blk.%d." % i
    return [
        (b + "ffn_norm.weight", [n_embd], F32),
        (b + "ffn_gate.weight", [n_embd, n_ff], F16),
        (b + "ffn_down.weight", [n_ff, n_embd], F16),
        (b + "ffn_up.weight", [n_embd, n_ff], F16),
    ]


def experts(i, n_embd, n_exp, n_ff_exp):
    """Layer i's FFN norm, router and experts (gate, down, up)."""
    b = "blk.%d." % i
    return [
        (b + "ffn_norm.weight", [n_embd], F32),
        (b + "ffn_gate_inp.weight", [n_embd, n_exp], F32),
        (b + "ffn_gate_exps.weight", [n_embd, n_ff_exp, n_exp], F16),
        (b + "ffn_down_exps.weight", [n_ff_exp, n_embd, n_exp], F16),
        (b + "ffn_up_exps.weight", [n_embd, n_ff_exp, n_exp], F16),
    ]


def ends(n_embd, output=True):
    t = [("token_embd.weight", [n_embd, N_VOCAB], F16), ("output_norm.weight", [n_embd], F32)]
    if output:
        t.append(("output.weight", [n_embd, N_VOCAB], F16))
    return t


def dense(arch, n_layer=2, bias=False, qk_norm=False, kv_array=False):
    E, FF, H, KV = 64, 128, 4, 2
    kvs = header(arch, n_layer, E, FF, H, [KV] * n_layer if kv_array else KV)
    kvs.append((arch + ".rope.dimension_count", T_U32, 16))
    t = ends(E)
    for i in range(n_layer):
        t += attn(i, E, H, KV, 16, 16, bias, qk_norm) + ffn(i, E, FF)
    return kvs, t


def wide(arch, n_layer, E, FF, H, KV, n_vocab, bias=False, tied=False, output_bias=False):
    """A dense model with a real one's proportions: heads 64 wide and the
    vocabulary's logits larger than the layers; Q8_0 matrices (file type 7)
    to stay small on disk, the output tied to the embeddings when tied."""
    hd = E // H
    kvs = [k if k[0] != "general.file_type" else (k[0], T_U32, 7) for k in header(arch, n_layer, E, FF, H, KV)]
    kvs = [k if k[0] != "general.name" else (k[0], T_STR, "tiny-%s-wide" % arch) for k in kvs]
    kvs.append((arch + ".rope.dimension_count", T_U32, hd))
    t = [("token_embd.weight", [E, n_vocab], F16), ("output_norm.weight", [E], F32)]
    if not tied:
        t.append(("output.weight", [E, n_vocab], F16))
    if output_bias:
        t.append(("output.bias", [n_vocab], F32))
    for i in range(n_layer):
        t += attn(i, E, H, KV, hd, hd, bias) + ffn(i, E, FF)
    return kvs + vocab(n_vocab), [(n, ne, Q8_0 if ty == F16 else ty) for n, ne, ty in t]


def qwen3moe():
    E, H, KV, NE, FFE, L = 64, 4, 2, 4, 32, 2
    kvs = header("qwen3moe", L, E, 128, H, KV)
    kvs += [
        ("qwen3moe.expert_count", T_U32, NE),
        ("qwen3moe.expert_used_count", T_U32, 2),
        ("qwen3moe.expert_feed_forward_length", T_U32, FFE),
        ("qwen3moe.attention.key_length", T_U32, 32),
        ("qwen3moe.attention.value_length", T_U32, 32),
    ]
    t = ends(E)
    for i in range(L):
        t += attn(i, E, H, KV, 32, 32, qk_norm=True) + experts(i, E, NE, FFE)
    return kvs, t


def arcee():
    """llama's attention; an FFN of up and down only (squared ReLU)."""
    E, FF, H, KV, L = 64, 128, 4, 2, 2
    kvs = header("arcee", L, E, FF, H, KV)
    kvs.append(("arcee.rope.dimension_count", T_U32, 16))
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        t += attn(i, E, H, KV, 16, 16) + [
            (b + "ffn_norm.weight", [E], F32),
            (b + "ffn_down.weight", [FF, E], F16),
            (b + "ffn_up.weight", [E, FF], F16),
        ]
    return kvs, t


def starcoder2():
    """LayerNorms with biases, biases on every projection, a GELU FFN of up
    and down."""
    E, FF, H, KV, L = 64, 128, 4, 2, 2
    kvs = header("starcoder2", L, E, FF, H, KV)
    kvs += [("starcoder2.rope.dimension_count", T_U32, 16),
            ("starcoder2.attention.layer_norm_epsilon", T_F32, 1e-5)]
    t = ends(E) + [("output_norm.bias", [E], F32)]
    for i in range(L):
        b = "blk.%d." % i
        t += attn(i, E, H, KV, 16, 16, bias=True) + [
            (b + "attn_norm.bias", [E], F32),
            (b + "attn_output.bias", [E], F32),
            (b + "ffn_norm.weight", [E], F32),
            (b + "ffn_norm.bias", [E], F32),
            (b + "ffn_down.weight", [FF, E], F16),
            (b + "ffn_down.bias", [E], F32),
            (b + "ffn_up.weight", [E, FF], F16),
            (b + "ffn_up.bias", [FF], F32),
        ]
    return kvs, t


def orion():
    """llama's tensors, its norms LayerNorms with biases."""
    kvs, t = dense("orion")
    kvs.append(("orion.attention.layer_norm_epsilon", T_F32, 1e-5))
    t.append(("output_norm.bias", [64], F32))
    for i in range(2):
        b = "blk.%d." % i
        t += [(b + "attn_norm.bias", [64], F32), (b + "ffn_norm.bias", [64], F32)]
    return kvs, t


def granitemoe(shared=0):
    """granite's graph with experts (IBM's granite-3.0 MoE models): the
    logit, embedding and residual scales of a real one, 4 experts, 2 used;
    with shared > 0, a shared FFN that wide beside them (GraniteMoeShared)."""
    E, H, KV, NE, FFE, L = 64, 4, 2, 4, 32, 2
    kvs = header("granitemoe", L, E, FFE, H, KV)  # the experts' width (no expert_ key)
    kvs += [
        ("granitemoe.rope.dimension_count", T_U32, 16),
        ("granitemoe.expert_count", T_U32, NE),
        ("granitemoe.expert_used_count", T_U32, 2),
        ("granitemoe.logit_scale", T_F32, 6.0),
        ("granitemoe.embedding_scale", T_F32, 12.0),
        ("granitemoe.residual_scale", T_F32, 0.22),
        ("granitemoe.attention.scale", T_F32, 0.015625),
    ]
    if shared:
        kvs.append(("granitemoe.expert_shared_feed_forward_length", T_U32, shared))
    t = ends(E)
    for i in range(L):
        t += attn(i, E, H, KV, 16, 16) + experts(i, E, NE, FFE)
        if shared:
            b = "blk.%d." % i
            t += [(b + "ffn_gate_shexp.weight", [E, shared], F16),
                  (b + "ffn_up_shexp.weight", [E, shared], F16),
                  (b + "ffn_down_shexp.weight", [shared, E], F16)]
    return kvs, t


def gemma(arch, n_layer, window, qk_norm):
    E, FF, H, KV, HD = 64, 128, 4, 2, 32
    kvs = header(arch, n_layer, E, FF, H, KV)
    kvs += [
        (arch + ".attention.key_length", T_U32, HD),
        (arch + ".attention.value_length", T_U32, HD),
    ]
    if window:
        kvs.append((arch + ".attention.sliding_window", T_U32, window))
    if arch == "gemma2":
        kvs += [
            ("gemma2.attn_logit_softcapping", T_F32, 50.0),
            ("gemma2.final_logit_softcapping", T_F32, 30.0),
        ]
    t = ends(E, output=False)
    for i in range(n_layer):
        b = "blk.%d." % i
        t += attn(i, E, H, KV, HD, HD, qk_norm=qk_norm)
        if arch != "gemma":  # gemma 2 and 3 normalize after attention and FFN too
            t += [(b + "post_attention_norm.weight", [E], F32), (b + "post_ffw_norm.weight", [E], F32)]
        t += ffn(i, E, FF)
    return kvs, t


def qwen2moe():
    E, H, KV, NE, FFE, FFS, L = 64, 4, 2, 4, 32, 64, 2
    kvs = header("qwen2moe", L, E, 128, H, KV)
    kvs += [
        ("qwen2moe.expert_count", T_U32, NE),
        ("qwen2moe.expert_used_count", T_U32, 2),
        ("qwen2moe.expert_feed_forward_length", T_U32, FFE),
        ("qwen2moe.expert_shared_feed_forward_length", T_U32, FFS),
    ]
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        t += attn(i, E, H, KV, 16, 16, bias=True)
        t += experts(i, E, NE, FFE)
        t += [
            (b + "ffn_gate_inp_shexp.weight", [E], F32),
            (b + "ffn_gate_shexp.weight", [E, FFS], F16),
            (b + "ffn_down_shexp.weight", [FFS, E], F16),
            (b + "ffn_up_shexp.weight", [E, FFS], F16),
        ]
    return kvs, t


def cohere2():
    E, FF, H, KV, L = 64, 128, 4, 2, 5
    kvs = [k for k in header("cohere2", L, E, FF, H, KV) if "rms_epsilon" not in k[0]]
    kvs += [
        ("cohere2.attention.layer_norm_epsilon", T_F32, 1e-5),
        ("cohere2.attention.sliding_window", T_U32, 256),
        ("cohere2.logit_scale", T_F32, 0.25),
        ("cohere2.rope.dimension_count", T_U32, 16),
    ]
    t = ends(E, output=False)
    for i in range(L):
        b = "blk.%d." % i
        t += attn(i, E, H, KV, 16, 16) + ffn(i, E, FF)[1:]
    return kvs, t


def deci():
    """Nemotron-NAS: head_count_kv per layer, a layer with linear attention
    (head_count_kv 0: no cache) and one with 4 KV heads."""
    E, FF, H, L = 64, 128, 4, 3
    kv_heads = [2, 0, 4]
    kvs = [k for k in header("deci", L, E, FF, H, 2) if not k[0].endswith("head_count_kv")]
    kvs += [
        ("deci.attention.head_count_kv", T_ARR, (T_I32, kv_heads)),
        ("deci.rope.dimension_count", T_U32, 16),
        ("deci.vocab_size", T_U32, N_VOCAB),
    ]
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        if kv_heads[i] == 0:
            t += [(b + "attn_norm.weight", [E], F32), (b + "attn_output.weight", [E, E], F16)]
        else:
            t += attn(i, E, H, kv_heads[i], 16, 16)
        t += ffn(i, E, FF)
    return kvs, t


def phi3():
    E, FF, H, KV, L = 64, 128, 4, 4, 2
    kvs = header("phi3", L, E, FF, H, KV)
    kvs += [("phi3.rope.dimension_count", T_U32, 16), ("phi3.attention.sliding_window", T_U32, 256)]
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        t += [
            (b + "attn_norm.weight", [E], F32),
            (b + "attn_qkv.weight", [E, E + 2 * 16 * KV], F16),
            (b + "attn_output.weight", [E, E], F16),
            (b + "ffn_norm.weight", [E], F32),
            (b + "ffn_down.weight", [FF, E], F16),
            (b + "ffn_up.weight", [E, 2 * FF], F16),
        ]
    return kvs, t


def deepseek2():
    E, FF, H, L = 64, 128, 4, 2
    QLORA, LORA, ROPE, KMLA, VMLA, NE, FFE = 48, 32, 16, 32, 16, 4, 32
    kvs = header("deepseek2", L, E, FF, H, 1)
    kvs += [
        ("deepseek2.rope.dimension_count", T_U32, ROPE),
        ("deepseek2.leading_dense_block_count", T_U32, 1),
        ("deepseek2.expert_count", T_U32, NE),
        ("deepseek2.expert_used_count", T_U32, 2),
        ("deepseek2.expert_shared_count", T_U32, 1),
        ("deepseek2.expert_feed_forward_length", T_U32, FFE),
        ("deepseek2.expert_weights_scale", T_F32, 1.0),
        ("deepseek2.expert_weights_norm", T_BOOL, True),
        ("deepseek2.expert_gating_func", T_U32, 1),
        ("deepseek2.attention.q_lora_rank", T_U32, QLORA),
        ("deepseek2.attention.kv_lora_rank", T_U32, LORA),
        ("deepseek2.attention.key_length", T_U32, LORA + ROPE),
        ("deepseek2.attention.value_length", T_U32, LORA),
        ("deepseek2.attention.key_length_mla", T_U32, KMLA),
        ("deepseek2.attention.value_length_mla", T_U32, VMLA),
    ]
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        t += [
            (b + "attn_norm.weight", [E], F32),
            (b + "attn_q_a.weight", [E, QLORA], F16),
            (b + "attn_q_a_norm.weight", [QLORA], F32),
            (b + "attn_q_b.weight", [QLORA, H * KMLA], F16),
            (b + "attn_kv_a_mqa.weight", [E, LORA + ROPE], F16),
            (b + "attn_kv_a_norm.weight", [LORA], F32),
            (b + "attn_k_b.weight", [KMLA - ROPE, LORA, H], F16),
            (b + "attn_v_b.weight", [LORA, VMLA, H], F16),
            (b + "attn_output.weight", [H * VMLA, E], F16),
            (b + "ffn_norm.weight", [E], F32),
        ]
        if i < 1:
            t += ffn(i, E, FF)[1:]
        else:
            t += [
                (b + "ffn_gate_inp.weight", [E, NE], F32),
                (b + "ffn_gate_exps.weight", [E, FFE, NE], F16),
                (b + "ffn_down_exps.weight", [FFE, E, NE], F16),
                (b + "ffn_up_exps.weight", [E, FFE, NE], F16),
                (b + "ffn_gate_shexp.weight", [E, FFE], F16),
                (b + "ffn_down_shexp.weight", [FFE, E], F16),
                (b + "ffn_up_shexp.weight", [E, FFE], F16),
            ]
    return kvs, t


def mamba():
    E, L, DI, DS, DC, DT = 64, 3, 128, 16, 4, 4
    kvs = header("mamba", L, E, 0, 0, 0)
    kvs += [
        ("mamba.ssm.conv_kernel", T_U32, DC),
        ("mamba.ssm.inner_size", T_U32, DI),
        ("mamba.ssm.state_size", T_U32, DS),
        ("mamba.ssm.time_step_rank", T_U32, DT),
    ]
    t = ends(E)
    for i in range(L):
        b = "blk.%d." % i
        t += [
            (b + "attn_norm.weight", [E], F32),
            (b + "ssm_in.weight", [E, 2 * DI], F16),
            (b + "ssm_conv1d.weight", [DC, DI], F32),
            (b + "ssm_conv1d.bias", [DI], F32),
            (b + "ssm_x.weight", [DI, DT + 2 * DS], F16),
            (b + "ssm_dt.weight", [DT, DI], F16),
            (b + "ssm_dt.bias", [DI], F32),
            (b + "ssm_a", [DS, DI], F32),
            (b + "ssm_d", [DI], F32),
            (b + "ssm_out.weight", [DI, E], F16),
        ]
    return kvs, t


def hostile():
    """Files the planner must refuse with a precise error."""
    out = {}
    kvs, t = dense("llama")
    out["bad-kv-array-length"] = (
        [k if k[0] != "llama.attention.head_count_kv" else (k[0], T_ARR, (T_U32, [2, 2, 2])) for k in kvs],
        t,
    )
    out["bad-kv-type"] = (
        [k if k[0] != "llama.attention.head_count_kv" else (k[0], T_STR, "two") for k in kvs],
        t,
    )
    out["bad-huge-heads"] = (
        [k if k[0] != "llama.attention.key_length" else k for k in kvs]
        + [("llama.attention.key_length", T_U64, 1 << 62)],
        t,
    )
    out["bad-no-embd"] = ([k for k in kvs if k[0] != "llama.embedding_length"], t)

    def replaced(key, t_, v):
        return [k if k[0] != key else (key, t_, v) for k in kvs]

    out["bad-huge-embd"] = (replaced("llama.embedding_length", T_U64, 1 << 62), t)
    out["bad-huge-head-count"] = (replaced("llama.attention.head_count", T_U64, 1 << 50)
                                  + [("llama.attention.key_length", T_U32, 16),
                                     ("llama.attention.value_length", T_U32, 16)], t)
    out["bad-huge-layers"] = (replaced("llama.block_count", T_U64, 1 << 32), t)
    # no layers: layer 0's head count was read past the end of an empty array
    # (found by fuzz_memory)
    out["bad-zero-layers"] = (replaced("llama.block_count", T_U32, 0), t)
    # per-layer KV heads, one layer without attention (shapes not matching:
    # for the planner's own test, not for llama.cpp)
    kvs3, t3 = dense("llama", n_layer=3)
    out["kv-per-layer"] = ([k if k[0] != "llama.attention.head_count_kv"
                            else (k[0], T_ARR, (T_I32, [2, 0, 4])) for k in kvs3], t3)
    # layer 2's K row (16 x 3 values) is no whole number of Q8_0 blocks,
    # layer 0's (16 x 2) is: with flash attention an error on the last
    # layer (found by fuzz_memory: the plan used to stop there silently)
    out["bad-kv-later-layer"] = ([k if k[0] != "llama.attention.head_count_kv"
                                  else (k[0], T_ARR, (T_I32, [2, 0, 3])) for k in kvs3], t3)
    kvs, t = dense("llama")
    out["unknown-arch"] = (
        [(k[0].replace("llama", "frobnicator", 1), k[1], k[2] if k[0] != "general.architecture" else "frobnicator")
         for k in kvs],
        t,
    )
    return out


def shapes():
    """Header-only files with the hyperparameters of real models (no
    tensors): real models' shapes (Llama-3-8B, ...) for the planner's worked
    examples in tests/memory.test; written without a vocabulary (their
    vocab_size says its size), which would make them vocabulary-only files."""
    out = {}
    kvs = header("llama", 32, 4096, 14336, 32, 8, ctx=8192)
    out["shape-llama3-8b"] = (kvs + [("llama.vocab_size", T_U32, 128256)], [])
    kvs = header("deepseek2", 61, 7168, 18432, 128, 1, ctx=163840)
    kvs += [
        ("deepseek2.attention.kv_lora_rank", T_U32, 512),
        ("deepseek2.attention.key_length", T_U32, 576),
        ("deepseek2.attention.value_length", T_U32, 512),
        ("deepseek2.attention.key_length_mla", T_U32, 192),
        ("deepseek2.attention.value_length_mla", T_U32, 128),
        ("deepseek2.vocab_size", T_U32, 129280),
    ]
    out["shape-deepseek-v3"] = (kvs, [])
    return out


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    models = {
        "llama": dense("llama", kv_array=True),
        "qwen2": dense("qwen2", bias=True),
        "qwen3": dense("qwen3", n_layer=3, qk_norm=True),
        "qwen3moe": qwen3moe(),
        "qwen2moe": qwen2moe(),
        "gemma": gemma("gemma", 2, 0, False),
        "cohere2": cohere2(),
        "deci": deci(),
        "gemma2": gemma("gemma2", 4, 256, False),
        "gemma3": gemma("gemma3", 8, 256, True),
        "phi3": phi3(),
        "deepseek2": deepseek2(),
        "mamba": mamba(),
    }
    models.update(hostile())
    models.update(shapes())
    for seed, (name, (kvs, t)) in enumerate(sorted(models.items())):
        # (a shape holds no tensors: with a vocabulary it would be a
        # vocabulary-only GGUF, which the planner does not plan)
        voc = [] if name.startswith("shape-") else vocab()
        write_gguf(os.path.join(d, "tiny-%s.gguf" % name), kvs + voc, t, seed)
    # llama's tensors and keys under architectures whose KV cache llama.cpp
    # sizes as llama's (granite needs its logit scale)
    kvs, t = dense("mistral3")
    write_gguf(os.path.join(d, "tiny-mistral3.gguf"), kvs + vocab(), t, 300)
    kvs, t = dense("granite")
    write_gguf(os.path.join(d, "tiny-granite.gguf"), kvs + [("granite.logit_scale", T_F32, 1.0)] + vocab(), t, 301)
    # exaone, xverse, internlm2: llama's tensors and graph under their own
    # names; granite with experts
    kvs, t = dense("exaone")
    write_gguf(os.path.join(d, "tiny-exaone.gguf"), kvs + vocab(), t, 304)
    kvs, t = dense("xverse")
    write_gguf(os.path.join(d, "tiny-xverse.gguf"), kvs + vocab(), t, 307)
    kvs, t = dense("internlm2")
    write_gguf(os.path.join(d, "tiny-internlm2.gguf"), kvs + vocab(), t, 308)
    # arcee: its FFN; smollm3: llama's tensors, RoPE left out of layer 4 of 5
    kvs, t = arcee()
    write_gguf(os.path.join(d, "tiny-arcee.gguf"), kvs + vocab(), t, 309)
    kvs, t = dense("smollm3", n_layer=5)
    write_gguf(os.path.join(d, "tiny-smollm3.gguf"), kvs + vocab(), t, 310)
    kvs, t = starcoder2()
    write_gguf(os.path.join(d, "tiny-starcoder2.gguf"), kvs + vocab(), t, 311)
    kvs, t = orion()
    write_gguf(os.path.join(d, "tiny-orion.gguf"), kvs + vocab(), t, 312)
    # baichuan: llama's tensors; RoPE only with the 7B's 32 layers (ALiBi else)
    kvs, t = dense("baichuan")
    write_gguf(os.path.join(d, "tiny-baichuan.gguf"), kvs + vocab(), t, 313)
    kvs, t = dense("baichuan", n_layer=32)
    write_gguf(os.path.join(d, "tiny-baichuan-32.gguf"), kvs + vocab(), t, 314)
    kvs, t = granitemoe()
    write_gguf(os.path.join(d, "tiny-granitemoe.gguf"), kvs + vocab(), t, 305)
    kvs, t = granitemoe(shared=96)
    write_gguf(os.path.join(d, "tiny-granitemoe-shared.gguf"), kvs + vocab(), t, 306)
    # real proportions: llama's logits dominate; qwen2 with q/k/v biases, the
    # output tied to the embeddings and a bias on it (llama.cpp's qwen2
    # loader takes an optional output.bias, src/models/qwen2.cpp)
    kvs, t = wide("llama", 2, 256, 704, 4, 2, 32000)
    write_gguf(os.path.join(d, "tiny-llama-wide.gguf"), kvs, t, 302)
    kvs, t = wide("qwen2", 3, 384, 1024, 6, 2, 20000, bias=True, tied=True, output_bias=True)
    write_gguf(os.path.join(d, "tiny-qwen2-wide.gguf"), kvs, t, 303)
    # qwen2-wide as Q4_0: its output tied to the embeddings, which
    # llama.cpp's CPU_REPACK copies for the output beside the mapped input
    # (AVX2, AVX-512: Zen 4's variant)
    kvs, t = wide("qwen2", 3, 384, 1024, 6, 2, 20000, bias=True, tied=True, output_bias=True)
    write_gguf(os.path.join(d, "tiny-qwen2-wide-Q4_0.gguf"), kvs,
               [(n, ne, Q4_0 if ty == Q8_0 else ty) for n, ne, ty in t], 304)
    # tiny-llama in three quantizations (sql/fit_context.sql)
    kvs, t = models["llama"]
    os.makedirs(os.path.join(d, "quants"), exist_ok=True)
    for qname, q in (("F16", F16), ("Q8_0", Q8_0), ("Q4_0", Q4_0)):
        tq = [(n, ne, q if ty == F16 else ty) for n, ne, ty in t]
        write_gguf(os.path.join(d, "quants", "tiny-llama-%s.gguf" % qname), kvs + vocab(), tq, 200)
    # tiny-llama split in two as gguf-split does: the metadata in part 1 only
    kvs, t = models["llama"]
    split = [("split.count", T_U16, 2), ("split.tensors.count", T_I32, len(t))]
    os.makedirs(os.path.join(d, "split"), exist_ok=True)
    write_gguf(os.path.join(d, "split", "tiny-llama-00001-of-00002.gguf"),
               kvs + vocab() + [("split.no", T_U16, 0)] + split, t[:12], 100)
    write_gguf(os.path.join(d, "split", "tiny-llama-00002-of-00002.gguf"),
               [("split.no", T_U16, 1)] + split, t[12:], 101)
    # the same with part 2 broken (its magic), for the errors that must name it
    os.makedirs(os.path.join(d, "split_bad"), exist_ok=True)
    write_gguf(os.path.join(d, "split_bad", "tiny-llama-00001-of-00002.gguf"),
               kvs + vocab() + [("split.no", T_U16, 0)] + split, t[:12], 100)
    bad = os.path.join(d, "split_bad", "tiny-llama-00002-of-00002.gguf")
    write_gguf(bad, [("split.no", T_U16, 1)] + split, t[12:], 101)
    with open(bad, "r+b") as f:
        f.write(b"XXXX")
    # a folder as a user keeps one: a split model, a vision projector
    # (mmproj) for it and a vocabulary-only GGUF, which are no models
    # llama.cpp runs alone (gguf_fit: "cannot say", never an error)
    kvs, t = models["llama"]
    fold = os.path.join(d, "folder")
    os.makedirs(fold, exist_ok=True)
    write_gguf(os.path.join(fold, "tiny-llama-00001-of-00002.gguf"),
               kvs + vocab() + [("split.no", T_U16, 0)] + split, t[:12], 100)
    write_gguf(os.path.join(fold, "tiny-llama-00002-of-00002.gguf"),
               [("split.no", T_U16, 1)] + split, t[12:], 101)
    write_gguf(os.path.join(fold, "mmproj-tiny-llama-f16.gguf"), [
        ("general.architecture", T_STR, "clip"),
        ("general.type", T_STR, "mmproj"),
        ("clip.has_vision_encoder", T_BOOL, True),
        ("clip.projector_type", T_STR, "mlp"),
        ("clip.vision.image_size", T_U32, 32),
        ("clip.vision.patch_size", T_U32, 16),
        ("clip.vision.embedding_length", T_U32, 32),
        ("clip.vision.feed_forward_length", T_U32, 64),
        ("clip.vision.projection_dim", T_U32, 64),
        ("clip.vision.attention.head_count", T_U32, 2),
        ("clip.vision.attention.layer_norm_epsilon", T_F32, 1e-6),
        ("clip.vision.block_count", T_U32, 1),
    ], [("v.patch_embd.weight", [16, 16, 3, 32], F16), ("v.blk.0.attn_q.weight", [32, 32], F16),
        ("mm.0.weight", [32, 64], F16)], 102)
    write_gguf(os.path.join(fold, "ggml-vocab-tiny-llama.gguf"), kvs + vocab(), [], 103)


if __name__ == "__main__":
    main()
