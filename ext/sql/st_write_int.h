/*
** st_write_int.h: what safetensors_write() (st_write.c) shares with
** safetensors_split() (st_split.c): the rows that say where each tensor's
** bytes are, collected from SQL arguments; the files are written by the
** jobs of write/st_write_job.h.  Layer: sql.
*/
#ifndef WT_ST_WRITE_INT_H
#define WT_ST_WRITE_INT_H

#include <sqlite3ext.h>
#include <stdint.h>

#include "write/st_write_job.h"

/* The aggregate's state (its aggregate context holds a pointer to it). */
typedef struct swr_state {
  const char *fn; /* the SQL function, for messages (NULL: safetensors_write) */
  char *out;
  swr_rows rows;
  int failed;        /* a row failed: write nothing */
  uint64_t failures; /* wt_cache_failures() at the first row */
} swr_state;

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

#endif
