/*
** rewrite_job.h: the jobs of gguf_rewrite() and safetensors_rewrite() (a
** model file copied with its metadata edited, tensors byte for byte; a
** split GGUF merged) and of gguf_split() (a GGUF written as the parts of a
** split model, as llama.cpp's gguf-split writes them).  Pure C, no SQLite:
** the SQL layer reads the arguments (the edits: edit_list.h), calls a job,
** and reports its error naming res->where.
** Layer: write (uses bytes/, formats/, base/).
**
** A job opens its input (bytes/source.h: any path a byte source takes,
** local or remote; every part of a split GGUF from its first), lists the
** keys and applies the edits (edit_list.h), encodes the header
** (gguf_writer.h, safetensors_writer.h) and writes, reads back and
** compares each output through write_job.h; only when every output is
** checked are they renamed into place.  Outputs are local paths, and never
** an input file unless the request allows it (overwrite: it is then still
** a new file renamed over it).
*/
#ifndef WT_REWRITE_JOB_H
#define WT_REWRITE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "edit_list.h"

/* The byte order of a rewritten GGUF: the input's, or one asked for (the
** tensors then swapped element by element where the input's differs;
** byte_swap.h says which types can be). */
enum { WT_ORDER_KEEP = 0, WT_ORDER_LITTLE, WT_ORDER_BIG };

/* A call's request. */
typedef struct wt_rewrite_req {
  const char *out;      /* the output path; gguf_split: the parts' prefix */
  const char *in;       /* the input (a split GGUF: its first part) */
  int format;           /* WT_FORMAT_GGUF or WT_FORMAT_SAFETENSORS (gguf_split: GGUF) */
  const rw_edit *edits; /* applied in order (rewrite only) */
  size_t n_edits;
  int overwrite;        /* the output may name the input */
  int byte_order;       /* rewrite of a GGUF: WT_ORDER_KEEP (the input's), _LITTLE or _BIG */
  int verify;           /* compare the tensors' bytes (gguf_split: always) */
  uint64_t max_tensors; /* gguf_split: tensors per part (0: by bytes) */
  uint64_t max_bytes;   /* gguf_split: bytes per part, tensors padded to 32 */
  /* Polled while copying (every WT_OUT_POLL bytes) and before the rename:
  ** non-zero stops the job with err set. */
  int (*interrupted)(void *ctx, wt_error *err);
  void *ctx;
} wt_rewrite_req;

/* What a call gives back. */
typedef struct wt_rewrite_res {
  uint64_t size;     /* rewrite: the output's bytes */
  int n_parts;       /* gguf_split: the parts written */
  const char *where; /* the path an error is about: the request's in or out, or bad_part */
  char *bad_part;    /* the part of a split input that could not be read (malloc'd) */
} wt_rewrite_res;

/* gguf_rewrite() and safetensors_rewrite(): 0 with res->size set, or -1
** with err set and res->where naming what it is about. */
int wt_rewrite(const wt_rewrite_req *r, wt_rewrite_res *res, wt_error *err);

/* gguf_split(): 0 with res->n_parts set, or -1 as above. */
int wt_gguf_split(const wt_rewrite_req *r, wt_rewrite_res *res, wt_error *err);

/* Free what res holds. */
void wt_rewrite_res_free(wt_rewrite_res *res);

#endif
