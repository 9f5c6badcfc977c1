/*
** write_call.c: what the writers' SQL functions share (write_call.h): the
** interrupt check, the error result, the options object and whole
** numbers.  Layer: sql.
*/
#include "write_call.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
  if (c != NULL && c->interrupted)
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
  else
    wt_result_error(ctx, fn, path, msg);
}

int wt_whole_number(sqlite3_value *v, sqlite3_int64 *n) {
  double r;
  switch (sqlite3_value_numeric_type(v)) { /* text that reads as a number becomes one */
  case SQLITE_INTEGER:
    *n = sqlite3_value_int64(v);
    return 0;
  case SQLITE_FLOAT:
    r = sqlite3_value_double(v);
    if (!isfinite(r) || r != floor(r))
      return -1;
    /* 2^63 and above do not convert to a 64-bit integer: the nearest that does */
    *n = r >= 9223372036854775808.0   ? INT64_MAX
         : r < -9223372036854775808.0 ? INT64_MIN
                                      : (sqlite3_int64)r;
    return 0;
  default:
    return -1;
  }
}

/* The names of opts, for a message: "a, b and c". */
static void wt_option_names(const wt_write_option *opts, int n, char *buf, size_t size) {
  size_t at = 0;
  int k;
  buf[0] = 0;
  for (k = 0; k < n && at < size; k++) {
    const char *sep = k == 0 ? "" : k == n - 1 ? " and " : ", ";
    at += (size_t)snprintf(buf + at, size - at, "%s%s", sep, opts[k].name);
  }
}

/* Set option o from the JSON value of json_each()'s type jt. */
static int wt_option_set(wt_write_option *o, const char *jt, sqlite3_value *x, wt_error *err) {
  o->given = 1;
  if (o->is_text) {
    if (strcmp(jt, "text") != 0)
      return wt_fail(err, "option %s must be text, not %s", o->name, jt);
    snprintf(o->text, sizeof(o->text), "%s", (const char *)sqlite3_value_text(x));
    return 0;
  }
  if (strcmp(jt, "true") == 0 || strcmp(jt, "false") == 0) {
    o->i = strcmp(jt, "true") == 0;
    return 0;
  }
  if ((strcmp(jt, "integer") != 0 && strcmp(jt, "real") != 0) || wt_whole_number(x, &o->i) != 0)
    return wt_fail(err, "option %s must be a whole number, not %s", o->name,
                   (const char *)sqlite3_value_text(x));
  return 0;
}

int wt_write_options(sqlite3 *db, sqlite3_value *v, wt_write_option *opts, int n, wt_error *err) {
  sqlite3_stmt *st = NULL;
  char names[WT_ERROR_MAX / 2];
  int rc = -1, k, step;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  /* one row at least, an empty object's too: its type is checked */
  if (sqlite3_prepare_v2(db,
                         "SELECT json_type(?1), j.key, j.type, j.value "
                         "FROM (SELECT 1) LEFT JOIN json_each(?1) AS j",
                         -1, &st, NULL) != SQLITE_OK)
    return wt_fail(err, "%s", sqlite3_errmsg(db));
  sqlite3_bind_value(st, 1, v);
  wt_option_names(opts, n, names, sizeof(names));
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(st, 1);
    const char *type = (const char *)sqlite3_column_text(st, 0);
    if (type == NULL || strcmp(type, "object") != 0) {
      wt_fail(err, "the options must be a JSON object of %s", names);
      goto done;
    }
    if (key == NULL) /* {} */
      continue;
    for (k = 0; k < n && strcmp(opts[k].name, key) != 0; k++)
      ;
    if (k == n) {
      wt_fail(err, "unknown option %s (the options are %s)", key, names);
      goto done;
    }
    if (wt_option_set(&opts[k], (const char *)sqlite3_column_text(st, 2),
                      sqlite3_column_value(st, 3), err) != 0)
      goto done;
  }
  if (step != SQLITE_DONE) {
    wt_fail(err, "the options: %s", sqlite3_errmsg(db));
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}
