#!/usr/bin/python3
"""vocab_oracle.py LLAMA_CPP OUT.gguf ARCH DIR [--special-only]

Run llama.cpp's own converter code (conversion/*.py and gguf-py of the
llama.cpp source tree LLAMA_CPP, de3ff815) on the tokenizer files of DIR and
write what it adds to a vocabulary-only GGUF, OUT.gguf, that
`vocab_test --compare` then compares with our output.

It calls the model class's set_vocab() (LlamaModel, Qwen2Model, Qwen3Model,
GemmaModel, Gemma2Model, Phi3MiniModel) on an object made without
__init__ (which would read the weights): dir_model, hparams (config.json)
and a GGUFWriter are all set_vocab() reads.  The converter imports torch
and transformers at the top; neither is used by the SentencePiece recipes
or by SpecialVocab, so stand-ins are put in their place (numpy and
sentencepiece are the real ones).  Byte-level BPE recipes need
transformers' AutoTokenizer: --special-only runs gguf-py's SpecialVocab
alone instead (merges, special ids, add_* flags, chat template).
"""
import json
import sys
import types
from pathlib import Path


class _Stub:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Stub()

    def __getattr__(self, name):
        return _Stub()

    def __mro_entries__(self, bases):
        return (object,)


def stub_module(name):
    m = types.ModuleType(name)
    m.__getattr__ = lambda attr: _Stub()
    sys.modules[name] = m


CLASSES = {
    "LlamaForCausalLM": ("conversion.llama", "LlamaModel"),
    "MistralForCausalLM": ("conversion.llama", "LlamaModel"),
    "Qwen2ForCausalLM": ("conversion.qwen", "Qwen2Model"),
    "Qwen3ForCausalLM": ("conversion.qwen", "Qwen3Model"),
    "GemmaForCausalLM": ("conversion.gemma", "GemmaModel"),
    "Gemma2ForCausalLM": ("conversion.gemma", "Gemma2Model"),
    "Phi3ForCausalLM": ("conversion.phi", "Phi3MiniModel"),
}


def main():
    src, out, arch, d = sys.argv[1:5]
    special_only = "--special-only" in sys.argv[5:]
    for name in ("torch", "torch.nn", "transformers", "safetensors", "safetensors.torch"):
        stub_module(name)
    sys.path.insert(0, src)
    sys.path.insert(0, src + "/gguf-py")
    import importlib
    import logging

    import gguf

    logging.disable(logging.CRITICAL)
    module, cls_name = CLASSES[arch]
    cls = getattr(importlib.import_module(module), cls_name)
    writer = gguf.GGUFWriter(path=None, arch=gguf.MODEL_ARCH_NAMES[cls.model_arch])
    d = Path(d)
    if special_only:
        gguf.SpecialVocab(d, load_merges=True).add_to_gguf(writer, quiet=True)
    else:
        obj = cls.__new__(cls)
        obj.dir_model = d
        cfg = d / "config.json"
        obj.hparams = json.loads(cfg.read_text(encoding="utf-8")) if cfg.is_file() else {}
        obj.gguf_writer = writer
        obj.is_mistral_format = False
        obj.origin_hf_arch = arch
        obj.set_vocab()
    writer.write_header_to_file(path=Path(out))
    writer.write_kv_data_to_file()
    writer.close()


main()
