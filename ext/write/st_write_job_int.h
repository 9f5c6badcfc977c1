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
#include "st_write_job.h"

/* A source file opened for a file, by path. */
typedef struct swr_open {
  const char *path;
  wt_source *src;
} swr_open;

/* One output under way: the file and the sources opened for it. */
typedef struct swr_job {
  const swr_cancel *cancel;
  wt_out out;
  swr_open *open;
  size_t n_open;
} swr_job;

/* Start a job (j->out closed, nothing opened) that cancel interrupts. */
void swr_job_init(swr_job *j, const swr_cancel *cancel);

/* Write rows[0..n) to a temporary file for path (j->out), read it back and
** compare it: 0 (then wt_out_commit(&j->out) puts it in place), or -1 with
** err set. */
int swr_prepare(swr_job *j, const char *path, const swr_row *rows, size_t n, wt_error *err);

/* Release what a job holds (its temporary file removed if not committed). */
void swr_job_free(swr_job *j);

#endif
