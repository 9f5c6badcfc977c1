/*
** json_check.h: a strict RFC 8259 parser for a safetensors header, in
** one pass, into a flat array of tokens.
** Layer: formats (pure C; uses base/).
**
** serde_json, which the safetensors Rust crate uses, is strict: whitespace is
** space, tab, LF and CR only (so NUL padding fails), strings may not hold
** raw control characters, numbers such as 01 or +1 are refused, and
** nesting stops at 127 levels.  json_parse() refuses the same, with the
** byte offset, and lists the values in document order as tokens that
** point at their own text, so that numbers can be read exactly (offsets
** are u64) and strings keep an escaped NUL (\u0000).
**
** The tokens are laid out jsmn-style: a value is followed by the tokens of
** its subtree.  An object's members are a key (a string token) then the
** value's tokens.  Each token records the index just past its subtree, so
** a value that the caller ignores is stepped over in O(1).
*/
#ifndef WT_JSON_CHECK_H
#define WT_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* serde_json's default recursion limit: its 128th nested array or object
** is an error, so 127 levels are the most it reads. */
#define JSON_MAX_DEPTH 127

/* The longest text json_parse() takes (token offsets are 32-bit). */
#define JSON_MAX_TEXT 0xfffffffeU

/* What a token is. */
typedef enum json_type {
  JSON_NULL,
  JSON_BOOL,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
} json_type;

/* One value (or an object's key). */
typedef struct json_token {
  uint32_t pos;    /* offset of the first byte (for a string: after the quote) */
  uint32_t len;    /* number, string: bytes of text (a string's between the quotes, still
                      escaped); array: elements; object: members */
  uint32_t next;   /* index of the first token after this one's subtree */
  uint8_t type;    /* json_type */
  uint8_t escaped; /* string: holds a backslash escape */
} json_token;

/* What json_parse() found: tok[0] is the root value. */
typedef struct json_doc {
  json_token *tok; /* malloc'd */
  size_t n, cap;
} json_doc;

/* Parse p[0..n): exactly one JSON value with optional whitespace (space,
** tab, LF, CR) around it.  base is added to offsets in messages.  Returns
** 0, or -1 with err set.  Free with json_doc_free() either way. */
int json_parse(const char *p, size_t n, uint64_t base, json_doc *doc, wt_error *err);

/* The part of a json_parse() message after its "invalid JSON in header "
** ("at byte N: what"), for a caller whose text is not a header. */
const char *json_error_detail(const char *msg);

/* Free what json_parse() recorded. */
void json_doc_free(json_doc *doc);

/* Decode the escapes of a string json_parse() accepted: s[0..n) (between
** the quotes) into out, which has room for n bytes (decoding never grows
** a string).  Returns the decoded length. */
size_t json_unescape(const char *s, size_t n, char *out);

#endif
