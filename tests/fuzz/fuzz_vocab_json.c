/*
** fuzz_vocab_json.c: libFuzzer target for the JSON side of the vocabulary
** code: tokenizer.json's byte-level BPE (ext/convert/vocab_bpe.c, the
** pre-tokenizer's name in vocab_pre.c), SpecialVocab (vocab_special*.c)
** and the JSON reading with Python's semantics (vocab_json.c).
**
** The input: a first byte that picks the architecture (the six whose
** recipes read tokenizer.json), then up to five files separated by the
** bytes FF FE FD FC: tokenizer.json, tokenizer_config.json, config.json,
** added_tokens.json, merges.txt.  Checked: cv_vocab_write()'s output as
** vocab_check.h says (well-formed values, counts that agree, nothing given
** to the sink on an error, a message on every error).  Built by `make fuzz`.
*/
#include "vocab_check.h"

static const char *const archs[] = {"LlamaForCausalLM",   "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                                    "MistralForCausalLM", "Phi3ForCausalLM",  "GemmaForCausalLM"};

static const unsigned char SEP[4] = {0xff, 0xfe, 0xfd, 0xfc};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  cv_vocab_files f = {0};
  cv_file_bytes *slot[5] = {&f.tokenizer_json, &f.tokenizer_config, &f.config, &f.added_tokens,
                            &f.merges_txt};
  const unsigned char *p = data + 1, *end = data + size;
  for (int i = 0; i < 5 && p <= end; i++) {
    const unsigned char *q = p;
    while (q + 4 <= end && memcmp(q, SEP, 4) != 0)
      q++;
    if (q + 4 > end)
      q = end;
    if (q > p)
      *slot[i] = (cv_file_bytes){p, (size_t)(q - p)};
    p = q + 4;
  }
  f.dir_name = "fuzz";
  fz_check(archs[data[0] % 6], &f, 0);
  return 0;
}
