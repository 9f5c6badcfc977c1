/*
** compare.c: tensor_compare(path_a, name_a, path_b, name_b [, unpermute]),
** two tensors' values compared, as a JSON object (max_abs_diff,
** mean_abs_diff, rmse, cosine, rel_l2 and the counts).  Layer: sql.  A
** Hugging Face checkpoint's q/k against a GGUF's are compared with the
** GGUF's rows put back in the checkpoint's order when llama.cpp's
** converter permuted them (decode/permute.h: which architectures, how
** many heads).
**
**   SELECT tensor_compare('build/demo/tiny-llama.safetensors',
**                         'model.layers.0.self_attn.q_proj.weight',
**                         'build/demo/tiny-llama.gguf', 'blk.0.attn_q.weight') ->> 'rel_l2';
**   0.00408824669073282      (BF16 against the GGUF's Q8_0: its quantization error)
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "decode/decode.h"
#include "decode/permute.h"
#include "formats/name_map.h"
#include "functions.h"
#include "paths/model_arch.h"
#include "tables.h"
#include "tensor_read.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* Open side k (0 or 1) of the comparison: its file, tensor and decoder.
** Returns the source (release it) or NULL with the error result set. */
static wt_source *wt_compare_side(sqlite3_context *ctx, sqlite3_value **argv, int k,
                                  const wt_tensor **t, const wt_codec **codec, wt_codec *scaled,
                                  uint64_t *nvalues) {
  wt_source *src;
  char q[WT_QUOTE_SIZE], *err = NULL;
  if (wt_func_find_tensor(ctx, argv, k, &src, t) < 0)
    return NULL;
  if (*t == NULL) {
    const char *name = (const char *)sqlite3_value_text(argv[k + 1]);
    const char *path = (const char *)sqlite3_value_text(argv[k]);
    char *msg = sqlite3_mprintf("no tensor %s",
                                wt_quote(q, sizeof(q), name ? name : "", name ? strlen(name) : 0));
    err = wt_error_message("tensor_compare", path, msg ? msg : "no such tensor");
    sqlite3_free(msg);
  } else {
    *codec = wt_tensor_codec("tensor_compare", src, *t, nvalues, scaled, &err);
  }
  if (err != NULL) {
    sqlite3_result_error(ctx, err, -1);
    sqlite3_free(err);
    wt_source_release(src);
    return NULL;
  }
  return src;
}

/* Append "name":value (NaN as null) to a JSON object being built. */
static void wt_json_num(sqlite3_str *s, const char *name, double v) {
  char num[32];
  if (isnan(v) || isinf(v))
    snprintf(num, sizeof(num), "null");
  else
    snprintf(num, sizeof(num), "%.17g", v); /* enough digits to read back the same double */
  sqlite3_str_appendf(s, ",\"%s\":%s", name, num);
}

/* Compare all n values of tensors ta (of a) and tb (of b), reading both a
** chunk at a time. */
static int wt_compare_read(const wt_source *a, const wt_tensor *ta, const wt_codec *ca,
                           const wt_source *b, const wt_tensor *tb, const wt_codec *cb, uint64_t n,
                           wt_compare *cmp, wt_error *e) {
  uint64_t sa = wt_chunk_values(ca), sb = wt_chunk_values(cb), step = sa < sb ? sa : sb, v;
  wt_chunk ka, kb;
  int rc = 0;
  if (n == 0)
    return wt_tensor_read(a, ta, 0, 0, NULL, e) || wt_tensor_read(b, tb, 0, 0, NULL, e) ? -1 : 0;
  if (wt_chunk_init(&ka, a, ta, ca, step) != 0 || wt_chunk_init(&kb, b, tb, cb, step) != 0) {
    free(ka.buf);
    return wt_fail(e, "out of memory");
  }
  for (v = 0; v < n && rc == 0; v += step) {
    uint64_t m = n - v < step ? n - v : step;
    if (wt_chunk_load(&ka, v, m, e) != 0 || wt_chunk_load(&kb, v, m, e) != 0) {
      rc = -1;
      break;
    }
    rc = wt_compare_tensors(ca, ka.buf, wt_chunk_nbytes(&ka), cb, kb.buf, wt_chunk_nbytes(&kb),
                            v - ka.v0, m, cmp, e);
  }
  free(ka.buf);
  free(kb.buf);
  return rc ? -1 : 0;
}

/* Rows and columns of tensor t of format (a vector is rows x 1): GGUF's
** ne[0] is its column count, safetensors' dims[0] its row count. */
static void wt_rows_cols(const wt_tensor *t, int format, uint64_t *rows, uint64_t *cols) {
  if (t->ndim < 2 || t->numel == 0) {
    *rows = t->numel;
    *cols = 1;
  } else if (format == WT_FORMAT_GGUF) {
    *cols = t->dims[0];
    *rows = t->numel / t->dims[0];
  } else {
    *rows = t->dims[0];
    *cols = t->numel / t->dims[0];
  }
}

