/*
** plan.h: a checkpoint's tensors as the GGUF tensors llama.cpp's converter
** writes: names, order, ggml types, shapes, and how each is made.  Pure
** C, no SQLite, no file access.  Layer: convert.
**
** The converter (convert_hf_to_gguf.py prepare_tensors, llama.cpp c392e50
** and de3ff815) takes its generated tensors first, then the checkpoint's:
** its safetensors files in name order, each file's tensors in name order
** (the safetensors library's keys()); it drops *.rotary_emb.inv_freq,
** *.attention.bias and *.attention.masked_bias, and gemma's lm_head; it
** maps each name (gguf-py's TensorNameMap: formats/name_map.h), reorders
** llama's q/k rows, adds 1 to gemma's norms, and chooses the type:
**   F32 for a tensor of one dimension and any *_norm.weight;
**   else the output type (general.file_type), where Q8_0 falls back to
**   F16 for a tensor whose row (ne[0]) is not a multiple of 32.
** Here, besides, every tensor is checked against config.json (shape, the
** layer number) and its dtype must be F32, F16, BF16 or F64 (the
** converter would turn F8 and integer tensors into float32 numbers
** without their scales).
*/
#ifndef WT_CV_PLAN_H
#define WT_CV_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/source.h"
#include "convert/arch.h"
#include "formats/hf_config.h"

/* The dimensions of a model, from config.json. */
typedef struct cv_dims {
  uint64_t n_layer, n_embd, n_head, n_head_kv, head_dim, n_ff, n_vocab;
} cv_dims;

/* A checkpoint tensor, in the converter's order. */
typedef struct cv_in {
  wt_source *src;
  const wt_tensor *t;
} cv_in;

/* A tensor of the output. */
typedef struct cv_out_tensor {
  char name[64];
  uint32_t type; /* ggml type */
  int ndim;
  uint64_t ne[4];  /* ggml order */
  uint64_t nbytes; /* its data */
  const cv_in *in; /* the checkpoint tensor, or NULL for a generated one */
  const cv_extra *extra;
  int src_type;        /* CV_SRC_* of in */
  uint64_t rows, cols; /* in as rows x cols (cols: its last dimension) */
  uint64_t heads;      /* > 0: rows reordered in this many heads (LlamaModel.permute) */
  int plus_one;        /* 1 + w (gemma's norms) */
} cv_out_tensor;

typedef struct cv_plan {
  cv_out_tensor *t;
  size_t n;
  uint64_t total_params; /* every tensor's elements (gguf-py's parameter count) */
} cv_plan;

/* The output types (outtype): the ggml type of the matrices and
** general.file_type (llama.cpp's LlamaFileType). */
#define CV_FTYPE_F32  0
#define CV_FTYPE_F16  1
#define CV_FTYPE_Q8_0 7
#define CV_FTYPE_BF16 32

/* Read the dimensions from config.json: 0, or -1 with err set naming the
** key that is missing or wrong. */
int cv_dims_read(const cv_arch *a, const wt_config *cfg, cv_dims *d, wt_error *err);

/* The output type "auto" picks (de3ff815's guess): BF16 or F16 after the
** first tensor of two or more dimensions that is BF16 or F16, else F16. */
int cv_plan_auto_ftype(const cv_in *in, size_t n);

/* Build the plan of the checkpoint tensors in[0..n_in) and the generated
** x[0..n_x) for output type ftype: 0, or -1 with err set and *bad the
** index in in[] of the tensor it is about (or n_in when none). */
int cv_plan_build(const cv_arch *a, const cv_dims *d, int ftype, const cv_in *in, size_t n_in,
                  const cv_extra *x, size_t n_x, cv_plan *p, size_t *bad, wt_error *err);

void cv_plan_free(cv_plan *p);

#endif
