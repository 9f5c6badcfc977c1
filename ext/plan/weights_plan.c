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
#include "cuda_ops.h"
#include "formats/ggml_type.h"
#include "memory_plan_int.h"

/* RoPE factor tensors: one in the file, a copy per layer in llama.cpp
** (TENSOR_DUPLICATED), on each layer's device. */
static const char *const mp_rope_names[] = {"rope_freqs.weight", "rope_factors_long.weight",
                                            "rope_factors_short.weight"};

/* Whether t is a RoPE factor tensor. */
static int mp_is_rope(const wt_tensor *t) {
  size_t i;
  for (i = 0; i < 3; i++)
    if (t->name.n == strlen(mp_rope_names[i]) &&
        memcmp(t->name.p, mp_rope_names[i], t->name.n) == 0)
      return 1;
  return 0;
}

/* Whether t belongs to the output layer (output_norm, output, their biases). */
static int mp_is_output(const wt_tensor *t) {
  return t->name.n >= 6 && memcmp(t->name.p, "output", 6) == 0;
}

/* The elements of t past its first dimension (its rows). */
static uint64_t mp_rows(const wt_tensor *t) {
  uint64_t r = 1;
  int i;
  for (i = 1; i < t->ndim; i++)
    if (wt_mul(r, t->dims[i], &r) != 0)
      return 0;
  return r;
}

/* Whether the CUDA backend takes weight t (cuda_ops.h); -1 on an error. */
static int mp_cuda_holds(mp_ctx *x, const wt_tensor *t) {
  uint64_t d_state = 0, d_inner = 0, n_group = 0;
  if (t->name.n >= 6 && memcmp(t->name.p + t->name.n - 6, ".ssm_a", 6) == 0 &&
      (mp_uint(x, "ssm.state_size", 0, 0, &d_state, NULL) != 0 ||
       mp_uint(x, "ssm.inner_size", 0, 0, &d_inner, NULL) != 0 ||
       mp_uint(x, "ssm.group_count", 0, 0, &n_group, NULL) != 0))
    return -1;
  return wt_cuda_holds_weight(t->name.p, t->name.n, t->type_id, t->dims, t->ndim, d_inner, d_state,
                              n_group);
}

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

/* Add t's bytes on the GPU (k: its layer, n_layer outside) to x->cw. */
static int mp_add_gpu(mp_ctx *x, const wt_tensor *t, uint64_t k) {
  uint64_t b = wt_cuda_tensor_bytes(t->type_id, t->ndim > 0 ? t->dims[0] : 1, mp_rows(t));
  if (b == 0 || wt_add(x->cw[k], b, &x->cw[k]) != 0)
    return wt_fail(x->err, "the weights on the GPU overflow 64 bits");
  x->ncw[k]++;
  return 0;
}

/* Whether tensor t of layer k (n_layer: outside the layers) goes to the
** GPU: 1, 0, or -1 on an error. */
static int mp_on_gpu(mp_ctx *x, const wt_tensor *t, uint64_t k) {
  if (!x->gpu)
    return 0;
  if (k < x->n_layer ? k < x->gpu_first : !(x->gpu_output && mp_is_output(t)))
    return 0;
  return mp_cuda_holds(x, t);
}

/* The GPU's copies llama.cpp makes: the RoPE factors of each layer on the
** GPU, and the token embeddings as the output when the file ties them
** (no output.weight) and the output layer is on the GPU. */
static int mp_gpu_copies(mp_ctx *x, const wt_tensor *embd, int has_output) {
  uint64_t il;
  size_t i;
  for (i = 0; i < x->m->n_tensors; i++)
    for (il = x->gpu_first; il < x->n_layer && mp_is_rope(&x->m->tensors[i]); il++)
      if (mp_add_gpu(x, &x->m->tensors[i], il) != 0)
        return -1;
  if (embd != NULL && !has_output && x->gpu_output && wt_cuda_mul_mat_type(embd->type_id))
    return mp_add_gpu(x, embd, x->n_layer);
  return 0;
}

