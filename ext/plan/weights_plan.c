/*
** weights_plan.c: the weights rows of a memory plan: the bytes of the
** tensors that stay mapped, per layer and outside the layers, the rest of
** the span llama.cpp maps, and the copy it repacks for the CPU
** (cpu_repack.h).  Layer: plan.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_repack.h"
#include "formats/ggml_type.h"
#include "memory_plan_int.h"

/* The layer of a tensor named "blk.N....", or -1. */
int64_t mp_tensor_layer(const wt_tensor *t) {
  const char *p = t->name.p;
  size_t n = t->name.n, i = 4;
  int64_t v = 0;
  if (n < 6 || memcmp(p, "blk.", 4) != 0 || p[4] < '0' || p[4] > '9')
    return -1;
  while (i < n && p[i] >= '0' && p[i] <= '9' && v < MP_MAX_LAYERS)
    v = v * 10 + (p[i++] - '0');
  return i < n && p[i] == '.' && v < MP_MAX_LAYERS ? v : -1;
}

/* Add up the bytes of the tensors that stay mapped per layer (blk.N.*,
** N < n_layer) and outside the layers, in one pass: x->w[il] and x->nw[il],
** index n_layer for the rest; likewise the repacked ones, and the span of
** the file the mapped ones lie in. */
int mp_sum_weights(mp_ctx *x) {
  size_t i;
  char q[WT_QUOTE_SIZE];
  size_t n = (size_t)(x->n_layer + 1);
  x->w = calloc(n * 5, sizeof(*x->w));
  if (x->w == NULL)
    return wt_fail(x->err, "out of memory");
  x->nw = x->w + n;
  x->rp = x->w + 2 * n;
  x->nrp = x->w + 3 * n;
  x->rp_type = (int64_t *)(x->w + 4 * n);
  x->map_first = UINT64_MAX;
  x->map_last = 0;
  for (i = 0; i < x->m->n_tensors; i++) {
    const wt_tensor *t = &x->m->tensors[i];
    int64_t tl = mp_tensor_layer(t);
    uint64_t k = tl >= 0 && (uint64_t)tl < x->n_layer ? (uint64_t)tl : x->n_layer;
    int rp;
    if (!t->nbytes_known)
      return wt_fail(x->err, "tensor %s has a type no table knows, so its size is unknown",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n));
    if (t->offset > UINT64_MAX - t->nbytes)
      return wt_fail(x->err, "tensor %s ends past 2^64 bytes",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n));
    rp = wt_cpu_repacks(t, x->cpu);
    if (rp <= 0) {
      if (wt_add(x->w[k], t->nbytes, &x->w[k]) != 0)
        return wt_fail(x->err, "the weights overflow 64 bits");
      x->nw[k]++;
      if (t->offset < x->map_first)
        x->map_first = t->offset;
      if (t->offset + t->nbytes > x->map_last)
        x->map_last = t->offset + t->nbytes;
    }
    if (rp == 0)
      continue;
    if (x->nrp[k]++ == 0)
      x->rp_type[k] = t->type_id;
    else if (x->rp_type[k] != t->type_id && x->rp_type[k] != -2)
      x->rp_type[k] = -1;
    if (rp < 0) {
      x->rp_type[k] = -2;
      x->map_unknown = 1;
    } else if (wt_cpu_repack_size(t) == 0 ||
               wt_add(x->rp[k], wt_cpu_repack_size(t), &x->rp[k]) != 0)
      return wt_fail(x->err, "the repacked weights overflow 64 bits");
  }
  return 0;
}

/* The weights row of the rest of the mapped span: the file's bytes between
** the tensors that stay mapped (their padding, repacked tensors among
** them), which llama.cpp maps with them.  No row when there are none. */
int mp_map_gap(mp_ctx *x) {
  uint64_t kept = 0, k, n_gap = 0;
  size_t i;
  if (x->map_unknown)
    return mp_row(x, -1, "weights", 0, 0,
                  "unknown: the span llama.cpp maps depends on which tensors it repacks, and its "
                  "rules for this CPU are not known");
  if (x->map_first >= x->map_last)
    return 0;
  /* (tensors that overlap in a hostile file can add up past the span) */
  for (k = 0; k <= x->n_layer; k++)
    if (wt_add(kept, x->w[k], &kept) != 0)
      return 0;
  if (x->map_last - x->map_first <= kept)
    return 0;
  for (i = 0; i < x->m->n_tensors; i++) {
    const wt_tensor *t = &x->m->tensors[i];
    if (wt_cpu_repacks(t, x->cpu) > 0 && t->offset < x->map_last &&
        t->offset + t->nbytes > x->map_first)
      n_gap++;
  }
  return mp_row(x, -1, "weights", 1, x->map_last - x->map_first - kept,
                "the rest of the mapped span (bytes %llu to %llu of the file): padding and %llu "
                "repacked tensors",
                (unsigned long long)x->map_first, (unsigned long long)x->map_last,
                (unsigned long long)n_gap);
}

/* The repack row of layer k (index n_layer: outside the layers), when
** llama.cpp repacks some of its tensors for the CPU. */
static int mp_repack(mp_ctx *x, int64_t il, uint64_t k) {
  const ggml_type_info *ti = ggml_type_get(x->rp_type[k]);
  if (x->nrp[k] == 0)
    return 0;
  if (x->rp_type[k] == -2)
    return mp_row(x, il, "repack", 0, 0,
                  "unknown: llama.cpp's repack rules for this CPU are not known (cpu 'avx2' or "
                  "'none' plans for x86)");
  return mp_row(x, il, "repack", 1, x->rp[k], "%llu tensors %s repacked for %s (CPU_REPACK)",
                (unsigned long long)x->nrp[k], ti != NULL ? ti->name : "of several types",
                wt_cpu_name(x->cpu));
}

/* The weights row of layer il, or of the tensors outside the layers (-1),
** and its repack row. */
int mp_weights(mp_ctx *x, int64_t il) {
  uint64_t k = il >= 0 ? (uint64_t)il : x->n_layer;
  if (il >= 0 ? mp_row(x, il, "weights", 1, x->w[k], "%llu tensors blk.%lld.* mapped",
                       (unsigned long long)x->nw[k], (long long)il)
              : mp_row(x, -1, "weights", 1, x->w[k],
                       "%llu tensors outside the layers (token_embd, output, ...) mapped",
                       (unsigned long long)x->nw[k]))
    return -1;
  return mp_repack(x, il, k);
}
