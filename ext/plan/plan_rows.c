/*
** plan_rows.c: the rows of a memory plan: appending one, and the checked
** products and cache row sizes they hold (an overflow is an error naming
** what overflowed).  Layer: plan.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "memory_plan_int.h"

/* Append a row; detail is printf-style. */
int mp_row(mp_ctx *x, int64_t layer, const char *part, int known, uint64_t nbytes, const char *fmt,
           ...) {
  wt_mem_plan *p = x->plan;
  wt_mem_row *r;
  va_list ap;
  if (p->n_rows == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    wt_mem_row *rows = realloc(p->rows, cap * sizeof(*rows));
    if (rows == NULL)
      return wt_fail(x->err, "out of memory");
    p->rows = rows;
    p->cap = cap;
  }
  r = &p->rows[p->n_rows++];
  r->layer = layer;
  r->part = part;
  r->device = strcmp(part, "weights") == 0  ? WT_DEV_MAPPED
              : strcmp(part, "repack") == 0 ? WT_DEV_REPACK
                                            : WT_DEV_CPU;
  r->buffer = strcmp(part, "k_cache") == 0 || strcmp(part, "v_cache") == 0 ? WT_BUF_KV
              : strcmp(part, "recurrent_state") == 0                       ? WT_BUF_STATE
              : strcmp(part, "output") == 0                                ? WT_BUF_OUTPUT
              : strcmp(part, "compute") == 0                               ? WT_BUF_COMPUTE
                                                                           : WT_BUF_MODEL;
  r->mapped_only = 0;
  r->known = known;
  r->nbytes = known ? nbytes : 0;
  r->at_least = 0;
  va_start(ap, fmt);
  vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
  va_end(ap);
  return 0;
}

/* The device of the row appended last. */
void mp_row_dev(mp_ctx *x, const char *device) {
  if (x->plan->n_rows > 0)
    x->plan->rows[x->plan->n_rows - 1].device = device;
}

/* Where llama.cpp puts layer il (-1: the output layer): the GPU for the
** last n_gpu_layers, the output layer counting as one. */
int mp_layer_gpu(const mp_ctx *x, int64_t il) {
  if (!x->gpu)
    return 0;
  return il < 0 ? x->gpu_output : (uint64_t)il >= x->gpu_first;
}

const char *mp_layer_dev(const mp_ctx *x, int64_t il) {
  return mp_layer_gpu(x, il) ? WT_DEV_CUDA : WT_DEV_CPU;
}

/* ggml's name of type t ("q8_0", "f16", "q4_K"), into buf. */
const char *mp_type_name(int64_t t, char *buf, size_t n) {
  const ggml_type_info *ti = ggml_type_get(t);
  size_t i, len = ti != NULL ? strlen(ti->name) : 0;
  if (len == 0 || len >= n)
    return "?";
  for (i = 0; i < len; i++)
    buf[i] = (char)(ti->name[i] >= 'A' && ti->name[i] <= 'Z' ? ti->name[i] + 32 : ti->name[i]);
  buf[len] = 0;
  if (len >= 2 && buf[len - 2] == '_' && buf[len - 1] == 'k')
    buf[len - 1] = 'K';
  return buf;
}

/* Bytes of n values of ggml type t (a row of a cache), checked. */
int mp_row_size(mp_ctx *x, int64_t t, uint64_t n, uint64_t *out) {
  const ggml_type_info *ti = ggml_type_get(t);
  if (ti == NULL || ti->block_size == 0 || ti->removed)
    return wt_fail(x->err, "cache type %lld is not a ggml type llama.cpp can use", (long long)t);
  if (n % ti->block_size != 0)
    return wt_fail(x->err, "a cache row of %llu values is not a whole number of %s blocks (%u)",
                   (unsigned long long)n, ti->name, ti->block_size);
  if (wt_mul(n / ti->block_size, ti->type_size, out) != 0)
    return wt_fail(x->err, "a cache row of %llu values overflows", (unsigned long long)n);
  return 0;
}

/* Multiply a, b, c into *out; an error naming what when it overflows. */
int mp_mul3(mp_ctx *x, uint64_t a, uint64_t b, uint64_t c, const char *what, uint64_t *out) {
  uint64_t ab;
  *out = 0;
  if (wt_mul(a, b, &ab) != 0 || wt_mul(ab, c, out) != 0)
    return wt_fail(x->err, "the size of %s overflows 64 bits", what);
  return 0;
}

/* v rounded up to a multiple of p. */
uint64_t mp_pad(uint64_t v, uint64_t p) {
  return (v + p - 1) / p * p;
}
