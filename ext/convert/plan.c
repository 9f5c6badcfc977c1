/*
** plan.c: the output tensors of a conversion.  See plan.h.  Layer:
** convert.
*/
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/config_values.h"
#include "convert/numbers.h"
#include "decode/permute.h"
#include "formats/name_map.h"

/* ============================== dimensions ================================ */

int cv_dims_read(const cv_arch *a, const wt_config *cfg, cv_dims *d, wt_error *err) {
  static const char *const layers[] = {"n_layers", "num_hidden_layers", "n_layer", "num_layers",
                                       NULL};
  static const char *const embd[] = {"hidden_size", "n_embd", "dim", NULL};
  static const char *const head[] = {"num_attention_heads", "n_head", "n_heads", NULL};
  static const char *const head_kv[] = {"num_key_value_heads", "n_head_kv", "n_kv_heads", NULL};
  static const char *const ff[] = {"intermediate_size", "n_inner", NULL};
  static const char *const vocab[] = {"vocab_size", NULL};
  static const char *const head_dim[] = {"head_dim", NULL};
  const wt_config_entry *e;
  memset(d, 0, sizeof(*d));
  if (cv_hp_int(cfg, layers, UINT32_MAX, &d->n_layer, err) != 0 ||
      cv_hp_int(cfg, embd, UINT32_MAX, &d->n_embd, err) != 0 ||
      cv_hp_int(cfg, head, UINT32_MAX, &d->n_head, err) != 0 ||
      cv_hp_int(cfg, ff, UINT32_MAX, &d->n_ff, err) != 0 ||
      cv_hp_int(cfg, vocab, UINT32_MAX, &d->n_vocab, err) != 0)
    return -1;
  if (d->n_head == 0 || d->n_embd == 0 || d->n_layer == 0)
    return wt_fail(err, "config.json: num_hidden_layers, hidden_size and num_attention_heads must "
                        "not be 0");
  e = cv_cfg_first(cfg, head_kv);
  d->n_head_kv = d->n_head;
  if (e != NULL && !cv_cfg_is_null(e) && cv_cfg_uint(e, UINT32_MAX, &d->n_head_kv, err) != 0)
    return -1;
  d->head_dim = d->n_embd / d->n_head;
  e = cv_cfg_get(cfg, "head_dim");
  if (strcmp(a->gguf, "phi3") != 0 && e != NULL &&
      cv_hp_int(cfg, head_dim, UINT32_MAX, &d->head_dim, err) != 0)
    return -1;
  if (d->n_head_kv == 0 || d->head_dim == 0)
    return wt_fail(err, "config.json: num_key_value_heads and head_dim must not be 0");
  return 0;
}

/* ================================ shapes ================================== */

/* The shape (rows, cols; cols 0 for one dimension) that config.json gives
** the GGUF tensor of stem (what follows "blk.N.", without .weight/.bias),
** weight or bias: 1, or 0 when it has no rule. */
static int expected_shape(const cv_arch *a, const cv_dims *d, const char *stem, int bias,
                          uint64_t *rows, uint64_t *cols) {
  uint64_t q = d->n_head * d->head_dim, kv = d->n_head_kv * d->head_dim;
  int phi3 = strcmp(a->gguf, "phi3") == 0;
  *cols = d->n_embd;
  if (strcmp(stem, "token_embd") == 0 || strcmp(stem, "output") == 0)
    *rows = d->n_vocab;
  else if (strcmp(stem, "attn_q") == 0)
    *rows = q;
  else if (strcmp(stem, "attn_k") == 0 || strcmp(stem, "attn_v") == 0)
    *rows = kv;
  else if (strcmp(stem, "attn_qkv") == 0)
    *rows = q + 2 * kv;
  else if (strcmp(stem, "attn_output") == 0)
    *rows = d->n_embd, *cols = q;
  else if (strcmp(stem, "ffn_gate") == 0 || strcmp(stem, "ffn_up") == 0)
    *rows = phi3 && strcmp(stem, "ffn_up") == 0 ? 2 * d->n_ff : d->n_ff;
  else if (strcmp(stem, "ffn_down") == 0)
    *rows = d->n_embd, *cols = d->n_ff;
  else if (strcmp(stem, "attn_q_norm") == 0 || strcmp(stem, "attn_k_norm") == 0)
    *rows = d->head_dim, *cols = 0;
  else if (strstr(stem, "norm") != NULL)
    *rows = d->n_embd, *cols = 0;
  else
    return 0;
  if (bias)
    *cols = 0;
  return 1;
}

