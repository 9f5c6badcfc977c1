/*
** write_call.h: what the SQL functions of the writers (rewrite.c,
** gguf_split.c, st_write.c, st_split.c) share around the job they call
** (write/write_job.h): the interrupt check given to the job, and the
** error result of a job that failed.  Layer: sql.
*/
#ifndef WT_WRITE_CALL_H
#define WT_WRITE_CALL_H

#include <sqlite3ext.h>

#include "base/model.h"

/* One call's connection, and whether its job was interrupted. */
typedef struct wt_write_call {
  sqlite3 *db;
  int interrupted;
} wt_write_call;

/* The interrupt check of a job (ctx: a wt_write_call): 1, with err set
** and the call marked interrupted, when sqlite3_interrupt() was called on
** its connection. */
int wt_write_call_interrupted(void *ctx, wt_error *err);

/* Set the error result of a call whose job failed: SQLITE_INTERRUPT when
** it was interrupted, else "fn(): path: msg" (path may be NULL). */
void wt_write_call_error(sqlite3_context *ctx, const wt_write_call *c, const char *fn,
                         const char *path, const char *msg);

#endif
