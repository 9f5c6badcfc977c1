/*
** gguf_parser.c: turn the header of a GGUF file into a validated wt_model.
** Pure C, no SQLite.  See gguf_parser.h, and the project's GGUF reference
** note for the format (section 1) and ggml's checks (section 3.1).
** Layer: formats (pure C; uses base/).
**
** Layout read here (v2/v3; in v1 every length, count and dimension marked
** "len" is a u32 instead of a u64):
**
**   "GGUF"  u32 version  len tensor_count  len kv_count
**   kv_count x   { len key_length, key bytes, u32 type, value }
**   tensor_count x { len name_length, name bytes, u32 n_dims,
**                    len ne[n_dims], u32 ggml_type, u64 offset }
**   padding to general.alignment (only when tensor_count > 0)
**   tensor data
**
** A value is a fixed-size number, a string (len + bytes), or an array
** (u32 element type, len count, elements back to back).  A file whose
** version field reads with its low 16 bits zero is byte-swapped
** (big-endian): every number of the header, the KVs and the tensor infos
** is swapped; tensor data is never touched here.
**
** Checks: every check of ggml's reader (gguf.cpp, checklist H1-H4, K1-K8,
** A1-A2, T1-T9, D1 in the reference note) and llama.cpp's file-bounds
** check (F1), with these differences:
**
**   - versions 1 and 2 and big-endian files are read, not rejected;
**   - all arithmetic is checked (no GGML_PAD wrap, no element-count guard
**     that a zero or negative product skips);
**   - every length and count is checked against the bytes left in the
**     file before anything is allocated, and the tensor and KV counts are
**     bounded by the file size before their arrays are allocated, so a
**     tiny file claiming a billion entries fails at once;
**   - duplicate keys and tensor names are found by sorting (n log n), after
**     the KVs (resp. tensor infos) have been read;
**   - tensor type ids that the table does not know (forks, newer ggml) and
**     removed ids without a known size do not fail the file: the tensor's
**     size is unknown (nbytes_known = 0).  Removed ids that had an on-disk
**     layout (Q4_0_4_4 ...) get their historical size.
**
** Offset policy.  ggml requires tensors to be stored densely, in tensor-info
** order (D2).  The GGUF spec only requires each offset to be a multiple of
** the alignment; this parser accepts what the spec allows:
**
**   - a tensor whose size is known must start at a multiple of the
**     alignment, lie entirely inside the file (data_offset + offset +
**     nbytes <= file size; ggml itself accepts truncated files), and not
**     overlap another known-size tensor; tensors may come in any order and
**     with any gaps;
**   - zero-size tensors may sit at any aligned offset within the file;
**   - a tensor of unknown size is only checked to start within the file.
**
** The data section starts at the end of the tensor infos rounded up to the
** alignment when there is at least one tensor (it must not be past the end
** of the file), else right at the end of the tensor infos: vocab-only files
** end after the last KV without padding.
**
** Speed: one pass over the bytes, no copies (keys, names and values point
** into the header bytes), no allocation per KV or per array element, and no
** UTF-8 validation (values are checked when they are rendered).  Arrays of
** strings are skipped by a tight loop that reads a length, checks it, and
** jumps.
**
** Errors: one sentence naming the KV or tensor (index from 0, quoted name),
** the byte where the offending field starts, and the numbers involved.
*/
#include "gguf_parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml_type.h"
#include "gguf_value.h"
#include "base/utf8.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GG_HOST_BE 1
#else
#define GG_HOST_BE 0
#endif

#define GG_MAX_STRING ((uint64_t)1 << 30) /* ggml GGUF_MAX_STRING_LENGTH */
#define GG_MAX_ARRAY  ((uint64_t)1 << 30) /* ggml GGUF_MAX_ARRAY_ELEMENTS */
#define GG_MAX_DIMS   4                   /* ggml GGML_MAX_DIMS */
#define GG_MAX_NAME   63                  /* ggml GGML_MAX_NAME - 1 */
#define GG_ALIGNMENT  32                  /* ggml GGUF_DEFAULT_ALIGNMENT */
#define GG_QUOTE_SIZE WT_QUOTE_SIZE

/* Typical sizes, for the estimate of a header's end (gg_estimate): a
** key-value pair with a key of 26 bytes and a 4-byte value, a tensor info
** with a name of 22 bytes and 2 dimensions (Llama-3's "blk.31.ffn_down.weight"). */
#define GG_TYPICAL_KV     48
#define GG_TYPICAL_TENSOR 64

#define U(x) ((unsigned long long)(x))

/* What is being read, for messages. */
enum { GG_HEADER, GG_KV, GG_TENSOR };