/* Check checkpoint tensor t, mapped to gguf, against config.json. */
static int check_shape(const cv_arch *a, const cv_dims *d, const wt_tensor *t, const char *gguf,
                       wt_error *err) {
  char q[WT_QUOTE_SIZE], shape[64], have[64];
  const char *stem = gguf, *dot;
  uint64_t rows, cols, layer = 0;
  int bias = strlen(gguf) > 5 && strcmp(gguf + strlen(gguf) - 5, ".bias") == 0;
  char base[64];
  if (strncmp(gguf, "blk.", 4) == 0) {
    layer = strtoull(gguf + 4, NULL, 10);
    stem = strchr(gguf + 4, '.') + 1;
    if (layer >= d->n_layer)
      return wt_fail(err, "tensor %s is of layer %llu, but config.json has %llu layers",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n), (unsigned long long)layer,
                     (unsigned long long)d->n_layer);
  }
  dot = strchr(stem, '.');
  snprintf(base, sizeof(base), "%.*s", (int)(dot ? (size_t)(dot - stem) : strlen(stem)), stem);
  if (!expected_shape(a, d, base, bias, &rows, &cols))
    return 0;
  if ((strcmp(base, "token_embd") == 0 || strcmp(base, "output") == 0) && t->ndim == 2 &&
      t->dims[1] == cols && t->dims[0] != rows)
    return wt_fail(err,
                   "tensor %s has %llu rows (its vocabulary), but config.json's vocab_size is %llu",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n), (unsigned long long)t->dims[0],
                   (unsigned long long)rows);
  if ((cols == 0 && (t->ndim != 1 || t->dims[0] != rows)) ||
      (cols != 0 && (t->ndim != 2 || t->dims[0] != rows || t->dims[1] != cols))) {
    if (cols == 0)
      snprintf(shape, sizeof(shape), "[%llu]", (unsigned long long)rows);
    else
      snprintf(shape, sizeof(shape), "[%llu,%llu]", (unsigned long long)rows,
               (unsigned long long)cols);
    return wt_fail(err, "tensor %s has shape %s, but config.json gives %s",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n),
                   wt_shape_text(have, sizeof(have), t, 0), shape);
  }
  return 0;
}

/* ================================= plan =================================== */

/* The source type of a safetensors dtype name, or 0. */
static int src_type(wt_str dtype) {
  static const struct {
    const char *name;
    int type;
  } types[] = {
      {"F32", CV_SRC_F32}, {"F16", CV_SRC_F16}, {"BF16", CV_SRC_BF16}, {"F64", CV_SRC_F64}};
  size_t i;
  for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (dtype.n == strlen(types[i].name) && memcmp(dtype.p, types[i].name, dtype.n) == 0)
      return types[i].type;
  return 0;
}

/* 1 when name[0..n) ends with suffix. */
static int ends(const char *name, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(name + n - k, suffix, k) == 0;
}

int cv_plan_auto_ftype(const cv_in *in, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    int t = src_type(in[i].t->dtype);
    if (in[i].t->ndim < 2)
      continue;
    if (t == CV_SRC_BF16)
      return CV_FTYPE_BF16;
    if (t == CV_SRC_F16)
      return CV_FTYPE_F16;
  }
  return CV_FTYPE_F16;
}

/* The ggml type of a tensor named name of ndim dimensions and row ne0. */
static uint32_t out_type(int ftype, const char *name, int ndim, uint64_t ne0) {
  size_t n = strlen(name);
  if (ndim <= 1 || ends(name, n, "_norm.weight") || !ends(name, n, ".weight"))
    return CV_GGML_F32;
  switch (ftype) {
  case CV_FTYPE_F32:
    return CV_GGML_F32;
  case CV_FTYPE_BF16:
    return CV_GGML_BF16;
  case CV_FTYPE_Q8_0:
    return ne0 % CV_QK8_0 == 0 ? CV_GGML_Q8_0 : CV_GGML_F16; /* QuantError: F16 */
  }
  return CV_GGML_F16;
}

