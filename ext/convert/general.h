/*
** general.h: the general.* metadata a conversion writes, as llama.cpp's
** converter writes it.  Pure C, no SQLite.  Layer: convert.
**
**   SELECT key, value FROM gguf_metadata('SmolLM2-135M-bf16.gguf')
**   WHERE key LIKE 'general.%';
**   -- general.architecture llama, general.type model,
**   -- general.name SmolLM2 135M, general.organization HuggingFaceTB,
**   -- general.basename SmolLM2, general.size_label 135M,
**   -- general.file_type 32, general.quantization_version 2
**
** The naming keys come from names, as gguf-py's Metadata derives them
** (gguf/metadata.py: get_model_id_components, id_to_title,
** apply_metadata_heuristic; gguf/utility.py: size_label): first from
** config.json's _name_or_path when it is a model id (at most one '/'),
** then, for what is still unknown, from the name of the checkpoint's
** folder; general.name falls back to that name as it is, and
** general.size_label to the parameter count rounded (125K, 135M, 7.2B).
** The folder name is the caller's choice (convert.h says which).
**
** Not written: what gguf-py takes from the model card's YAML front matter
** (README.md: license, tags, languages, base models, datasets) and from a
** --metadata override file; the converter of de3ff815 (Qwen3) also writes
** general.sampling.* from generation_config.json, which is written here.
**
** ASCII names are handled as Python handles them; other bytes are kept as
** they are and count as neither letters nor digits.
*/
#ifndef WT_CV_GENERAL_H
#define WT_CV_GENERAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "convert/kv_list.h"
#include "formats/hf_config.h"

/* What the naming keys are derived from. */
typedef struct cv_naming {
  const char *dir_name;   /* the checkpoint folder's name */
  const wt_config *cfg;   /* config.json (_name_or_path) */
  const char *name;       /* the caller's general.name (--model-name), or NULL */
  uint64_t total_params;  /* the output's parameters (every tensor's elements) */
  const char *gen_config; /* generation_config.json's text (de3ff815 only), or NULL */
  size_t gen_config_n;
  int sampling; /* write general.sampling.* (the de3ff815 converter) */
} cv_naming;

/* general.type and the naming keys, in gguf-py's order
** (Metadata.set_gguf_meta_model): 0, or -1 with err set. */
int cv_general_meta(cv_kv_list *kv, const cv_naming *n, wt_error *err);

/* gguf-py's size_label of a dense model of n parameters ("125K"), into
** out (at least 32 bytes). */
void cv_size_label(uint64_t n, char *out, size_t cap);

/* The parts gguf-py's get_model_id_components finds in a model id
** (malloc'd, NULL when absent). */
typedef struct cv_model_id {
  char *full, *org, *basename, *finetune, *version, *size_label;
} cv_model_id;

/* Split id as get_model_id_components does: 0, or -1 (out of memory). */
int cv_model_id_parse(const char *id, uint64_t total_params, cv_model_id *out);
void cv_model_id_free(cv_model_id *m);

/* id_to_title(s), malloc'd (NULL: out of memory). */
char *cv_id_to_title(const char *s);

#endif
