/*
** json_check.h: a strict RFC 8259 check of a safetensors header, done
** before cJSON builds the tree.
**
** cJSON is lenient where the reference crate (serde_json) is strict: it
** takes any byte <= 0x20 as whitespace (so NUL padding would pass), accepts
** raw control characters in strings, numbers such as 01 or +1, and keeps
** numbers only as doubles (exact to 2^53, while offsets are u64).  This
** pass rejects what serde_json rejects, with the byte offset, and records
** the text of every number and every string (keys included) in document
** order.  cJSON's tree lists them in the same order, so the k-th number
** node met in document order is nums[k], and likewise for strings.  The
** parser reads strings from their own text too, because cJSON cuts a
** string at an escaped NUL (\u0000), which the crate keeps.
*/
#ifndef WT_JSON_CHECK_H
#define WT_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* serde_json's default recursion limit: its 128th nested array or object
** is an error, so 127 levels are the most it reads. */
#define JSON_MAX_DEPTH 127

typedef struct json_span {
  size_t pos; /* offset of the token's first byte (for a string: after the quote) */
  size_t len; /* for a string: the bytes between the quotes, still escaped */
} json_span;

typedef struct json_spans {
  json_span *a; /* malloc'd */
  size_t n, cap;
} json_spans;

/* What json_check found. */
typedef struct json_tokens {
  json_spans nums;
  json_spans strs;
  int strs_escaped; /* some string has a backslash escape */
} json_tokens;

/* Check that p[0..n) is exactly one JSON value with optional whitespace
** (space, tab, LF, CR) around it.  base is added to offsets in messages.
** Returns 0, or -1 with err set.  Free with json_tokens_free() either way. */
int json_check(const char *p, size_t n, uint64_t base, json_tokens *tok, wt_error *err);

/* Free what json_check recorded. */
void json_tokens_free(json_tokens *tok);

/* Decode the escapes of a string json_check accepted: s[0..n) (between the
** quotes) into out, which has room for n bytes (decoding never grows a
** string).  Returns the decoded length. */
size_t json_unescape(const char *s, size_t n, char *out);

#endif
