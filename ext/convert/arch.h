/*
** arch.h: the checkpoints the converter takes (config.json's
** architectures[0]) and what llama.cpp's converter does with each.  Pure
** C, no SQLite.  Layer: convert.
**
**   LlamaForCausalLM, MistralForCausalLM  llama   c392e50 LlamaModel
**   Qwen2ForCausalLM                      qwen2   c392e50 Qwen2Model
**   Qwen3ForCausalLM                      qwen3   de3ff815 Qwen3Model
**   GemmaForCausalLM                      gemma   c392e50 GemmaModel
**   Gemma2ForCausalLM                     gemma2  c392e50 Gemma2Model
**   Phi3ForCausalLM                       phi3    c392e50 Phi3MiniModel
**
** Besides the hyperparameters (hparams.h), a class may generate tensors
** that the checkpoint does not hold (LlamaModel: rope_freqs for Llama 3's
** "llama3" RoPE scaling; Phi3MiniModel: rope_factors_long and _short, and
** its rope.scaling.attn_factor key, added while the tensors are prepared,
** so before general.type) and rewrite tensors (the rules below).
*/
#ifndef WT_CV_ARCH_H
#define WT_CV_ARCH_H

#include <stddef.h>

#include "base/model.h"
#include "convert/hparams.h"

/* Which converter's behaviour an architecture follows. */
#define CV_CONV_C392E50  1
#define CV_CONV_DE3FF815 2

/* Tensor rules. */
#define CV_RULE_PERMUTE_QK    1 /* q_proj and k_proj (weight, bias) rows in llama.cpp's RoPE order */
#define CV_RULE_NORM_PLUS_ONE 2 /* every *norm.weight stored as 1 + w */
#define CV_RULE_SKIP_LM_HEAD  4 /* lm_head.weight not written (the embedding is the output) */

/* A tensor a class generates: F32 values, one dimension. */
typedef struct cv_extra {
  char name[64];
  float *v; /* malloc'd */
  size_t n;
} cv_extra;

#define CV_MAX_EXTRAS 2

typedef struct cv_arch {
  const char *hf;   /* config.json's architectures[0] */
  const char *gguf; /* general.architecture */
  int converter;    /* CV_CONV_* */
  unsigned rules;   /* CV_RULE_* */
  cv_hparams_fn hparams;
  /* The generated tensors into out (at most CV_MAX_EXTRAS; *n set) and
  ** any metadata added with them: 0, or -1 with err set.  NULL: none. */
  int (*extras)(const cv_hp *h, cv_extra *out, size_t *n, wt_error *err);
} cv_arch;

/* The architecture of architectures[0] hf, or NULL. */
const cv_arch *cv_arch_find(const char *hf);

/* The supported names, comma-separated, into out. */
void cv_arch_names(char *out, size_t cap);

/* Free what extras allocated. */
void cv_extras_free(cv_extra *e, size_t n);

#endif