/* Byte offset in chunk k of value v (a whole number of blocks from k->v0). */
static uint64_t wt_chunk_offset(const wt_chunk *k, uint64_t v) {
  return (v - k->v0) / k->codec->block_values * k->codec->block_bytes;
}

/* Compare tensor tp of p, whose rows llama.cpp's converter permuted with
** n_head heads (decode/permute.h), with tensor to of o in the
** checkpoint's order: row r of tp against row wt_qk_source_row(r) of to,
** a head at a time (the permutation stays within a head).  p_is_a: p is
** tensor_compare's side a (its values come first in each pair). */
static int wt_compare_unpermuted(const wt_source *p, const wt_tensor *tp, const wt_codec *cp,
                                 const wt_source *o, const wt_tensor *to, const wt_codec *co,
                                 uint64_t n_head, int p_is_a, wt_compare *cmp, wt_error *e) {
  uint64_t rows, cols, per_head, span, h, i;
  wt_chunk kp, ko;
  int rc = 0;
  wt_rows_cols(tp, p->model.format, &rows, &cols);
  if (wt_qk_check(rows, n_head, e))
    return -1;
  if (cp->elem_values != 1 || co->elem_values != 1 || cols % cp->block_values != 0 ||
      cols % co->block_values != 0)
    return wt_fail(e,
                   "rows of %llu values do not start on whole blocks of %s and %s, as "
                   "un-permuting needs",
                   (unsigned long long)cols, cp->name, co->name);
  per_head = rows / n_head;
  span = per_head * cols;
  if (rows == 0)
    return 0;
  memset(&ko, 0, sizeof(ko));
  if (wt_chunk_init(&kp, p, tp, cp, span) != 0 || wt_chunk_init(&ko, o, to, co, span) != 0) {
    free(kp.buf);
    return wt_fail(e, "out of memory");
  }
  for (h = 0; h < n_head && rc == 0; h++) {
    if (wt_chunk_load(&kp, h * span, span, e) != 0 || wt_chunk_load(&ko, h * span, span, e) != 0) {
      rc = -1;
      break;
    }
    for (i = 0; i < per_head && rc == 0; i++) {
      uint64_t vp = (h * per_head + i) * cols;
      uint64_t vo = (h * per_head + wt_qk_source_row(i, per_head)) * cols;
      uint64_t bp = cols / cp->block_values * cp->block_bytes;
      uint64_t bo = cols / co->block_values * co->block_bytes;
      const unsigned char *rp = kp.buf + wt_chunk_offset(&kp, vp);
      const unsigned char *ro = ko.buf + wt_chunk_offset(&ko, vo);
      rc = p_is_a ? wt_compare_tensors(cp, rp, bp, co, ro, bo, 0, cols, cmp, e)
                  : wt_compare_tensors(co, ro, bo, cp, rp, bp, 0, cols, cmp, e);
    }
  }
  free(kp.buf);
  free(ko.buf);
  return rc ? -1 : 0;
}

/* The heads to un-permute side b (or a, *side = 0) by, or 0 for none:
** with option NULL or 'auto', those of llama.cpp's converter when one side
** is a GGUF attn_q/attn_k of an architecture it permutes and the other
** the safetensors tensor that maps to it (formats/name_map.h); 'none'
** never; a positive integer that many heads for the GGUF side (side b
** when both or neither are GGUF).  -1 with an error result set for a bad
** option. */
static int64_t wt_compare_heads(sqlite3_context *ctx, sqlite3_value *opt, const wt_source *a,
                                const wt_tensor *ta, const wt_source *b, const wt_tensor *tb,
                                int *side) {
  const wt_source *g = b, *h = a;
  const wt_tensor *tg = tb, *th = ta;
  const char *text;
  char arch[64], mapped[512];
  uint64_t heads = 0, heads_kv = 0;
  int n;
  *side = 1;
  if (a->model.format == WT_FORMAT_GGUF && b->model.format != WT_FORMAT_GGUF) {
    g = a, h = b, tg = ta, th = tb;
    *side = 0;
  }
  if (opt != NULL && sqlite3_value_type(opt) == SQLITE_INTEGER) {
    if (sqlite3_value_int64(opt) > 0)
      return sqlite3_value_int64(opt);
  } else {
    text = opt == NULL || sqlite3_value_type(opt) == SQLITE_NULL
               ? "auto"
               : (const char *)sqlite3_value_text(opt);
    if (text != NULL && strcmp(text, "none") == 0)
      return 0;
    if (text != NULL && strcmp(text, "auto") == 0) {
      if (g->model.format != WT_FORMAT_GGUF || h->model.format != WT_FORMAT_SAFETENSORS ||
          wt_source_arch(g, arch, sizeof(arch)) == 0)
        return 0;
      n = wt_name_hf_to_gguf(arch, th->name.p, th->name.n, mapped, sizeof(mapped));
      if (n <= 0 || (size_t)n != tg->name.n || memcmp(mapped, tg->name.p, tg->name.n) != 0)
        return 0;
      if (wt_source_arch_uint(g, "attention.head_count", &heads) != 0)
        return 0;
      wt_source_arch_uint(g, "attention.head_count_kv", &heads_kv);
      heads = wt_qk_heads(arch, tg->name.p, tg->name.n, heads, heads_kv);
      return heads <= INT64_MAX ? (int64_t)heads : 0;
    }
  }
  sqlite3_result_error(ctx,
                       "tensor_compare(): the fifth argument (unpermute) is 'auto', 'none' or "
                       "a number of heads (a positive integer)",
                       -1);
  return -1;
}