/* The parser's state: the bytes, a cursor, the byte order and width of
** lengths, and the item being read. */
typedef struct gg_parser {
  const unsigned char *d;
  uint64_t size;  /* the file's size: every check and message is against it */
  uint64_t avail; /* bytes of the file in d (<= size) */
  uint64_t need;  /* set when a read went past avail: the bytes to ask for */
  uint64_t pos;   /* always <= size */
  int swap;       /* numbers must be byte-swapped on this host */
  unsigned len;   /* width of lengths, counts and dims: 4 in v1, else 8 */
  wt_model *m;
  wt_error *err;
  int kind;       /* GG_HEADER, GG_KV or GG_TENSOR */
  uint64_t index; /* of the KV or tensor */
  wt_str name;    /* its key or name once read (p == NULL before) */
  /* for the estimate of where the header ends (gg_estimate) */
  uint64_t kv_left, tensors_left; /* items after the one being read */
  uint64_t item_end;              /* where the item being read ends, estimated (0: unknown) */
  /* where a parse of a prefix stopped, so that the next goes on from there */
  int stage;                /* GG_STAGE_* */
  uint64_t i;               /* the key-value pair or tensor the stage is at */
  uint64_t n_kv, n_tensors; /* the counts, once read */
  uint64_t *dims;           /* the tensors' dimensions, once allocated */
  uint64_t arr_start;       /* an array of strings stopped in: its first element's byte, */
  uint64_t arr_i, arr_pos;  /* and the element and byte it stopped at (arr_i 0: none) */
} gg_parser;

/* The stages of a parse. */
enum { GG_STAGE_HEADER, GG_STAGE_KVS, GG_STAGE_TENSORS };

/* ---- Messages --------------------------------------------------------- */

/* Name the item being read: "kv #3 'general.name'", "tensor #0", or ""
** for the header. */
static const char *gg_label(const gg_parser *g, char *buf, size_t size) {
  char q[GG_QUOTE_SIZE];
  const char *kind = g->kind == GG_KV ? "kv" : "tensor";
  if (g->kind == GG_HEADER)
    buf[0] = 0;
  else if (g->name.p == NULL)
    snprintf(buf, size, "%s #%llu", kind, U(g->index));
  else
    snprintf(buf, size, "%s #%llu %s", kind, U(g->index),
             wt_quote(q, sizeof(q), g->name.p, g->name.n));
  return buf;
}

/* Fail with "<item> at byte <at>: <message>". */
__attribute__((format(printf, 3, 4))) static int gg_fail(gg_parser *g, uint64_t at, const char *fmt,
                                                         ...) {
  char label[GG_QUOTE_SIZE + 32], msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  wt_fail(g->err, "%s at byte %llu: %s", gg_label(g, label, sizeof(label)), U(at), msg);
  return -1; /* visibly, so that callers' outputs are known to be set on 0 */
}

