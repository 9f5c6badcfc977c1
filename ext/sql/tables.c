/*
** tables.c: the table-valued functions, each a wt_table_def for vtab.c.
** Layer: sql (files through bytes/ and paths/, descriptions from formats/).
**
**   safetensors(path)          one row per tensor, in data-offset order
**   safetensors_metadata(path) one row per __metadata__ entry
**   gguf(path)                 one row per tensor, in file order
**   gguf_metadata(path)        one row per key, in file order
**   gguf_array(path, key)      one row per element of one array value
**   tensors(path)              one row per tensor of either format, with
**                              its Hugging Face and GGUF names
**
** For example, on the demo model that `make demo` writes:
**
**   SELECT name, dtype, shape, data_start, nbytes
**   FROM safetensors('build/demo/tiny-llama.safetensors') LIMIT 2;
**   model.embed_tokens.weight              BF16  [260,64]  0      33280
**   model.layers.0.input_layernorm.weight  BF16  [64]      33280  128
**
**   SELECT key, type, value FROM gguf_metadata('build/demo/tiny-llama.gguf') LIMIT 2;
**   general.architecture  STRING  llama
**   general.name          STRING  Tiny Llama (sqlite-weights demo)
**
**   SELECT name, gguf_name FROM tensors('build/demo/tiny-llama.safetensors') LIMIT 2;
**   model.embed_tokens.weight              token_embd.weight
**   model.layers.0.input_layernorm.weight  blk.0.attn_norm.weight
**
** (weights_files and weights_models are in catalog.c.)
** Every table also has the HIDDEN columns of its arguments and `file`
** (the file the row came from).  docs/reference.md documents the
** columns; the schemas below are the source of truth for their order.
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/gguf_value.h"
#include "formats/name_map.h"
#include "bytes/file.h"
#include "paths/model_arch.h"
#include "tables.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* ---- shared column helpers ---- */

void wt_result_u64(sqlite3_context *ctx, uint64_t v) {
  if (v <= INT64_MAX) {
    sqlite3_result_int64(ctx, (sqlite3_int64)v);
  } else {
    char buf[24];
    int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
  }
}

/* Result: dims as a JSON array ("[49152,576]"), rendered by
** wt_shape_text(): in stored order, or outermost first when row_major
** (GGUF's ne[] reversed, as PyTorch and numpy show shapes). */
static int wt_result_shape(sqlite3_context *ctx, const wt_tensor *t, int row_major) {
  char stack[256], *buf = stack;
  size_t need = 3 + (size_t)t->ndim * 21; /* 20 digits and a comma a dim, brackets, NUL */
  if (need > sizeof(stack)) {             /* only for unusually many dimensions */
    buf = sqlite3_malloc64(need);
    if (buf == NULL) {
      sqlite3_result_error_nomem(ctx);
      return SQLITE_NOMEM;
    }
  }
  sqlite3_result_text(ctx, wt_shape_text(buf, need, t, row_major), -1, SQLITE_TRANSIENT);
  if (buf != stack)
    sqlite3_free(buf);
  return SQLITE_OK;
}

