/*
** gguf_value.c: GGUF metadata value types, reading of single values, and
** rendering of whole arrays as JSON.  See gguf_value.h.
** Layer: formats (pure C; uses base/).
**
** Everything here works on a value that gguf_parse() has already walked,
** through a cursor that never reads past the value's end: the checks are
** repeated (cheaply) so that a bad wt_meta cannot cause a read out of
** bounds.  Numbers are stored in the file's byte order; a cursor swaps
** them when the file and the host disagree.  Strings are length-prefixed
** (u32 in version 1, u64 later), not NUL-terminated, and may hold any
** bytes: UTF-8 is checked only here, when a value is read or rendered.
**
** JSON output (RFC 8259): integers exactly (UINT64 too), FLOAT32 with
** "%.9g" and FLOAT64 with "%.17g" (both round-trip), NaN and infinities as
** null, BOOL as true/false (any non-zero byte is true, as in ggml), strings
** escaped with invalid UTF-8 bytes replaced by U+FFFD, one replacement per
** byte.  A 128k-token array renders with one or two allocations.  Most
** tokens are plain ASCII and two-byte UTF-8 sequences: such a string is
** checked without a branch per byte (branches on token bytes mispredict)
** and copied whole; any other goes run by run (see gv_json_string()).
*/
#include "gguf_value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "byte_load.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GV_HOST_BE 1
#else
#define GV_HOST_BE 0
#endif

/* Upper bound of the first allocation made from a value's length; a
** larger result grows by doubling. */
#define GV_RESERVE_MAX ((size_t)64 << 20)

/* Elements rendered between two capacity checks of a numeric array. */
#define GV_CHUNK 1024

/* Room kept free after a string's JSON, so that a short run of bytes
** copies as one fixed-size block. */
#define GV_SLACK 16

/* Decimal digits of the largest uint64_t, 18446744073709551615. */
#define GV_U64_DIGITS 20

/* =============================== Type table =============================== */

/* Type table: name and element size, indexed by GGUF_TYPE_*. */
static const struct {
  const char *name;
  uint32_t size;
} gv_types[GGUF_TYPE_COUNT] = {
    {"UINT8", 1},  {"INT8", 1},    {"UINT16", 2},  {"INT16", 2},  {"UINT32", 4},
    {"INT32", 4},  {"FLOAT32", 4}, {"BOOL", 1},    {"STRING", 0}, {"ARRAY", 0},
    {"UINT64", 8}, {"INT64", 8},   {"FLOAT64", 8},
};

const char *gguf_type_name(uint32_t t) {
  return t < GGUF_TYPE_COUNT ? gv_types[t].name : NULL;
}

uint32_t gguf_type_size(uint32_t t) {
  return t < GGUF_TYPE_COUNT ? gv_types[t].size : 0;
}

/* ============================= Reading values ============================= */

/* True when the cursor's numbers must be byte-swapped on this host. */
static inline int gv_swap(const gguf_cursor *c) {
  return (c->big_endian != 0) != GV_HOST_BE;
}

/* Bytes left before the cursor's end (0 if it is already past it). */
static inline uint64_t gv_left(const gguf_cursor *c) {
  return c->pos < c->end ? c->end - c->pos : 0;
}

void gguf_cursor_init(gguf_cursor *c, const wt_model *m, const unsigned char *data,
                      const wt_meta *kv) {
  c->data = data;
  c->pos = kv->value_pos;
  c->end = kv->value_pos + kv->value_len;
  if (c->end < c->pos || c->end > m->file_size)
    c->end = c->pos; /* not from this model: every read fails */
  c->big_endian = m->big_endian;
  c->version = m->version;
}

/* Read a string's length and bytes; *s points into the file. */
static int gv_read_string(gguf_cursor *c, wt_str *s) {
  unsigned lensz = c->version == 1 ? 4 : 8;
  const unsigned char *p = c->data + c->pos;
  uint64_t len;
  if (gv_left(c) < lensz)
    return -1;
  len = lensz == 4 ? wt_load32(p, gv_swap(c)) : wt_load64(p, gv_swap(c));
  if (len > gv_left(c) - lensz || len > SIZE_MAX)
    return -1;
  s->p = (const char *)p + lensz;
  s->n = (size_t)len;
  c->pos += lensz + len;
  return 0;
}

