/*
** report_job.h: the pages of weights_report(), assembled from a model
** already read: the one-model page (model_page.c: which tensors to sample,
** their histograms, the bars, the metadata, every tensor) and the diff
** page (diff_page.c: which tensors pair up, through the name map, which
** samples to compare, q/k rows un-permuted, the heatmaps and lists).
** Pure C, no SQLite and no file access: the caller (sql/report*.c) reads
** the model's files, tensors and metadata into a wt_rmodel, and hands in
** a function that reads a window of a tensor's values (for the SQL layer,
** tensor_values() on the caller's connection), the one way a page reaches
** tensor bytes.  The cost is bounded: at most WT_SAMPLE_VALUES values of
** a tensor, in WT_SAMPLE_WINDOWS evenly spaced windows (sample.h).
** Layer: report (uses decode/, formats/, base/).
*/
#ifndef WT_REPORT_JOB_H
#define WT_REPORT_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "html.h"

/* One tensor of a model, as tensors(path) lists it. */
typedef struct wt_rtensor {
  char *name, *dtype, *shape; /* dtype may be NULL */
  int64_t numel, nbytes, rows;
  int layer, kind; /* names.h */
} wt_rtensor;

/* One metadata entry as the page shows it: value NULL when it has none,
** or when it is not UTF-8 text (blob_bytes then says how long it is). */
typedef struct wt_rmeta {
  char *key, *type, *value;
  int64_t blob_bytes;
} wt_rmeta;

/* One model: its files, tensors, metadata and the facts of it. */
typedef struct wt_rmodel {
  const char *path;
  char *format; /* "safetensors", "gguf", or "mixed" */
  int n_files;
  int64_t file_bytes;
  wt_rtensor *t;
  int n;
  wt_rmeta *meta; /* the one-model page's metadata section (NULL: none read) */
  int n_meta;
  char *arch, *name; /* general.architecture, general.name (GGUF) */
  int64_t ctx_len;   /* context length, 0 when unknown */
  int64_t vocab;     /* vocabulary size, 0 when unknown */
  int64_t n_head;    /* attention heads, 0 when unknown */
  int64_t n_head_kv; /* key/value heads, 0 when unknown */
} wt_rmodel;

typedef struct wt_report wt_report;

/* Read count values of tensor name of the model at path from flat index
** start into v (NaN for a value that is NULL): the number read, or -1
** after wt_report_fail(r, ...) says why. */
typedef int64_t (*wt_report_values_fn)(wt_report *r, const char *path, const char *name,
                                       int64_t start, int64_t count, double *v);

/* One report under way. */
struct wt_report {
  wt_html out;                /* the page */
  wt_report_values_fn values; /* the caller's reader of values, with its ctx */
  void *ctx;
  const char *version; /* the footer's version of sqlite-weights */
  char *err; /* the first error (malloc'd), or NULL */
};

/* Record an error (printf-style) unless one is recorded; returns -1.
** Out of memory records nothing (r->err stays NULL: the caller says so). */
int wt_report_fail(wt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write the report of model m into r->out.  0, or -1 (error recorded). */
int wt_report_one(wt_report *r, const wt_rmodel *m);

/* Write the diff report of a against b into r->out.  0, or -1 (error
** recorded). */
int wt_report_diff(wt_report *r, const wt_rmodel *a, const wt_rmodel *b);

/* What the pages share: a printf into a new malloc'd string (NULL when out
** of memory); qsort's comparison of ints; the label of a layer group
** ("layer 3", "embedding", "output", "other"), in WT_LABEL_SIZE bytes. */
char *wt_report_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int wt_report_cmp_int(const void *a, const void *b);
void wt_report_layer_label(int layer, char *out, size_t n);

#define WT_LABEL_SIZE 32

#endif
