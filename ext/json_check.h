/*
** json_check.h: a strict RFC 8259 check of a safetensors header, done
** before cJSON builds the tree.
**
** cJSON is lenient where the reference crate (serde_json) is strict: it
** takes any byte <= 0x20 as whitespace (so NUL padding would pass), accepts
** raw control characters in strings, numbers such as 01 or +1, and keeps
** numbers only as doubles (exact to 2^53, while offsets are u64).  This
** pass rejects what serde_json rejects, with the byte offset, and records
** the text of every number in document order.  cJSON's tree lists values
** in the same order, so the k-th number node met in document order is
** nums[k].
*/
#ifndef WT_JSON_CHECK_H
#define WT_JSON_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* serde_json's default recursion limit. */
#define JSON_MAX_DEPTH 128

typedef struct json_span {
  size_t pos; /* offset of the number's first byte in the checked text */
  size_t len;
} json_span;

typedef struct json_numbers {
  json_span *a; /* malloc'd */
  size_t n, cap;
} json_numbers;

/* Check that p[0..n) is exactly one JSON value with optional whitespace
** (space, tab, LF, CR) around it.  base is added to offsets in messages.
** Returns 0, or -1 with err set.  Free nums->a with free() either way. */
int json_check(const char *p, size_t n, uint64_t base, json_numbers *nums, wt_error *err);

#endif
