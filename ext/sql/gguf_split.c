/*
** gguf_split.c: gguf_split(prefix, in, limits), a GGUF written as the
** parts of a split model, as llama.cpp's gguf-split writes them
** (examples/gguf-split/gguf-split.cpp, split_strategy).  Layer: sql.
**
**   SELECT gguf_split('out/model', 'model.gguf', '{"max_tensors": 128}');
**   SELECT gguf_split('out/model', 'model.gguf', '{"max_bytes": 2000000000}');
**
** The tensors of in (a GGUF, or the first part of a split one) go into
** parts in their order: a new part every max_tensors tensors (gguf-split's
** default, 128), or when the next tensor, padded to 32 bytes, would take the
** part past max_bytes.  Part K of N is PREFIX-0000K-of-0000N.gguf; the first
** holds every key of the input, the others none, and each gets split.no
** (UINT16, K - 1), split.count (UINT16, N) and split.tensors.count (INT32,
** the tensors of all parts), replaced where the input has them, else after
** the others.  llama.cpp loads the model from its first part.
**
** Each part is written as gguf_rewrite() writes a file (a temporary file,
** tensors copied by reference, read back and compared); only when every
** part is are they renamed into place.  Returns N.  The job is
** write/gguf_split_job.c's; this file reads the arguments and reports its
** error.
*/
#include "gguf_split.h"

#include <string.h>

#include "functions.h"
#include "interrupt.h"
#include "write/rewrite_job.h"
#include "write_call.h"

SQLITE_EXTENSION_INIT3

/* gguf-split's default: tensors per part. */
#define GS_MAX_TENSORS 128

/* Read the limits (a JSON object: max_tensors or max_bytes). */
static int gs_limits(sqlite3 *db, sqlite3_value *v, wt_rewrite_req *r, wt_error *err) {
  sqlite3_int64 max_tensors, max_bytes;
  sqlite3_stmt *st = NULL;
  int rc = -1;
  r->max_tensors = GS_MAX_TENSORS;
  r->max_bytes = 0;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  if (sqlite3_prepare_v2(
          db,
          "SELECT json_extract(?1, '$.max_tensors'), json_extract(?1, '$.max_bytes'), "
          "(SELECT group_concat(key) FROM json_each(?1) "
          "WHERE key NOT IN ('max_tensors', 'max_bytes'))",
          -1, &st, NULL) != SQLITE_OK) {
    wt_fail(err, "%s", sqlite3_errmsg(db));
    goto done;
  }
  sqlite3_bind_value(st, 1, v);
  if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 2) != SQLITE_NULL ||
      (sqlite3_column_type(st, 0) != SQLITE_NULL) == (sqlite3_column_type(st, 1) != SQLITE_NULL)) {
    wt_fail(err, "the limits are a JSON object of one of max_tensors and max_bytes");
    goto done;
  }
  max_tensors = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
  max_bytes = sqlite3_column_int64(st, 1);
  if (max_tensors < 0 || max_bytes < 0 || (max_tensors == 0 && max_bytes == 0)) {
    wt_fail(err, "the limit must be positive");
    goto done;
  }
  r->max_tensors = (uint64_t)max_tensors;
  r->max_bytes = (uint64_t)max_bytes;
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}

/* gguf_split(prefix, in [, limits]). */
static void gs_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *prefix = (const char *)sqlite3_value_text(argv[0]);
  const char *in = (const char *)sqlite3_value_text(argv[1]);
  wt_write_call call = {sqlite3_context_db_handle(ctx), 0};
  wt_rewrite_req r;
  wt_rewrite_res res;
  wt_error e;
  memset(&r, 0, sizeof(r));
  memset(&res, 0, sizeof(res));
  r.out = prefix;
  r.in = in;
  r.format = WT_FORMAT_GGUF;
  r.interrupted = wt_write_call_interrupted;
  r.ctx = &call;
  res.where = prefix;
  wt_watch_interrupt(call.db);
  if (prefix == NULL || in == NULL) {
    wt_fail(&e, "the prefix and the input may not be NULL");
    goto fail;
  }
  if (gs_limits(call.db, argc > 2 ? argv[2] : NULL, &r, &e) != 0 ||
      wt_gguf_split(&r, &res, &e) != 0)
    goto fail;
  sqlite3_result_int(ctx, res.n_parts);
  goto done;
fail:
  wt_write_call_error(ctx, &call, "gguf_split", res.where, e.msg);
done:
  wt_rewrite_res_free(&res);
}

int wt_register_gguf_split(sqlite3 *db) {
  int rc = sqlite3_create_function_v2(db, "gguf_split", 2, WT_FILE_FLAGS, 0, gs_func, 0, 0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "gguf_split", 3, WT_FILE_FLAGS, 0, gs_func, 0, 0, 0);
  return rc;
}
