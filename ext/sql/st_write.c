/*
** st_write.c: safetensors_write(), an aggregate that writes one new
** safetensors file from the tensors of its rows.  Layer: sql.
**
**   -- the first four layers and everything that is not a layer
**   SELECT safetensors_write('first-layers.safetensors', name, path)
**   FROM tensors('model/')
**   WHERE name GLOB 'model.layers.[0-3].*' OR name NOT GLOB 'model.layers.*';
**   -- a tensor built in SQL: its bytes, dtype and shape
**   SELECT safetensors_write('bias.safetensors', 'bias', zeroblob(16), 'F32', '[4]');
**
** Each row is (out, name, source [, dtype, shape]): a tensor named name,
** whose bytes are those of the tensor of that name in source when source
** is text (any path the tables take: a file, a folder, an index, a split
** GGUF, a remote file), or the BLOB source itself, of dtype (a safetensors
** dtype) and shape (a JSON array, outermost first).  A GGUF tensor keeps
** its type when safetensors has it (F32, F16, BF16, F64, I8, I16, I32,
** I64), with its shape outermost first; a quantized one is an error.
** Returns the new file's size in bytes.
**
** Rows only collect where the bytes are (this file: a tensor found as the
** tables find it, or a BLOB checked against its dtype and shape): nothing
** is read or written until the last row, and tensor bytes never pass
** through SQLite.  The file is written by write/st_write_job.h's job as
** the safetensors crate writes one (the crate's tensor order, with the
** __metadata__ entries every safetensors source agrees on: a merged
** sharded checkpoint keeps its {"format": "pt"}), through a temporary file, read back, parsed and compared
** (names, dtypes, shapes, places, and the XXH3-64 of every tensor's bytes
** against its source's) before it is kept.  An error in any row (a tensor
** not found, a quantized one, a BLOB whose size is not its shape's, a
** name given twice) or an interrupt between rows fails the statement and
** writes nothing; a source file changed since its row was read is an
** error.  The output may not be one of the sources.
*/
#include "st_write.h"
#include "st_write_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtype.h"
#include "functions.h"
#include "interrupt.h"
#include "vtab.h"
#include "write_call.h"

SQLITE_EXTENSION_INIT3

/* The largest shape a BLOB row may give. */
#define STW_MAX_RANK 64

void stw_free(stw_state *s) {
  if (s == NULL)
    return;
  stw_rows_free(&s->rows);
  free(s->out);
  free(s);
}

/* Report msg for the function, naming path, and mark the state failed. */
static void stw_error(sqlite3_context *ctx, stw_state *s, const char *path, const char *msg) {
  if (s)
    s->failed = 1;
  wt_write_call_error(ctx, NULL, s != NULL && s->fn != NULL ? s->fn : "safetensors_write", path,
                      msg);
}

/* The safetensors dtype of tensor t of a model of format, or -1. */
static int stw_dtype(const wt_tensor *t, int format) {
  if (format == WT_FORMAT_SAFETENSORS)
    return (int)t->type_id;
  /* ggml's names of the plain types are the safetensors ones */
  return t->dtype.n > 0 ? st_dtype_find(t->dtype.p, t->dtype.n) : -1;
}

