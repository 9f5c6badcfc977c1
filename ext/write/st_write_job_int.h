/*
** st_write_job_int.h: what safetensors_write()'s job (st_write_job.c)
** shares with safetensors_split()'s (st_split_job.c): a file of rows
** written, read back and compared, not yet renamed into place.
** Layer: write (not for other layers).
*/
#ifndef WT_ST_WRITE_JOB_INT_H
#define WT_ST_WRITE_JOB_INT_H

#include "bytes/source.h"
#include "out_file.h"
#include "safetensors_writer.h"
#include "st_write_job.h"

/* A source file opened for a file, by path. */
typedef struct stw_open {
  const char *path;
  wt_source *src;
} stw_open;

/* One output under way: the file and the sources opened for it. */
typedef struct stw_job {
  const stw_cancel *cancel;
  wt_out out;
  stw_open *open;
  size_t n_open;
} stw_job;

/* The __metadata__ a file gets (pointing into the sources that hold it). */
typedef struct stw_meta {
  sw_meta *v; /* malloc'd */
  size_t n;
} stw_meta;

/* Start a job (j->out closed, nothing opened) that cancel interrupts. */
void stw_job_init(stw_job *j, const stw_cancel *cancel);

/* Open the sources of rows[0..n) in j (none of them the file out, when
** out is not NULL) and set *m to the __metadata__ entries that every
** safetensors file among them has with the same value, in the first one's
** order (GGUF files and BLOBs have none and are not counted; no
** safetensors source, no entry): 0, or -1 with err set.  Free m->v. */
int stw_agreed_meta(stw_job *j, const stw_row *rows, size_t n, const char *out, stw_meta *m,
                    wt_error *err);

/* Write rows[0..n) with the metadata m to a temporary file for path
** (j->out), read it back and compare it: 0 (then wt_out_commit(&j->out)
** puts it in place), or -1 with err set. */
int stw_prepare(stw_job *j, const char *path, const stw_row *rows, size_t n, const stw_meta *m,
                wt_error *err);

/* Release what a job holds (its temporary file removed if not committed). */
void stw_job_free(stw_job *j);

#endif
