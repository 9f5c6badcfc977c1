/*
** values.c: tensor_values(path, name [, start [, count]]), the numbers
** inside a tensor, one row per value.  Layer: sql (decoding through
** decode/, files through bytes/ and paths/).
**
**   SELECT idx, value FROM tensor_values('build/demo/tiny-llama.gguf',
**                                        'output_norm.weight') LIMIT 2;
**   0  1.00901353359222
**   1  1.01499426364899
**
** Like tensor_stats (stats.c) and tensor_compare (compare.c) it decodes
** through decode.h, for both formats (detected by content), streaming:
** tensor bytes are read in chunks of whole blocks of about WT_READ_CHUNK
** bytes (tensor_read.h), each decoded with the decode API; nothing is
** allocated in proportion to a tensor.  A file that changed since it was
** parsed is an error naming it.  tensor_values() takes constraints on idx
** (=, <, <=, >, >=, BETWEEN, IN) and decodes only the values they allow.
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
