#!/usr/bin/python3
"""jobs.py GROUP: the settings gpu_probe measures, one line per context
(MODEL NGL N_CTX TYPE_K TYPE_V FA N_SEQ N_UBATCH N_BATCH KV_UNIFIED SWA_FULL),
grouped by model so that each model runs in a process of its own.

GROUP is "check" (two settings of the records measured before, to show the
build and machine give the same figures), "tiny" (the models of
tests/gen_arch_gguf.py in build/arch) or "big" (the real-sized shapes of
tests/gen_big_gguf.py in build/big)."""
import os
import sys

TINY_SETTINGS = [
    (4096, "f16", "f16", -1, 1, 512, 2048, 0, 1),
    (4096, "q8_0", "q8_0", 1, 1, 512, 2048, 0, 1),
    (8192, "f16", "f16", 0, 4, 256, 2048, 0, 1),
    (1024, "q4_0", "q4_0", 1, 1, 128, 2048, 0, 1),
    (2048, "f16", "f16", 1, 2, 2048, 2048, 1, 1),
    (3000, "f32", "f32", 0, 1, 512, 512, 0, 0),
]
TINY_NGL = [0, 1, 2, -1]
TINY = ["qwen3", "gemma3", "phi3", "qwen3moe", "starcoder2", "granite", "cohere2", "mistral3",
        "gemma", "qwen2moe", "deci", "exaone", "internlm2", "llama-wide", "qwen2-wide",
        "granitemoe", "smollm3", "arcee", "orion", "baichuan", "xverse", "llama", "deepseek2",
        "mamba", "gemma2", "qwen2", "granitemoe-shared"]
BIG_SETTINGS = [
    (8192, "f16", "f16", -1, 1, 512, 2048, 0, 1),
    (32768, "q8_0", "q8_0", 1, 1, 512, 2048, 0, 1),
    (16384, "f16", "f16", 0, 2, 1024, 2048, 0, 1),
]
# model, its layers, the offload depths measured
BIG = [("smollm3-3b-shape", 36, [0, 9, 18, 36, -1]),
       ("starcoder2-7b-shape", 32, [0, 8, 16, -1]),
       ("granitemoe-3b-shape", 32, [0, 16, -1]),
       ("gemma3-27b-shape", 62, [0, 16, 31, -1]),
       ("qwen3moe-30b-shape", 48, [0, 12, 24, -1]),
       ("arcee-4.5b-shape", 36, [0, 18, -1]),
       ("deepseek-v2-lite-like", 27, [0, 13, -1]),
       ("llama-70b-shape", 80, [0, 10, 40])]


def line(path, ngl, s):
    return " ".join(str(x) for x in (path, ngl) + s)


def main():
    group = sys.argv[1]
    if group == "check":
        print(line("models/llama3-8b-q4km-shape.gguf", 8, (4096, "f16", "f16", -1, 1, 512, 2048, 0, 1)))
        print(line("models/llama3-8b-q4km-shape.gguf", 8, (8192, "f16", "f16", 0, 4, 512, 2048, 0, 1)))
        print(line("models/llama.gguf", 1, (4096, "q8_0", "q8_0", 1, 1, 512, 2048, 0, 1)))
        print("#")
        return
    if group == "tiny":
        for name in TINY:
            path = "build/arch/tiny-%s.gguf" % name
            if not os.path.exists(path):
                continue
            for ngl in TINY_NGL:
                for s in TINY_SETTINGS:
                    print(line(path, ngl, s))
            print("#")
        for q in ("Q4_0", "Q8_0"):
            for ngl in (0, 1, -1):
                print(line("build/arch/quants/tiny-llama-%s.gguf" % q, ngl, TINY_SETTINGS[0]))
            print("#")
        for ngl in (0, 1, -1):
            print(line("build/arch/split/tiny-llama-00001-of-00002.gguf", ngl, TINY_SETTINGS[0]))
        print("#")
        return
    for name, layers, ngls in BIG:
        path = "build/big/%s.gguf" % name
        for ngl in ngls:
            for s in BIG_SETTINGS:
                print(line(path, ngl, s))
        print("#")


main()