int gguf_read_scalar(gguf_cursor *c, uint32_t t, gguf_scalar *out) {
  uint32_t size = gguf_type_size(t);
  const unsigned char *p = c->data + c->pos;
  int swap = gv_swap(c);
  memset(out, 0, sizeof(*out));
  if (t == GGUF_TYPE_STRING) {
    if (gv_read_string(c, &out->s) != 0)
      return -1;
    out->kind = GGUF_SCALAR_TEXT;
    out->s_utf8 = wt_utf8_valid(out->s.p, out->s.n);
    return 0;
  }
  if (size == 0 || gv_left(c) < size)
    return -1; /* ARRAY, an invalid type, or past the end */
  out->kind = GGUF_SCALAR_INT;
  switch (t) {
  case GGUF_TYPE_UINT8:
    out->i = p[0];
    break;
  case GGUF_TYPE_INT8:
    out->i = (int8_t)p[0];
    break;
  case GGUF_TYPE_BOOL:
    out->i = p[0] != 0; /* K8: any non-zero byte is true */
    break;
  case GGUF_TYPE_UINT16:
    out->i = wt_load16(p, swap);
    break;
  case GGUF_TYPE_INT16:
    out->i = (int16_t)wt_load16(p, swap);
    break;
  case GGUF_TYPE_UINT32:
    out->i = wt_load32(p, swap);
    break;
  case GGUF_TYPE_INT32:
    out->i = (int32_t)wt_load32(p, swap);
    break;
  case GGUF_TYPE_INT64:
    out->i = (int64_t)wt_load64(p, swap);
    break;
  case GGUF_TYPE_UINT64:
    out->u = wt_load64(p, swap);
    if (out->u > INT64_MAX)
      out->kind = GGUF_SCALAR_BIGUINT;
    else
      out->i = (int64_t)out->u;
    break;
  case GGUF_TYPE_FLOAT32: {
    uint32_t bits = wt_load32(p, swap);
    float f;
    memcpy(&f, &bits, 4);
    out->kind = GGUF_SCALAR_REAL;
    out->r = f;
    break;
  }
  case GGUF_TYPE_FLOAT64: {
    uint64_t bits = wt_load64(p, swap);
    memcpy(&out->r, &bits, 8);
    out->kind = GGUF_SCALAR_REAL;
    break;
  }
  }
  c->pos += size;
  return 0;
}

/* ============================= Output buffer ============================== */

/* Grow b so that extra more bytes fit: doubling, at least 64 bytes. */
static int gv_buf_grow(wt_buf *b, size_t extra) {
  size_t need, cap;
  char *p;
  if (b->oom || extra > SIZE_MAX - b->n)
    goto oom;
  need = b->n + extra;
  cap = b->cap < 64 ? 64 : b->cap;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  p = realloc(b->p, cap);
  if (p == NULL)
    goto oom;
  b->p = p;
  b->cap = cap;
  return 0;
oom:
  b->oom = 1;
  return -1;
}

/* Make room for extra more bytes. */
static inline int gv_buf_reserve(wt_buf *b, size_t extra) {
  if (!b->oom && b->cap - b->n >= extra)
    return 0;
  return gv_buf_grow(b, extra);
}

/* =========================== Rendering numbers ============================ */

/* Write v in decimal at o; returns the end. */
static inline char *gv_utoa(char *o, uint64_t v) {
  char tmp[GV_U64_DIGITS];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    *o++ = tmp[--n];
  return o;
}

/* Write a signed v in decimal at o; returns the end. */
static inline char *gv_itoa(char *o, int64_t v) {
  if (v < 0) {
    *o++ = '-';
    return gv_utoa(o, 0 - (uint64_t)v);
  }
  return gv_utoa(o, (uint64_t)v);
}

