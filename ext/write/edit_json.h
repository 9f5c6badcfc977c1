/*
** edit_json.h: the edits argument of gguf_rewrite() and
** safetensors_rewrite(), a JSON object, read into edit_list.h's rw_edit
** values.  Pure C, no SQLite.
** Layer: write (uses formats/, base/).
**
** The text is parsed with formats/json_check (strict RFC 8259, one pass):
** numbers are read from their own digits, exactly (an integer that a
** 64-bit integer holds is one; any other number is a double), and strings
** are decoded whole, so that "a\u0000b" is the three bytes a, NUL, b.
** (SQLite's json_each(), which read them before, gives "a" for it on
** SQLite 3.40: its JSON functions stop at a NUL.)  A key holding a NUL
** byte is refused.
*/
#ifndef WT_EDIT_JSON_H
#define WT_EDIT_JSON_H

#include <stddef.h>

#include "base/model.h"
#include "edit_list.h"

/* The edits of a call, and the memory their keys and values hold. */
typedef struct rw_edits {
  rw_edit *e;
  size_t n, cap;
} rw_edits;

/* Read text[0..n), a JSON object, into out (its members in order): 0, or
** -1 with err set (not JSON, not an object, not UTF-8, a key with a NUL).
** Free out with rw_edits_free() either way. */
int rw_edits_parse(const char *text, size_t n, rw_edits *out, wt_error *err);

void rw_edits_free(rw_edits *e);

#endif
