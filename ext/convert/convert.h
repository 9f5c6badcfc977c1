/*
** convert.h: a Hugging Face checkpoint to GGUF, the file llama.cpp's
** convert_hf_to_gguf.py writes from it, byte for byte.  No SQLite: the
** SQL function gguf_convert() (sql/convert.c) is a thin binder over
** cv_convert().  Layer: convert.
**
**   SELECT gguf_convert('tiny-q8_0.gguf', 'models/tiny/', json_object('outtype', 'q8_0'));
**   -- 144960: the output's size in bytes
**
** The steps, each in its file:
**   source.c   the checkpoint: shards in the converter's order, config.json
**              and the tokenizer's files beside it;
**   arch.c     the architecture (config.json's architectures[0]) and the
**              tensors its converter class generates;
**   plan.c     the output tensors: names, types, shapes, rules;
**   general.c, hparams.c, and the vocabulary (vocab.h): the metadata, in
**              the converter's order, into a kv_list.c;
**   data.c     each tensor's bytes: copied by reference, or encoded a
**              bounded piece at a time.
** The output is written as every writer here writes (write/write_job.h): a
** temporary file in the output's folder, reserved, filled, its header
** parsed back and compared with what was asked (every key, every tensor's
** name, type, shape and offset), its tensor bytes read back and compared,
** fsynced, renamed over the output.  Any failure leaves the output path
** as it was.
**
** Which converter: llama.cpp c392e50 (February 2025) for every
** architecture but Qwen3, which it does not know, converted as de3ff815
** (the release node-llama-cpp 3.22.1 carries) converts it.  The metadata
** order differs between them (de3ff815 writes general.quantization_version
** before the tokenizer's keys, c392e50 after).
*/
#ifndef WT_CV_CONVERT_H
#define WT_CV_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/cache.h"
#include "convert/kv_sink.h"
#include "convert/source.h"

/* outtype "auto": de3ff815's guess (plan.h: cv_plan_auto_ftype). */
#define CV_FTYPE_AUTO (-1)

typedef struct cv_options {
  int ftype;        /* CV_FTYPE_* of plan.h, or CV_FTYPE_AUTO */
  const char *name; /* general.name (the converter's --model-name), or NULL */
  int verify;       /* read back and compare the tensors' bytes (1, the default) */
  /* Called between pieces of work: non-zero stops with err set by it. */
  int (*interrupted)(void *ctx, wt_error *err);
  void *ctx;
} cv_options;

/* What a conversion returns. */
typedef struct cv_result {
  uint64_t size; /* the output's bytes */
  char *where;   /* on failure: the path the error is about (malloc'd), or NULL */
} cv_result;

/* Convert the checkpoint source names into a GGUF at out (a local path):
** 0 with r->size set, or -1 with err set and r->where the file it is
** about (free it). */
int cv_convert(wt_cache *cache, const char *out, const char *source, const cv_options *o,
               cv_result *r, wt_error *err);

/* Parse an outtype name (f32, f16, bf16, q8_0, auto; any case) into a
** CV_FTYPE_*: 0, or -1 when it is none of them. */
int cv_ftype_parse(const char *name, int *ftype);

#endif
