#!/usr/bin/python3
"""gen_catalog.py OUTDIR: the models whose kind, architecture, base model,
context length and quantization weights_models() must tell apart
(tests/catalog.test, tests/remote_test.py).  OUTDIR is removed and made
again.  Each file's comment gives the facts it holds and what the rules of
docs/reference.md (weights_models) make of them, worked out by hand.

  gguf/   one GGUF per case (general.type, general.architecture, pooling,
          tokenizer, file type, base model keys)
  st/X/   one safetensors model per folder, with the config.json and
          adapter_config.json a loader reads
"""

import json
import os
import shutil
import struct
import sys

# GGUF value types (gguf.md) and ggml tensor types used here
U32, I32, BOOL, STRING = 4, 5, 7, 8
F32, F16 = 0, 1
TYPE_SIZE = {F32: 4, F16: 2}
ALIGN = 32


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, vtype, value):
    out = gguf_str(key) + struct.pack("<I", vtype)
    if vtype == STRING:
        return out + gguf_str(value)
    if vtype == BOOL:
        return out + struct.pack("<B", value)
    return out + struct.pack("<I" if vtype == U32 else "<i", value)


def write_gguf(path, kvs, tensors):
    """kvs: [(key, type, value)]; tensors: [(name, ggml type, [ne0, ...])]."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for k in kvs:
        head += gguf_kv(*k)
    data = b""
    for name, t, dims in tensors:
        n = 1
        for d in dims:
            n *= d
        data += b"\0" * (-len(data) % ALIGN)
        head += gguf_str(name) + struct.pack("<I", len(dims))
        head += b"".join(struct.pack("<Q", d) for d in dims)
        head += struct.pack("<IQ", t, len(data))
        data += b"\0" * (n * TYPE_SIZE[t])
    head += b"\0" * (-len(head) % ALIGN)
    with open(path, "wb") as f:
        f.write(head + data)


ST_SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "U8": 1, "F8_E4M3": 1}


def write_safetensors(path, tensors):
    """tensors: [(name, dtype, shape)], stored in that order."""
    header, at = {}, 0
    for name, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n * ST_SIZE[dtype]]}
        at += n * ST_SIZE[dtype]
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"\0" * at)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def gguf_cases(d):
    arch = ("general.architecture", STRING)
    # model, arch llama, base org/base-7b (the repo_url's path), ctx 4096,
    # quantization Q4_K_M (file type 15: LLAMA_FTYPE_MOSTLY_Q4_K_M)
    write_gguf(d + "/model-q4km.gguf",
               [arch + ("llama",), ("llama.context_length", U32, 4096), ("general.file_type", U32, 15),
                ("general.base_model.count", U32, 1), ("general.base_model.0.name", STRING, "Base 7B"),
                ("general.base_model.0.organization", STRING, "Org"),
                ("general.base_model.0.repo_url", STRING, "https://huggingface.co/org/base-7b")],
               [("token_embd.weight", F32, [4, 8]), ("blk.0.attn_q.weight", F32, [4, 4])])
    # model qwen2, ctx 32768, no file type: F16 64 x 2 = 128 bytes, F32 8 x 4
    # = 32 bytes: quantization F16+F32
    write_gguf(d + "/guess.gguf",
               [arch + ("qwen2",), ("qwen2.context_length", U32, 32768)],
               [("output_norm.weight", F32, [8]), ("blk.0.ffn_up.weight", F16, [64])])
    # adapter (general.type), arch llama, base Org/Base (organization/name,
    # no URL), no context length, quantization F32
    write_gguf(d + "/lora.gguf",
               [arch + ("llama",), ("general.type", STRING, "adapter"), ("adapter.type", STRING, "lora"),
                ("general.base_model.count", U32, 1), ("general.base_model.0.name", STRING, "Base"),
                ("general.base_model.0.organization", STRING, "Org")],
               [("blk.0.attn_q.weight.lora_a", F32, [4, 2]), ("blk.0.attn_q.weight.lora_b", F32, [2, 4])])
    # a control vector: adapter, arch controlvector
    write_gguf(d + "/cvec.gguf",
               [arch + ("controlvector",), ("controlvector.model_hint", STRING, "llama")],
               [("direction.1", F32, [8])])
    # projector (arch clip), quantization F16
    write_gguf(d + "/mmproj.gguf", [arch + ("clip",), ("clip.has_vision_encoder", BOOL, 1)],
               [("v.patch_embd.weight", F16, [4, 4])])
    # projector (general.type mmproj)
    write_gguf(d + "/mmproj-typed.gguf", [arch + ("clip",), ("general.type", STRING, "mmproj")],
               [("mm.0.weight", F16, [4, 4])])
    # vocab (no tensors, a tokenizer), arch llama, ctx 4096, no quantization
    write_gguf(d + "/vocab.gguf",
               [arch + ("llama",), ("llama.context_length", U32, 4096),
                ("tokenizer.ggml.model", STRING, "llama")], [])
    # embedding (pooling 2, cls), arch bert, ctx 512, quantization F16
    # (file type 1: MOSTLY_F16)
    write_gguf(d + "/embed.gguf",
               [arch + ("bert",), ("bert.pooling_type", U32, 2), ("bert.context_length", U32, 512),
                ("general.file_type", U32, 1)],
               [("token_embd.weight", F16, [8, 4])])
    # reranker (pooling 4, rank), arch bert
    write_gguf(d + "/rerank.gguf",
               [arch + ("bert",), ("bert.pooling_type", U32, 4), ("bert.context_length", U32, 512)],
               [("cls.output.weight", F32, [8])])
    # a generative model with pooling none (0): model
    write_gguf(d + "/pool-none.gguf", [arch + ("llama",), ("llama.pooling_type", U32, 0)],
               [("output.weight", F32, [8])])
    # imatrix (general.type), no architecture
    write_gguf(d + "/imatrix.gguf", [("general.type", STRING, "imatrix")],
               [("blk.0.attn_q.weight.in_sum2", F32, [8])])
    # no architecture, no type: unknown, quantization F32
    write_gguf(d + "/noarch.gguf", [("general.name", STRING, "x")], [("w", F32, [2])])


def st_cases(d):
    llama = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 4096}
    gptq = dict(llama, quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128})
    q = "model.layers.0.self_attn.q_proj."

    def model(name, config, tensors, file="model.safetensors"):
        os.makedirs(d + "/" + name)
        if config is not None:
            write_json(d + "/%s/config.json" % name, config)
        write_safetensors(d + "/%s/%s" % (name, file), tensors)

    # model llama, ctx 4096, gptq 4-bit (qweight and qzeros there)
    model("gptq", gptq, [(q + "qweight", "I32", [2, 8]), (q + "qzeros", "I32", [1, 1]),
                         (q + "scales", "F16", [1, 8])])
    # the same config over plain BF16 tensors: the method without its tensors
    model("gptq_plain", gptq, [(q + "weight", "BF16", [4, 4])])
    # model qwen3, ctx 40960, fp8 (F8_E4M3 weights, weight_scale_inv)
    model("fp8", {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                  "max_position_embeddings": 40960, "quantization_config": {"quant_method": "fp8"}},
          [("x.weight", "F8_E4M3", [4, 4]), ("x.weight_scale_inv", "F32", [1, 1])])
    # bitsandbytes 4-bit (load_in_4bit, an absmax tensor)
    model("bnb", dict(llama, quantization_config={"quant_method": "bitsandbytes", "load_in_4bit": True}),
          [("x.weight", "U8", [8, 1]), ("x.weight.absmax", "F32", [1]), ("x.weight.quant_map", "F32", [16])])
    # mlx 4-bit (its quantization object; scales and biases), model qwen2,
    # ctx 32768
    model("mlx", {"model_type": "qwen2", "max_position_embeddings": 32768,
                  "quantization": {"group_size": 64, "bits": 4}},
          [("x.weight", "U32", [4, 1]), ("x.scales", "F16", [4, 1]), ("x.biases", "F16", [4, 1])])
    # no method in config.json, but qweight and qzeros: gptq/awq (tensor names)
    model("awq_names", llama, [("x.qweight", "I32", [2, 8]), ("x.qzeros", "I32", [1, 1]),
                               ("x.scales", "F16", [1, 8])])
    # gpt2: architecture gpt2 (model_type), ctx 1024 (n_positions), BF16 8 x 8
    # = 128 bytes and F32 8 x 4 = 32 bytes: BF16+F32
    model("gpt2", {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_positions": 1024},
          [("ln_f.weight", "F32", [8]), ("h.0.attn.c_attn.weight", "BF16", [8, 8])])
    # multimodal: ctx from text_config (131072), architecture gemma3
    model("gemma3", {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
                     "text_config": {"model_type": "gemma3_text", "max_position_embeddings": 131072}},
          [("x", "F32", [2])])
    # PEFT LoRA: adapter (its file name), base org/base-7b, no config.json:
    # no architecture, no context length; F32
    os.makedirs(d + "/lora")
    write_json(d + "/lora/adapter_config.json",
               {"base_model_name_or_path": "org/base-7b", "peft_type": "LORA", "r": 8})
    write_safetensors(d + "/lora/adapter_model.safetensors",
                      [("base_model.model." + q + "lora_A.weight", "F32", [8, 16]),
                       ("base_model.model." + q + "lora_B.weight", "F32", [16, 8])])
    # the same under another name: adapter by its lora_A / lora_B tensors
    os.makedirs(d + "/lora_renamed")
    shutil.copy(d + "/lora/adapter_config.json", d + "/lora_renamed/adapter_config.json")
    shutil.copy(d + "/lora/adapter_model.safetensors", d + "/lora_renamed/my-lora.safetensors")
    # a bare encoder (BertModel): embedding, ctx 512
    model("embed", {"architectures": ["BertModel"], "model_type": "bert", "max_position_embeddings": 512},
          [("x", "F32", [2])])
    # a classifier with one label: reranker, architecture xlm-roberta, ctx 514
    model("rerank", {"architectures": ["XLMRobertaForSequenceClassification"], "model_type": "xlm-roberta",
                     "id2label": {"0": "LABEL_0"}, "max_position_embeddings": 514},
          [("x", "F32", [2])])
    # a classifier with two labels: model
    model("classifier", {"architectures": ["XLMRobertaForSequenceClassification"],
                         "model_type": "xlm-roberta", "id2label": {"0": "NEG", "1": "POS"}},
          [("x", "F32", [2])])
    # no config.json: unknown, no architecture, F32
    model("noconfig", None, [("x", "F32", [2])])
    # a sharded model: the mix over both shards (BF16 8 x 2 = 16 bytes, F32 2 x 4
    # = 8 bytes: BF16+F32), architecture llama from config.json beside the index
    os.makedirs(d + "/sharded")
    write_json(d + "/sharded/config.json", llama)
    write_safetensors(d + "/sharded/model-00001-of-00002.safetensors", [("a", "F32", [2])])
    write_safetensors(d + "/sharded/model-00002-of-00002.safetensors", [("b", "BF16", [8])])
    write_json(d + "/sharded/model.safetensors.index.json",
               {"metadata": {"total_size": 24},
                "weight_map": {"a": "model-00001-of-00002.safetensors",
                               "b": "model-00002-of-00002.safetensors"}})


def write_card(path, front_matter):
    """A README.md with the given YAML front matter and some text."""
    with open(path, "w") as f:
        f.write("---\n" + front_matter + "---\n\n# Model card\n\nbase_model: not/this (the text)\n")


def card_cases(d):
    """Models whose base model only their card (README.md) names."""
    llama = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "max_position_embeddings": 4096}
    lora = [("base_model.model.q_proj.lora_A.weight", "F32", [8, 16]),
            ("base_model.model.q_proj.lora_B.weight", "F32", [16, 8])]
    # a PEFT adapter whose adapter_config.json has base_model_name_or_path
    # null, as PEFT writes it for a base loaded from a local folder; its card
    # names the base as PEFT's card template does (a plain string)
    os.makedirs(d + "/peft-null")
    write_json(d + "/peft-null/adapter_config.json",
               {"base_model_name_or_path": None, "peft_type": "LORA", "r": 8})
    write_safetensors(d + "/peft-null/adapter_model.safetensors", lora)
    write_card(d + "/peft-null/README.md", "library_name: peft\nbase_model: org/card-base\n")
    # an adapter whose config names its base: the config's, not the card's
    os.makedirs(d + "/peft-named")
    write_json(d + "/peft-named/adapter_config.json",
               {"base_model_name_or_path": "org/config-base", "peft_type": "LORA"})
    write_safetensors(d + "/peft-named/adapter_model.safetensors", lora)
    write_card(d + "/peft-named/README.md", "base_model: org/card-base\n")
    # a fine-tune: config.json says nothing of a base; the card, as a block
    # list of one (as huggingface_hub's ModelCardData writes it), with a
    # quoted item and comments
    os.makedirs(d + "/finetune")
    write_json(d + "/finetune/config.json", llama)
    write_safetensors(d + "/finetune/model.safetensors", [("x", "F32", [2])])
    write_card(d + "/finetune/README.md",
               "license: llama3\nbase_model:\n  # the model it was trained from\n  - \"org/llama-8b\"\n"
               "tags:\n- fine-tuned\n")
    # a merge: a flow list of two, in the card's order
    os.makedirs(d + "/merge")
    write_json(d + "/merge/config.json", llama)
    write_safetensors(d + "/merge/model.safetensors", [("x", "F32", [2])])
    write_card(d + "/merge/README.md", "base_model: [org/b-model, 'org/a-model']\nbase_model_relation: merge\n")
    # a card whose base_model is a mapping, which the Hub does not take:
    # nothing (and no error)
    os.makedirs(d + "/mapping")
    write_json(d + "/mapping/config.json", llama)
    write_safetensors(d + "/mapping/model.safetensors", [("x", "F32", [2])])
    write_card(d + "/mapping/README.md", "base_model:\n  name: org/n\n")
    # a GGUF without general.base_model.*: its card's (a quantizer's repo)
    os.makedirs(d + "/gguf")
    write_gguf(d + "/gguf/model-Q8_0.gguf",
               [("general.architecture", STRING, "llama"), ("general.file_type", U32, 7)],
               [("output.weight", F32, [8])])
    write_card(d + "/gguf/README.md", "base_model: org/llama-8b-instruct\nquantized_by: someone\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_catalog.py OUTDIR")
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out + "/gguf")
    os.makedirs(out + "/st")
    os.makedirs(out + "/cards")
    gguf_cases(out + "/gguf")
    st_cases(out + "/st")
    card_cases(out + "/cards")


if __name__ == "__main__":
    main()
