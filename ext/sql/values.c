/*
** values.c: the numbers inside tensors, in SQL.
** Layer: sql (decoding through decode/, files through bytes/ and paths/).
**
**   tensor_values(path, name [, start [, count]])   one row per value
**   tensor_stats(path [, tensor])                    one row per tensor
**   tensor_compare(path_a, name_a, path_b, name_b [, unpermute])   a JSON object
**
** All three decode through decode.h, for both formats (detected by
** content), streaming: tensor bytes are read with pread in chunks of
** whole blocks of about WT_READ_CHUNK bytes (wt_chunk_*), each decoded
** with the decode API; nothing is allocated in proportion to a tensor.
** A file that changed since it was parsed is an error naming it.
** tensor_values() takes constraints on idx (=, <, <=, >, >=, BETWEEN, IN)
** and decodes only the values they allow.
** Values come in the tensor's flat order: row-major for safetensors, the
** stored order (ne[0] fastest) for GGUF.  A NaN is SQL NULL (SQLite has
** no NaN); integer dtypes come back as INTEGER, exactly.  A type that
** cannot be decoded is an error naming it, never garbage.  An NVFP4
** tensor's values include its per-tensor scale (wt_nvfp4_scaled).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/permute.h"
#include "formats/name_map.h"
#include "functions.h"
#include "paths/model_arch.h"
#include "tables.h"
#include "tensor_read.h"
#include "values.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* Result: one decoded value typed by the codec's kind. */
static void wt_result_value(sqlite3_context *ctx, const wt_codec *codec, double d, int64_t i) {
  if (codec->kind == WT_KIND_UINT) {
    wt_result_u64(ctx, (uint64_t)i);
  } else if (codec->kind == WT_KIND_INT || codec->kind == WT_KIND_BOOL) {
    sqlite3_result_int64(ctx, i);
  } else if (!isnan(d)) {
    sqlite3_result_double(ctx, d);
  }
}

/* Read an optional integer argument of a table; def when absent or NULL. */
static int wt_arg_int(wt_cursor *c, int k, const char *what, int64_t def, int64_t *out,
                      char **pzErr) {
  sqlite3_value *v = c->args[k];
  *out = def;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return SQLITE_OK;
  if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER) {
    *pzErr = sqlite3_mprintf("%s(): %s must be an integer", c->def->name, what);
    return SQLITE_ERROR;
  }
  *out = sqlite3_value_int64(v);
  return SQLITE_OK;
}

/* ---- tensor_values(path, name [, start [, count]]) ---- */

/* Per-file state: the tensor's decoder, the values to give (an interval,
** or a sorted list from an IN), the bytes read and a window of decoded
** values. */
typedef struct tv_state {
  const wt_codec *codec;
  wt_chunk chunk;
  uint64_t first;     /* interval mode: row r is value first + r */
  int64_t *list;      /* list mode: row r is value list[r] (values of c->range.in) */
  wt_codec scaled;    /* codec with a per-tensor scale, when it has one */
  uint64_t win_start; /* flat index of win[0] */
  size_t win_n;
  double win[WT_DECODE_CHUNK];
  int64_t win_int[WT_DECODE_CHUNK];
} tv_state;

/* The flat index of the current row. */
static uint64_t tv_idx(const wt_cursor *c) {
  const tv_state *st = c->state;
  return st->list ? (uint64_t)st->list[c->row] : st->first + (uint64_t)c->row;
}

/* row_number of tensor_values(): the flat index, the same in every scan. */
static sqlite3_int64 tv_row_number(wt_cursor *c) {
  return c->state ? (sqlite3_int64)tv_idx(c) : c->row;
}

