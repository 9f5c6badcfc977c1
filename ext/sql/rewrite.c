/*
** rewrite.c: gguf_rewrite() and safetensors_rewrite(), SQL functions that
** write a copy of a model file with its metadata edited and every tensor
** byte for byte.  Layer: sql.
**
**   SELECT gguf_rewrite('fixed.gguf', 'model.gguf',
**     json_object('tokenizer.chat_template', CAST(readfile('t.jinja') AS TEXT),
**                 'general.name', 'My model',
**                 'quantize.imatrix.file', NULL));           -- NULL removes a key
**   SELECT safetensors_rewrite('out.safetensors', 'in.safetensors',
**                              json_object('format', 'pt'));
**
** Arguments: the output path, the input (local or remote), the edits (a JSON
** object, read by write/edit_json.c, applied by write/edit_list.c; NULL:
** none) and optionally options as a JSON
** object: "overwrite": 1 lets the output name the input file (it is then
** still a new file renamed over it), "verify": 0 skips the comparison of
** the tensors' bytes.  Returns the output's size in bytes.
**
** What is written, and how it is checked, is the job's
** (write/rewrite_job.h: the input's keys edited, the tensors byte for
** byte, a split GGUF merged; written through write/write_job.h, read back
** and compared before it is renamed into place).  This file reads the
** arguments, calls the job and reports its error.  Output paths are local:
** a remote one is refused.
*/
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "interrupt.h"
#include "write/edit_json.h"
#include "write/rewrite_job.h"
#include "write_call.h"

SQLITE_EXTENSION_INIT3

/* Read the options argument v (a JSON object or NULL) into r. */
static int rw_options(sqlite3 *db, sqlite3_value *v, wt_rewrite_req *r, wt_error *err) {
  wt_write_option o[] = {
      {.name = "overwrite"}, {.name = "verify"}, {.name = "byte_order", .is_text = 1}};
  if (wt_write_options(db, v, o, WT_N_OPTIONS(o), err) != 0)
    return -1;
  r->overwrite = o[0].given && o[0].i != 0;
  r->verify = !o[1].given || o[1].i != 0;
  r->byte_order = WT_ORDER_KEEP;
  if (o[2].given && strcmp(o[2].text, "little") == 0)
    r->byte_order = WT_ORDER_LITTLE;
  else if (o[2].given && strcmp(o[2].text, "big") == 0)
    r->byte_order = WT_ORDER_BIG;
  else if (o[2].given)
    return wt_fail(err, "byte_order must be 'little' or 'big', not '%s'", o[2].text);
  return 0;
}

/* gguf_rewrite(out, in, edits [, options]) and safetensors_rewrite(...). */
static void rw_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *out = (const char *)sqlite3_value_text(argv[0]);
  const char *in = (const char *)sqlite3_value_text(argv[1]);
  const char *edits = (const char *)sqlite3_value_text(argv[2]);
  wt_write_call call = {sqlite3_context_db_handle(ctx), 0};
  wt_rewrite_req r;
  wt_rewrite_res res;
  rw_edits e = {0};
  wt_error err;
  memset(&r, 0, sizeof(r));
  memset(&res, 0, sizeof(res));
  r.format = *(const int *)sqlite3_user_data(ctx);
  r.out = out;
  r.in = in;
  r.interrupted = wt_write_call_interrupted;
  r.ctx = &call;
  res.where = out;
  wt_watch_interrupt(call.db);
  if (out == NULL || in == NULL) {
    wt_fail(&err, "the output and input paths may not be NULL");
    goto fail;
  }
  if (rw_options(call.db, argc > 3 ? argv[3] : NULL, &r, &err) != 0 ||
      (edits != NULL && rw_edits_parse(edits, (size_t)sqlite3_value_bytes(argv[2]), &e, &err) != 0))
    goto fail;
  r.edits = e.e;
  r.n_edits = e.n;
  if (wt_rewrite(&r, &res, &err) != 0)
    goto fail;
  sqlite3_result_int64(ctx, (sqlite3_int64)res.size);
  goto done;
fail:
  wt_write_call_error(ctx, &call,
                      r.format == WT_FORMAT_GGUF ? "gguf_rewrite" : "safetensors_rewrite",
                      res.where, err.msg);
done:
  rw_edits_free(&e);
  wt_rewrite_res_free(&res);
}

int wt_register_rewrite(sqlite3 *db) {
  static const int gguf = WT_FORMAT_GGUF, st = WT_FORMAT_SAFETENSORS;
  int rc = SQLITE_OK, n;
  for (n = 3; n <= 4 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function_v2(db, "gguf_rewrite", n, WT_FILE_FLAGS, (void *)&gguf, rw_func, 0,
                                    0, 0);
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "safetensors_rewrite", n, WT_FILE_FLAGS, (void *)&st,
                                      rw_func, 0, 0, 0);
  }
  return rc;
}
