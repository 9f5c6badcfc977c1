/*
** source.h: a model file opened and parsed: the mapping plus the parser's
** description.  Tables and functions get one with wt_source_open() and give
** it back with wt_source_release().  No SQLite here.
*/
#ifndef WT_SOURCE_H
#define WT_SOURCE_H

#include <stddef.h>

#include "mapped_file.h"
#include "base/model.h"

typedef struct wt_source {
  int refs;
  char *path; /* NUL-terminated copy */
  size_t path_len;
  wt_file file;
  wt_model model;
} wt_source;

/* Open path (n bytes) and parse it as format (WT_FORMAT_*; 0 = detect from
** the content).  Returns 0 with *out set, or -1 with err set. */
int wt_source_open(const char *path, size_t n, int format, wt_source **out, wt_error *err);

/* Drop a reference; the last one unmaps and frees. */
void wt_source_release(wt_source *s);

/* The tensor named p[0..n), or NULL. */
const wt_tensor *wt_source_find_tensor(const wt_source *s, const char *p, size_t n);

/* Why tensor t's byte size is unknown (t->nbytes_known == 0), as a
** sentence naming the tensor and its type, written into buf. */
const char *wt_tensor_unknown_size(const wt_tensor *t, char *buf, size_t size);

/* The metadata entry with key p[0..n), or NULL. */
const wt_meta *wt_source_find_meta(const wt_source *s, const char *p, size_t n);

/* Memory a source's parsed description takes, plus its header bytes: what
** a cache counts against its bound. */
uint64_t wt_source_bytes(const wt_source *s);

/* The name of a format: "safetensors", "gguf". */
const char *wt_format_name(int format);

#endif
