/*
** fit_search.c: the most layers on the GPU, or the largest context, that
** fit the budgets (fit_search.h).  Each candidate is a whole plan, added up
** as resident memory; the layer search tries every count from all layers
** down, because the memory a count takes does not fall with it everywhere
** (at 0 layers the GPU's compute buffer holds copies of the CPU's weights
** for large batches).  Layer: plan.
*/
#include "fit_search.h"

#include <string.h>

#define FS_CTX_STEP 256 /* llama.cpp pads the context to this */

/* Plan s and add it up into *fit (the model's size into out): 0, 1 (not a
** model), -1. */
static int fs_try(const wt_model *m, const unsigned char *data, const wt_mem_settings *s,
                  const wt_fit_budget *b, wt_mem_fit *fit, wt_fit_answer *out, wt_error *err) {
  wt_mem_plan plan;
  int rc = wt_memory_plan(m, data, s, &plan, err);
  if (rc != 0)
    return rc;
  out->plans++;
  wt_mem_fit_add_up(&plan, b, fit);
  out->n_layer = plan.n_layer;
  out->n_ctx_train = plan.n_ctx_train;
  wt_mem_plan_free(&plan);
  return 0;
}

/* The most layers that fit: every count from n_layer + 1 down. */
static int fs_layers(const wt_model *m, const unsigned char *data, wt_mem_settings *s,
                     const wt_fit_budget *b, wt_fit_answer *out, wt_error *err) {
  int64_t n, unknown = -1;
  int rc;
  wt_mem_fit fit;
  s->n_gpu_layers = -1;
  if ((rc = fs_try(m, data, s, b, &out->fit, out, err)) != 0)
    return rc;
  out->n_gpu_layers = (int64_t)out->n_layer + 1;
  out->n_ctx = s->n_ctx != 0 ? s->n_ctx : out->n_ctx_train;
  if (out->fit.fits == 1)
    return 0;
  if (out->fit.fits < 0)
    unknown = out->n_gpu_layers;
  for (n = (int64_t)out->n_layer; n >= 0; n--) {
    s->n_gpu_layers = n;
    if ((rc = fs_try(m, data, s, b, &fit, out, err)) != 0)
      return rc;
    if (fit.fits == 1 || (fit.fits < 0 && unknown < 0) || (n == 0 && unknown < 0)) {
      out->fit = fit;
      out->n_gpu_layers = n;
    }
    if (fit.fits == 1)
      return 0;
    if (fit.fits < 0 && unknown < 0)
      unknown = n;
  }
  return 0;
}

/* The largest context that fits: the model's, else by bisection over
** multiples of 256 (lo fits, hi does not). */
static int fs_context(const wt_model *m, const unsigned char *data, wt_mem_settings *s,
                      const wt_fit_budget *b, wt_fit_answer *out, wt_error *err) {
  uint64_t lo, hi;
  int rc;
  wt_mem_fit fit;
  s->n_ctx = 0;
  if ((rc = fs_try(m, data, s, b, &out->fit, out, err)) != 0)
    return rc;
  out->n_ctx = out->n_ctx_train;
  if (out->fit.fits == 1 || out->n_ctx_train <= FS_CTX_STEP)
    return 0;
  hi = (out->n_ctx_train + FS_CTX_STEP - 1) / FS_CTX_STEP;
  s->n_ctx = lo = FS_CTX_STEP;
  if ((rc = fs_try(m, data, s, b, &out->fit, out, err)) != 0)
    return rc;
  out->n_ctx = lo;
  if (out->fit.fits != 1)
    return 0;
  lo = 1;
  while (hi - lo > 1) { /* in steps of 256: lo fits, hi does not */
    uint64_t mid = lo + (hi - lo) / 2;
    s->n_ctx = mid * FS_CTX_STEP;
    if ((rc = fs_try(m, data, s, b, &fit, out, err)) != 0)
      return rc;
    if (fit.fits == 1) {
      lo = mid;
      out->fit = fit;
      out->n_ctx = s->n_ctx;
    } else {
      hi = mid;
    }
  }
  return 0;
}

int wt_fit_search(const wt_model *m, const unsigned char *data, const wt_mem_settings *set,
                  int want_layers, int want_ctx, const wt_fit_budget *b, wt_fit_answer *out,
                  wt_error *err) {
  wt_mem_settings s = *set;
  int rc;
  memset(out, 0, sizeof(*out));
  out->n_gpu_layers = -1;
  if (s.gpu == WT_GPU_CUDA && want_layers) {
    out->searched = WT_SEARCH_LAYERS;
    return fs_layers(m, data, &s, b, out, err);
  }
  if (want_ctx) {
    out->searched = WT_SEARCH_CONTEXT;
    rc = fs_context(m, data, &s, b, out, err);
  } else {
    rc = fs_try(m, data, &s, b, &out->fit, out, err);
    out->n_ctx = s.n_ctx != 0 ? s.n_ctx : out->n_ctx_train;
  }
  /* the layer count as llama.cpp clamps it: -1 or more than all, all */
  if (rc == 0 && s.gpu == WT_GPU_CUDA)
    out->n_gpu_layers = s.n_gpu_layers < 0 || (uint64_t)s.n_gpu_layers > out->n_layer + 1
                            ? (int64_t)out->n_layer + 1
                            : s.n_gpu_layers;
  return rc;
}
