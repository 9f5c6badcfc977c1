/*
** hparams.h: an architecture's hyperparameters from config.json as GGUF
** metadata, the keys, types, values and order llama.cpp's converter
** gives them (its set_gguf_parameters).  Pure C, no SQLite.  Layer:
** convert.
**
**   SELECT key, type, value FROM gguf_metadata('tiny-q8_0.gguf')
**   WHERE key LIKE 'llama.%';
**   -- llama.block_count UINT32 2, llama.context_length UINT32 2048, ...
**
** Each function writes what one converter class writes, from
** convert_hf_to_gguf.py at llama.cpp c392e50 (Model, LlamaModel,
** Qwen2Model, GemmaModel, Gemma2Model, Phi3MiniModel) or, for Qwen3, at
** de3ff815 (conversion/base.py TextModel, conversion/qwen.py).  A value
** is read as that code reads it (config_values.h): find_hparam's first
** present key, hparams.get's None for null, and a missing key the class
** indexes directly is an error naming it, as is a value that does not fit
** the key's GGUF type.  general.file_type is written where the class
** writes it.
*/
#ifndef WT_CV_HPARAMS_H
#define WT_CV_HPARAMS_H

#include <stdint.h>

#include "base/model.h"
#include "convert/kv_list.h"
#include "formats/hf_config.h"

/* What an hparams function reads and where it writes. */
typedef struct cv_hp {
  const wt_config *cfg; /* config.json */
  const char *arch;     /* the GGUF architecture: the keys' prefix */
  uint32_t ftype;       /* general.file_type (llama.cpp's LlamaFileType) */
  cv_kv_list *kv;
} cv_hp;

typedef int (*cv_hparams_fn)(const cv_hp *h, wt_error *err);

/* The classes' set_gguf_parameters: 0, or -1 with err set. */
int cv_hparams_llama(const cv_hp *h, wt_error *err);  /* LlamaModel (Llama, Mistral) */
int cv_hparams_qwen2(const cv_hp *h, wt_error *err);  /* Qwen2Model */
int cv_hparams_gemma(const cv_hp *h, wt_error *err);  /* GemmaModel */
int cv_hparams_gemma2(const cv_hp *h, wt_error *err); /* Gemma2Model */
int cv_hparams_phi3(const cv_hp *h, wt_error *err);   /* Phi3MiniModel */
int cv_hparams_qwen3(const cv_hp *h, wt_error *err);  /* Qwen3Model, de3ff815 */

/* The number of key (find_hparam of the NULL-terminated keys) as an
** integer no greater than max: 0, or -1 with err set (absent, null, not
** an integer: the message names the first key). */
int cv_hp_int(const wt_config *cfg, const char *const *keys, uint64_t max, uint64_t *out,
              wt_error *err);

#endif