/* tensor_compare(path_a, name_a, path_b, name_b): the JSON object of
** wt_compare_summary over the two tensors' values, pair by pair. */
static void wt_compare_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const wt_tensor *ta = NULL, *tb = NULL;
  const wt_codec *ca = NULL, *cb = NULL;
  wt_codec scaled_a, scaled_b;
  uint64_t na = 0, nb = 0;
  wt_source *a, *b = NULL;
  wt_compare cmp;
  wt_compare_summary sum;
  wt_error e;
  sqlite3_str *s;
  int64_t heads;
  int side, rc;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL || sqlite3_value_type(argv[3]) == SQLITE_NULL)
    return;
  a = wt_compare_side(ctx, argv, 0, &ta, &ca, &scaled_a, &na);
  if (a == NULL)
    return;
  b = wt_compare_side(ctx, argv, 2, &tb, &cb, &scaled_b, &nb);
  if (b == NULL)
    goto done;
  if (na != nb) {
    char qa[WT_QUOTE_SIZE], qb[WT_QUOTE_SIZE], sa[200], sb[200];
    char *msg = sqlite3_mprintf(
        "tensor_compare(): the element counts differ: %s %s has shape %s (%llu values), %s %s "
        "has shape %s (%llu values)",
        a->path, wt_quote(qa, sizeof(qa), ta->name.p, ta->name.n),
        wt_shape_text(sa, 200, ta, a->model.format == WT_FORMAT_GGUF), (unsigned long long)na,
        b->path, wt_quote(qb, sizeof(qb), tb->name.p, tb->name.n),
        wt_shape_text(sb, 200, tb, b->model.format == WT_FORMAT_GGUF), (unsigned long long)nb);
    sqlite3_result_error(ctx, msg ? msg : "tensor_compare(): the element counts differ", -1);
    sqlite3_free(msg);
    goto done;
  }
  heads = wt_compare_heads(ctx, argc > 4 ? argv[4] : NULL, a, ta, b, tb, &side);
  if (heads < 0)
    goto done;
  wt_compare_init(&cmp);
  if (heads == 0)
    rc = wt_compare_read(a, ta, ca, b, tb, cb, na, &cmp, &e);
  else if (side == 1)
    rc = wt_compare_unpermuted(b, tb, cb, a, ta, ca, (uint64_t)heads, 0, &cmp, &e);
  else
    rc = wt_compare_unpermuted(a, ta, ca, b, tb, cb, (uint64_t)heads, 1, &cmp, &e);
  if (rc) {
    char *msg =
        wt_error_message("tensor_compare", heads > 0 && side == 1 ? b->path : a->path, e.msg);
    sqlite3_result_error(ctx, msg ? msg : e.msg, -1);
    sqlite3_free(msg);
    goto done;
  }
  wt_compare_summarize(&cmp, &sum);
  s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendf(s, "{\"count\":%llu", (unsigned long long)cmp.count);
  wt_json_num(s, "max_abs_diff", sum.max_abs_diff);
  wt_json_num(s, "mean_abs_diff", sum.mean_abs_diff);
  wt_json_num(s, "rmse", sum.rmse);
  wt_json_num(s, "cosine", sum.cosine);
  wt_json_num(s, "rel_l2", sum.rel_l2);
  sqlite3_str_appendf(s, ",\"nonfinite\":%llu", (unsigned long long)cmp.nonfinite);
  if (heads > 0)
    sqlite3_str_appendf(s, ",\"unpermuted_heads\":%lld", (long long)heads);
  sqlite3_str_appendf(s, "}");
  if (sqlite3_str_errcode(s) != SQLITE_OK) {
    sqlite3_free(sqlite3_str_finish(s));
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_text(ctx, sqlite3_str_finish(s), -1, sqlite3_free);
  }
done:
  wt_source_release(a);
  wt_source_release(b);
}

int wt_register_compare(sqlite3 *db, wt_cache *cache) {
  int rc = wt_register_one(db, "tensor_compare", 0, 4, WT_FILE_FLAGS, wt_compare_func, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_one(db, "tensor_compare", 0, 5, WT_FILE_FLAGS, wt_compare_func, cache);
  return rc;
}