/* Write a double with the given %g precision, or null; returns the end.
** At least 32 bytes must be free at o. */
static char *gv_dtoa(char *o, double d, int prec) {
  int n, i;
  if (!isfinite(d)) {
    memcpy(o, "null", 4);
    return o + 4;
  }
  /* Integral values that %g prints in full (fewer than prec digits): the
  ** same text, without snprintf.  Tokenizer scores are often ranks. */
  if (fabs(d) < (prec == 9 ? 1e9 : 1e17) && d == (double)(int64_t)d && (d != 0 || !signbit(d)))
    return gv_itoa(o, (int64_t)d);
  n = snprintf(o, 32, "%.*g", prec, d);
  if (n < 0 || n > 31)
    n = 0;
  for (i = 0; i < n; i++)
    if (o[i] == ',')
      o[i] = '.'; /* a host application's LC_NUMERIC must not leak into JSON */
  return o + n;
}

/* Longest JSON text of one element of a fixed-size type, with its comma. */
static size_t gv_max_width(uint32_t t) {
  switch (t) {
  case GGUF_TYPE_UINT8:
  case GGUF_TYPE_INT8:
  case GGUF_TYPE_UINT16:
  case GGUF_TYPE_INT16:
  case GGUF_TYPE_BOOL:
    return 8;
  case GGUF_TYPE_UINT32:
  case GGUF_TYPE_INT32:
    return 13;
  case GGUF_TYPE_UINT64:
  case GGUF_TYPE_INT64:
    return 22;
  default:
    return 33; /* floats: 31 + NUL room for snprintf + comma */
  }
}

/* Render count elements of fixed-size type t starting at p. */
static int gv_render_numbers(wt_buf *b, const unsigned char *p, uint64_t count, uint32_t t,
                             int swap) {
  size_t w = gv_max_width(t), size = gguf_type_size(t);
  uint64_t i = 0;
  while (i < count) {
    uint64_t k, chunk = count - i < GV_CHUNK ? count - i : GV_CHUNK;
    char *o;
    if (gv_buf_reserve(b, (size_t)chunk * w) != 0)
      return -1;
    o = b->p + b->n;
    for (k = 0; k < chunk; k++, i++, p += size) {
      if (i > 0)
        *o++ = ',';
      switch (t) {
      case GGUF_TYPE_UINT8:
        o = gv_utoa(o, p[0]);
        break;
      case GGUF_TYPE_INT8:
        o = gv_itoa(o, (int8_t)p[0]);
        break;
      case GGUF_TYPE_BOOL:
        memcpy(o, p[0] ? "true" : "false", p[0] ? 4 : 5);
        o += p[0] ? 4 : 5;
        break;
      case GGUF_TYPE_UINT16:
        o = gv_utoa(o, wt_load16(p, swap));
        break;
      case GGUF_TYPE_INT16:
        o = gv_itoa(o, (int16_t)wt_load16(p, swap));
        break;
      case GGUF_TYPE_UINT32:
        o = gv_utoa(o, wt_load32(p, swap));
        break;
      case GGUF_TYPE_INT32:
        o = gv_itoa(o, (int32_t)wt_load32(p, swap));
        break;
      case GGUF_TYPE_UINT64:
        o = gv_utoa(o, wt_load64(p, swap));
        break;
      case GGUF_TYPE_INT64:
        o = gv_itoa(o, (int64_t)wt_load64(p, swap));
        break;
      case GGUF_TYPE_FLOAT32: {
        uint32_t bits = wt_load32(p, swap);
        float f;
        memcpy(&f, &bits, 4);
        o = gv_dtoa(o, f, 9);
        break;
      }
      case GGUF_TYPE_FLOAT64: {
        uint64_t bits = wt_load64(p, swap);
        double d;
        memcpy(&d, &bits, 8);
        o = gv_dtoa(o, d, 17);
        break;
      }
      }
    }
    b->n = (size_t)(o - b->p);
  }
  return 0;
}

/* =========================== Rendering strings ============================ */

