/*
** hash_functions.c: whole-file hashes as SQL functions.
**
**   file_sha256(path)   the SHA-256 of the file's bytes, 64 lower-case hex
**                       digits (TEXT), as `sha256sum` prints it
**
**   SELECT file_sha256('build/demo/config.json');
**   53c3c36a90b0f9850a1b72ce39b76d3e02f1a06365fb34eefc3cda1776148030   (= sha256sum)
**
** The path is a single file, taken as it is (no directory, glob or index
** expansion).  In a Hugging Face cache the name of an LFS blob is the
** SHA-256 of its content, so `file_sha256(blob) = name` checks a download.
** The file is streamed (bytes/file_sha256.c): hashing 10 GB reads 10 GB, so
** call it only on the rows that need it.  A NULL path is an error, as for
** every file-reading function; a file that changes while it is hashed is
** an error, never a hash of mixed versions.  SQLITE_DIRECTONLY: never from
** a schema (view, trigger) of a database file.  The SQL layer.
*/
#include <string.h>

#include "hash_functions.h"
#include "functions.h"
#include "bytes/file_sha256.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* file_sha256(path): the file's SHA-256 as lower-case hex. */
static void wt_file_sha256_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *path = (const char *)sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  char hex[65];
  wt_error e;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    wt_result_error(ctx, "file_sha256", NULL, "the path argument is NULL");
    return;
  }
  if (path == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if ((size_t)n != strlen(path)) {
    wt_result_error(ctx, "file_sha256", NULL, "the path contains a NUL byte");
    return;
  }
  if (wt_sha256_file(path, hex, &e)) {
    wt_result_error(ctx, "file_sha256", path, e.msg);
    return;
  }
  sqlite3_result_text(ctx, hex, 64, SQLITE_TRANSIENT);
}

int wt_register_hash_functions(sqlite3 *db) {
  return sqlite3_create_function_v2(db, "file_sha256", 1, WT_FILE_FLAGS, NULL, wt_file_sha256_func,
                                    NULL, NULL, NULL);
}