/* Fill r from the tensor named name in path (st_write_int.h). */
int stw_from_path(sqlite3_context *ctx, stw_state *s, sqlite3_value *name, sqlite3_value *path,
                  stw_row *r) {
  sqlite3_value *pv[2] = {path, name};
  char msg[WT_ERROR_MAX], q[WT_QUOTE_SIZE];
  wt_source *src = NULL;
  const wt_tensor *t = NULL;
  int rc = wt_func_find_tensor(ctx, pv, 0, &src, &t), k;
  if (rc < 0) {
    s->failed = 1;
    return -1;
  }
  if (rc == 0) {
    snprintf(msg, sizeof(msg), "no tensor %s", wt_quote(q, sizeof(q), r->name, r->name_len));
    stw_error(ctx, s, (const char *)sqlite3_value_text(path), msg);
    return -1;
  }
  r->dtype = stw_dtype(t, src->model.format);
  if (r->dtype < 0 || !t->nbytes_known) {
    snprintf(msg, sizeof(msg), "tensor %s is %.*s, which safetensors has no dtype for",
             wt_quote(q, sizeof(q), r->name, r->name_len), (int)t->dtype.n, t->dtype.p);
    stw_error(ctx, s, src->path, msg);
    wt_source_release(src);
    return -1;
  }
  r->ndim = t->ndim;
  r->dims = malloc(((size_t)t->ndim + 1) * sizeof(*r->dims));
  r->path = strdup(src->path);
  if (r->dims == NULL || r->path == NULL) {
    wt_source_release(src);
    sqlite3_result_error_nomem(ctx);
    s->failed = 1;
    return -1;
  }
  for (k = 0; k < t->ndim; k++) /* GGUF's ne[] innermost first: reversed */
    r->dims[k] = src->model.format == WT_FORMAT_GGUF ? t->dims[t->ndim - 1 - k] : t->dims[k];
  r->nbytes = t->nbytes;
  r->dev = src->file.dev;
  r->ino = src->file.ino;
  r->size = src->file.size;
  r->mtime_ns = src->file.mtime_ns;
  wt_source_release(src);
  return 0;
}

/* Read a shape "[a, b, ...]" (JSON integers, at most STW_MAX_RANK) into
** r->dims: 0, or -1. */
static int stw_shape(const char *p, stw_row *r) {
  while (*p == ' ')
    p++;
  if (*p++ != '[')
    return -1;
  for (;;) {
    uint64_t d = 0;
    while (*p == ' ')
      p++;
    if (*p == ']' && r->ndim == 0)
      break;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9') ||
        r->ndim == STW_MAX_RANK)
      return -1;
    for (; *p >= '0' && *p <= '9'; p++)
      if (wt_mul(d, 10, &d) != 0 || wt_add(d, (uint64_t)(*p - '0'), &d) != 0)
        return -1;
    r->dims[r->ndim++] = d;
    while (*p == ' ')
      p++;
    if (*p == ']')
      break;
    if (*p++ != ',')
      return -1;
  }
  for (p++; *p == ' '; p++)
    ;
  return *p == 0 ? 0 : -1;
}

/* Fill r from the BLOB argv[2], dtype argv[3] and shape argv[4]. */
static int stw_from_blob(sqlite3_context *ctx, stw_state *s, int argc, sqlite3_value **argv,
                         stw_row *r) {
  const char *dt = argc > 3 ? (const char *)sqlite3_value_text(argv[3]) : NULL;
  const char *shape = argc > 4 ? (const char *)sqlite3_value_text(argv[4]) : NULL;
  uint64_t numel = 1, bits = 0;
  char msg[WT_ERROR_MAX], q[WT_QUOTE_SIZE];
  const char *name = wt_quote(q, sizeof(q), r->name, r->name_len);
  int k, n = sqlite3_value_bytes(argv[2]);
  if (dt == NULL || shape == NULL || (r->dtype = st_dtype_find(dt, strlen(dt))) < 0) {
    snprintf(msg, sizeof(msg), "tensor %s: a BLOB needs a safetensors dtype and a shape", name);
    goto fail;
  }
  if ((r->dims = malloc(STW_MAX_RANK * sizeof(*r->dims))) == NULL)
    goto nomem;
  if (stw_shape(shape, r) != 0) {
    snprintf(msg, sizeof(msg), "tensor %s: the shape must be a JSON array of at most %d sizes",
             name, STW_MAX_RANK);
    goto fail;
  }
  for (k = 0; k < r->ndim; k++)
    if (wt_mul(numel, r->dims[k], &numel) != 0)
      break;
  if (k < r->ndim || wt_mul(numel, st_dtype_get(r->dtype)->bits, &bits) != 0 || bits % 8 != 0 ||
      bits / 8 != (uint64_t)n) {
    snprintf(msg, sizeof(msg), "tensor %s: %d bytes given, but %s of shape %s holds %llu", name, n,
             dt, shape, U(bits / 8));
    goto fail;
  }
  r->nbytes = (uint64_t)n;
  if ((r->blob = malloc((size_t)n + 1)) == NULL)
    goto nomem;
  if (n > 0)
    memcpy(r->blob, sqlite3_value_blob(argv[2]), (size_t)n);
  return 0;
nomem:
  snprintf(msg, sizeof(msg), "out of memory");
fail:
  stw_error(ctx, s, NULL, msg);
  return -1;
}