/* A file that ties the output to the token embeddings (no output.weight):
** llama.cpp makes the output a duplicate of token_embd in the output
** layer's buffer type (llama-model.cpp, TENSOR_DUPLICATED), chosen for
** its product (MUL_MAT) as for any output.  Mapped, it shares the file's
** bytes; taken by AMX or CPU_REPACK, it is a copy beside the mapped
** token_embd, which the input still reads. */
static int mp_cpu_tied_output(mp_ctx *x, const wt_tensor *embd, int has_output) {
  wt_tensor out;
  uint64_t k = x->n_layer, b;
  int rp;
  if (embd == NULL || has_output)
    return 0;
  out = *embd;
  out.name.p = "output.weight";
  out.name.n = 13;
  rp = wt_cpu_repacks(&out, x->cpu);
  if (rp == WT_CPU_MAPPED)
    return 0;
  if (rp == WT_CPU_IN_AMX) {
    x->nax[k]++;
    return (b = wt_cpu_amx_size(&out)) == 0 || wt_add(x->ax[k], b, &x->ax[k]) != 0
               ? wt_fail(x->err, "the AMX buffer's weights overflow 64 bits")
               : 0;
  }
  if (x->nrp[k]++ == 0)
    x->rp_type[k] = out.type_id;
  else if (x->rp_type[k] != out.type_id && x->rp_type[k] != -2)
    x->rp_type[k] = -1;
  if (rp < 0) {
    x->rp_type[k] = -2;
    return 0;
  }
  return (b = wt_cpu_repack_size(&out)) == 0 || wt_add(x->rp[k], b, &x->rp[k]) != 0
             ? wt_fail(x->err, "the repacked weights overflow 64 bits")
             : 0;
}

int mp_sum_weights(mp_ctx *x) {
  size_t i;
  char q[WT_QUOTE_SIZE];
  size_t n = (size_t)(x->n_layer + 1);
  const wt_tensor *embd = NULL;
  int has_output = 0, g;
  x->w = calloc(n * 9, sizeof(*x->w));
  if (x->w == NULL)
    return wt_fail(x->err, "out of memory");
  x->ax = x->w + 7 * n;
  x->nax = x->w + 8 * n;
  x->nw = x->w + n;
  x->rp = x->w + 2 * n;
  x->nrp = x->w + 3 * n;
  x->rp_type = (int64_t *)(x->w + 4 * n);
  x->cw = x->w + 5 * n;
  x->ncw = x->w + 6 * n;
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
    if (t->name.n == 17 && memcmp(t->name.p, "token_embd.weight", 17) == 0)
      embd = t;
    if (t->name.n == 13 && memcmp(t->name.p, "output.weight", 13) == 0)
      has_output = 1;
    if ((g = mp_on_gpu(x, t, k)) < 0)
      return -1;
    if (g) {
      if (mp_add_gpu(x, t, k) != 0)
        return -1;
      continue;
    }
    /* a RoPE factor tensor is mapped when a layer on the CPU reads it */
    if (x->gpu && mp_is_rope(t) && x->gpu_first == 0)
      continue;
    rp = x->gpu ? 0 : wt_cpu_repacks(t, x->cpu);
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
    if (rp == WT_CPU_IN_AMX) {
      /* llama.cpp's graph multiplies a 3-dimensional weight (deepseek2's
      ** attn_k_b, attn_v_b) by a permuted batch, which AMX's supports_op
      ** refuses, and no backend then takes the node */
      if (t->ndim >= 3 && t->dims[2] > 1)
        return wt_fail(x->err,
                       "llama.cpp puts %s, a weight of 3 dimensions, in its AMX buffer and then "
                       "finds no backend for the product that reads it (it aborts: "
                       "ggml-backend.cpp, GGML_ASSERT(*cur_backend_id != -1))",
                       wt_quote(q, sizeof(q), t->name.p, t->name.n));
      x->nax[k]++;
      if (wt_cpu_amx_size(t) == 0 || wt_add(x->ax[k], wt_cpu_amx_size(t), &x->ax[k]) != 0)
        return wt_fail(x->err, "the AMX buffer's weights overflow 64 bits");
      continue;
    }
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
  return x->gpu ? mp_gpu_copies(x, embd, has_output) : mp_cpu_tied_output(x, embd, has_output);
}

