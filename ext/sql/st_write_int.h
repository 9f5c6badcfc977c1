/*
** st_write_int.h: what safetensors_write() (st_write.c) shares with
** safetensors_split() (st_split.c): rows that say where each tensor's
** bytes are, and a file of them written, read back and compared, but not
** yet renamed into place.  Layer: sql.
*/
#ifndef WT_ST_WRITE_INT_H
#define WT_ST_WRITE_INT_H

#include <sqlite3ext.h>
#include <stdint.h>

#include "bytes/source.h"
#include "write/out_file.h"

/* One row: a tensor and where its bytes are. */
typedef struct swr_row {
  char *name;
  size_t name_len;
  int dtype; /* index in the dtype table */
  int ndim;
  uint64_t *dims;
  uint64_t nbytes;
  char *path; /* the file holding it (NULL for a BLOB) */
  uint64_t dev, ino, size;
  int64_t mtime_ns; /* that file's identity when the row was read */
  unsigned char *blob;
} swr_row;

/* The aggregate's state (its aggregate context holds a pointer to it). */
typedef struct swr_state {
  const char *fn; /* the SQL function, for messages (NULL: safetensors_write) */
  char *out;
  swr_row *rows;
  size_t n, cap;
  int failed;        /* a row failed: write nothing */
  uint64_t failures; /* wt_cache_failures() at the first row */
} swr_state;

/* An opened source file of the final step, by path. */
typedef struct swr_open {
  const char *path;
  wt_source *src;
} swr_open;

/* The final step's state: the output and the sources opened. */
typedef struct swr_job {
  sqlite3 *db;
  int interrupted;
  wt_out out;
  swr_open *open;
  size_t n_open;
} swr_job;

/* Free a state and its rows (NULL is fine). */
void swr_free(swr_state *s);

/* A new row of s named name (its other fields zero), or NULL with the
** error result set and s marked failed. */
swr_row *swr_push(sqlite3_context *ctx, swr_state *s, sqlite3_value *name);

/* Fill r from the tensor named name in path (any path the tables take),
** in a function registered with wt_register_one() or
** wt_register_aggregate(): 0, or -1 with the error result set and s
** marked failed. */
int swr_from_path(sqlite3_context *ctx, swr_state *s, sqlite3_value *name, sqlite3_value *path,
                  swr_row *r);

/* Write the file of the rows of s to j->out's temporary file, read it
** back and compare it: 0 (then wt_out_commit(&j->out) puts it in place),
** or -1 with err set.  j is zeroed with j->db set and out.fd, out.dirfd -1. */
int swr_prepare(swr_job *j, const swr_state *s, wt_error *err);

/* Release what a job holds (its temporary file removed if not committed). */
void swr_job_free(swr_job *j);

#endif
