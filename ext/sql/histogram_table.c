/*
** histogram_table.c: tensor_histogram(path, name [, bins [, lo, hi]]), a
** histogram of one tensor's values.  Layer: sql, on
** decode/histogram.h.
**
** One row per bin: bin (0 ..), lo, hi (the bin's edges), count; and on
** every row the tensor-wide counts nan, inf, below and above (finite
** values outside [lo, hi] when the range is given), so that sum(count) +
** nan + inf + below + above is the number of values.  Bins are
** [lo, hi) except the last, which also holds the range's hi (the rule of
** histogram.h).  bins defaults to 10 (1 to 100,000); the range defaults
** to the tensor's finite min .. max, found in a first pass over the
** values (BF16 and F16: one pass counting bit patterns gives both the
** range and the bins, histogram.h), and a range with lo = hi has one bin.  A tensor without any
** finite value gives one row with lo, hi NULL and count 0.  No rows when
** the file has no such tensor.  Every decodable dtype, NVFP4 with its
** per-tensor scale.  For example:
**
**   SELECT bin, lo, hi, count
**   FROM tensor_histogram('build/demo/tiny-llama.gguf', 'blk.0.attn_norm.weight', 4);
**   0  0.945253491401672  0.974482446908951  15
**   1  0.974482446908951  1.00371140241623   21
**   2  1.00371140241623   1.03294035792351   16
**   3  1.03294035792351   1.06216931343079   12
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode/histogram.h"
#include "histogram_table.h"
#include "tensor_read.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

enum { TH_BIN, TH_LO, TH_HI, TH_COUNT, TH_NAN, TH_INF, TH_BELOW, TH_ABOVE, TH_NCOLS };

/* Per-file state: the histogram; has_range = 0 when no value was finite. */
typedef struct th_state {
  wt_hist h;
  wt_codec scaled; /* the codec with a per-tensor scale, when it has one */
  int has_range;
} th_state;

/* A numeric argument k, or an error. */
static int th_number(wt_cursor *c, int k, const char *what, double *out, char **pzErr) {
  sqlite3_value *v = c->args[k];
  int t = sqlite3_value_numeric_type(v);
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
    *pzErr = sqlite3_mprintf("tensor_histogram(): %s must be a number", what);
    return SQLITE_ERROR;
  }
  *out = sqlite3_value_double(v);
  return SQLITE_OK;
}

/* Whether argument k was given (and is not NULL). */
static int th_given(wt_cursor *c, int k) {
  return c->args[k] != NULL && sqlite3_value_type(c->args[k]) != SQLITE_NULL;
}

