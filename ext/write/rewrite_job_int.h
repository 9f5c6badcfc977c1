/*
** rewrite_job_int.h: what gguf_rewrite()'s job (rewrite_job.c) shares
** with gguf_split()'s (gguf_split_job.c): a call's input (every part of
** it) and a GGUF written from a list of keys and a slice of the input's
** tensors, read back and compared, not yet renamed into place.
** Layer: write (not for other layers).
*/
#ifndef WT_REWRITE_JOB_INT_H
#define WT_REWRITE_JOB_INT_H

#include "bytes/source.h"
#include "edit_list.h"
#include "out_file.h"
#include "rewrite_job.h"

/* A tensor of the input and the part that holds it. */
typedef struct rw_tsrc {
  const wt_source *src;
  const wt_tensor *t;
} rw_tsrc;

/* One call's input. */
typedef struct rw_job {
  const wt_rewrite_req *req;
  wt_source *src;    /* the input, opened for this call (a split GGUF's first part) */
  wt_source **parts; /* every part of the input (src alone for one file) */
  int n_parts;
  rw_tsrc *ts; /* the tensors to write, in order, with their files */
  size_t n_ts;
  int whole;  /* ts is src's tensors in their order (the data section may be copied whole) */
  int verify; /* compare the tensors' bytes */
  int be;     /* GGUF: the output is big-endian (a tensor of an input of the other order is
              ** swapped element by element, byte_swap.h) */
} rw_job;

/* Open the input named in as format (a split GGUF: every part, from its
** first), listing the tensors in j->ts: 0, or -1 with err set and
** res->where naming the input or the part that could not be read. */
int rw_open_input(rw_job *j, const char *in, int format, wt_rewrite_res *res, wt_error *err);

/* Write a GGUF of the keys l and the tensors ts[0..n_ts) of the input to
** a temporary file for path (out), read it back and compare it (whole: ts
** is the input's tensors in their order): 0, then wt_out_commit(out) puts
** it in place, or -1 with err set. */
int rw_gguf(const rw_job *j, const rw_tsrc *ts, size_t n_ts, int whole, const char *path,
            const rw_list *l, wt_out *out, wt_error *err);

/* Release the parts and the tensor list. */
void rw_job_free(rw_job *j);

#endif
