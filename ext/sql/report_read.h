/*
** report_read.h: what the pages of weights_report() share (report_read.c):
** a report call's state and errors, the queries it runs on the caller's
** connection, and a model as read through the public tables (its files,
** tensors and the facts of its metadata).  Used by report_model.c and
** report_diff.c; it calls neither.  Layer: sql.
*/
#ifndef WT_REPORT_READ_H
#define WT_REPORT_READ_H

#include <sqlite3ext.h>

#include "report/html.h"

/* One tensor of a model, as tensors(path) lists it. */
typedef struct wt_rtensor {
  char *name, *dtype, *shape; /* dtype may be NULL */
  sqlite3_int64 numel, nbytes, rows;
  int layer, kind; /* names.h */
} wt_rtensor;

/* What one report call holds. */
typedef struct wt_report {
  sqlite3_context *ctx;
  sqlite3 *db;
  wt_html out;
  sqlite3_stmt *values; /* SELECT value FROM tensor_values(?, ?, ?, ?) */
  char *err;            /* the first error (sqlite3_malloc), or NULL */
} wt_report;

/* One model: its files, tensors and the facts of its metadata. */
typedef struct wt_rmodel {
  const char *path;
  char *format; /* "safetensors", "gguf", or "mixed" */
  int n_files;
  sqlite3_int64 file_bytes;
  wt_rtensor *t;
  int n;
  char *arch, *name;       /* general.architecture, general.name (GGUF) */
  sqlite3_int64 ctx_len;   /* context length, 0 when unknown */
  sqlite3_int64 vocab;     /* vocabulary size, 0 when unknown */
  sqlite3_int64 n_head;    /* attention heads, 0 when unknown */
  sqlite3_int64 n_head_kv; /* key/value heads, 0 when unknown */
} wt_rmodel;

/* Record an error (printf-style) unless one is recorded; returns -1. */
int wt_report_fail(wt_report *r, const char *fmt, ...);

/* Prepare sql on the report's connection, binding ?1 to path.  NULL on
** error (recorded). */
sqlite3_stmt *wt_report_query(wt_report *r, const char *sql, const char *path);

/* Step q: 1 for a row, 0 at the end (q finalized), -1 on error (recorded,
** q finalized). */
int wt_report_step(wt_report *r, sqlite3_stmt *q);

/* Read the model at path (files, tensors, metadata facts).  0 or -1. */
int wt_report_model(wt_report *r, const char *path, wt_rmodel *m);
void wt_report_model_free(wt_rmodel *m);

/* Read count values of tensor name at flat index start into v (NaN for
** NULL).  Returns the number read, or -1 on error (recorded). */
sqlite3_int64 wt_report_values(wt_report *r, const char *path, const char *name,
                               sqlite3_int64 start, sqlite3_int64 count, double *v);

/* qsort comparison of ints. */
int wt_report_cmp_int(const void *a, const void *b);

/* The label of a layer group: "layer 3", "embedding", "output", "other". */
void wt_report_layer_label(int layer, char *out, size_t n);

/* Room for a layer group's label. */
#define WT_LABEL_SIZE 32

#endif