stw_row *stw_push(sqlite3_context *ctx, stw_state *s, sqlite3_value *name) {
  stw_row *r = stw_rows_push(&s->rows, (const char *)sqlite3_value_text(name),
                             (size_t)sqlite3_value_bytes(name));
  if (r == NULL) {
    sqlite3_result_error_nomem(ctx);
    s->failed = 1;
  }
  return r;
}

/* xStep: collect one row. */
static void stw_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  stw_state **ps = sqlite3_aggregate_context(ctx, sizeof(*ps)), *s;
  const char *out = (const char *)sqlite3_value_text(argv[0]);
  stw_row *r;
  if (ps == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (*ps == NULL) {
    if ((*ps = calloc(1, sizeof(**ps))) == NULL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    (*ps)->failures = wt_cache_failures(wt_func_cache(ctx));
  }
  s = *ps;
  if (s->failed)
    return;
  if (out == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL ||
      sqlite3_value_type(argv[2]) == SQLITE_NULL) {
    stw_error(ctx, s, NULL, "the output, name and source may not be NULL");
    return;
  }
  if (s->out == NULL && (s->out = strdup(out)) == NULL) {
    sqlite3_result_error_nomem(ctx);
    s->failed = 1;
    return;
  }
  if (strcmp(s->out, out) != 0) {
    stw_error(ctx, s, out, "every row must name the same output");
    return;
  }
  if ((r = stw_push(ctx, s, argv[1])) == NULL)
    return;
  if (sqlite3_value_type(argv[2]) == SQLITE_BLOB)
    stw_from_blob(ctx, s, argc, argv, r);
  else
    stw_from_path(ctx, s, argv[1], argv[2], r);
}

/* xFinal: write the file, unless a row failed or the statement was
** interrupted (SQLite also calls xFinal to free the state of a statement
** that stopped). */
static void stw_final(sqlite3_context *ctx) {
  stw_state **ps = sqlite3_aggregate_context(ctx, 0), *s = ps ? *ps : NULL;
  wt_write_call call = {sqlite3_context_db_handle(ctx), 0};
  stw_cancel cancel = {wt_write_call_interrupted, &call};
  uint64_t size = 0;
  wt_error e;
  if (s == NULL) {
    stw_error(ctx, NULL, NULL, "no rows: nothing to write");
    return;
  }
  if (s->failed)
    goto done;
  if (wt_cache_failures(wt_func_cache(ctx)) != s->failures) {
    /* a table or function of this extension failed since the first row:
    ** the statement is failing, and this call only frees the state */
    stw_error(ctx, s, s->out, "the statement failed after its rows: nothing written");
    goto done;
  }
  if (wt_interrupted(call.db)) {
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    goto done;
  }
  if (wt_st_write(s->out, s->rows.v, s->rows.n, &cancel, &size, &e) != 0) {
    s->failed = 1;
    wt_write_call_error(ctx, &call, s->fn != NULL ? s->fn : "safetensors_write", s->out, e.msg);
    goto done;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)size);
done:
  stw_free(s);
  *ps = NULL;
}

int wt_register_st_write(sqlite3 *db, wt_cache *cache) {
  int rc = wt_register_aggregate(db, "safetensors_write", 0, 3, stw_step, stw_final, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_aggregate(db, "safetensors_write", 0, 5, stw_step, stw_final, cache);
  return rc;
}
