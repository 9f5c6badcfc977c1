/*
** rewrite_edits.h: the edits argument of gguf_rewrite() and
** safetensors_rewrite() (a JSON object) read into write/edit_list.h's
** rw_edit values with SQLite's own json_each() on the caller's connection,
** so that integers are exact 64-bit numbers.  Layer: sql.
*/
#ifndef WT_REWRITE_EDITS_H
#define WT_REWRITE_EDITS_H

#include <sqlite3ext.h>
#include <stddef.h>

#include "write/edit_list.h"

/* The edits, and the memory their values hold. */
typedef struct rw_edits {
  rw_edit *e;
  size_t n, cap;
} rw_edits;

/* Read the JSON object json (NUL-terminated) into out, with json_each() on
** db: 0, or -1 with err set (not an object, a JSON error). */
int rw_edits_read(sqlite3 *db, const char *json, rw_edits *out, wt_error *err);

void rw_edits_free(rw_edits *e);

#endif