/* Narrow the slice [lo, end) of value indices to what c->range allows; then
** the rows are the interval, or the values of the IN list in it (list mode,
** pointing into c->range.in).  Sets st->first / st->list and c->n_rows. */
static void tv_select(wt_cursor *c, tv_state *st, uint64_t lo, uint64_t end) {
  const wt_range *r = &c->range;
  uint64_t hi;
  size_t i, j;
  c->n_rows = 0;
  if (end == lo || r->hi < 0 || r->lo > r->hi)
    return;
  hi = end - 1;
  if (r->lo > 0 && (uint64_t)r->lo > lo)
    lo = (uint64_t)r->lo;
  if ((uint64_t)r->hi < hi)
    hi = (uint64_t)r->hi;
  if (lo > hi)
    return;
  if (r->in == NULL) {
    st->first = lo;
    c->n_rows = (sqlite3_int64)(hi - lo + 1);
    return;
  }
  for (i = 0; i < r->n_in && (r->in[i] < 0 || (uint64_t)r->in[i] < lo); i++)
    ;
  for (j = i; j < r->n_in && (uint64_t)r->in[j] <= hi; j++)
    ;
  st->list = r->in + i;
  c->n_rows = (sqlite3_int64)(j - i);
}

/* start_file: find the tensor (none: no rows), check the slice. */
static int tv_start(wt_cursor *c, char **pzErr) {
  const wt_tensor *t;
  uint64_t nvalues;
  int64_t start, count;
  tv_state *st;
  int rc = wt_start_named_tensor(c, 1, &t, sizeof(*st));
  if (rc != SQLITE_OK || t == NULL)
    return rc;
  st = c->state;
  st->codec = wt_tensor_codec("tensor_values", c->src, t, &nvalues, &st->scaled, pzErr);
  if (st->codec == NULL)
    return SQLITE_ERROR;
  if (wt_arg_int(c, 2, "start", 0, &start, pzErr))
    return SQLITE_ERROR;
  if (start < 0 || (uint64_t)start > nvalues) {
    *pzErr = sqlite3_mprintf("tensor_values(): %s: start %lld is outside the tensor's values "
                             "(%llu of them)",
                             c->src->path, (long long)start, (unsigned long long)nvalues);
    return SQLITE_ERROR;
  }
  if (wt_arg_int(c, 3, "count", (int64_t)(nvalues - (uint64_t)start), &count, pzErr))
    return SQLITE_ERROR;
  if (count < 0) {
    *pzErr = sqlite3_mprintf("tensor_values(): %s: count %lld is negative", c->src->path,
                             (long long)count);
    return SQLITE_ERROR;
  }
  if ((uint64_t)count > nvalues - (uint64_t)start) {
    *pzErr = sqlite3_mprintf("tensor_values(): %s: count %lld from start %lld runs past the "
                             "tensor's values (%llu of them)",
                             c->src->path, (long long)count, (long long)start,
                             (unsigned long long)nvalues);
    return SQLITE_ERROR;
  }
  tv_select(c, st, (uint64_t)start, (uint64_t)start + (uint64_t)count);
  if (wt_chunk_init(&st->chunk, c->src, t, st->codec, wt_chunk_values(st->codec)) != 0)
    return SQLITE_NOMEM;
  return SQLITE_OK;
}

/* end_file of tensor_values(). */
static void tv_end(wt_cursor *c) {
  tv_state *st = c->state;
  if (st != NULL)
    free(st->chunk.buf);
  sqlite3_free(st);
}

/* enter_row: decode the next window when the row leaves the current one:
** up to WT_DECODE_CHUNK values of the interval, or one value of a list;
** read the blocks that hold them (a chunk at a time) unless already read. */
static int tv_enter_row(wt_cursor *c, char **pzErr) {
  tv_state *st = c->state;
  wt_chunk *k = &st->chunk;
  uint64_t idx = tv_idx(c), left, ahead;
  size_t n;
  wt_error e;
  int rc;
  if (idx >= st->win_start && idx < st->win_start + st->win_n)
    return SQLITE_OK;
  left = st->list ? 1 : st->first + (uint64_t)c->n_rows - idx;
  n = left < WT_DECODE_CHUNK ? (size_t)left : WT_DECODE_CHUNK;
  ahead = k->cap / k->codec->block_bytes * k->codec->block_values - idx % k->codec->block_values;
  if (ahead > left)
    ahead = left; /* read no further than the rows go */
  rc = wt_chunk_load(k, idx, n > ahead ? n : ahead, &e);
  if (rc == 0 && (st->codec->kind == WT_KIND_FLOAT || st->codec->kind == WT_KIND_COMPLEX))
    rc = wt_decode_range(st->codec, k->buf, wt_chunk_nbytes(k), idx - k->v0, n, st->win, &e);
  else if (rc == 0)
    rc =
        wt_decode_range_int(st->codec, k->buf, wt_chunk_nbytes(k), idx - k->v0, n, st->win_int, &e);
  if (rc == 0)
    wt_cache_count_decoded(c->cache, n);
  if (rc != 0) {
    *pzErr = wt_error_message("tensor_values", c->file, e.msg);
    return SQLITE_ERROR;
  }
  st->win_start = idx;
  st->win_n = n;
  return SQLITE_OK;
}

