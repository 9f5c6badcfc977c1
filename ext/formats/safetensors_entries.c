/*
** safetensors_entries.c: the safetensors header's entries read from its
** JSON tokens (safetensors_int.h): `__metadata__` (an object of strings),
** and each tensor's dtype, shape and data_offsets, exact u64 values from
** their own text; the messages of the parser.  Layer: formats (pure C;
** uses base/).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "safetensors_int.h"
#include "sniff.h"

/* ========================== Messages and tokens =========================== */

/* Append " (this looks like ...)" to a message when the bytes are a known
** non-safetensors file. */
int st_fail_lookalike(st_parse *p, const char *msg) {
  const char *what;
  if (p->avail < p->size && p->avail < ST_SNIFF_BYTES) { /* ask for what the sniff reads */
    p->need = p->size < ST_SNIFF_BYTES ? p->size : ST_SNIFF_BYTES;
    return -1;
  }
  what = wt_sniff_describe(p->data, p->avail, WT_FORMAT_SAFETENSORS);
  if (what != NULL && p->avail >= 4 && memcmp(p->data, "GGUF", 4) == 0)
    return wt_fail(p->err, "not a safetensors file: this is %s", what); /* N means nothing */
  if (what != NULL)
    return wt_fail(p->err, "not a safetensors file: this is %s (%s)", what, msg);
  return wt_fail(p->err, "%s", msg);
}

/* String token i (a key or a string value), decoded.  Strings without
** escapes point into the header bytes. */
int st_str(st_parse *p, size_t i, wt_str *out) {
  const json_token *t = st_tok(p, i);
  const char *raw = p->header + t->pos;
  char *buf;
  if (!t->escaped) {
    out->p = raw;
    out->n = t->len;
    return 0;
  }
  buf = wt_arena_alloc(p->m->arena, (size_t)t->len + 1);
  if (buf == NULL)
    return wt_fail(p->err, "out of memory");
  out->p = buf;
  out->n = json_unescape(raw, t->len, buf);
  return 0;
}

/* Name a token's type for messages. */
const char *st_json_type(const json_token *t) {
  switch (t->type) {
  case JSON_NULL:
    return "null";
  case JSON_BOOL:
    return "a boolean";
  case JSON_NUMBER:
    return "a number";
  case JSON_STRING:
    return "a string";
  case JSON_ARRAY:
    return "an array";
  default:
    return "an object";
  }
}

/* Fail with "tensor 'name'" followed by the rest of the message (fmt,
** printf-style).  The name is quoted here, on the error path only. */
ST_ERROR_PATH int st_tensor_fail(st_parse *p, wt_str name, const char *fmt, ...) {
  char q[ST_QUOTE_SIZE], rest[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rest, sizeof(rest), fmt, ap);
  va_end(ap);
  return wt_fail(p->err, "tensor %s%s", ST_Q(q, name), rest);
}

/* ========================== Numbers and metadata ========================== */

/* The value of the decimal digits t[0..n) into *out; -1 when a byte is
** not a digit (a sign, a fraction, an exponent) or the value passes
** 2^64-1.  Up to 19 digits always fit, so only later ones are checked. */
static int st_digits(const char *t, size_t n, uint64_t *out) {
  size_t c, fit = n < 19 ? n : 19;
  uint64_t v = 0, w;
  for (c = 0; c < fit; c++) {
    unsigned d = (unsigned)(t[c] - '0');
    if (d > 9)
      return -1;
    v = v * 10 + d;
  }
  for (; c < n; c++) {
    unsigned d = (unsigned)(t[c] - '0');
    if (d > 9 || wt_mul(v, 10, &w) || wt_add(w, d, &v))
      return -1;
  }
  *out = v;
  return 0;
}

