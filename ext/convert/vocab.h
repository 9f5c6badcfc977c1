/*
** vocab.h: a Hugging Face checkpoint's tokenizer as the GGUF metadata
** entries llama.cpp's converter writes for it.
** Layer: convert (pure C: no SQLite, no file access; uses write/, formats/,
** base/).
**
** The caller reads the tokenizer files of a checkpoint and hands over their
** bytes; cv_vocab_write() hands back, through a cv_kv_sink, exactly the
** entries that convert_hf_to_gguf.py's set_vocab() adds for that
** architecture (tokenizer.ggml.*, tokenizer.chat_template, ...), with the
** same keys, types, values and order.  The caller puts them where the
** converter does: after the hyperparameters (llama.cpp c392e50), or after
** general.quantization_version (de3ff815, the Qwen3 recipe: TextModel's
** prepare_metadata() calls set_vocab() last).
**
** Which converter's rules apply: llama.cpp c392e50 (February 2025, with its
** gguf-py) for every architecture but Qwen3ForCausalLM, which that
** converter does not know and which follows de3ff815.  docs/convert-vocab.md
** lists where the two differ and what was chosen.
**
** Example (the tiny llama checkpoint of the converter's reference data):
**
**   cv_vocab_files f = {.tokenizer_model = bytes, .tokenizer_model_len = n,
**                       .tokenizer_config = cfg, ..., .dir_name = "hf/llama"};
**   cv_vocab_write("LlamaForCausalLM", &f, 400, &sink, &info, &err);
**
** puts tokenizer.ggml.model "llama", tokenizer.ggml.pre "default", the 400
** tokens, scores and types, bos/eos ids 1 and 2, add_bos_token true,
** add_eos_token false and the chat template, in that order.
**
** Errors name the file (under dir_name) and the item: a missing
** tokenizer.model or tokenizer.json, malformed protobuf or JSON, an id out
** of range, a pre-tokenizer llama.cpp would not name, a vocabulary whose
** size is not the embedding's, and every input the converter itself
** refuses (it stops with an exception; so do we).
*/
#ifndef WT_VOCAB_H
#define WT_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "convert/kv_sink.h"

/* The files the converter's vocabulary code may read, as bits for
** cv_vocab_files_wanted().  Each is read from the checkpoint's folder. */
enum {
  CV_FILE_TOKENIZER_MODEL = 1 << 0,     /* tokenizer.model (SentencePiece) */
  CV_FILE_TOKENIZER_JSON = 1 << 1,      /* tokenizer.json */
  CV_FILE_TOKENIZER_CONFIG = 1 << 2,    /* tokenizer_config.json */
  CV_FILE_ADDED_TOKENS = 1 << 3,        /* added_tokens.json */
  CV_FILE_CONFIG = 1 << 4,              /* config.json */
  CV_FILE_MERGES_TXT = 1 << 5,          /* merges.txt */
  CV_FILE_CHAT_TEMPLATE_JINJA = 1 << 6, /* chat_template.jinja (de3ff815 only) */
  CV_FILE_CHAT_TEMPLATE_JSON = 1 << 7   /* chat_template.json (de3ff815 only) */
};

/* One file's bytes; p NULL (n 0) when the checkpoint has no such file. */
typedef struct cv_file_bytes {
  const unsigned char *p;
  size_t n;
} cv_file_bytes;

/* The tokenizer files of one checkpoint.  config.json is the one whose
** vocab_size and *_token_id the converter reads (hparams).  special_tokens_map.json
** and generation_config.json are not here: the converter's vocabulary code
** does not read them. */
typedef struct cv_vocab_files {
  cv_file_bytes tokenizer_model;
  cv_file_bytes tokenizer_json;
  cv_file_bytes tokenizer_config;
  cv_file_bytes added_tokens;
  cv_file_bytes config;
  cv_file_bytes merges_txt;
  cv_file_bytes chat_template_jinja;
  cv_file_bytes chat_template_json;
  const char *dir_name; /* the folder or URL as the user gave it, for messages (never a token) */
} cv_vocab_files;

/* What cv_vocab_write() wrote, for the caller's own checks and messages. */
typedef struct cv_vocab_info {
  uint64_t n_tokens;     /* entries of tokenizer.ggml.tokens */
  uint64_t n_merges;     /* entries of tokenizer.ggml.merges (0: none written) */
  const char *model;     /* "llama" (SentencePiece) or "gpt2" (byte-level BPE) */
  const char *pre;       /* tokenizer.ggml.pre, static storage */
  const char *recipe;    /* the converter code followed, e.g. "LlamaModel.set_vocab" */
  const char *llama_cpp; /* "c392e50" or "de3ff815": whose rules applied */
} cv_vocab_info;

/* Whether hf_arch (config.json's architectures[0]) is one the vocabulary
** code knows; 0 with err set to a message naming it and the supported ones. */
int cv_vocab_arch_supported(const char *hf_arch, wt_error *err);

/* The CV_FILE_* bits of the files the converter may read for hf_arch (0 for
** an unknown architecture): the caller reads those that exist and leaves
** the others NULL. */
unsigned cv_vocab_files_wanted(const char *hf_arch);

/* The file name of one CV_FILE_* bit ("tokenizer.model", ...), NULL for
** anything else. */
const char *cv_vocab_file_name(unsigned bit);

/* Hand the vocabulary's metadata entries for hf_arch, read from f, to sink
** in the converter's order.  n_vocab is the embedding's row count; when
** not 0 the token list must have exactly that many entries (the converter
** pads to config.json's vocab_size; a list that still differs would give a
** file llama.cpp refuses, so it is an error here).  info, when not NULL,
** is filled on success.  Every entry is built before the first is given
** to sink: on an error (-1, err set) sink has been given nothing. */
int cv_vocab_write(const char *hf_arch, const cv_vocab_files *f, uint64_t n_vocab, cv_kv_sink *sink,
                   cv_vocab_info *info, wt_error *err);

#endif
