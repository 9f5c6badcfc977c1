/*
** hf_config.h: a Hugging Face config.json (the model's hyperparameters, as
** transformers writes them beside a checkpoint) read into one level of
** key/value entries, and the GGUF architecture the checkpoint converts
** to.  Pure C (formats/json_check.h's parser), no SQLite; the paths layer finds and reads the file
** (paths/hf_config_file.h), model_config() and tensors() use it.  Layer:
** formats.
**
** Flattening: every member of the top-level object is an entry; a member
** whose value is a non-empty object gives one entry per member of that
** object instead, keyed "outer.inner" (text_config.hidden_size).  Deeper
** objects and every array stay whole, as JSON text.  Values are JSON text
** as the file has it, minus whitespace outside strings: numbers keep every
** digit (9007199254740993, 1.0), strings their quotes and escapes.  A key
** repeated is listed each time.
**
** Architecture: architectures[0] as llama.cpp's convert_hf_to_gguf.py
** registers it (LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM
** -> llama; Qwen2ForCausalLM -> qwen2; Qwen3ForCausalLM -> qwen3;
** GemmaForCausalLM -> gemma; Gemma2ForCausalLM -> gemma2;
** Gemma3ForCausalLM, Gemma3ForConditionalGeneration -> gemma3;
** Phi3ForCausalLM -> phi3, ...: hf_config.c has the list).  A config with
** no architectures list, or one the list does not know, has no
** architecture (NULL): model_type alone is not trusted, because the
** converter dispatches on architectures[0].
*/
#ifndef WT_HF_CONFIG_H
#define WT_HF_CONFIG_H

#include <stddef.h>

#include "base/model.h"

/* Most bytes of config.json read (real ones are a few KiB; id2label
** tables of classifiers reach some hundreds). */
#define WT_CONFIG_MAX_BYTES ((size_t)16 << 20)

/* One flattened entry: NUL-terminated, malloc'd. */
typedef struct wt_config_entry {
  char *key;
  char *value;      /* JSON text */
  const char *type; /* "object", "array", "string", "number", "boolean", "null" */
} wt_config_entry;

typedef struct wt_config {
  wt_config_entry *entries; /* in document order */
  size_t n;
  const char *arch; /* GGUF architecture (static string), or NULL */
  char *hf_arch;    /* architectures[0], or NULL */
  char *model_type; /* model_type, or NULL */
} wt_config;

/* Parse config.json text[0..n) into *out (all of it when flatten, else
** only arch, hf_arch and model_type).  Returns 0, or -1 with err set
** (not JSON, not an object, out of memory); *out is empty then. */
int wt_config_parse(const char *text, size_t n, int flatten, wt_config *out, wt_error *err);

/* The GGUF architecture of a Hugging Face architectures[0] name, or NULL.
** wt_config_parse sets it; exported for tests only. */
const char *wt_config_gguf_arch(const char *hf_arch);

/* Free what wt_config_parse() allocated; safe on a zeroed config. */
void wt_config_free(wt_config *c);

#endif