void wt_result_name(sqlite3_context *ctx, const char *p, size_t n) {
  if (wt_utf8_valid(p, n))
    sqlite3_result_text64(ctx, p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
  else
    sqlite3_result_blob64(ctx, p, n, SQLITE_TRANSIENT);
}

/* Result: a length-carrying string (wt_result_name). */
static void wt_result_str(sqlite3_context *ctx, wt_str s) {
  wt_result_name(ctx, s.p, s.n);
}

/* The current tensor of a tensor table. */
static const wt_tensor *wt_tensor_at(wt_cursor *c) {
  return &c->src->model.tensors[c->row];
}

/* start_file for tables with one row per tensor. */
static int wt_start_tensors(wt_cursor *c, char **pzErr) {
  (void)pzErr;
  c->n_rows = (sqlite3_int64)c->src->model.n_tensors;
  return SQLITE_OK;
}

/* start_file for tables with one row per metadata entry. */
static int wt_start_meta(wt_cursor *c, char **pzErr) {
  (void)pzErr;
  c->n_rows = (sqlite3_int64)c->src->model.n_meta;
  return SQLITE_OK;
}

static const char *const wt_path_arg[] = {"path"};
static const char *const wt_path_key_args[] = {"path", "key"};

/* ---- safetensors(path) ---- */

enum {
  ST_NAME,
  ST_DTYPE,
  ST_SHAPE,
  ST_NDIM,
  ST_NUMEL,
  ST_DATA_START,
  ST_DATA_END,
  ST_OFFSET,
  ST_NBYTES,
  ST_NCOLS
};

/* Column of safetensors(). */
static int st_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_tensor *t = wt_tensor_at(c);
  switch (col) {
  case ST_NAME:
    wt_result_str(ctx, t->name);
    break;
  case ST_DTYPE:
    wt_result_str(ctx, t->dtype);
    break;
  case ST_SHAPE:
    return wt_result_shape(ctx, t, 0);
  case ST_NDIM:
    sqlite3_result_int(ctx, t->ndim);
    break;
  case ST_NUMEL:
    wt_result_u64(ctx, t->numel);
    break;
  case ST_DATA_START:
    wt_result_u64(ctx, t->data_start);
    break;
  case ST_DATA_END:
    wt_result_u64(ctx, t->data_end);
    break;
  case ST_OFFSET:
    wt_result_u64(ctx, t->offset);
    break;
  case ST_NBYTES:
    wt_result_u64(ctx, t->nbytes);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_safetensors_table = {
    .name = "safetensors",
    .schema = "CREATE TABLE x(name TEXT, dtype TEXT, shape TEXT, ndim INTEGER, numel INTEGER,"
              " data_start INTEGER, data_end INTEGER, offset INTEGER, nbytes INTEGER,"
              " path HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_SAFETENSORS,
    .n_cols = ST_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_path_arg,
    .usage = "path",
    .start_file = wt_start_tensors,
    .column = st_column,
    .open = WT_OPEN_DESCRIPTION,
};

/* ---- safetensors_metadata(path) ---- */

/* Column of safetensors_metadata(): key, value. */
static int st_meta_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_meta *kv = &c->src->model.meta[c->row];
  wt_result_str(ctx, col == 0 ? kv->key : kv->value);
  return SQLITE_OK;
}

const wt_table_def wt_safetensors_metadata_table = {
    .name = "safetensors_metadata",
    .schema = "CREATE TABLE x(key TEXT, value TEXT, path HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_SAFETENSORS,
    .n_cols = 2,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_path_arg,
    .usage = "path",
    .start_file = wt_start_meta,
    .column = st_meta_column,
};

/* ---- gguf(path) ---- */

enum {
  GG_NAME,
  GG_DTYPE,
  GG_TYPE_ID,
  GG_SHAPE,
  GG_NDIM,
  GG_NUMEL,
  GG_DATA_OFFSET,
  GG_OFFSET,
  GG_NBYTES,
  GG_NCOLS
};

/* Column of gguf().  dtype and nbytes are NULL for a type no table knows. */
static int gg_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_tensor *t = wt_tensor_at(c);
  switch (col) {
  case GG_NAME:
    wt_result_str(ctx, t->name);
    break;
  case GG_DTYPE:
    if (t->dtype.n > 0)
      wt_result_str(ctx, t->dtype);
    break;
  case GG_TYPE_ID:
    sqlite3_result_int64(ctx, t->type_id);
    break;
  case GG_SHAPE:
    return wt_result_shape(ctx, t, 0);
  case GG_NDIM:
    sqlite3_result_int(ctx, t->ndim);
    break;
  case GG_NUMEL:
    wt_result_u64(ctx, t->numel);
    break;
  case GG_DATA_OFFSET:
    wt_result_u64(ctx, t->data_start);
    break;
  case GG_OFFSET:
    wt_result_u64(ctx, t->offset);
    break;
  case GG_NBYTES:
    if (t->nbytes_known)
      wt_result_u64(ctx, t->nbytes);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_table = {
    .name = "gguf",
    .schema = "CREATE TABLE x(name TEXT, dtype TEXT, type_id INTEGER, shape TEXT, ndim INTEGER,"
              " numel INTEGER, data_offset INTEGER, offset INTEGER, nbytes INTEGER,"
              " path HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GG_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_path_arg,
    .usage = "path",
    .start_file = wt_start_tensors,
    .column = gg_column,
    .open = WT_OPEN_DESCRIPTION,
};

/* ---- GGUF values ---- */

/* Result: one decoded scalar; invalid UTF-8 text comes back as a BLOB. */
static void gg_result_scalar(sqlite3_context *ctx, const gguf_scalar *s) {
  switch (s->kind) {
  case GGUF_SCALAR_INT:
    sqlite3_result_int64(ctx, s->i);
    break;
  case GGUF_SCALAR_BIGUINT:
    wt_result_u64(ctx, s->u);
    break;
  case GGUF_SCALAR_REAL:
    sqlite3_result_double(ctx, s->r); /* SQLite turns NaN into NULL */
    break;
  case GGUF_SCALAR_TEXT:
    wt_result_str(ctx, s->s);
    break;
  }
}

/* Result: the value of a key, built only now (arrays as JSON). */
static int gg_result_value(wt_cursor *c, sqlite3_context *ctx, const wt_meta *kv) {
  const unsigned char *data = c->src->header;
  if (kv->type == GGUF_TYPE_ARRAY) {
    wt_buf buf = {0};
    char *p;
    /* Render, then end with a NUL: SQLite then keeps the buffer as it is
    ** instead of copying it to add one (the JSON holds no raw NUL). */
    if (gguf_render_array_json(&c->src->model, data, kv, &buf) != 0 || buf.n >= INT_MAX ||
        (p = realloc(buf.p, buf.n + 1)) == NULL) {
      free(buf.p);
      sqlite3_result_error_nomem(ctx);
      return SQLITE_NOMEM;
    }
    p[buf.n] = 0;
    sqlite3_result_text(ctx, p, -1, free);
  } else {
    gguf_cursor cur;
    gguf_scalar s;
    gguf_cursor_init(&cur, &c->src->model, data, kv);
    if (gguf_read_scalar(&cur, kv->type, &s) != 0) {
      sqlite3_result_error(ctx, "gguf_metadata(): value runs past the end of the file", -1);
      return SQLITE_ERROR;
    }
    gg_result_scalar(ctx, &s);
  }
  return SQLITE_OK;
}

/* ---- gguf_metadata(path) ---- */

enum { GM_KEY, GM_TYPE, GM_ELEMENT_TYPE, GM_COUNT, GM_VALUE, GM_NCOLS };

/* Column of gguf_metadata(). */
static int gm_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_meta *kv = &c->src->model.meta[c->row];
  int is_array = kv->type == GGUF_TYPE_ARRAY;
  switch (col) {
  case GM_KEY:
    wt_result_str(ctx, kv->key);
    break;
  case GM_TYPE:
    sqlite3_result_text(ctx, gguf_type_name(kv->type), -1, SQLITE_STATIC);
    break;
  case GM_ELEMENT_TYPE:
    if (is_array)
      sqlite3_result_text(ctx, gguf_type_name(kv->elem_type), -1, SQLITE_STATIC);
    break;
  case GM_COUNT:
    if (is_array)
      wt_result_u64(ctx, kv->count);
    break;
  case GM_VALUE:
    return gg_result_value(c, ctx, kv);
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_metadata_table = {
    .name = "gguf_metadata",
    .first_part_only = 1,
    .schema = "CREATE TABLE x(key TEXT, type TEXT, element_type TEXT, count INTEGER, value,"
              " path HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GM_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_path_arg,
    .usage = "path",
    .start_file = wt_start_meta,
    .column = gm_column,
};

/* ---- gguf_array(path, key) ---- */

/* Per-file state: where the next element is, and the current one. */
typedef struct ga_state {
  const wt_meta *kv;
  gguf_cursor cur;
  gguf_scalar value;
} ga_state;

/* start_file: find the key.  A file without it gives no rows; a key that
** is not an array is an error. */
static int ga_start(wt_cursor *c, char **pzErr) {
  sqlite3_value *key = c->args[1];
  const wt_meta *kv;
  ga_state *st;
  if (key == NULL || sqlite3_value_type(key) == SQLITE_NULL) {
    *pzErr = sqlite3_mprintf("gguf_array(): the key argument is NULL");
    return SQLITE_ERROR;
  }
  kv = wt_source_find_meta(c->src, (const char *)sqlite3_value_text(key),
                           (size_t)sqlite3_value_bytes(key));
  if (kv == NULL)
    return SQLITE_OK; /* n_rows stays 0 */
  if (kv->type != GGUF_TYPE_ARRAY) {
    *pzErr = sqlite3_mprintf("gguf_array(): %s: key '%s' is a %s, not an array", c->src->path,
                             sqlite3_value_text(key), gguf_type_name(kv->type));
    return SQLITE_ERROR;
  }
  st = sqlite3_malloc(sizeof(*st));
  if (st == NULL)
    return SQLITE_NOMEM;
  memset(st, 0, sizeof(*st));
  st->kv = kv;
  gguf_cursor_init(&st->cur, &c->src->model, c->src->header, kv);
  c->state = st;
  c->n_rows = kv->count > INT64_MAX ? INT64_MAX : (sqlite3_int64)kv->count;
  return SQLITE_OK;
}

/* enter_row: read the next element (rows only move forward by one). */
static int ga_enter_row(wt_cursor *c, char **pzErr) {
  ga_state *st = c->state;
  if (gguf_read_scalar(&st->cur, st->kv->elem_type, &st->value) != 0) {
    *pzErr = sqlite3_mprintf("gguf_array(): %s: element %lld runs past the end of the file",
                             c->src->path, (long long)c->row);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Column of gguf_array(): idx, value. */
static int ga_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  ga_state *st = c->state;
  if (col == 0)
    sqlite3_result_int64(ctx, c->row);
  else
    gg_result_scalar(ctx, &st->value);
  return SQLITE_OK;
}

const wt_table_def wt_gguf_array_table = {
    .name = "gguf_array",
    .first_part_only = 1,
    .schema = "CREATE TABLE x(idx INTEGER, value, path HIDDEN, key HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = 2,
    .n_args = 2,
    .n_required = 2,
    .arg_names = wt_path_key_args,
    .usage = "path, key",
    .start_file = ga_start,
    .enter_row = ga_enter_row,
    .column = ga_column,
    .end_file = wt_free_state,
};

/* ---- tensors(path): both formats ---- */

enum {
  TS_FORMAT,
  TS_NAME,
  TS_DTYPE,
  TS_SHAPE,
  TS_NUMEL,
  TS_OFFSET,
  TS_NBYTES,
  TS_HF_NAME,
  TS_GGUF_NAME,
  TS_NCOLS
};

/* Per-file state of tensors(): the architecture the names map by,
** resolved once per file, when a name column is first read
** (paths/model_arch.h). */
typedef struct ts_state {
  int resolved;
  char arch[64];
} ts_state;

/* start_file of tensors(). */
static int ts_start(wt_cursor *c, char **pzErr) {
  ts_state *st = sqlite3_malloc(sizeof(*st));
  if (st == NULL)
    return SQLITE_NOMEM;
  st->resolved = 0;
  st->arch[0] = 0;
  c->state = st;
  return wt_start_tensors(c, pzErr);
}

/* Result: the name of tensor t in the other format's naming (to_gguf:
** Hugging Face to GGUF), or NULL when the map has none. */
static int ts_result_mapped(wt_cursor *c, sqlite3_context *ctx, const wt_tensor *t, int to_gguf) {
  ts_state *st = c->state;
  char stack[256], *buf = stack;
  size_t cap = t->name.n + 64; /* a mapping changes a name's length by less */
  int n;
  if (!st->resolved) {
    wt_source_arch(c->src, st->arch, sizeof(st->arch));
    st->resolved = 1;
  }
  if (st->arch[0] == 0)
    return SQLITE_OK;
  if (cap > sizeof(stack) && (buf = sqlite3_malloc64(cap)) == NULL)
    return SQLITE_NOMEM;
  if (cap <= sizeof(stack))
    cap = sizeof(stack);
  n = to_gguf ? wt_name_hf_to_gguf(st->arch, t->name.p, t->name.n, buf, cap)
              : wt_name_gguf_to_hf(st->arch, t->name.p, t->name.n, buf, cap);
  if (n > 0)
    wt_result_name(ctx, buf, (size_t)n);
  if (buf != stack)
    sqlite3_free(buf);
  return SQLITE_OK;
}

/* Column of tensors(). */
static int ts_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_tensor *t = wt_tensor_at(c);
  int format = c->src->model.format;
  switch (col) {
  case TS_FORMAT:
    sqlite3_result_text(ctx, wt_format_name(format), -1, SQLITE_STATIC);
    break;
  case TS_NAME:
    wt_result_str(ctx, t->name);
    break;
  case TS_DTYPE:
    if (t->dtype.n > 0)
      wt_result_str(ctx, t->dtype);
    break;
  case TS_SHAPE:
    return wt_result_shape(ctx, t, format == WT_FORMAT_GGUF);
  case TS_NUMEL:
    wt_result_u64(ctx, t->numel);
    break;
  case TS_OFFSET:
    wt_result_u64(ctx, t->offset);
    break;
  case TS_NBYTES:
    if (t->nbytes_known)
      wt_result_u64(ctx, t->nbytes);
    break;
  case TS_HF_NAME:
    if (format == WT_FORMAT_SAFETENSORS)
      wt_result_str(ctx, t->name);
    else
      return ts_result_mapped(c, ctx, t, 0);
    break;
  case TS_GGUF_NAME:
    if (format == WT_FORMAT_GGUF)
      wt_result_str(ctx, t->name);
    else
      return ts_result_mapped(c, ctx, t, 1);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_tensors_table = {
    .name = "tensors",
    .schema = "CREATE TABLE x(format TEXT, name TEXT, dtype TEXT, shape TEXT, numel INTEGER,"
              " offset INTEGER, nbytes INTEGER, hf_name TEXT, gguf_name TEXT, path HIDDEN,"
              " file HIDDEN)",
    .format = 0,
    .n_cols = TS_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_path_arg,
    .usage = "path",
    .start_file = ts_start,
    .column = ts_column,
    .end_file = wt_free_state,
};
