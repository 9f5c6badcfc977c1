/*
** rewrite_int.h: what gguf_rewrite() (rewrite.c) shares with gguf_split()
** (gguf_split.c): a call's input (every part of it) and output, and a GGUF
** written from a list of keys and of tensors, read back and compared, not
** yet renamed into place.  Layer: sql.
*/
#ifndef WT_REWRITE_INT_H
#define WT_REWRITE_INT_H

#include <sqlite3ext.h>

#include "bytes/source.h"
#include "rewrite_edits.h"
#include "write/out_file.h"

/* A tensor of the input and the part that holds it. */
typedef struct rw_tsrc {
  const wt_source *src;
  const wt_tensor *t;
} rw_tsrc;

/* One call: its arguments and the output under way. */
typedef struct rw_job {
  const char *fn;    /* the function's name, for messages */
  sqlite3 *db;       /* the caller's connection (json_each, interrupts) */
  wt_source *src;    /* the input, opened for this call (a split GGUF's first part) */
  wt_source **parts; /* every part of the input (src alone for one file) */
  int n_parts;
  rw_tsrc *ts; /* the tensors to write, in order, with their files */
  size_t n_ts;
  int whole;       /* ts is src's tensors in their order (the data section may be copied whole) */
  int overwrite;   /* the output may name the input */
  int verify;      /* compare the tensors' bytes */
  int interrupted; /* sqlite3_interrupt() stopped the copy */
  char
      *bad_part; /* the part of a split input that could not be read (malloc'd): the error's file */
  wt_out out;
} rw_job;

/* Read the options argument v (a JSON object or NULL) into j. */
int rw_options(rw_job *j, sqlite3_value *v, wt_error *err);

/* Open every part of the input named in (j->src, opened, is its first
** part) and list their tensors in j->ts. */
int rw_open_parts(rw_job *j, const char *in, wt_error *err);

/* Write a GGUF of the keys l and the tensors j->ts to a temporary file for
** path (j->out), read it back and compare it: 0 (then
** wt_out_commit(&j->out) puts it in place), or -1 with err set. */
int rw_gguf(rw_job *j, const char *path, const rw_list *l, wt_error *err);

/* Set the error result: "fn(): path: msg" (the part that could not be
** read, when that was the error), or SQLITE_INTERRUPT. */
void rw_error(sqlite3_context *ctx, const rw_job *j, const char *path, const char *msg);

/* Release the parts, the tensor list and an uncommitted output. */
void rw_job_free(rw_job *j);

#endif
