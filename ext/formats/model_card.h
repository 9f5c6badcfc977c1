/*
** model_card.h: one key of a Hugging Face model card's front matter (the
** YAML block at the top of README.md, between a line "---" and the next
** "---" or "..."), read as a string or a list of strings, as the Hub reads
** base_model.  Pure C, no SQLite; paths/model_card_file.c finds and reads
** the file.  Layer: formats.
**
** A strict subset of YAML 1.2, enough for the keys the Hub documents for
** model cards:
**
**   base_model: org/name          a plain scalar (to a " #" comment)
**   base_model: "org/name"        double-quoted (escapes \" \\ \/ \t \n)
**   base_model: 'org/name'        single-quoted ('' is one quote)
**   base_model: [org/a, "org/b"]  a flow list, on one line
**   base_model:                   a block list: its items "- value" on the
**   - org/a                       lines after it, indented or not (all
**   - org/b                       alike)
**   base_model: null              no value (as ~, or a key with no item)
**
** Anything else as the key's value is an error that says what it is: a
** nested mapping, a block scalar (| or >), an anchor, alias or tag, a flow
** mapping, a list in a list, a flow list or quoted string over several
** lines, a key that repeats; so is a front matter that does not end.  The
** lines of other keys are skipped whatever they hold (a line that starts
** with a space, a tab or "-" belongs to the key above it).  Values are
** valid UTF-8 without control characters, at most WT_CARD_MAX_ITEMS of
** them.  A card that does not start with "---" (after a UTF-8 BOM) has no
** front matter: no value, no error.
*/
#ifndef WT_MODEL_CARD_H
#define WT_MODEL_CARD_H

#include <stddef.h>

#include "base/model.h"

/* The most items a key's list may hold. */
#define WT_CARD_MAX_ITEMS 64

/* The value of top-level key `key` in the front matter of card p[0..n):
** 0 with *count items (0: no front matter, no such key, or null), written
** into out (cap bytes) one after the other, each NUL-terminated; -1 with
** err set ("model card line N: ...") when the front matter is not in the
** subset above where it matters, or the items do not fit in out. */
int wt_card_values(const char *p, size_t n, const char *key, char *out, size_t cap, size_t *count,
                   wt_error *err);

#endif
