/*
** memory_plan_int.h: what the files of the memory planner share (not for
** other layers): memory_plan.c, the driver, calls down to the rows of
** weights_plan.c, cache_plan.c and compute_plan.c, which read metadata
** with plan_metadata.c and append rows with plan_rows.c; no file calls
** one that calls it.
*/
#ifndef WT_MEMORY_PLAN_INT_H
#define WT_MEMORY_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "formats/gguf_value.h"
#include "memory_plan.h"

#define MP_PAD        256   /* llama.cpp pads the context to this many cells */
#define MP_MAX_LAYERS 65536 /* more layers than any model: hostile metadata */
#define MP_NOTE_SIZE  64    /* a clause of a row's note (", sliding window N") */
#define MP_MAX_SEQ    256   /* LLAMA_MAX_SEQ */

enum { MP_ATTN = 1, MP_MAMBA };

/* What the planner knows of an architecture. */
typedef struct mp_arch {
  const char *name;
  int kind;             /* MP_ATTN or MP_MAMBA */
  uint32_t swa_pattern; /* layer il is SWA when il % p < p - 1; 0: no SWA */
  uint64_t swa_default; /* window when the file has none (0: no SWA then) */
  int swa_needs_window; /* 1: SWA only when the file sets a window > 0; 2: the key is required */
} mp_arch;

/* The planner's working state. */
typedef struct mp_ctx {
  const wt_model *m;
  const unsigned char *data; /* where the metadata values are read */
  wt_str arch;
  uint64_t n_layer;
  wt_mem_plan *plan;
  wt_error *err;
  int cpu;                      /* WT_CPU_* the repack rows are for */
  uint64_t *w, *nw;             /* weights bytes and tensor counts per layer, then outside */
  uint64_t *rp, *nrp;           /* likewise the repacked tensors (CPU_REPACK) */
  int64_t *rp_type;             /* their type, -1 when several, -2 when some are unknown */
  uint64_t *cw, *ncw;           /* likewise the weights on the GPU (CUDA0), padded, aligned */
  uint64_t *ax, *nax;           /* likewise the weights in the AMX buffer */
  uint64_t map_first, map_last; /* the file span of the tensors that stay mapped */
  int gpu;                      /* 1: a CUDA GPU beside the CPU */
  uint64_t gpu_first;           /* the first layer on the GPU (above n_layer: none) */
  int gpu_output;               /* the output layer is on the GPU */
  int gpu_full;                 /* n_gpu_layers > n_layer: every layer offloaded */
  int fa_asked;                 /* flash attention as asked (WT_FA_*), before "auto" resolves */
  uint64_t compute_host;        /* with a GPU: the CPU's compute buffer (CUDA_Host) */
  int map_unknown;              /* 1: which tensors stay mapped depends on unknown rules */
  uint64_t n_tokens;            /* tokens of the graph llama.cpp reserves: min(n_ctx, n_ubatch) */
  uint64_t kq;                  /* compute: bytes of the largest layer's attention scores */
  uint64_t kq_dev[2];           /* the same among the layers on the GPU [0], on the CPU [1] */
  uint64_t n_embd;              /* compute: width of the hidden state the logits come from */
  int known_compute;            /* 0 when the architecture is unknown */
  int exact_compute;            /* 1: compute is exactly llama.cpp's figure */
  uint64_t compute;             /* that figure, in bytes */
  int flash_attn;               /* as resolved: 0 or 1 */
} mp_ctx;

/* An attention model's shape, as mp_attention read it. */
typedef struct mp_attn_shape {
  const uint64_t *head, *head_kv; /* [n_layer] */
  uint64_t hk, hv, n_embd;        /* per-head K and V widths, the hidden width */
  uint64_t cells;                 /* KV cells per stream */
  uint64_t n_swa, swa_pattern;    /* the sliding window (0: none) and its layer pattern */
  uint64_t swa_cells;             /* the sliding-window cache's cells per stream */
  uint64_t kmla, vmla;            /* MLA: a head's K and V widths decompressed (0: not MLA) */
} mp_attn_shape;