/* Byte classes for JSON strings.  Bit 0: wrong where no lead byte comes
** just before (a continuation byte, a byte to escape, a byte that starts
** a longer or invalid sequence); bit 1: wrong just after a lead byte
** (anything but a continuation byte); bit 2: the lead byte of a two-byte
** sequence (C2..DF).  GV_PLAIN: ASCII that JSON holds as it is. */
#define GV_PLAIN 2
static const unsigned char gv_class[256] = {
    [0x00 ... 0x1f] = 3, [0x20 ... 0x21] = GV_PLAIN,
    ['"'] = 3,           [0x23 ... 0x5b] = GV_PLAIN,
    ['\\'] = 3,          [0x5d ... 0x7f] = GV_PLAIN,
    [0x80 ... 0xbf] = 1, [0xc0 ... 0xc1] = 3,
    [0xc2 ... 0xdf] = 6, [0xe0 ... 0xff] = 3,
};

/* True when s[0..n) is plain ASCII and valid two-byte sequences only, as
** most tokens are, so that JSON holds it as it is.  Classifies every byte
** without a branch on it: on tokens a branch per byte mispredicts more
** than the work it skips. */
static inline int gv_simple(const unsigned char *s, size_t n) {
  unsigned bad = 0, lead = 0; /* lead: the byte before is a lead byte */
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned c = gv_class[s[i]];
    bad |= c >> lead; /* bit 0 or bit 1 of c, as lead says */
    lead = c >> 2;
  }
  return ((bad | lead) & 1) == 0;
}

/* Length of the valid UTF-8 sequence at s (n > 0 bytes available, s[0]
** not ASCII), or 0 if there is none: the checks of wt_utf8_char(),
** inline. */
static inline size_t gv_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0], lo, hi;
  size_t k;
  if (c >= 0xc2 && c <= 0xdf)
    return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    k = 3;
    lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong forms */
    hi = c == 0xed ? 0x9f : 0xbf; /* no surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    k = 4;
    lo = c == 0xf0 ? 0x90 : 0x80; /* no overlong forms */
    hi = c == 0xf4 ? 0x8f : 0xbf; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if (n < k || s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
    return 0;
  return k == 3 || (s[3] & 0xc0) == 0x80 ? k : 0;
}

/* Length of the longest prefix of s[0..n) that JSON holds as it is:
** plain ASCII and valid UTF-8 sequences. */
static size_t gv_plain_run(const unsigned char *s, size_t n) {
  const unsigned char *p = s, *end = s + n;
  size_t k;
  while (p < end) {
    if (gv_class[*p] == GV_PLAIN)
      p++;
    else if (*p >= 0x80 && (k = gv_utf8_len(p, (size_t)(end - p))) != 0)
      p += k;
    else
      break;
  }
  return (size_t)(p - s);
}

/* Write the JSON form of byte c, where gv_plain_run() stopped: an escape,
** or U+FFFD for a byte that starts no valid UTF-8 sequence.  Returns the
** end; at most 6 bytes. */
static char *gv_escape(char *o, unsigned c) {
  static const char hex[] = "0123456789abcdef";
  if (c >= 0x80) {
    memcpy(o, "\xef\xbf\xbd", 3);
    return o + 3;
  }
  *o++ = '\\';
  switch (c) {
  case '"':
  case '\\':
    *o++ = (char)c;
    break;
  case '\b':
    *o++ = 'b';
    break;
  case '\f':
    *o++ = 'f';
    break;
  case '\n':
    *o++ = 'n';
    break;
  case '\r':
    *o++ = 'r';
    break;
  case '\t':
    *o++ = 't';
    break;
  default:
    memcpy(o, "u00", 3);
    o[3] = hex[c >> 4];
    o[4] = hex[c & 15];
    o += 5;
  }
  return o;
}

/* Copy n bytes from s to o.  Up to GV_SLACK bytes move as one block of
** GV_SLACK (no call, no branch on n) when avail >= GV_SLACK bytes may be
** read at s; o must have room for GV_SLACK bytes. */
static inline void gv_copy(char *o, const unsigned char *s, size_t n, size_t avail) {
  if (n <= GV_SLACK && avail >= GV_SLACK)
    memcpy(o, s, GV_SLACK);
  else
    memcpy(o, s, n);
}

