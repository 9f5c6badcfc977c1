/*
** write_call.c: the interrupt check and the error result of the writers'
** SQL functions (write_call.h).  Layer: sql.
*/
#include "write_call.h"

#include "interrupt.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

int wt_write_call_interrupted(void *ctx, wt_error *err) {
  wt_write_call *c = ctx;
  if (!wt_interrupted(c->db))
    return 0;
  c->interrupted = 1;
  wt_fail(err, "interrupted");
  return 1;
}

void wt_write_call_error(sqlite3_context *ctx, const wt_write_call *c, const char *fn,
                         const char *path, const char *msg) {
  char *z;
  if (c != NULL && c->interrupted) {
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    return;
  }
  z = wt_error_message(fn, path, msg);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, z, -1);
  sqlite3_free(z);
}