/* Report token i, element k of the tensor's field, which is not a u64. */
static ST_ERROR_PATH int st_bad_u64(st_parse *p, size_t i, wt_str tensor, const char *field,
                                    int k) {
  const json_token *j = st_tok(p, i);
  if (j->type != JSON_NUMBER)
    return st_tensor_fail(p, tensor, ": %s[%d] is %s, not an unsigned integer", field, k,
                          st_json_type(j));
  return st_tensor_fail(p, tensor, ": %s[%d] is %.*s at byte %llu, not an unsigned 64-bit integer",
                        field, k, (int)(j->len > 40 ? 40 : j->len), p->header + j->pos,
                        (unsigned long long)(8 + j->pos));
}

/* Read number token i, element k of the tensor's field, as an exact u64
** from its text. */
static int st_u64(st_parse *p, size_t i, wt_str tensor, const char *field, int k, uint64_t *out) {
  const json_token *j = st_tok(p, i);
  if (j->type != JSON_NUMBER || st_digits(p->header + j->pos, j->len, out))
    return st_bad_u64(p, i, tensor, field, k);
  return 0;
}

/* Report the value (token i) of metadata key key, which is not a string. */
static ST_ERROR_PATH int st_bad_meta(st_parse *p, wt_str key, size_t i) {
  char q[ST_QUOTE_SIZE];
  return wt_fail(p->err, "__metadata__ value of key %s is %s, not a string", ST_Q(q, key),
                 st_json_type(st_tok(p, i)));
}

/* Read `__metadata__` (value token i): null, or an object whose values are
** all strings. */
int st_metadata(st_parse *p, size_t i) {
  const json_token *j = st_tok(p, i);
  size_t c, key;
  if (j->type == JSON_NULL)
    return 0;
  if (j->type != JSON_OBJECT)
    return wt_fail(p->err, "__metadata__ is %s, not an object of strings", st_json_type(j));
  p->m->meta = wt_arena_alloc(p->m->arena, j->len * sizeof(wt_meta) + 1);
  if (p->m->meta == NULL)
    return wt_fail(p->err, "out of memory");
  for (c = 0, key = i + 1; c < j->len; c++, key = st_after(p, key + 1)) {
    wt_meta *kv = &p->m->meta[p->m->n_meta++];
    if (st_str(p, key, &kv->key))
      return -1;
    if (st_tok(p, key + 1)->type != JSON_STRING)
      return st_bad_meta(p, kv->key, key + 1);
    if (st_str(p, key + 1, &kv->value))
      return -1;
  }
  return 0;
}

/* ============================= Tensor entries ============================= */

/* Read a tensor's shape array (token i) into t->dims. */
static int st_shape(st_parse *p, size_t i, wt_tensor *t) {
  const json_token *j = st_tok(p, i);
  uint64_t *dims;
  size_t e;
  int k;
  if (j->type != JSON_ARRAY)
    return st_tensor_fail(p, t->name, ": shape is %s, not an array", st_json_type(j));
  t->ndim = (int)j->len;
  dims = wt_arena_alloc(p->m->arena, (size_t)t->ndim * sizeof(uint64_t) + 1);
  if (dims == NULL)
    return wt_fail(p->err, "out of memory");
  for (k = 0, e = i + 1; k < t->ndim; k++, e = st_after(p, e)) {
    if (st_u64(p, e, t->name, "shape", k, &dims[k]))
      return -1;
  }
  t->dims = dims;
  return 0;
}

/* Read a tensor's data_offsets pair (token i). */
static int st_offsets(st_parse *p, size_t i, wt_tensor *t) {
  const json_token *j = st_tok(p, i);
  if (j->type != JSON_ARRAY)
    return st_tensor_fail(p, t->name, ": data_offsets is %s, not an array", st_json_type(j));
  if (j->len != 2)
    return st_tensor_fail(p, t->name, ": data_offsets must have 2 elements, not %u",
                          (unsigned)j->len);
  if (st_u64(p, i + 1, t->name, "data_offsets", 0, &t->data_start) ||
      st_u64(p, st_after(p, i + 1), t->name, "data_offsets", 1, &t->data_end))
    return -1;
  return 0;
}