/* Fail with "truncated: <item> <what> at byte <at> runs past the end of
** the file (<size> bytes)". */
__attribute__((format(printf, 3, 4))) static int gg_truncated(gg_parser *g, uint64_t at,
                                                              const char *fmt, ...) {
  char label[GG_QUOTE_SIZE + 32], what[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  gg_label(g, label, sizeof(label));
  wt_fail(g->err, "truncated: %s%s%s at byte %llu runs past the end of the file (%llu bytes)",
          label, label[0] ? " " : "", what, U(at), U(g->size));
  return -1;
}

/* Fail because an allocation failed. */
static int gg_oom(gg_parser *g, const char *what, uint64_t n) {
  return wt_fail(g->err, "out of memory allocating %s for %llu entries", what, U(n));
}

/* ---- Reading numbers -------------------------------------------------- */

/* 0 when the first end bytes of the file are in memory; else -1 with
** g->need set, so that the caller reads more and parses again.  Every
** byte the parser looks at goes through here (after the checks against
** the file size), so a parse of a prefix fails the same way as a parse
** of the whole file, or asks for more. */
static int gg_need(gg_parser *g, uint64_t end) {
  if (end <= g->avail)
    return 0;
  g->need = end;
  return -1;
}

static inline uint32_t gg_get32(const unsigned char *p, int swap) {
  uint32_t v;
  memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t gg_get64(const unsigned char *p, int swap) {
  uint64_t v;
  memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}

/* Read the u32 field what at the cursor. */
static int gg_u32(gg_parser *g, const char *what, uint32_t *v) {
  if (g->size - g->pos < 4) {
    gg_truncated(g, g->pos, "%s", what);
    return -1;
  }
  if (gg_need(g, g->pos + 4) != 0)
    return -1;
  *v = gg_get32(g->d + g->pos, g->swap);
  g->pos += 4;
  return 0;
}

/* Read the u64 field what at the cursor. */
static int gg_u64(gg_parser *g, const char *what, uint64_t *v) {
  if (g->size - g->pos < 8) {
    gg_truncated(g, g->pos, "%s", what);
    return -1;
  }
  if (gg_need(g, g->pos + 8) != 0)
    return -1;
  *v = gg_get64(g->d + g->pos, g->swap);
  g->pos += 8;
  return 0;
}

/* Read a length, count or dimension (u32 in v1, u64 after). */
static int gg_len(gg_parser *g, const char *what, uint64_t *v) {
  uint32_t v32;
  if (g->len == 8)
    return gg_u64(g, what, v);
  if (gg_u32(g, what, &v32) != 0)
    return -1;
  *v = v32;
  return 0;
}

/* Read a string whose length is at the cursor; s points into the file.
** what names it in messages ("key"), what_len names its length field. */
static int gg_string(gg_parser *g, const char *what, const char *what_len, wt_str *s) {
  uint64_t at = g->pos, n;
  if (gg_len(g, what_len, &n) != 0)
    return -1;
  if (n > g->size - g->pos)
    return gg_truncated(g, at, "%s length %llu", what, U(n));
  if (n > GG_MAX_STRING)
    return gg_fail(g, at, "%s length %llu is over ggml's limit of %llu bytes", what, U(n),
                   U(GG_MAX_STRING));
  if (gg_need(g, g->pos + n) != 0)
    return -1;
  s->p = (const char *)g->d + g->pos;
  s->n = (size_t)n;
  g->pos += n;
  return 0;
}

/* ---- Header ----------------------------------------------------------- */

/* Smallest tensor info: name length, empty name, n_dims = 0, type, offset. */
static uint64_t gg_min_tensor(const gg_parser *g) {
  return g->len + 4 + 4 + 8;
}

/* Smallest KV: key length, one key byte, type, a one-byte value. */
static uint64_t gg_min_kv(const gg_parser *g) {
  return g->len + 1 + 4 + 1;
}

/* Read magic, version and counts; bound the counts by the file size. */
static int gg_header(gg_parser *g, uint64_t *n_tensors, uint64_t *n_kv) {
  char q[GG_QUOTE_SIZE];
  uint32_t raw, version;
  int big_endian;
  uint64_t left;
  if (g->size < 4)
    return gg_truncated(g, 0, "magic");
  if (gg_need(g, 4) != 0)
    return -1;
  if (memcmp(g->d, "GGUF", 4) != 0) {
    if (memcmp(g->d, "FUGG", 4) == 0)
      return wt_fail(g->err, "bad magic 'FUGG' at byte 0: this looks like a pre-release GGUF "
                             "draft (2023), which is not GGUF");
    return wt_fail(g->err, "bad magic %s at byte 0: not a GGUF file",
                   wt_quote(q, sizeof(q), (const char *)g->d, 4));
  }
  g->pos = 4;
  if (gg_u32(g, "version", &raw) != 0) /* swap is still "host is big-endian": a LE read */
    return -1;
  big_endian = raw != 0 && (raw & 0xffff) == 0;
  version = big_endian ? __builtin_bswap32(raw) : raw;
  if (version == 0 || version > 3) {
    if (big_endian)
      return wt_fail(g->err,
                     "unsupported GGUF version %u at byte 4 (the field reads 0x%08x, so "
                     "the file was taken as big-endian); known versions are 1, 2 and 3",
                     version, raw);
    return wt_fail(g->err, "unsupported GGUF version %u at byte 4; known versions are 1, 2 and 3",
                   version);
  }
  g->m->version = version;
  g->m->big_endian = big_endian;
  g->swap = big_endian != GG_HOST_BE;
  g->len = version == 1 ? 4 : 8;
  if (gg_len(g, "tensor count", n_tensors) != 0 || gg_len(g, "kv count", n_kv) != 0)
    return -1;
  left = g->size - g->pos;
  /* Key-value pairs come first in the file, so their count is checked first. */
  if (*n_kv > left / gg_min_kv(g))
    return wt_fail(g->err,
                   "kv count %llu at byte %u cannot fit in the %llu bytes after the header (a "
                   "key-value pair takes at least %llu bytes)",
                   U(*n_kv), 8 + g->len, U(left), U(gg_min_kv(g)));
  if (*n_tensors > left / gg_min_tensor(g))
    return wt_fail(g->err,
                   "tensor count %llu at byte 8 cannot fit in the %llu bytes after the header "
                   "(a tensor info takes at least %llu bytes)",
                   U(*n_tensors), U(left), U(gg_min_tensor(g)));
  return 0;
}

/* ---- Key-value pairs -------------------------------------------------- */

/* Skip count strings at the cursor (an array's elements).  The hot loop
** of the parser: a Llama-3 vocabulary is 400,000 strings. */
static int gg_skip_strings(gg_parser *g, uint64_t count) {
  const unsigned char *d = g->d;
  uint64_t size = g->size, avail = g->avail, pos = g->pos, i = 0, n = 0;
  unsigned len = g->len;
  if (g->arr_i > 0 && g->arr_start == g->pos) { /* go on where the last parse stopped */
    i = g->arr_i;
    pos = g->arr_pos;
  }
  if (len == 8 && !g->swap) {
    for (; i < count; i++) {
      if (size - pos < 8)
        goto short_length;
      if (pos + 8 > avail)
        goto need;
      memcpy(&n, d + pos, 8);
      pos += 8;
      if (n > size - pos || n > GG_MAX_STRING)
        goto bad_length;
      pos += n;
    }
  } else {
    for (; i < count; i++) {
      if (size - pos < len)
        goto short_length;
      if (pos + len > avail)
        goto need;
      n = len == 8 ? gg_get64(d + pos, g->swap) : gg_get32(d + pos, g->swap);
      pos += len;
      if (n > size - pos || n > GG_MAX_STRING)
        goto bad_length;
      pos += n;
    }
  }
  g->pos = pos;
  g->arr_i = 0;
  return 0;
need:
  g->arr_start = g->pos;
  g->arr_i = i;
  g->arr_pos = pos;
  /* the rest of the array as long as its first i elements on average */
  if (i == 0 || wt_mul((pos - g->pos) / i, count - i, &n) != 0 || wt_add(n, pos, &g->item_end))
    g->item_end = 0;
  return gg_need(g, pos + len);
short_length:
  return gg_truncated(g, pos, "element #%llu string length", U(i));
bad_length:
  if (n > size - pos)
    return gg_truncated(g, pos - len, "element #%llu string length %llu", U(i), U(n));
  return gg_fail(g, pos - len,
                 "element #%llu string length %llu is over ggml's limit of %llu bytes", U(i), U(n),
                 U(GG_MAX_STRING));
}

/* Read an array value: element type, count, elements. */
static int gg_array(gg_parser *g, wt_meta *kv) {
  uint64_t at = g->pos, count, left;
  uint32_t et, size;
  if (gg_u32(g, "array element type", &et) != 0)
    return -1;
  if (et == GGUF_TYPE_ARRAY)
    return gg_fail(g, at, "nested arrays are not allowed (ggml rejects them)");
  if (et >= GGUF_TYPE_COUNT)
    return gg_fail(g, at, "invalid array element type %u", et);
  at = g->pos;
  if (gg_len(g, "array count", &count) != 0)
    return -1;
  if (count > GG_MAX_ARRAY)
    return gg_fail(g, at, "array of %llu elements is over ggml's limit of %llu", U(count),
                   U(GG_MAX_ARRAY));
  kv->elem_type = et;
  kv->count = count;
  kv->value_pos = g->pos;
  left = g->size - g->pos;
  if (et == GGUF_TYPE_STRING) {
    if (count > left / g->len)
      return gg_truncated(g, at, "array of %llu STRING (at least %llu bytes)", U(count),
                          U(count * g->len));
    if (gg_skip_strings(g, count) != 0)
      return -1;
  } else {
    size = gguf_type_size(et);
    if (count * size > left) /* no overflow: count <= 2^30, size <= 8 */
      return gg_truncated(g, at, "array of %llu %s (%llu bytes)", U(count), gguf_type_name(et),
                          U(count * size));
    g->pos += count * size;
  }
  kv->value_len = g->pos - kv->value_pos;
  return 0;
}

/* Read KV number i into kv. */
static int gg_kv(gg_parser *g, uint64_t i, wt_meta *kv) {
  uint64_t start = g->pos, at;
  uint32_t type, size;
  g->kind = GG_KV;
  g->index = i;
  g->name.p = NULL;
  if (gg_string(g, "key", "key length", &kv->key) != 0)
    return -1;
  if (kv->key.n == 0)
    return gg_fail(g, start, "empty key");
  g->name = kv->key;
  at = g->pos;
  if (gg_u32(g, "value type", &type) != 0)
    return -1;
  if (type >= GGUF_TYPE_COUNT)
    return gg_fail(g, at, "invalid value type %u", type);
  kv->type = type;
  if (type == GGUF_TYPE_ARRAY)
    return gg_array(g, kv);
  /* A scalar reads as an array of one: count 1, elem_type = type. */
  kv->elem_type = type;
  kv->count = 1;
  kv->value_pos = g->pos;
  if (type == GGUF_TYPE_STRING) {
    wt_str s;
    if (gg_string(g, "string", "string length", &s) != 0)
      return -1;
  } else {
    size = gguf_type_size(type);
    if (g->size - g->pos < size)
      return gg_truncated(g, g->pos, "%s value", gguf_type_name(type));
    g->pos += size;
  }
  kv->value_len = g->pos - kv->value_pos;
  return 0;
}

/* ---- Duplicates ------------------------------------------------------- */

/* A key or tensor name with its index and a hash, for sorting. */
typedef struct gg_name {
  uint64_t h;
  const char *p;
  size_t n;
  size_t idx;
} gg_name;

/* FNV-1a: a cheap first sort key, so that most comparisons skip memcmp.
** Colliding names (even crafted ones) are then ordered by their bytes, so
** the sort stays n log n whatever the input. */
static uint64_t gg_hash(const char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  size_t i;
  for (i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
  return h;
}

/* Order by hash, then bytes, then length, then index. */
static int gg_name_cmp(const void *a, const void *b) {
  const gg_name *x = a, *y = b;
  int c;
  if (x->h != y->h)
    return x->h < y->h ? -1 : 1;
  c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
  if (c != 0)
    return c;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort v[0..n) and find the earliest entry (in file order) whose name
** occurred before: returns 1 with *dup and *first set, or 0. */
static int gg_find_dup(gg_name *v, size_t n, size_t *dup, size_t *first) {
  size_t i;
  int found = 0;
  qsort(v, n, sizeof(*v), gg_name_cmp);
  for (i = 1; i < n; i++) {
    if (v[i].h == v[i - 1].h && v[i].n == v[i - 1].n && memcmp(v[i].p, v[i - 1].p, v[i].n) == 0 &&
        (!found || v[i].idx < *dup)) {
      *dup = v[i].idx;
      *first = v[i - 1].idx;
      found = 1;
    }
  }
  return found;
}

/* Reject a file whose keys (K3, kind GG_KV) or tensor names (T2, kind
** GG_TENSOR) are not unique, naming the first repeat in file order. */
static int gg_unique(gg_parser *g, int kind) {
  wt_model *m = g->m;
  size_t i, n = kind == GG_KV ? m->n_meta : m->n_tensors, dup = 0, first = 0;
  gg_name *v;
  int found;
  if (n < 2)
    return 0;
  v = malloc(n * sizeof(*v));
  if (v == NULL)
    return gg_oom(g, "a name index", n);
  for (i = 0; i < n; i++) {
    const wt_str *s = kind == GG_KV ? &m->meta[i].key : &m->tensors[i].name;
    v[i] = (gg_name){gg_hash(s->p, s->n), s->p, s->n, i};
  }
  found = gg_find_dup(v, n, &dup, &first);
  free(v);
  if (!found)
    return 0;
  g->kind = kind;
  g->index = dup;
  g->name = kind == GG_KV ? m->meta[dup].key : m->tensors[dup].name;
  return gg_fail(g, (uint64_t)((const unsigned char *)g->name.p - g->d) - g->len,
                 kind == GG_KV ? "duplicate key (first at kv #%llu)"
                               : "duplicate tensor name (first at tensor #%llu)",
                 U(first));
}

/* ---- Alignment -------------------------------------------------------- */

/* Apply general.alignment if present: UINT32 (A1), non-zero power of two
** (A2).  Keys are unique by now. */
static int gg_alignment(gg_parser *g) {
  wt_model *m = g->m;
  size_t i;
  m->alignment = GG_ALIGNMENT;
  for (i = 0; i < m->n_meta; i++) {
    const wt_meta *kv = &m->meta[i];
    uint32_t a;
    if (kv->key.n != 17 || memcmp(kv->key.p, "general.alignment", 17) != 0)
      continue;
    g->kind = GG_KV;
    g->index = i;
    g->name = kv->key;
    if (kv->type != GGUF_TYPE_UINT32)
      return gg_fail(g, (uint64_t)((const unsigned char *)kv->key.p - g->d) + kv->key.n,
                     "general.alignment must have type UINT32, not %s%s%s",
                     gguf_type_name(kv->type), kv->type == GGUF_TYPE_ARRAY ? " of " : "",
                     kv->type == GGUF_TYPE_ARRAY ? gguf_type_name(kv->elem_type) : "");
    if (gg_need(g, kv->value_pos + 4) != 0)
      return -1;
    a = gg_get32(g->d + kv->value_pos, g->swap);
    if (a == 0 || (a & (a - 1)) != 0)
      return gg_fail(g, kv->value_pos, "alignment %u is not a non-zero power of two", a);
    m->alignment = a;
    return 0;
  }
  return 0;
}

/* ---- Tensor infos ----------------------------------------------------- */

/* Read tensor info number i into t; dims has room for 4 values. */
static int gg_tensor(gg_parser *g, uint64_t i, wt_tensor *t, uint64_t *dims) {
  static const char *ne_name[GG_MAX_DIMS] = {"ne[0]", "ne[1]", "ne[2]", "ne[3]"};
  uint64_t start = g->pos, at, dims_at, ne[GG_MAX_DIMS] = {1, 1, 1, 1}, numel = 1, nbytes;
  uint32_t n_dims, type, j;
  const ggml_type_info *ti;
  int zero = 0, over = 0;
  g->kind = GG_TENSOR;
  g->index = i;
  g->name.p = NULL;
  if (gg_string(g, "name", "name length", &t->name) != 0)
    return -1;
  g->name = t->name;
  if (t->name.n > GG_MAX_NAME)
    return gg_fail(g, start, "name of %zu bytes is longer than ggml's limit of %d bytes", t->name.n,
                   GG_MAX_NAME);
  dims_at = g->pos;
  if (gg_u32(g, "n_dims", &n_dims) != 0)
    return -1;
  if (n_dims > GG_MAX_DIMS)
    return gg_fail(g, dims_at, "n_dims = %u is more than %d", n_dims, GG_MAX_DIMS);
  for (j = 0; j < n_dims; j++) {
    at = g->pos;
    if (gg_len(g, ne_name[j], &ne[j]) != 0)
      return -1;
    if (ne[j] > INT64_MAX)
      return gg_fail(g, at, "ne[%u] = %llu is negative as an int64 (%lld)", j, U(ne[j]),
                     (long long)ne[j]);
    dims[j] = ne[j];
  }
  for (j = 0; j < GG_MAX_DIMS; j++) {
    zero |= ne[j] == 0;
    over |= wt_mul(numel, ne[j], &numel) != 0;
  }
  if (zero)
    numel = 0; /* like ggml: no element, no overflow */
  else if (over || numel >= INT64_MAX)
    return gg_fail(g, dims_at,
                   "dimensions [%llu, %llu, %llu, %llu] hold 2^63-1 elements or more (ggml's "
                   "limit is below INT64_MAX)",
                   U(ne[0]), U(ne[1]), U(ne[2]), U(ne[3]));
  at = g->pos;
  if (gg_u32(g, "type", &type) != 0)
    return -1;
  t->type_id = (int32_t)type; /* ggml stores enums as int32 */
  t->ndim = (int)n_dims;
  t->dims = dims;
  t->numel = numel;
  ti = ggml_type_get(t->type_id);
  if (ti != NULL)
    t->dtype = (wt_str){ti->name, strlen(ti->name)};
  if (ti != NULL && ti->block_size > 0) {
    if (ne[0] % ti->block_size != 0)
      return gg_fail(g, at, "ne[0] = %llu is not a multiple of the %s block size %u", U(ne[0]),
                     ti->name, ti->block_size);
    nbytes = 0;
    if (numel > 0 &&
        (wt_mul(ne[0] / ti->block_size, ti->type_size, &nbytes) || wt_mul(nbytes, ne[1], &nbytes) ||
         wt_mul(nbytes, ne[2], &nbytes) || wt_mul(nbytes, ne[3], &nbytes)))
      return gg_fail(g, at, "the byte size of %llu %s elements overflows 64 bits", U(numel),
                     ti->name);
    t->nbytes = nbytes;
    t->nbytes_known = 1;
  }
  if (gg_u64(g, "data offset", &t->data_start) != 0)
    return -1;
  return 0;
}

/* Byte where tensor t's offset field starts (for messages). */
static uint64_t gg_offset_field(const gg_parser *g, const wt_tensor *t) {
  return (uint64_t)((const unsigned char *)t->name.p - g->d) + t->name.n + 4 +
         (uint64_t)t->ndim * g->len + 4;
}

/* ---- Data section ----------------------------------------------------- */

/* Place the data section after the tensor infos (D1). */
static int gg_data_section(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t end = g->pos, a = m->alignment;
  if (gg_need(g, end) != 0) /* the last strings and arrays, read later from memory */
    return -1;
  m->header_len = end;
  m->data_offset = end;
  if (m->n_tensors == 0)
    return 0;
  if (end > UINT64_MAX - (a - 1) || (end + a - 1) / a * a > g->size)
    return wt_fail(g->err,
                   "the data section would start past the end of the file (%llu bytes): the "
                   "tensor infos end at byte %llu and the alignment is %llu",
                   U(g->size), U(end), U(a));
  m->data_offset = (end + a - 1) / a * a;
  return 0;
}

/* Check tensor i's offset against the policy at the top of this file and
** set its absolute offset and end. */
static int gg_place(gg_parser *g, size_t i) {
  wt_model *m = g->m;
  wt_tensor *t = &m->tensors[i];
  uint64_t room = g->size - m->data_offset, at = gg_offset_field(g, t), start, end;
  g->kind = GG_TENSOR;
  g->index = i;
  g->name = t->name;
  if (t->data_start > room)
    return gg_fail(g, at,
                   "data offset %llu is past the end of the file: the data section starts at "
                   "byte %llu and the file has %llu bytes",
                   U(t->data_start), U(m->data_offset), U(g->size));
  t->offset = m->data_offset + t->data_start;
  t->data_end = t->data_start;
  if (!t->nbytes_known) {
    t->nbytes = 0;
    return 0;
  }
  if (t->data_start % m->alignment != 0)
    return gg_fail(g, at, "data offset %llu is not a multiple of the alignment %llu",
                   U(t->data_start), U(m->alignment));
  start = t->offset;
  if (t->nbytes > room - t->data_start) {
    if (wt_add(start, t->nbytes, &end) != 0)
      return gg_fail(g, at, "data [%llu, %llu + %llu) runs past the end of the file (%llu bytes)",
                     U(start), U(start), U(t->nbytes), U(g->size));
    return gg_fail(g, at, "data [%llu, %llu) runs past the end of the file (%llu bytes)", U(start),
                   U(end), U(g->size));
  }
  t->data_end = t->data_start + t->nbytes;
  return 0;
}

/* A tensor's data range, for the overlap check. */
typedef struct gg_range {
  uint64_t start, end;
  size_t idx;
} gg_range;

/* Order by start, then index. */
static int gg_range_cmp(const void *a, const void *b) {
  const gg_range *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reject known-size tensors whose data overlap: sort by start and sweep,
** remembering the range that reaches furthest. */
static int gg_no_overlap(gg_parser *g) {
  wt_model *m = g->m;
  gg_range *v;
  size_t i, n = 0, far = 0;
  char q[GG_QUOTE_SIZE];
  if (m->n_tensors < 2)
    return 0;
  v = malloc(m->n_tensors * sizeof(*v));
  if (v == NULL)
    return gg_oom(g, "a tensor range index", m->n_tensors);
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *t = &m->tensors[i];
    if (t->nbytes_known && t->nbytes > 0)
      v[n++] = (gg_range){t->offset, t->offset + t->nbytes, i};
  }
  for (i = 1; i < n && v[i - 1].start <= v[i].start; i++)
    ;
  if (i < n) /* writers store tensors in offset order: usually no sort */
    qsort(v, n, sizeof(*v), gg_range_cmp);
  for (i = 1; i < n; i++) {
    if (v[i].start < v[far].end) {
      const wt_tensor *t = &m->tensors[v[i].idx], *o = &m->tensors[v[far].idx];
      gg_range a = v[i], b = v[far];
      free(v);
      g->kind = GG_TENSOR;
      g->index = a.idx;
      g->name = t->name;
      return gg_fail(g, gg_offset_field(g, t),
                     "data [%llu, %llu) overlaps the data of tensor #%llu %s at [%llu, %llu)",
                     U(a.start), U(a.end), U(b.idx), wt_quote(q, sizeof(q), o->name.p, o->name.n),
                     U(b.start), U(b.end));
    }
    if (v[i].end > v[far].end)
      far = i;
  }
  free(v);
  return 0;
}

/* ---- Driver ----------------------------------------------------------- */

/* Allocate n zeroed elements of size bytes in the model's arena (n was
** bounded by the file size). */
static void *gg_alloc(gg_parser *g, uint64_t n, size_t size) {
  uint64_t bytes;
  if (n == 0 || wt_mul(n, size, &bytes) != 0 || bytes > SIZE_MAX)
    return NULL;
  return wt_arena_alloc(g->m->arena, (size_t)bytes);
}

/* Where the header probably ends, when a parse of a prefix stopped for
** want of bytes (g->need): the item being read (an array of strings as
** long as its elements read so far on average), then the items after it at
** their typical sizes; at least g->need, at most the file size.  The
** caller reads that much at once, instead of growing its buffer blindly
** and parsing from the start each time. */
static uint64_t gg_estimate(const gg_parser *g) {
  uint64_t end = g->item_end > g->need ? g->item_end : g->need, kv, tensors;
  if (g->item_end == 0 && end < 2 * g->avail) /* no count says more: twice what was read */
    end = 2 * g->avail;
  if (end >= g->size || wt_mul(g->kv_left, GG_TYPICAL_KV, &kv) != 0 ||
      wt_mul(g->tensors_left, GG_TYPICAL_TENSOR, &tensors) != 0 || kv > g->size - end ||
      tensors > g->size - end - kv)
    return g->size;
  return end + kv + tensors;
}

/* The header and the counts; the pairs' array.  Run again from byte 0
** when the last parse stopped in it. */
static int gg_run_header(gg_parser *g) {
  wt_model *m = g->m;
  g->pos = 0;
  g->swap = GG_HOST_BE; /* until the version says otherwise: read little-endian */
  g->len = 8;
  g->kind = GG_HEADER;
  if (gg_header(g, &g->n_tensors, &g->n_kv) != 0)
    return -1;
  g->kv_left = g->n_kv;
  g->tensors_left = g->n_tensors;
  /* the smallest bytes the pairs can take are in memory before their
  ** array is allocated: an allocation follows the bytes read, not a count
  ** that only the file's size bounds (no overflow: bounded by it) */
  if (gg_need(g, g->pos + g->n_kv * gg_min_kv(g)) != 0)
    return -1;
  if (g->n_kv > 0 && (m->meta = gg_alloc(g, g->n_kv, sizeof(wt_meta))) == NULL)
    return gg_oom(g, "key-value pairs", g->n_kv);
  m->n_meta = (size_t)g->n_kv;
  g->i = 0;
  g->stage = GG_STAGE_KVS;
  return 0;
}

/* The pairs from pair g->i on, their checks, and the tensors' arrays. */
static int gg_run_kvs(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t n_tensors = g->n_tensors;
  for (; g->i < g->n_kv; g->i++) {
    uint64_t start = g->pos;
    g->kv_left = g->n_kv - g->i - 1;
    if (gg_kv(g, g->i, &m->meta[g->i]) != 0) {
      g->pos = start; /* a parse of more bytes reads this pair again */
      return -1;
    }
  }
  g->kind = GG_HEADER;
  g->kv_left = 0;
  if (gg_unique(g, GG_KV) != 0 || gg_alignment(g) != 0)
    return -1;
  g->kind = GG_HEADER;
  if (n_tensors > (g->size - g->pos) / gg_min_tensor(g))
    return wt_fail(g->err,
                   "tensor count %llu at byte 8 cannot fit in the %llu bytes left after the "
                   "key-value pairs, which end at byte %llu",
                   U(n_tensors), U(g->size - g->pos), U(g->pos));
  if (gg_need(g, g->pos + n_tensors * gg_min_tensor(g)) != 0)
    return -1; /* as for the pairs */
  if (n_tensors > 0) {
    m->tensors = gg_alloc(g, n_tensors, sizeof(wt_tensor));
    g->dims = gg_alloc(g, n_tensors, GG_MAX_DIMS * sizeof(uint64_t));
    if (m->tensors == NULL || g->dims == NULL)
      return gg_oom(g, "tensors", n_tensors);
    m->n_tensors = (size_t)n_tensors;
  }
  g->i = 0;
  g->stage = GG_STAGE_TENSORS;
  return 0;
}

/* The tensor infos from tensor g->i on, then the data section and the
** checks of every tensor's place. */
static int gg_run_tensors(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t i;
  for (; g->i < g->n_tensors; g->i++) {
    uint64_t start = g->pos;
    g->tensors_left = g->n_tensors - g->i - 1;
    if (gg_tensor(g, g->i, &m->tensors[g->i], g->dims + g->i * GG_MAX_DIMS) != 0) {
      g->pos = start;
      return -1;
    }
  }
  g->kind = GG_HEADER;
  g->tensors_left = 0;
  if (gg_unique(g, GG_TENSOR) != 0 || gg_data_section(g) != 0)
    return -1;
  for (i = 0; i < g->n_tensors; i++)
    if (gg_place(g, (size_t)i) != 0)
      return -1;
  return gg_no_overlap(g);
}

/* Parse the header into g->m, from the stage where the last parse stopped. */
static int gg_run(gg_parser *g) {
  if (g->stage == GG_STAGE_HEADER && gg_run_header(g) != 0)
    return -1;
  if (g->stage == GG_STAGE_KVS && gg_run_kvs(g) != 0)
    return -1;
  return gg_run_tensors(g);
}

/* The bytes moved to d: move the names read so far with them. */
static void gg_move(gg_parser *g, const unsigned char *d) {
  wt_model *m = g->m;
  uint64_t k, n_kv = g->stage == GG_STAGE_KVS ? g->i : g->stage > GG_STAGE_KVS ? g->n_kv : 0;
  uint64_t n_tensors = g->stage == GG_STAGE_TENSORS ? g->i : 0;
  uintptr_t from = (uintptr_t)g->d, to = (uintptr_t)d;
  for (k = 0; k < n_kv; k++)
    m->meta[k].key.p = (const char *)(to + ((uintptr_t)m->meta[k].key.p - from));
  for (k = 0; k < n_tensors; k++)
    m->tensors[k].name.p = (const char *)(to + ((uintptr_t)m->tensors[k].name.p - from));
  g->d = d;
}

/* A parse of a header read in pieces. */
struct gguf_prefix {
  gg_parser g;
  wt_model m;
  int started;
};

gguf_prefix *gguf_prefix_new(void) {
  return calloc(1, sizeof(gguf_prefix));
}

uint64_t gguf_prefix_needed(const gguf_prefix *p) {
  return p->g.need;
}

void gguf_prefix_free(gguf_prefix *p) {
  if (p == NULL)
    return;
  wt_model_free(&p->m);
  free(p);
}

int gguf_prefix_parse(gguf_prefix *p, const unsigned char *data, uint64_t avail, uint64_t size,
                      wt_model *out, uint64_t *need, wt_error *err) {
  gg_parser *g = &p->g;
  memset(out, 0, sizeof(*out));
  if (!p->started) {
    p->started = 1;
    g->d = data;
    g->size = data == NULL ? 0 : size;
    g->m = &p->m;
    p->m.format = WT_FORMAT_GGUF;
    p->m.file_size = g->size;
    p->m.arena = wt_arena_new();
    if (p->m.arena == NULL)
      return wt_fail(err, "out of memory");
  } else if (data != g->d) {
    gg_move(g, data);
  }
  g->avail = avail < g->size ? avail : g->size;
  g->need = g->item_end = 0;
  g->err = err;
  if (gg_run(g) == 0) {
    *out = p->m;
    memset(&p->m, 0, sizeof(p->m));
    return 0;
  }
  if (g->need > g->avail && need != NULL) {
    *need = gg_estimate(g);
    return 1;
  }
  wt_model_free(&p->m);
  if (g->need > g->avail)
    return wt_fail(err, "the header runs past the %llu bytes given", U(g->avail));
  return -1;
}

int gguf_parse_prefix(const unsigned char *data, uint64_t avail, uint64_t size, wt_model *out,
                      uint64_t *need, wt_error *err) {
  gguf_prefix *p = gguf_prefix_new();
  int rc;
  if (p == NULL) {
    memset(out, 0, sizeof(*out));
    return wt_fail(err, "out of memory");
  }
  rc = gguf_prefix_parse(p, data, avail, size, out, need, err);
  gguf_prefix_free(p);
  return rc;
}

int gguf_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err) {
  return gguf_parse_prefix(data, size, size, out, NULL, err);
}

int gguf_sniff(const unsigned char *data, uint64_t size) {
  return data != NULL && size >= 4 && memcmp(data, "GGUF", 4) == 0;
}
