/*
** rewrite_edits.h: the metadata of a file being rewritten, as a list the
** edits of gguf_rewrite() and safetensors_rewrite() change: entries
** removed, replaced, added, each value already encoded (GGUF: its bytes as
** version 3 stores them; safetensors: the string).  The edits come as a
** JSON object, read with SQLite's own json_each() on the caller's
** connection, so that integers are exact 64-bit numbers.
** Layer: sql.
*/
#ifndef WT_REWRITE_EDITS_H
#define WT_REWRITE_EDITS_H

#include <sqlite3ext.h>
#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "formats/gguf_value.h"

/* One entry: offsets into the list's key and value buffers. */
typedef struct rw_entry {
  size_t key_off, key_len;
  uint32_t type; /* GGUF_TYPE_*; unused for safetensors */
  size_t val_off, val_len;
} rw_entry;

typedef struct rw_list {
  rw_entry *e;
  size_t n, cap;
  wt_buf keys, vals; /* append-only: a replaced value's old bytes stay */
} rw_list;

/* The entries of a parsed model (its header bytes are data), in order:
** 0, or -1 with err set. */
int rw_from_model(rw_list *l, const wt_model *m, const unsigned char *data, wt_error *err);

/* Apply the edits of JSON object json (NUL-terminated) to l (format:
** WT_FORMAT_GGUF or WT_FORMAT_SAFETENSORS), reading it with json_each() on
** db: 0, or -1 with err set, naming the key. */
int rw_apply(rw_list *l, int format, sqlite3 *db, const char *json, wt_error *err);

/* Entry i's key and value. */
wt_str rw_key(const rw_list *l, size_t i);
const unsigned char *rw_val(const rw_list *l, size_t i);

void rw_free(rw_list *l);

#endif
