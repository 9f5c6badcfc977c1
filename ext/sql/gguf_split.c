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
  wt_write_option o[] = {{.name = "max_tensors"}, {.name = "max_bytes"}};
  r->max_tensors = GS_MAX_TENSORS;
  r->max_bytes = 0;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  if (wt_write_options(db, v, o, WT_N_OPTIONS(o), err) != 0)
    return -1;
  if (o[0].given == o[1].given)
    return wt_fail(err, "the limits are a JSON object of one of max_tensors and max_bytes");
  if ((o[0].given && o[0].i <= 0) || (o[1].given && o[1].i <= 0))
    return wt_fail(err, "the limit must be positive");
  r->max_tensors = o[0].given ? (uint64_t)o[0].i : 0;
  r->max_bytes = o[1].given ? (uint64_t)o[1].i : 0;
  return 0;
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