/* Column of tensor_values(): idx, value. */
static int tv_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  tv_state *st = c->state;
  uint64_t idx = tv_idx(c);
  size_t k = (size_t)(idx - st->win_start);
  if (col == 0)
    sqlite3_result_int64(ctx, (sqlite3_int64)idx);
  else
    wt_result_value(ctx, st->codec, st->win[k], st->win_int[k]);
  return SQLITE_OK;
}

static const char *const tv_args[] = {"path", "name", "start", "count"};

const wt_table_def wt_tensor_values_table = {
    .name = "tensor_values",
    .schema = "CREATE TABLE x(idx INTEGER, value, path HIDDEN, name HIDDEN, start HIDDEN,"
              " count HIDDEN, file HIDDEN)",
    .format = 0,
    .n_cols = 2,
    .n_args = 4,
    .n_required = 2,
    .arg_names = tv_args,
    .usage = "path, name [, start [, count]]",
    .name_arg = 1,
    .has_range_col = 1,
    .range_col = 0, /* idx */
    .row_number = tv_row_number,
    .start_file = tv_start,
    .enter_row = tv_enter_row,
    .column = tv_column,
    .end_file = tv_end,
};

/* ---- tensor_stats(path [, tensor]) ---- */

enum {
  TST_NAME,
  TST_DTYPE,
  TST_COUNT,
  TST_MIN,
  TST_MAX,
  TST_MEAN,
  TST_STD,
  TST_L2,
  TST_NAN,
  TST_INF,
  TST_ZERO,
  TST_NCOLS
};

/* Per-file state: which tensors, and the statistics of the current one
** (computed when a statistics column is first read). */
typedef struct tst_state {
  const wt_tensor *only;  /* the named tensor, or NULL for all */
  sqlite3_int64 done_row; /* row whose stats are in st, or -1 */
  wt_stats st;
  wt_stats_summary sum;
} tst_state;

/* start_file: all tensors, or the one named (none: no rows). */
static int tst_start(wt_cursor *c, char **pzErr) {
  sqlite3_value *name = c->args[1];
  tst_state *st = sqlite3_malloc(sizeof(*st));
  (void)pzErr;
  if (st == NULL)
    return SQLITE_NOMEM;
  memset(st, 0, sizeof(*st));
  st->done_row = -1;
  c->state = st;
  if (name == NULL || sqlite3_value_type(name) == SQLITE_NULL) {
    c->n_rows = (sqlite3_int64)c->src->model.n_tensors;
    return SQLITE_OK;
  }
  st->only = wt_source_find_tensor(c->src, (const char *)sqlite3_value_text(name),
                                   (size_t)sqlite3_value_bytes(name));
  c->n_rows = st->only != NULL;
  return SQLITE_OK;
}

/* The current row's tensor. */
static const wt_tensor *tst_tensor(wt_cursor *c) {
  tst_state *st = c->state;
  return st->only ? st->only : &c->src->model.tensors[c->row];
}

/* Statistics of all nvalues values of tensor t, read a chunk at a time. */
static int wt_stats_read(const wt_source *src, const wt_tensor *t, const wt_codec *codec,
                         uint64_t nvalues, wt_stats *st, wt_error *e) {
  uint64_t step = wt_chunk_values(codec), v;
  wt_chunk k;
  int rc = 0;
  if (nvalues == 0)
    return wt_tensor_read(src, t, 0, 0, NULL, e);
  if (wt_chunk_init(&k, src, t, codec, step) != 0)
    return wt_fail(e, "out of memory");
  for (v = 0; v < nvalues && rc == 0; v += step) {
    uint64_t n = nvalues - v < step ? nvalues - v : step;
    rc = wt_chunk_load(&k, v, n, e) ||
         wt_stats_tensor(codec, k.buf, wt_chunk_nbytes(&k), v - k.v0, n, st, e);
  }
  free(k.buf);
  return rc ? -1 : 0;
}

