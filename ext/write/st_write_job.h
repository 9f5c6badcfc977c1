/*
** st_write_job.h: the jobs of safetensors_write() (one new safetensors
** file from tensors given by reference or in memory) and
** safetensors_split() (a model written as a sharded checkpoint with its
** index, as transformers' save_pretrained() writes one).  Pure C, no
** SQLite: the SQL layer collects the rows (which tensor of which file, or
** a BLOB) and calls a job.
** Layer: write (uses bytes/, formats/, base/).
**
** A file is written as the safetensors crate writes one
** (safetensors_writer.h: the crate's tensor order), with the __metadata__
** entries that every safetensors file among the sources has with the same
** value (GGUF files and BLOBs carry none and are not counted; every shard of
** a split gets those of all its sources), through write_job.h: each source file is opened once and must still be
** the file its row read (device, inode, size, modification time) and not
** the output; the tensors are copied by reference, read back and compared
** (names, dtypes, shapes, places, and the XXH3-64 of every tensor's bytes
** against its source's, a BLOB byte for byte) before anything is renamed
** into place.
*/
#ifndef WT_ST_WRITE_JOB_H
#define WT_ST_WRITE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* One tensor to write and where its bytes are. */
typedef struct stw_row {
  char *name; /* NUL-terminated */
  size_t name_len;
  int dtype; /* index in the dtype table */
  int ndim;
  uint64_t *dims; /* outermost first */
  uint64_t nbytes;
  char *path; /* the file holding it (NULL for a BLOB) */
  uint64_t dev, ino, size;
  int64_t mtime_ns; /* that file's identity when the row was read */
  unsigned char *blob;
} stw_row;

/* The rows of a call, in order. */
typedef struct stw_rows {
  stw_row *v;
  size_t n, cap;
} stw_rows;

/* A new row named name[0..n) at the end of l (its other fields zero), or
** NULL when out of memory. */
stw_row *stw_rows_push(stw_rows *l, const char *name, size_t n);

/* Free the rows and what they hold. */
void stw_rows_free(stw_rows *l);

/* How a job reports an interrupt: polled while copying and before the
** rename; non-zero stops the job with err set. */
typedef struct stw_cancel {
  int (*interrupted)(void *ctx, wt_error *err);
  void *ctx;
} stw_cancel;

/* safetensors_write(): write rows[0..n) to the local file out: 0 with
** *size its bytes, or -1 with err set and out as it was. */
int wt_st_write(const char *out, const stw_row *rows, size_t n, const stw_cancel *cancel,
                uint64_t *size, wt_error *err);

/* safetensors_split(): write rows[0..n) (in order) as shards of at most
** max_shard_bytes (a larger tensor gets a shard of its own) into folder,
** made when it does not exist, with model.safetensors.index.json when
** there is more than one shard: 0 with *n_files the files written, or -1
** with err set and the folder as it was (one made by the call removed). */
int wt_st_split(const char *folder, const stw_row *rows, size_t n, uint64_t max_shard_bytes,
                const stw_cancel *cancel, int *n_files, wt_error *err);

#endif
