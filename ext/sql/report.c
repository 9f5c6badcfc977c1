/*
** report.c: weights_report(path [, path_b]), a one-page HTML report of a
** model, with inline SVG and CSS and no script.
**
**   SELECT weights_report('model.gguf');                  -- one model
**   SELECT weights_report('a.safetensors', 'b.gguf');     -- a diff (report_diff.c)
**
** This file registers the function; report_read.c reads a model (files,
** tensors, metadata and the facts of it) and gives the pages their reader
** of values; the pages are ext/report's (report_job.h: model_page.c the
** one-model page, diff_page.c the diff).
**
** Everything comes from SQL over the public tables (report.h), run on the
** calling connection.  The cost is bounded: histograms read at most
** WT_SAMPLE_VALUES values of a tensor, in WT_SAMPLE_WINDOWS evenly spaced
** windows of tensor_values(path, name, start, count) (sample.h), and the
** page says so.  Every name and metadata string is HTML-escaped.
** Layer: sql (the pages are ext/report's).
*/
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "report.h"
#include "report_read.h"

SQLITE_EXTENSION_INIT3

/* weights_report(path) and weights_report(path_a, path_b). */
static void wt_report_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  wt_report r;
  wt_report_sql sql;
  wt_rmodel a, b;
  const char *pa = (const char *)sqlite3_value_text(argv[0]);
  const char *pb = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
  int rc;
  memset(&r, 0, sizeof(r));
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  wt_report_sql_init(&r, &sql, sqlite3_context_db_handle(ctx));
  if (pa == NULL || (argc > 1 && pb == NULL)) {
    sqlite3_result_error(ctx, "weights_report(): the path argument is NULL", -1);
    return;
  }
  rc = wt_report_model(&r, pa, &a);
  if (rc == 0 && argc > 1)
    rc = wt_report_model(&r, pb, &b);
  else if (rc == 0)
    rc = wt_report_metadata(&r, &a);
  if (rc == 0)
    rc = argc > 1 ? wt_report_diff(&r, &a, &b) : wt_report_one(&r, &a);
  if (rc == 0 && r.out.oom)
    rc = wt_report_fail(&r, "out of memory");
  if (rc == 0) {
    sqlite3_result_text64(ctx, r.out.p, r.out.n, free, SQLITE_UTF8);
    r.out.p = NULL;
  } else if (r.err == NULL) {
    sqlite3_result_error_nomem(ctx);
  } else {
    char *msg = sqlite3_mprintf("weights_report(): %s", r.err);
    sqlite3_result_error(ctx, msg ? msg : r.err, -1);
    sqlite3_free(msg);
  }
  wt_report_sql_free(&sql);
  free(r.err);
  wt_html_free(&r.out);
  wt_report_model_free(&a);
  wt_report_model_free(&b);
}

int wt_register_report(sqlite3 *db) {
  int rc = sqlite3_create_function_v2(db, "weights_report", 1, WT_FILE_FLAGS, NULL, wt_report_func,
                                      NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "weights_report", 2, WT_FILE_FLAGS, NULL, wt_report_func,
                                    NULL, NULL, NULL);
  return rc;
}
