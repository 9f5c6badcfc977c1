/*
** edit_list.h: the metadata of a file being rewritten, as a list the edits
** of gguf_rewrite(), safetensors_rewrite() and gguf_split() change:
** entries removed, replaced, added, each value already encoded (GGUF: its
** bytes as version 3 stores them; safetensors: the string).  Pure C, no
** SQLite: the edits come as rw_edit values, a JSON object's members
** (edit_json.h reads them, exactly: 64-bit integers, strings with NULs),
** with the kinds SQLite's json_each() names.
** Layer: write (uses formats/, base/).
**
** An edit is a member of a JSON object: "key": value.
**   null                               removes the key (a key not there: nothing to do)
**   a value                            sets it; an existing GGUF key keeps its type
**   {"type": "UINT32", "value": 7}     sets it with that type (an array value:
**                                      the type of its elements)
** A new GGUF key without a type may be text (STRING), true/false (BOOL), or
** an array of either; a number needs a type.  Numbers must fit the type
** (gw_put_number()).  safetensors' __metadata__ holds strings only: a
** number is refused, not turned into text.
*/
#ifndef WT_EDIT_LIST_H
#define WT_EDIT_LIST_H

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

/* The kinds of a JSON value, as json_each() names them (rw_json_kind). */
enum {
  RW_JSON_NULL,
  RW_JSON_TRUE,
  RW_JSON_FALSE,
  RW_JSON_INTEGER,
  RW_JSON_REAL,
  RW_JSON_TEXT,
  RW_JSON_ARRAY,
  RW_JSON_OBJECT
};

/* A JSON value, as edit_json.c reads it. */
typedef struct rw_value {
  int kind;                     /* RW_JSON_* */
  const char *text;             /* its text: a string's bytes, a number's digits, an array's JSON */
  size_t n;                     /* bytes of text */
  int64_t i;                    /* as an integer (true: 1, false: 0) */
  double r;                     /* as a real */
  const struct rw_value *elems; /* ARRAY: its elements (theirs are not listed) */
  size_t n_elems;
  const char *type_name;        /* OBJECT: the text of its "type" member, or NULL */
  const struct rw_value *value; /* OBJECT: its "value" member, or NULL when absent */
} rw_value;

/* One member of the edits: a key (NUL-terminated) and its value. */
typedef struct rw_edit {
  const char *key;
  rw_value value;
} rw_edit;

/* json_each()'s name of a kind ("null", "true", "integer", "text", ...),
** and the kind of such a name (RW_JSON_NULL for one it does not know). */
const char *rw_json_kind(int kind);
int rw_json_kind_named(const char *name);

/* The entries of a parsed model (its header bytes are data), in order:
** 0, or -1 with err set. */
int rw_from_model(rw_list *l, const wt_model *m, const unsigned char *data, wt_error *err);

/* Apply the edits e[0..n) to l, in order (format: WT_FORMAT_GGUF or
** WT_FORMAT_SAFETENSORS): 0, or -1 with err set, naming the key. */
int rw_apply(rw_list *l, int format, const rw_edit *e, size_t n, wt_error *err);

/* Set key (NUL-terminated) to the integer v as a scalar of GGUF type
** type, replacing the entry where l has it, else after the others: 0, or
** -1 with err set (v does not fit the type, out of memory).  What
** gguf_split gives its split.* keys. */
int rw_set_number(rw_list *l, const char *key, uint32_t type, int64_t v, wt_error *err);

/* Entry i's key and value. */
wt_str rw_key(const rw_list *l, size_t i);
const unsigned char *rw_val(const rw_list *l, size_t i);

void rw_free(rw_list *l);

#endif
