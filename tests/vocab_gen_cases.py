#!/usr/bin/python3
"""vocab_gen_cases.py WORK: SentencePiece checkpoints (tokenizer files only)
for tests/vocab_test.sh to convert with our code and with llama.cpp's own
set_vocab() (tests/vocab_oracle.py), one folder per case, named
ARCH--CASE.  The cases exercise the rules the two converters share
(docs/convert-vocab.md): padding, added_tokens.json, added_tokens_decoder
(special, special-looking, U+2581 in user-defined tokens), special ids from
tokenizer_config.json, tokenizer.json and config.json (first wins, out of
range skipped, lists ignored), add_bos/add_eos, chat templates (a string, a
one-name list), CodeLlama's 32016 vocabulary, Gemma's eot from config.json,
Phi-3's own rules.  Needs python3-sentencepiece.
"""
import json
import os
import sys

import sentencepiece as spm

CORPUS = """Hello world, this is a tokenizer test.
Ünïcödé text and 中文 and emoji 🙂.
for i in range(10): print(i)
""" * 30


def train(work, name, **kw):
    corpus = os.path.join(work, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write(CORPUS)
    prefix = os.path.join(work, name)
    spm.SentencePieceTrainer.Train(input=corpus, model_prefix=prefix, minloglevel=2, character_coverage=0.98, **kw)
    sp = spm.SentencePieceProcessor()
    sp.LoadFromFile(prefix + ".model")
    return prefix + ".model", sp.vocab_size()


def case(work, arch, name, model, files):
    d = os.path.join(work, f"{arch}--{name}")
    os.makedirs(d, exist_ok=True)
    with open(model, "rb") as src, open(os.path.join(d, "tokenizer.model"), "wb") as dst:
        dst.write(src.read())
    for fname, content in files.items():
        with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
            f.write(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False))


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    bpe, n_bpe = train(work, "bpe", model_type="bpe", vocab_size=400, byte_fallback=True,
                       user_defined_symbols=["<tool>"], control_symbols=["<ctl>"])
    uni, n_uni = train(work, "unigram", model_type="unigram", vocab_size=150, hard_vocab_limit=False)
    decoder = {
        str(n_bpe): {"content": "<|im_start|>", "special": True},
        str(n_bpe + 1): {"content": "<|im_end|>", "special": False},
        str(n_bpe + 2): {"content": "\u2581tool\u2581call", "special": False},
        "3": {"content": "<replaced>", "special": False},
    }
    tc = {"bos_token": {"content": "<s>"}, "eos_token": "</s>", "unk_token": "<unk>", "add_bos_token": True,
          "add_eos_token": False, "chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}",
          "added_tokens_decoder": decoder}
    cfg = {"vocab_size": n_bpe + 6, "bos_token_id": 1, "eos_token_id": [2, 7], "pad_token_id": n_bpe + 100,
           "unk_token_id": 0}
    added = {"<added>": n_bpe + 3, "<far>": n_bpe + 50}
    for arch in ("LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                 "GemmaForCausalLM", "Gemma2ForCausalLM"):
        case(work, arch, "added", bpe, {"tokenizer_config.json": tc, "config.json": cfg,
                                        "added_tokens.json": added})
    case(work, "LlamaForCausalLM", "template-list", uni,
         {"tokenizer_config.json": {"chat_template": [{"name": "default", "template": "D"},
                                                       {"name": "tool use!", "template": "T"}]},
          "config.json": {"vocab_size": n_uni}})
    case(work, "LlamaForCausalLM", "codellama", uni,
         {"tokenizer_config.json": {"add_bos_token": True}, "config.json": {"vocab_size": 32016}})
    case(work, "LlamaForCausalLM", "no-config", uni, {})
    case(work, "GemmaForCausalLM", "eot-from-config", bpe,
         {"config.json": {"vocab_size": n_bpe, "eot_token_id": 5, "pad_token_id": 0},
          "tokenizer_config.json": {"chat_template": "T", "add_eos_token": True}})
    phi_tc = dict(tc, tokenizer_class="LlamaTokenizer")
    phi_tc["added_tokens_decoder"] = {k: v for k, v in decoder.items()}
    tokenizer_json = {"added_tokens": [{"id": 0, "content": "<unk>", "special": True},
                                       {"id": 1, "content": "<s>", "special": True},
                                       {"id": 2, "content": "</s>", "special": False},
                                       {"id": n_bpe + 4, "content": "<|endoftext|>", "special": True}],
                      "model": {"type": "BPE", "vocab": {}, "merges": []}}
    case(work, "Phi3ForCausalLM", "phi3", bpe, {"tokenizer_config.json": phi_tc, "config.json": cfg,
                                                 "tokenizer.json": tokenizer_json, "added_tokens.json": added})


main()
