/*
** interrupt.c: sqlite3_interrupt() reaches a remote transfer in progress.
** See interrupt.h.  The SQL layer.
*/
#include "interrupt.h"

#include "remote/http.h"

SQLITE_EXTENSION_INIT3

typedef int (*wt_is_interrupted_fn)(sqlite3 *);

/* sqlite3_is_interrupted of the SQLite that loaded the module, or NULL
** when it is older than 3.41. */
static wt_is_interrupted_fn wt_is_interrupted(void) {
  if (sqlite3_libversion_number() < 3041000)
    return NULL;
  return *(const wt_is_interrupted_fn *)(const void *)(&sqlite3_api->value_encoding + 1);
}

/* The cancel test given to remote/http.c: is the connection interrupted? */
static int wt_db_interrupted(void *db) {
  wt_is_interrupted_fn fn = wt_is_interrupted();
  return fn != NULL && fn(db);
}

void wt_watch_interrupt(sqlite3 *db) {
  wt_http_set_cancel(wt_is_interrupted() != NULL ? wt_db_interrupted : NULL, db);
}

int wt_interrupted(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int rc;
  if (wt_db_interrupted(db))
    return 1;
  /* before 3.41: the VDBE checks the flag when a statement starts */
  rc = sqlite3_prepare_v2(db, "SELECT 1", -1, &st, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_INTERRUPT;
}
