/*
** memory_plan_int.h: what memory_plan.c shares with compute_plan.c, the
** planner's two halves (not for other layers).
*/
#ifndef WT_MEMORY_PLAN_INT_H
#define WT_MEMORY_PLAN_INT_H

#include <stdint.h>

#include "base/model.h"
#include "formats/gguf_value.h"
#include "memory_plan.h"

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
  uint64_t map_first, map_last; /* the file span of the tensors that stay mapped */
  int map_unknown;              /* 1: which tensors stay mapped depends on unknown rules */
  uint64_t n_tokens;            /* tokens of the graph llama.cpp reserves: min(n_ctx, n_ubatch) */
  uint64_t kq;                  /* compute: bytes of the largest layer's attention scores */
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

/* memory_plan.c: the metadata entry "{arch}.suffix" (or exactly suffix
** when global), or NULL; the scalar value of an entry that is not an array
** or a string; "{arch}.key" as an unsigned integer (absent: dflt, or an
** error when required); the same per layer (a scalar or an array of
** n_layer); the vocabulary size. */
const wt_meta *mp_find(mp_ctx *x, const char *suffix, int global);
int mp_scalar(mp_ctx *x, const wt_meta *kv, gguf_scalar *v);
int mp_uint(mp_ctx *x, const char *key, int required, uint64_t dflt, uint64_t *v, int *found);
int mp_per_layer(mp_ctx *x, const char *key, const uint64_t *dflt, uint64_t *out);
int mp_vocab(mp_ctx *x, uint64_t *n_vocab);

/* compute_plan.c: when the model's graph is one llama_graph.c builds, set
** x->exact_compute and x->compute to llama.cpp's compute buffer for the
** settings s; otherwise leave them.  0, or -1 with x->err set. */
int mp_exact_compute(mp_ctx *x, const wt_mem_settings *s, const mp_attn_shape *a);

/* The same for a mamba model of these ssm.* sizes. */
int mp_exact_compute_mamba(mp_ctx *x, const wt_mem_settings *s, uint64_t d_conv, uint64_t d_inner,
                           uint64_t d_state, uint64_t n_embd);

#endif
