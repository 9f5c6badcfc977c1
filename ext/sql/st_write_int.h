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
typedef struct stw_state {
  const char *fn; /* the SQL function, for messages (NULL: safetensors_write) */
  char *out;
  stw_rows rows;
  int failed;        /* a row failed: write nothing */
  uint64_t failures; /* wt_cache_failures() at the first row */
} stw_state;

/* Free a state and its rows (NULL is fine). */
void stw_free(stw_state *s);

/* A new row of s named name (its other fields zero), or NULL with the
** error result set and s marked failed. */
stw_row *stw_push(sqlite3_context *ctx, stw_state *s, sqlite3_value *name);

/* Fill r from the tensor named name in path (any path the tables take),
** in a function registered with wt_register_one() or
** wt_register_aggregate(): 0, or -1 with the error result set and s
** marked failed. */
int stw_from_path(sqlite3_context *ctx, stw_state *s, sqlite3_value *name, sqlite3_value *path,
                  stw_row *r);

#endif