/* Append s[0..n) as a JSON string, after a comma if comma is set; avail
** >= n bytes may be read at s.  A token that needs no change is one copy;
** otherwise copy each run that needs none, escape the byte after it, and
** go on. */
static int gv_json_string(wt_buf *b, const unsigned char *s, size_t n, size_t avail, int comma) {
  size_t i = 0, run;
  char *o;
  if (gv_buf_reserve(b, n + 3 + GV_SLACK) != 0) /* enough unless something grows */
    return -1;
  o = b->p + b->n;
  if (comma)
    *o++ = ',';
  *o++ = '"';
  if (gv_simple(s, n)) {
    gv_copy(o, s, n, avail);
    o += n;
    i = n;
  }
  while (i < n) {
    run = gv_plain_run(s + i, n - i);
    gv_copy(o, s + i, run, avail - i);
    o += run;
    i += run;
    if (i == n)
      break;
    /* This byte grows (to at most 6): room for it, the rest and a quote. */
    b->n = (size_t)(o - b->p);
    if (gv_buf_reserve(b, (n - i) + 8 + GV_SLACK) != 0)
      return -1;
    o = gv_escape(b->p + b->n, s[i++]);
  }
  *o++ = '"';
  b->n = (size_t)(o - b->p);
  return 0;
}

/* Render count strings starting at the cursor.  Reads each length as
** gv_read_string() does, with the width and byte order looked up once. */
static int gv_render_strings(wt_buf *b, gguf_cursor *c, uint64_t count) {
  unsigned lensz = c->version == 1 ? 4 : 8;
  int swap = gv_swap(c);
  const unsigned char *p = c->data + c->pos;
  uint64_t i, len, left = gv_left(c);
  for (i = 0; i < count; i++) {
    if (left < lensz)
      return -1;
    len = lensz == 4 ? wt_load32(p, swap) : wt_load64(p, swap);
    p += lensz;
    left -= lensz;
    if (len > left || left > SIZE_MAX)
      return -1;
    if (gv_json_string(b, p, (size_t)len, (size_t)left, i > 0) != 0)
      return -1;
    p += len;
    left -= len;
  }
  c->pos = (uint64_t)(p - c->data);
  return 0;
}

/* ============================ Rendering arrays ============================ */

int gguf_render_array_json(const wt_model *m, const unsigned char *data, const wt_meta *kv,
                           wt_buf *buf) {
  gguf_cursor c;
  uint64_t count = kv->count, guess;
  uint32_t t = kv->elem_type, size = gguf_type_size(t);
  if (kv->type != GGUF_TYPE_ARRAY)
    return -1;
  gguf_cursor_init(&c, m, data, kv);
  if (t == GGUF_TYPE_STRING) {
    /* The string bytes, plus quotes and a comma each: exact without escapes. */
    unsigned lensz = c.version == 1 ? 4 : 8;
    if (count > gv_left(&c) / lensz)
      return -1;
    guess = gv_left(&c) - count * lensz + count * 3 + 2 + GV_SLACK;
  } else {
    if (size == 0 || count > gv_left(&c) / size)
      return -1;
    guess = count > GV_RESERVE_MAX ? GV_RESERVE_MAX : count * gv_max_width(t) + 2;
  }
  if (gv_buf_reserve(buf, guess < GV_RESERVE_MAX ? (size_t)guess : GV_RESERVE_MAX) != 0)
    return -1;
  buf->p[buf->n++] = '[';
  if (t == GGUF_TYPE_STRING) {
    if (gv_render_strings(buf, &c, count) != 0)
      return -1;
  } else if (gv_render_numbers(buf, data + c.pos, count, t, gv_swap(&c)) != 0) {
    return -1;
  }
  if (gv_buf_reserve(buf, 1) != 0)
    return -1;
  buf->p[buf->n++] = ']';
  return 0;
}
