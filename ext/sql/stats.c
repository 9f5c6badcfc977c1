/*
** stats.c: tensor_stats(path [, tensor]), one row per tensor: count, min,
** max, mean, std, l2 and the counts of NaN, infinite and zero values,
** decoded through decode.h (decode/decode_stats.c's sums, exact for any
** finite F64 value).  Layer: sql.  The statistics of a row are computed
** when one of its statistics columns is first read, so that
**
**   SELECT name FROM tensor_stats('build/demo/tiny-llama.gguf');
**
** reads no tensor bytes at all.
**
**   SELECT name, count, mean FROM tensor_stats('build/demo/tiny-llama.gguf',
**                                              'output_norm.weight');
**   output_norm.weight  64  1.00339409895241
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "stats.h"
#include "tables.h"
#include "tensor_read.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

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