/* The weights row of the rest of the mapped span: the file's bytes between
** the tensors that stay mapped (their padding, repacked tensors among
** them), which llama.cpp maps with them.  No row when there are none. */
int mp_map_gap(mp_ctx *x) {
  uint64_t kept = 0, k, n_gap = 0;
  size_t i;
  if (x->map_unknown) {
    if (mp_row(x, -1, "weights", 0, 0,
               "unknown: the span llama.cpp maps depends on which tensors it repacks, and its "
               "rules for this CPU are not known") != 0)
      return -1;
    x->plan->rows[x->plan->n_rows - 1].mapped_only = 1;
    return 0;
  }
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
    int64_t tl = mp_tensor_layer(t);
    uint64_t k = tl >= 0 && (uint64_t)tl < x->n_layer ? (uint64_t)tl : x->n_layer;
    if ((x->gpu ? mp_on_gpu(x, t, k) > 0 : wt_cpu_repacks(t, x->cpu) > 0) &&
        t->offset < x->map_last && t->offset + t->nbytes > x->map_first)
      n_gap++;
  }
  if (mp_row(x, -1, "weights", 1, x->map_last - x->map_first - kept,
             "the rest of the mapped span (bytes %llu to %llu of the file): padding and %llu "
             "%s tensors",
             (unsigned long long)x->map_first, (unsigned long long)x->map_last,
             (unsigned long long)n_gap, x->gpu ? "offloaded" : "repacked") != 0)
    return -1;
  x->plan->rows[x->plan->n_rows - 1].mapped_only = 1;
  return 0;
}

/* The repack rows of layer k (index n_layer: outside the layers), when
** llama.cpp repacks some of its tensors for the CPU: AMX's, then
** CPU_REPACK's. */
static int mp_repack(mp_ctx *x, int64_t il, uint64_t k) {
  const ggml_type_info *ti = ggml_type_get(x->rp_type[k]);
  if (x->nax[k] != 0) {
    if (mp_row(x, il, "repack", 1, x->ax[k],
               "%llu tensors in the AMX buffer (quantized ones laid out for AMX's kernels)",
               (unsigned long long)x->nax[k]) != 0)
      return -1;
    mp_row_dev(x, WT_DEV_AMX);
  }
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
  if ((!x->gpu || x->nw[k] != 0 || (x->ncw[k] == 0 && !mp_layer_gpu(x, il))) &&
      (il >= 0 ? mp_row(x, il, "weights", 1, x->w[k], "%llu tensors blk.%lld.* mapped",
                        (unsigned long long)x->nw[k], (long long)il)
               : mp_row(x, -1, "weights", 1, x->w[k],
                        "%llu tensors outside the layers (token_embd, output, ...) mapped",
                        (unsigned long long)x->nw[k])))
    return -1;
  if (x->gpu && x->ncw[k] != 0) {
    if (il >= 0 ? mp_row(x, il, "weights", 1, x->cw[k],
                         "%llu tensors of blk.%lld on the GPU (quantized rows padded to 512 "
                         "values, each tensor to 128 bytes)",
                         (unsigned long long)x->ncw[k], (long long)il)
                : mp_row(x, -1, "weights", 1, x->cw[k],
                         "%llu tensors of the output layer on the GPU (quantized rows padded "
                         "to 512 values, each tensor to 128 bytes)",
                         (unsigned long long)x->ncw[k]))
      return -1;
    mp_row_dev(x, WT_DEV_CUDA);
  }
  return mp_repack(x, il, k);
}