/* The bins and range arguments. */
static int th_args(wt_cursor *c, int64_t *bins, double *lo, double *hi, int *ranged, char **pzErr) {
  *bins = 10;
  if (th_given(c, 2)) {
    if (sqlite3_value_numeric_type(c->args[2]) != SQLITE_INTEGER) {
      *pzErr = sqlite3_mprintf("tensor_histogram(): bins must be an integer");
      return SQLITE_ERROR;
    }
    *bins = sqlite3_value_int64(c->args[2]);
  }
  if (*bins < 1 || *bins > WT_HIST_MAX_BINS) {
    *pzErr = sqlite3_mprintf("tensor_histogram(): bins must be 1 to %d, not %lld", WT_HIST_MAX_BINS,
                             (long long)*bins);
    return SQLITE_ERROR;
  }
  *ranged = th_given(c, 3) || th_given(c, 4);
  if (!*ranged)
    return SQLITE_OK;
  if (!th_given(c, 3) || !th_given(c, 4)) {
    *pzErr = sqlite3_mprintf("tensor_histogram(): give both lo and hi, or neither");
    return SQLITE_ERROR;
  }
  if (th_number(c, 3, "lo", lo, pzErr) || th_number(c, 4, "hi", hi, pzErr))
    return SQLITE_ERROR;
  if (!isfinite(*lo) || !isfinite(*hi) || *lo > *hi) {
    *pzErr = sqlite3_mprintf("tensor_histogram(): the range [%g, %g] must be finite with lo <= hi",
                             *lo, *hi);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* One pass over the n values of tensor t, a chunk of whole blocks at a
** time: into p (a 16-bit type's pattern counts), into h, or (both NULL)
** into the running finite minimum *lo and maximum *hi. */
static int th_read(const wt_source *src, const wt_tensor *t, const wt_codec *codec, uint64_t n,
                   wt_hist16 *p, wt_hist *h, double *lo, double *hi, wt_error *e) {
  uint64_t step = wt_chunk_values(codec), v;
  wt_chunk k;
  int rc = 0;
  if (n == 0)
    return wt_tensor_read(src, t, 0, 0, NULL, e) ? -1 : 0;
  if (wt_chunk_init(&k, src, t, codec, step) != 0)
    return wt_fail(e, "out of memory");
  for (v = 0; v < n && rc == 0; v += step) {
    uint64_t m = n - v < step ? n - v : step;
    rc = wt_chunk_load(&k, v, m, e);
    if (rc == 0 && p != NULL)
      wt_hist16_count(p, k.buf + 2 * (v - k.v0), (size_t)m);
    else if (rc == 0 && h != NULL)
      rc = wt_hist_tensor(codec, k.buf, wt_chunk_nbytes(&k), v - k.v0, m, h, e);
    else if (rc == 0)
      rc = wt_hist_range(codec, k.buf, wt_chunk_nbytes(&k), v - k.v0, m, lo, hi, e);
  }
  free(k.buf);
  return rc ? -1 : 0;
}

/* start_file: find the tensor (none: no rows), read the arguments, and
** fill the histogram (a first pass for the range when none is given). */
static int th_start(wt_cursor *c, char **pzErr) {
  const wt_tensor *t;
  const wt_codec *codec;
  th_state *st;
  int64_t bins;
  double lo = 0, hi = 0;
  int ranged, rc;
  uint64_t nvalues;
  wt_error e;
  if (th_args(c, &bins, &lo, &hi, &ranged, pzErr))
    return SQLITE_ERROR;
  rc = wt_start_named_tensor(c, 1, &t, sizeof(*st));
  if (rc != SQLITE_OK || t == NULL)
    return rc;
  st = c->state;
  codec = wt_tensor_codec("tensor_histogram", c->src, t, &nvalues, &st->scaled, pzErr);
  if (codec == NULL)
    return SQLITE_ERROR;
  st->has_range = 1;
  if (wt_hist16_usable(codec)) { /* one pass: count the bit patterns */
    wt_hist16 p;
    if (wt_hist16_init(&p, &e))
      goto fail;
    if (th_read(c->src, t, codec, nvalues, &p, NULL, NULL, NULL, &e)) {
      wt_hist16_free(&p);
      goto fail;
    }
    if (!ranged) {
      lo = INFINITY;
      hi = -INFINITY;
      wt_hist16_range(&p, codec, &lo, &hi);
      st->has_range = lo <= hi;
      if (!st->has_range)
        lo = hi = 0;
    }
    if (wt_hist_init(&st->h, lo, hi, (uint32_t)bins, &e)) {
      wt_hist16_free(&p);
      goto fail;
    }
    wt_hist16_fill(&p, codec, &st->h);
    wt_hist16_free(&p);
    c->n_rows = st->h.bins;
    return SQLITE_OK;
  }
  if (!ranged) {
    lo = INFINITY;
    hi = -INFINITY;
    if (th_read(c->src, t, codec, nvalues, NULL, NULL, &lo, &hi, &e))
      goto fail;
    st->has_range = lo <= hi;
    if (!st->has_range)
      lo = hi = 0;
  }
  if (wt_hist_init(&st->h, lo, hi, (uint32_t)bins, &e) ||
      th_read(c->src, t, codec, nvalues, NULL, &st->h, NULL, NULL, &e))
    goto fail;
  c->n_rows = st->h.bins;
  return SQLITE_OK;
fail:
  *pzErr = wt_error_message("tensor_histogram", c->file, e.msg);
  return SQLITE_ERROR;
}

/* Column of tensor_histogram(). */
static int th_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  th_state *st = c->state;
  const wt_hist *h = &st->h;
  uint32_t k = (uint32_t)c->row;
  switch (col) {
  case TH_BIN:
    sqlite3_result_int64(ctx, k);
    break;
  case TH_LO:
  case TH_HI:
    if (st->has_range)
      sqlite3_result_double(ctx, wt_hist_edge(h, k + (col == TH_HI)));
    break;
  case TH_COUNT:
    sqlite3_result_int64(ctx, (sqlite3_int64)h->count[k]);
    break;
  case TH_NAN:
    sqlite3_result_int64(ctx, (sqlite3_int64)h->nan);
    break;
  case TH_INF:
    sqlite3_result_int64(ctx, (sqlite3_int64)h->inf);
    break;
  case TH_BELOW:
    sqlite3_result_int64(ctx, (sqlite3_int64)h->below);
    break;
  case TH_ABOVE:
    sqlite3_result_int64(ctx, (sqlite3_int64)h->above);
    break;
  }
  return SQLITE_OK;
}

/* end_file: the histogram's arrays, then the state. */
static void th_end(wt_cursor *c) {
  th_state *st = c->state;
  if (st != NULL)
    wt_hist_free(&st->h);
  wt_free_state(c);
}

static const char *const th_args_names[] = {"path", "name", "bins", "lo", "hi"};

const wt_table_def wt_tensor_histogram_table = {
    .name = "tensor_histogram",
    .schema = "CREATE TABLE x(bin INTEGER, lo REAL, hi REAL, count INTEGER, nan INTEGER,"
              " inf INTEGER, below INTEGER, above INTEGER, path HIDDEN, name HIDDEN,"
              " bins HIDDEN, range_lo HIDDEN, range_hi HIDDEN, file HIDDEN)",
    .format = 0,
    .n_cols = TH_NCOLS,
    .n_args = 5,
    .n_required = 2,
    .arg_names = th_args_names,
    .usage = "path, name [, bins [, lo, hi]]",
    .name_arg = 1,
    .start_file = th_start,
    .column = th_column,
    .end_file = th_end,
};
