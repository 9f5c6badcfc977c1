/*
** report_read.h: a model read for weights_report() through the public
** tables on the caller's connection (report_read.c): its files, tensors,
** metadata and the facts of it, into report/report_job.h's wt_rmodel, and
** the reader of tensor values the pages sample with.  Layer: sql.
*/
#ifndef WT_REPORT_READ_H
#define WT_REPORT_READ_H

#include <sqlite3ext.h>

#include "report/report_job.h"

/* What the SQL side of a report holds: the caller's connection and the
** statement that reads values. */
typedef struct wt_report_sql {
  sqlite3 *db;
  sqlite3_stmt *values; /* SELECT value FROM tensor_values(?, ?, ?, ?) */
} wt_report_sql;

/* Make r read through s on db (r->values: tensor_values()), with this
** build's version in its footer. */
void wt_report_sql_init(wt_report *r, wt_report_sql *s, sqlite3 *db);
void wt_report_sql_free(wt_report_sql *s);

/* Read the model at path (files, tensors, metadata facts).  0 or -1
** (error recorded in r). */
int wt_report_model(wt_report *r, const char *path, wt_rmodel *m);

/* Read the metadata of m for the one-model page.  0 or -1. */
int wt_report_metadata(wt_report *r, wt_rmodel *m);

void wt_report_model_free(wt_rmodel *m);

#endif