/* plan_metadata.c: the metadata entry "{arch}.suffix" (or exactly suffix
** when global), or NULL; the scalar value of an entry that is not an array
** or a string; "{arch}.key" as an unsigned integer (absent: dflt, or an
** error when required); the same per layer (a scalar or an array of
** n_layer); the vocabulary size. */
const wt_meta *mp_find(mp_ctx *x, const char *suffix, int global);
int mp_scalar(mp_ctx *x, const wt_meta *kv, gguf_scalar *v);
int mp_uint(mp_ctx *x, const char *key, int required, uint64_t dflt, uint64_t *v, int *found);
int mp_per_layer(mp_ctx *x, const char *key, const uint64_t *dflt, uint64_t *out);
int mp_vocab(mp_ctx *x, uint64_t *n_vocab);

/* plan_rows.c: append a row to x->plan (detail printf-style; its device
** the part's on the CPU: CPU_Mapped weights, CPU_REPACK repack, CPU the
** rest); set the last row's device; whether layer il (-1: the output
** layer) is on the GPU, and its device's name; a*b*c into *out, or an error naming what
** overflows; the bytes of n values of cache type t; v rounded up to a
** multiple of p. */
int mp_row(mp_ctx *x, int64_t layer, const char *part, int known, uint64_t nbytes, const char *fmt,
           ...) __attribute__((format(printf, 6, 7)));
void mp_row_dev(mp_ctx *x, const char *device);
int mp_layer_gpu(const mp_ctx *x, int64_t il);
const char *mp_layer_dev(const mp_ctx *x, int64_t il);
int mp_mul3(mp_ctx *x, uint64_t a, uint64_t b, uint64_t c, const char *what, uint64_t *out);
int mp_row_size(mp_ctx *x, int64_t t, uint64_t n, uint64_t *out);
uint64_t mp_pad(uint64_t v, uint64_t p);

/* weights_plan.c: the layer of a tensor named "blk.N....", or -1; the
** bytes of the tensors per layer (x->w, x->nw, the repacked ones, the
** mapped span), added up in one pass; the weights row of the rest of the
** mapped span; the weights and repack rows of layer il (-1: outside the
** layers). */
int64_t mp_tensor_layer(const wt_tensor *t);
int mp_sum_weights(mp_ctx *x);
int mp_map_gap(mp_ctx *x);
int mp_weights(mp_ctx *x, int64_t il);

/* cache_plan.c: ggml's name of type t ("q8_0", "f16", "q4_K") into buf;
** the K and V cache rows of an attention model (cells per stream), with
** the exact compute figure when compute_plan.c knows the graph; the
** recurrent state rows of a mamba model. */
const char *mp_type_name(int64_t t, char *buf, size_t n);
int mp_attention(mp_ctx *x, const mp_arch *a, const wt_mem_settings *s, uint64_t cells);
int mp_mamba(mp_ctx *x, const wt_mem_settings *s);

/* compute_plan.c: 1 when arch's graph is modelled (mp_exact_compute or
** mp_exact_compute_mamba builds it), else 0. */
int mp_compute_modelled(const char *arch);

/* gpu_plan.c: 1 when arch's buffers on a CUDA GPU were checked against
** llama.cpp's own CUDA figures. */
int mp_cuda_measured(const char *arch);

/* compute_plan.c: when the model's graph is one llama_graph.c builds, set
** x->exact_compute and x->compute to llama.cpp's compute buffer for the
** settings s; otherwise leave them.  0, or -1 with x->err set. */
int mp_exact_compute(mp_ctx *x, const wt_mem_settings *s, const mp_attn_shape *a);

/* gpu_plan.c: with a GPU (x->gpu), llama.cpp's compute buffers for the
** graph of p (compute_plan.c filled it for the CPU): the weights' types and
** devices from the model, the layers offloaded, flash attention "auto"
** resolved as llama.cpp resolves it; x->compute (CUDA0),
** x->compute_host (CUDA_Host), x->flash_attn set.  0 exact, 1 not
** modelled, -1 with x->err set (out of memory, or a setting llama.cpp
** refuses once it has resolved flash attention). */
struct wt_lg_params;
int mp_gpu_compute(mp_ctx *x, const wt_mem_settings *s, struct wt_lg_params *p, uint64_t n_rot);

/* The same for a mamba model of these ssm.* sizes. */
int mp_exact_compute_mamba(mp_ctx *x, const wt_mem_settings *s, uint64_t d_conv, uint64_t d_inner,
                           uint64_t d_state, uint64_t n_embd);

#endif
