/*
** gguf_value.h: GGUF metadata value types, and reading and rendering of
** values that gguf_parse() has already validated.  Pure C, no SQLite.
*/
#ifndef WT_GGUF_VALUE_H
#define WT_GGUF_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

enum {
  GGUF_TYPE_UINT8 = 0,
  GGUF_TYPE_INT8 = 1,
  GGUF_TYPE_UINT16 = 2,
  GGUF_TYPE_INT16 = 3,
  GGUF_TYPE_UINT32 = 4,
  GGUF_TYPE_INT32 = 5,
  GGUF_TYPE_FLOAT32 = 6,
  GGUF_TYPE_BOOL = 7,
  GGUF_TYPE_STRING = 8,
  GGUF_TYPE_ARRAY = 9,
  GGUF_TYPE_UINT64 = 10,
  GGUF_TYPE_INT64 = 11,
  GGUF_TYPE_FLOAT64 = 12,
  GGUF_TYPE_COUNT = 13
};

/* "UINT8" ... "FLOAT64", "BOOL", "STRING", "ARRAY"; NULL if t >= GGUF_TYPE_COUNT. */
const char *gguf_type_name(uint32_t t);

/* Bytes of one element of a fixed-size type; 0 for STRING, ARRAY, invalid. */
uint32_t gguf_type_size(uint32_t t);

/* A decoded scalar, as SQL will show it. */
enum {
  GGUF_SCALAR_INT = 1, /* i: every integer type and BOOL (0/1), UINT64 <= INT64_MAX */
  GGUF_SCALAR_BIGUINT, /* u: a UINT64 above INT64_MAX */
  GGUF_SCALAR_REAL,    /* r: FLOAT32, FLOAT64 */
  GGUF_SCALAR_TEXT     /* s: STRING; s_utf8 says whether s is valid UTF-8 */
};

typedef struct gguf_scalar {
  int kind;
  int64_t i;
  uint64_t u;
  double r;
  wt_str s;
  int s_utf8;
} gguf_scalar;

/* Reads consecutive values of one model's file. */
typedef struct gguf_cursor {
  const unsigned char *data; /* the header bytes (source.h) */
  uint64_t pos;              /* next byte to read */
  uint64_t end;              /* reads never go past this */
  int big_endian;
  uint32_t version; /* 1: string lengths are u32 */
} gguf_cursor;

/* Start a cursor at the value of kv (for an array: at its first element). */
void gguf_cursor_init(gguf_cursor *c, const wt_model *m, const unsigned char *data,
                      const wt_meta *kv);

/* Read one value of scalar type t (not ARRAY) and advance.  Returns 0, or
** -1 if it would read past c->end. */
int gguf_read_scalar(gguf_cursor *c, uint32_t t, gguf_scalar *out);

/* Growable output buffer (malloc'd).  Free p with free(). */
typedef struct wt_buf {
  char *p;
  size_t n, cap;
  int oom;
} wt_buf;

/* Render an ARRAY value as JSON text into buf: numbers as JSON numbers
** (UINT64 exactly, floats with enough digits to round-trip, NaN and
** infinities as null), BOOL as true/false, strings JSON-escaped (invalid
** UTF-8 bytes become U+FFFD).  Returns 0, or -1 on OOM or a bad value. */
int gguf_render_array_json(const wt_model *m, const unsigned char *data, const wt_meta *kv,
                           wt_buf *buf);

#endif
