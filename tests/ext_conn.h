/*
** ext_conn.h: what the C tests that drive the module through SQLite share
** (mmap_test.c, header_map_test.c, read_while_written_test.c): exit with a
** message, a connection with the extension loaded, the first value of a
** query as text.  Define TEST_NAME (the program's name, for messages) and
** set ext_path before using them (a test may leave some unused).
*/
#ifndef EXT_CONN_H
#define EXT_CONN_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ext_path; /* the module to load */

/* Print "TEST_NAME: what: detail" and exit with status 2. */
__attribute__((unused)) static void die(const char *what, const char *detail) {
  fprintf(stderr, TEST_NAME ": %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(2);
}

/* A connection to :memory: with the extension loaded. */
__attribute__((unused)) static sqlite3 *open_db(void) {
  sqlite3 *db;
  char *msg = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK)
    die("cannot open a connection", NULL);
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, ext_path, NULL, &msg) != SQLITE_OK)
    die("cannot load the extension", msg);
  return db;
}

/* The first column of the first row of sql (?1 = p1 when not NULL) as
** text, malloc'd; "error: MESSAGE" on an error. */
__attribute__((unused)) static char *query(sqlite3 *db, const char *sql, const char *p1) {
  sqlite3_stmt *st;
  char *out;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    die("prepare", sqlite3_errmsg(db));
  if (p1 != NULL)
    sqlite3_bind_text(st, 1, p1, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    out = strdup(v ? v : "NULL");
  } else {
    out = malloc(strlen(sqlite3_errmsg(db)) + 8);
    sprintf(out, "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return out;
}

#endif