/* Compute the current tensor's statistics in one streaming pass. */
static int tst_compute(wt_cursor *c, sqlite3_context *ctx) {
  tst_state *st = c->state;
  const wt_tensor *t = tst_tensor(c);
  const wt_codec *codec;
  wt_codec scaled;
  uint64_t nvalues;
  char *err = NULL;
  wt_error e;
  if (st->done_row == c->row)
    return SQLITE_OK;
  codec = wt_tensor_codec("tensor_stats", c->src, t, &nvalues, &scaled, &err);
  wt_stats_init(&st->st);
  if (codec == NULL || wt_stats_read(c->src, t, codec, nvalues, &st->st, &e)) {
    if (err == NULL)
      err = wt_error_message("tensor_stats", c->file, e.msg);
    sqlite3_result_error(ctx, err ? err : "tensor_stats(): out of memory", -1);
    sqlite3_free(err);
    return SQLITE_ERROR;
  }
  wt_stats_summarize(&st->st, &st->sum);
  st->done_row = c->row;
  return SQLITE_OK;
}

/* Result: a double, NULL for NaN. */
static void wt_result_real(sqlite3_context *ctx, double d) {
  if (!isnan(d))
    sqlite3_result_double(ctx, d);
}

/* Column of tensor_stats(). */
static int tst_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  tst_state *st = c->state;
  const wt_tensor *t = tst_tensor(c);
  if (col == TST_NAME) {
    sqlite3_result_text64(ctx, t->name.p, t->name.n, SQLITE_TRANSIENT, SQLITE_UTF8);
    return SQLITE_OK;
  }
  if (col == TST_DTYPE) {
    if (t->dtype.n > 0)
      sqlite3_result_text64(ctx, t->dtype.p, t->dtype.n, SQLITE_TRANSIENT, SQLITE_UTF8);
    return SQLITE_OK;
  }
  if (tst_compute(c, ctx) != SQLITE_OK)
    return SQLITE_ERROR;
  switch (col) {
  case TST_COUNT:
    sqlite3_result_int64(ctx, (sqlite3_int64)st->st.count);
    break;
  case TST_MIN:
    wt_result_real(ctx, st->st.min);
    break;
  case TST_MAX:
    wt_result_real(ctx, st->st.max);
    break;
  case TST_MEAN:
    wt_result_real(ctx, st->sum.mean);
    break;
  case TST_STD:
    wt_result_real(ctx, st->sum.std);
    break;
  case TST_L2:
    wt_result_real(ctx, st->sum.l2);
    break;
  case TST_NAN:
    sqlite3_result_int64(ctx, (sqlite3_int64)st->st.nan_count);
    break;
  case TST_INF:
    sqlite3_result_int64(ctx, (sqlite3_int64)st->st.inf_count);
    break;
  case TST_ZERO:
    sqlite3_result_int64(ctx, (sqlite3_int64)st->st.zero_count);
    break;
  }
  return SQLITE_OK;
}

static const char *const tst_args[] = {"path", "tensor"};

const wt_table_def wt_tensor_stats_table = {
    .name = "tensor_stats",
    .schema = "CREATE TABLE x(name TEXT, dtype TEXT, count INTEGER, min REAL, max REAL,"
              " mean REAL, std REAL, l2 REAL, nan_count INTEGER, inf_count INTEGER,"
              " zero_count INTEGER, path HIDDEN, tensor HIDDEN, file HIDDEN)",
    .format = 0,
    .n_cols = TST_NCOLS,
    .n_args = 2,
    .n_required = 1,
    .arg_names = tst_args,
    .usage = "path [, tensor]",
    .name_arg = 1,
    .start_file = tst_start,
    .column = tst_column,
    .end_file = wt_free_state,
};

/* ---- tensor_compare(path_a, name_a, path_b, name_b) ---- */

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

int wt_register_value_functions(sqlite3 *db, wt_cache *cache) {
  int rc = wt_register_one(db, "tensor_compare", 0, 4, WT_FILE_FLAGS, wt_compare_func, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_one(db, "tensor_compare", 0, 5, WT_FILE_FLAGS, wt_compare_func, cache);
  return rc;
}
