#!/usr/bin/python3
"""vocab_spm_check.py VOCAB_TEST WORKDIR [TOKENIZER.MODEL...]

Checks vocab_test's reading of SentencePiece models against
python3-sentencepiece itself: for models trained here (BPE with byte
fallback, unigram with user-defined and control symbols, a character model)
and for any tokenizer.model given, every token's text, score and type as
`vocab_test --dump LlamaForCausalLM` writes them must be what the converter
computes from SentencePieceProcessor (IdToPiece, GetScore, and the type from
IsUnknown / IsControl / IsUnused / IsByte, in that order, as
_create_vocab_sentencepiece asks; conversion/base.py, llama.cpp de3ff815).
Prints "vocab_spm_check: N passed, M failed"; "skipped" without sentencepiece.
"""
import json
import os
import struct
import subprocess
import sys

try:
    import sentencepiece as spm
except ImportError:
    print("vocab_spm_check: skipped: python3-sentencepiece is not installed")
    sys.exit(0)

CORPUS = """The quick brown fox jumps over the lazy dog.
Über den Wolken muss die Freiheit wohl grenzenlos sein.
日本語のテキストも少し入れておきます。
def main():\n    return 42  # code, tabs\tand spaces
Numbers 3.14159 and 2718281828, emoji 🦙🦙 and <tags>.
""" * 40


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected(model_path):
    sp = spm.SentencePieceProcessor()
    sp.LoadFromFile(model_path)
    out = []
    for i in range(sp.vocab_size()):
        t = 1
        if sp.IsUnknown(i):
            t = 2
        elif sp.IsControl(i):
            t = 3
        elif sp.IsUnused(i):
            t = 5
        elif sp.IsByte(i):
            t = 6
        out.append((sp.IdToPiece(i), f32(sp.GetScore(i)), t))
    return out


def dumped(vocab_test, d):
    r = subprocess.run([vocab_test, "--dump", "LlamaForCausalLM", d], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stdout + r.stderr)
    arrays, cur = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("  ") and cur is not None:
            _, _, v = line.strip().partition(" ")
            arrays[cur].append(v)
        else:
            cur = line.split(" ")[0]
            arrays[cur] = []
    toks = [json.loads(v) for v in arrays["tokenizer.ggml.tokens"]]
    scores = [f32(float(v)) for v in arrays["tokenizer.ggml.scores"]]  # %.9g reads back exactly
    types = [int(v) for v in arrays["tokenizer.ggml.token_type"]]
    return list(zip(toks, scores, types))


def train(work, name, **kw):
    corpus = os.path.join(work, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write(CORPUS)
    prefix = os.path.join(work, name)
    spm.SentencePieceTrainer.Train(input=corpus, model_prefix=prefix, minloglevel=2, **kw)
    return prefix + ".model"


def main():
    vocab_test, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    models = [
        train(work, "bpe", model_type="bpe", vocab_size=420, byte_fallback=True, character_coverage=0.98),
        train(work, "unigram", model_type="unigram", vocab_size=200, character_coverage=0.98, user_defined_symbols=["<tool>", "▁x▁"],
              control_symbols=["<ctl>"], hard_vocab_limit=False),
        train(work, "char", model_type="char", vocab_size=150, character_coverage=0.98, hard_vocab_limit=False),
    ] + sys.argv[3:]
    passed = failed = 0
    for m in models:
        d = os.path.join(work, "dir-" + os.path.basename(os.path.dirname(m) if m.endswith("tokenizer.model") else m))
        os.makedirs(d, exist_ok=True)
        with open(m, "rb") as src, open(os.path.join(d, "tokenizer.model"), "wb") as dst:
            dst.write(src.read())
        for stale in ("config.json", "tokenizer_config.json"):
            if os.path.exists(os.path.join(d, stale)):
                os.remove(os.path.join(d, stale))
        want, got = expected(m), dumped(vocab_test, d)
        if want == got:
            passed += 1
        else:
            failed += 1
            bad = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
            print(f"FAIL {m}: {len(got)} tokens against sentencepiece's {len(want)}; first difference at id {bad}: "
                  f"{got[bad] if bad < len(got) else None} against {want[bad] if bad < len(want) else None}")
    print(f"vocab_spm_check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