/* Fill o's type, shape and size from rows x cols (cols 0: one dimension). */
static void set_shape(cv_out_tensor *o, int ftype, int ndim, const uint64_t *dims) {
  uint64_t numel = 1;
  int k;
  o->ndim = ndim;
  for (k = 0; k < ndim; k++) {
    o->ne[k] = dims[ndim - 1 - k];
    numel *= dims[k];
  }
  o->cols = ndim > 0 ? dims[ndim - 1] : 1;
  o->rows = o->cols > 0 ? numel / o->cols : 0;
  o->type = out_type(ftype, o->name, ndim, o->ne[0]);
  o->nbytes = cv_type_bytes((int)o->type, numel);
}

/* Map and check checkpoint tensor in, adding it to p (or not: skipped). */
static int plan_one(const cv_arch *a, const cv_dims *d, int ftype, const cv_in *in, cv_plan *p,
                    wt_error *err) {
  char q[WT_QUOTE_SIZE];
  const wt_tensor *t = in->t;
  cv_out_tensor *o = &p->t[p->n];
  uint64_t numel = 1;
  int k, len;
  if (ends(t->name.p, t->name.n, ".attention.masked_bias") ||
      ends(t->name.p, t->name.n, ".attention.bias") ||
      ends(t->name.p, t->name.n, ".rotary_emb.inv_freq") ||
      ((a->rules & CV_RULE_SKIP_LM_HEAD) && t->name.n == 14 &&
       memcmp(t->name.p, "lm_head.weight", 14) == 0))
    return 0;
  len = (ends(t->name.p, t->name.n, ".weight") || ends(t->name.p, t->name.n, ".bias"))
            ? wt_name_hf_to_gguf(a->gguf, t->name.p, t->name.n, o->name, sizeof(o->name))
            : 0;
  if (len <= 0)
    return wt_fail(err, "tensor %s has no GGUF name for %s (llama.cpp's converter cannot map it)",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n), a->hf);
  if ((o->src_type = src_type(t->dtype)) == 0)
    return wt_fail(err, "tensor %s is %.*s: only F32, F16, BF16 and F64 tensors are converted",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n), (int)t->dtype.n,
                   t->dtype.n ? t->dtype.p : "of an unknown dtype");
  if (t->ndim < 1 || t->ndim > 4)
    return wt_fail(err, "tensor %s has %d dimensions", wt_quote(q, sizeof(q), t->name.p, t->name.n),
                   t->ndim);
  for (k = 0; k < t->ndim; k++)
    numel *= t->dims[k];
  if (numel == 0)
    return wt_fail(err, "tensor %s has no elements", wt_quote(q, sizeof(q), t->name.p, t->name.n));
  if (check_shape(a, d, t, o->name, err) != 0)
    return -1;
  o->in = in;
  set_shape(o, ftype, t->ndim, t->dims);
  if (a->rules & CV_RULE_PERMUTE_QK) {
    o->heads = wt_qk_heads(a->gguf, o->name, strlen(o->name), d->n_head, d->n_head_kv);
    if (o->heads > 0 && wt_qk_check(o->rows, o->heads, err) != 0) {
      char why[WT_ERROR_MAX];
      snprintf(why, sizeof(why), "%s", err->msg);
      return wt_fail(err, "tensor %s: %s", wt_quote(q, sizeof(q), t->name.p, t->name.n), why);
    }
  }
  o->plus_one = (a->rules & CV_RULE_NORM_PLUS_ONE) && ends(t->name.p, t->name.n, "norm.weight");
  p->total_params += numel;
  p->n++;
  return 0;
}

int cv_plan_build(const cv_arch *a, const cv_dims *d, int ftype, const cv_in *in, size_t n_in,
                  const cv_extra *x, size_t n_x, cv_plan *p, size_t *bad, wt_error *err) {
  size_t i;
  memset(p, 0, sizeof(*p));
  *bad = n_in;
  p->t = calloc(n_in + n_x + 1, sizeof(*p->t));
  if (p->t == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < n_x; i++) {
    cv_out_tensor *o = &p->t[p->n++];
    uint64_t dims[1] = {x[i].n};
    snprintf(o->name, sizeof(o->name), "%s", x[i].name);
    o->extra = &x[i];
    o->src_type = CV_SRC_F32;
    set_shape(o, ftype, 1, dims);
    p->total_params += x[i].n;
  }
  for (i = 0; i < n_in; i++) {
    if (plan_one(a, d, ftype, &in[i], p, err) != 0) {
      *bad = i;
      cv_plan_free(p);
      return -1;
    }
  }
  return 0;
}

void cv_plan_free(cv_plan *p) {
  free(p->t);
  memset(p, 0, sizeof(*p));
}