/* True when the C string name is exactly z (which may hold NULs). */
static int st_is_name(const char *name, wt_str z) {
  size_t k;
  for (k = 0; k < z.n; k++) {
    if (name[k] == 0 || name[k] != z.p[k])
      return 0;
  }
  return name[z.n] == 0;
}

/* Index in the dtype table of the name z, or -1.  Tensors mostly share a
** dtype, so the one found last is tried before the table. */
static int st_dtype_index(st_parse *p, wt_str z) {
  int i;
  if (p->last_dtype >= 0 && st_is_name(st_dtype_get(p->last_dtype)->name, z))
    return p->last_dtype;
  i = st_dtype_find(z.p, z.n);
  if (i >= 0)
    p->last_dtype = i;
  return i;
}

/* Report dtype z of tensor t, which the crate does not know, with the
** right spelling when only the case differs. */
static ST_ERROR_PATH int st_bad_dtype(st_parse *p, const wt_tensor *t, wt_str z) {
  int hint = st_dtype_find_nocase(z.p, z.n);
  char d[ST_QUOTE_SIZE];
  return st_tensor_fail(p, t->name, ": unknown dtype %s%s%s%s", ST_Q(d, z),
                        hint >= 0 ? " (dtype names are case-sensitive: did you mean " : "",
                        hint >= 0 ? st_dtype_get(hint)->name : "", hint >= 0 ? "?)" : "");
}

/* Read a tensor's dtype string (token i). */
static int st_dtype(st_parse *p, size_t i, wt_tensor *t) {
  const json_token *j = st_tok(p, i);
  wt_str z;
  int k;
  if (j->type != JSON_STRING)
    return st_tensor_fail(p, t->name, ": dtype is %s, not a string", st_json_type(j));
  if (st_str(p, i, &z))
    return -1;
  k = st_dtype_index(p, z);
  if (k < 0)
    return st_bad_dtype(p, t, z);
  t->type_id = k;
  t->dtype.p = st_dtype_get(k)->name;
  t->dtype.n = z.n;
  return 0;
}

/* The tensor fields, by st_field's numbers. */
static const char *const st_fields[3] = {"dtype", "shape", "data_offsets"};

/* Which field a tensor key names: 0 dtype, 1 shape, 2 data_offsets, or
** -1 for one that is ignored. */
static int st_field(wt_str key) {
  if (key.n == 5 && memcmp(key.p, "dtype", 5) == 0)
    return 0;
  if (key.n == 5 && memcmp(key.p, "shape", 5) == 0)
    return 1;
  if (key.n == 12 && memcmp(key.p, "data_offsets", 12) == 0)
    return 2;
  return -1;
}

/* Read one tensor entry (value token i; its key already read into
** t->name).  Fields may come in any order, each at most once; unknown
** fields are stepped over whole. */
int st_tensor(st_parse *p, size_t i, wt_tensor *t) {
  const json_token *j = st_tok(p, i);
  int seen[3] = {0, 0, 0}, k, rc;
  size_t c, key;
  if (j->type != JSON_OBJECT)
    return st_tensor_fail(p, t->name, " is %s, not an object with dtype, shape and data_offsets",
                          st_json_type(j));
  for (c = 0, key = i + 1; c < j->len; c++, key = st_after(p, key + 1)) {
    wt_str name;
    if (st_str(p, key, &name))
      return -1;
    k = st_field(name);
    if (k < 0)
      continue;
    if (seen[k]++)
      return st_tensor_fail(p, t->name, ": duplicate field %s", st_fields[k]);
    rc = k == 0   ? st_dtype(p, key + 1, t)
         : k == 1 ? st_shape(p, key + 1, t)
                  : st_offsets(p, key + 1, t);
    if (rc)
      return rc;
  }
  for (k = 0; k < 3; k++) {
    if (!seen[k])
      return st_tensor_fail(p, t->name, ": missing field %s", st_fields[k]);
  }
  return 0;
}
