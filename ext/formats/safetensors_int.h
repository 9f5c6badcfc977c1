/*
** safetensors_int.h: what the two files of the safetensors parser share
** (not for other layers): safetensors_parser.c, the driver (the header
** length, the tokens, the walk of the root object, the repeated names and
** the data offsets), calls down to safetensors_entries.c (messages, and
** the reading of `__metadata__` and of each tensor's entry), which never
** calls it.  Layer: formats.
*/
#ifndef WT_SAFETENSORS_INT_H
#define WT_SAFETENSORS_INT_H

#include <stdint.h>
#include <string.h>

#include "base/model.h"
#include "json_check.h"

/* Parsing state: the model being built and the header's tokens. */
typedef struct st_parse {
  const unsigned char *data;
  uint64_t size;      /* the file's size */
  uint64_t avail;     /* bytes of the file in data (<= size) */
  uint64_t need;      /* set when the header runs past avail: 8 + N */
  const char *header; /* data + 8 */
  uint64_t n;         /* header length */
  json_doc doc;       /* the header's tokens (json_check.h) */
  wt_model *m;
  wt_str dup_tensor; /* a tensor name that appeared more than once */
  int last_dtype;    /* index of the dtype found last, or -1 */
  wt_error *err;
} st_parse;

/* Quote a name for a message (only ever on the error path). */
#define ST_Q(buf, s) wt_quote(buf, sizeof(buf), (s).p, (s).n)

/* Marks the functions that build a message: kept out of the checks that
** call them, so that those stay small. */
#define ST_ERROR_PATH __attribute__((cold))

/* Bytes that wt_sniff_describe() looks at (its longest prefix, "version
** https://git-lfs", is 23 bytes). */
#define ST_SNIFF_BYTES 32

/* Room for a quoted name, dtype or shape in a message (wt_quote cuts a
** longer one). */
#define ST_QUOTE_SIZE 160

/* Room for a clause of a message that is written before the message. */
#define ST_NOTE_SIZE 200

/* Token i of the header. */
static inline const json_token *st_tok(const st_parse *p, size_t i) {
  return &p->doc.tok[i];
}

/* The index of the token after value i and its subtree. */
static inline size_t st_after(const st_parse *p, size_t i) {
  return st_tok(p, i)->next;
}

/* True when s holds exactly the C string z. */
static inline int st_is(wt_str s, const char *z) {
  return s.n == strlen(z) && memcmp(s.p, z, s.n) == 0;
}

/* safetensors_entries.c: fail with msg, adding " (this looks like ...)"
** when the bytes are a known non-safetensors file (or asking for the
** bytes that says so: p->need); string token i decoded; a token's type
** for messages; fail with "tensor 'name'" and the rest (printf-style); the
** `__metadata__` object at token i; tensor t's entry at token i. */
int st_fail_lookalike(st_parse *p, const char *msg);
int st_str(st_parse *p, size_t i, wt_str *out);
const char *st_json_type(const json_token *t);
ST_ERROR_PATH int st_tensor_fail(st_parse *p, wt_str name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int st_metadata(st_parse *p, size_t i);
int st_tensor(st_parse *p, size_t i, wt_tensor *t);

#endif
