/*
** safetensors_parser.c: bytes in, a validated wt_model or a precise error
** out.
** Layer: formats (pure C; uses base/).
**
** The file is an 8-byte little-endian header length N, N bytes of UTF-8
** JSON, then the data buffer (the format of README.md in
** huggingface/safetensors).  The checks follow the Rust crate
** (safetensors/src/tensor.rs there, commit 24b0b285), in its order:
**
**   1. fewer than 8 bytes                       (HeaderTooSmall)
**   2. N > 100,000,000                          (HeaderTooLarge)
**   3. 8 + N past the end of the file           (InvalidHeaderLength)
**   4. the header is not valid UTF-8            (InvalidHeader)
**   5. strict JSON: one object, JSON whitespace around it, `__metadata__`
**      null or an object of strings, each tensor an object with `dtype`
**      (a known name), `shape` (u64 array) and `data_offsets` (two u64);
**      unknown fields ignored, a repeated field or `__metadata__` refused,
**      a repeated tensor name keeps the last entry (as the crate does)
**                                               (InvalidHeaderDeserialization)
**   6. tensors sorted by (begin, end) must tile the data buffer from 0
**      without holes or overlaps               (InvalidOffset)
**   7. shape product and bit size without overflow (ValidationOverflow);
**      whole bytes for F4/F6 (MisalignedSlice); end - begin equals the size
**      (TensorInvalidInfo)
**   8. the file ends exactly at the last tensor (MetadataIncompleteBuffer)
**
** The header is read by json_parse() (json_check.h), which checks it
** strictly and lays it out in one pass as a flat array of tokens, one
** malloc; the walk below goes over the root object's members:
** `__metadata__`, and each tensor's dtype, shape and data_offsets, other
** fields stepped over whole in O(1).  Names, keys, values and numbers are
** read from their own text, so u64 values are exact (never rounded through
** a double) and a name with an escaped NUL is kept whole, as the crate
** keeps it.  Quoted names and other message text are built only when a
** check fails.
*/
#include "safetensors_parser.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_load.h"
#include "dtype.h"
#include "json_check.h"
#include "sniff.h"
#include "base/utf8.h"

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

/* ========================== Messages and tokens =========================== */

/* Append " (this looks like ...)" to a message when the bytes are a known
** non-safetensors file. */
static int st_fail_lookalike(st_parse *p, const char *msg) {
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

/* Token i of the header. */
static const json_token *st_tok(const st_parse *p, size_t i) {
  return &p->doc.tok[i];
}

/* The index of the token after value i and its subtree. */
static size_t st_after(const st_parse *p, size_t i) {
  return st_tok(p, i)->next;
}

/* String token i (a key or a string value), decoded.  Strings without
** escapes point into the header bytes. */
static int st_str(st_parse *p, size_t i, wt_str *out) {
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

/* True when s holds exactly the C string z. */
static int st_is(wt_str s, const char *z) {
  return s.n == strlen(z) && memcmp(s.p, z, s.n) == 0;
}

/* Name a token's type for messages. */
static const char *st_json_type(const json_token *t) {
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
static ST_ERROR_PATH __attribute__((format(printf, 3, 4))) int
st_tensor_fail(st_parse *p, wt_str name, const char *fmt, ...) {
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
static int st_metadata(st_parse *p, size_t i) {
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
static int st_tensor(st_parse *p, size_t i, wt_tensor *t) {
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

/* ============================= Repeated keys ============================== */

/* Compare two tensor pointers by (begin, end), then document order (the
** pointers point into the array in document order). */
static int st_cmp_offsets(const void *a, const void *b) {
  const wt_tensor *x = *(const wt_tensor *const *)a, *y = *(const wt_tensor *const *)b;
  if (x->data_start != y->data_start)
    return x->data_start < y->data_start ? -1 : 1;
  if (x->data_end != y->data_end)
    return x->data_end < y->data_end ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Compare two byte strings: by bytes, then length. */
static int st_cmp_str(wt_str x, wt_str y) {
  size_t n = x.n < y.n ? x.n : y.n;
  int c = memcmp(x.p, y.p, n);
  if (c != 0)
    return c;
  return x.n < y.n ? -1 : x.n > y.n;
}

/* A key and its position, for finding repeated keys. */
typedef struct st_keyed {
  wt_str key;
  size_t idx;
} st_keyed;

/* Compare by key bytes, then position. */
static int st_cmp_keyed(const void *a, const void *b) {
  const st_keyed *x = a, *y = b;
  int c = st_cmp_str(x->key, y->key);
  if (c != 0)
    return c;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The wt_str at key_off in element i (each size bytes) of base. */
static wt_str *st_key_at(void *base, size_t i, size_t size, size_t key_off) {
  return (wt_str *)((char *)base + i * size + key_off);
}

/* Keep only the last of the n elements (each size bytes, its wt_str key at
** key_off) that share a key, in document order: the crate reads tensors
** and __metadata__ into maps, where the last entry wins.  Sets *dropped to
** one dropped key.  Keys in strictly increasing order (as writers sort
** them) cannot repeat and need no sort.  Returns the new count, or -1 on
** OOM. */
static long st_dedupe(void *base, size_t n, size_t size, size_t key_off, wt_str *dropped) {
  st_keyed *keys;
  size_t i, k = 0;
  for (i = 1; i < n; i++) {
    if (st_cmp_str(*st_key_at(base, i - 1, size, key_off), *st_key_at(base, i, size, key_off)) >= 0)
      break;
  }
  if (i >= n)
    return (long)n;
  keys = malloc(n * sizeof(*keys));
  if (keys == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    keys[i].key = *st_key_at(base, i, size, key_off);
    keys[i].idx = i;
  }
  qsort(keys, n, sizeof(*keys), st_cmp_keyed);
  for (i = 0; i + 1 < n; i++) {
    if (st_cmp_str(keys[i].key, keys[i + 1].key) == 0) {
      *dropped = keys[i].key;
      st_key_at(base, keys[i].idx, size, key_off)->p = NULL; /* mark as dropped */
    }
  }
  free(keys);
  for (i = 0; i < n; i++) {
    if (st_key_at(base, i, size, key_off)->p == NULL)
      continue;
    if (k != i)
      memcpy((char *)base + k * size, (char *)base + i * size, size);
    k++;
  }
  return (long)k;
}

/* Apply st_dedupe to the tensors and the metadata. */
static int st_dedupe_all(st_parse *p) {
  wt_str unused;
  long n = st_dedupe(p->m->tensors, p->m->n_tensors, sizeof(wt_tensor), offsetof(wt_tensor, name),
                     &p->dup_tensor);
  long k = st_dedupe(p->m->meta, p->m->n_meta, sizeof(wt_meta), offsetof(wt_meta, key), &unused);
  if (n < 0 || k < 0)
    return wt_fail(p->err, "out of memory");
  p->m->n_tensors = (size_t)n;
  p->m->n_meta = (size_t)k;
  return 0;
}

/* ============================== Data offsets ============================== */

/* True when the tensors are already in (begin, end) order. */
static int st_sorted(const wt_model *m) {
  size_t i;
  for (i = 1; i < m->n_tensors; i++) {
    const wt_tensor *x = &m->tensors[i - 1], *y = &m->tensors[i];
    if (x->data_start > y->data_start ||
        (x->data_start == y->data_start && x->data_end > y->data_end))
      return 0;
  }
  return 1;
}

/* Reorder the tensors by data offsets, as the crate does before validating
** (JSON order is not offset order in files written by MLX, nor in files
** of several dtypes).  The sort is stable: ties keep document order. */
static int st_sort(st_parse *p) {
  wt_model *m = p->m;
  wt_tensor **by_offset, *sorted;
  size_t i;
  if (st_sorted(m))
    return 0;
  by_offset = malloc(m->n_tensors * sizeof(*by_offset));
  sorted = wt_arena_alloc(m->arena, m->n_tensors * sizeof(wt_tensor));
  if (by_offset == NULL || sorted == NULL) {
    free(by_offset);
    return wt_fail(p->err, "out of memory");
  }
  for (i = 0; i < m->n_tensors; i++)
    by_offset[i] = &m->tensors[i];
  qsort(by_offset, m->n_tensors, sizeof(*by_offset), st_cmp_offsets);
  for (i = 0; i < m->n_tensors; i++)
    sorted[i] = *by_offset[i];
  free(by_offset);
  m->tensors = sorted;
  return 0;
}

/* Report tensor t (the i-th in offset order), whose data_offsets do not
** start where they should (expected) or end before they begin. */
static ST_ERROR_PATH int st_bad_offsets(st_parse *p, const wt_tensor *t, size_t i,
                                        uint64_t expected) {
  char qd[ST_QUOTE_SIZE], dup[ST_NOTE_SIZE] = "";
  if (t->data_end < t->data_start)
    return st_tensor_fail(p, t->name, ": data_offsets [%llu,%llu] end before they begin",
                          (unsigned long long)t->data_start, (unsigned long long)t->data_end);
  if (p->dup_tensor.p != NULL) {
    snprintf(dup, sizeof(dup), "; tensor %s appears more than once and only its last entry counts",
             ST_Q(qd, p->dup_tensor));
  }
  return st_tensor_fail(p, t->name, ": data_offsets [%llu,%llu] should start at %llu, %s (%s%s)",
                        (unsigned long long)t->data_start, (unsigned long long)t->data_end,
                        (unsigned long long)expected,
                        i == 0 ? "the start of the data buffer" : "where the previous tensor ends",
                        t->data_start > expected ? "a hole in the data buffer" : "tensors overlap",
                        dup);
}

/* Check that tensor t's byte range holds its dtype and shape; fill numel
** and nbytes. */
static int st_check_size(st_parse *p, wt_tensor *t) {
  uint64_t numel = 1, bits;
  uint32_t width = st_dtype_get((int)t->type_id)->bits;
  char sh[ST_QUOTE_SIZE];
  int k;
  for (k = 0; k < t->ndim; k++) {
    if (wt_mul(numel, t->dims[k], &numel))
      return st_tensor_fail(p, t->name, ": the element count of shape %s overflows 64 bits",
                            wt_shape_text(sh, sizeof(sh), t, 0));
  }
  if (wt_mul(numel, width, &bits))
    return st_tensor_fail(p, t->name, ": the bit size of %llu elements of %s overflows 64 bits",
                          (unsigned long long)numel, t->dtype.p);
  if (bits % 8 != 0)
    return st_tensor_fail(p, t->name,
                          ": %llu elements of %s (%u bits each) do not fill whole bytes",
                          (unsigned long long)numel, t->dtype.p, width);
  if (t->data_end - t->data_start != bits / 8)
    return st_tensor_fail(p, t->name,
                          ": dtype %s and shape %s need %llu bytes, but data_offsets "
                          "[%llu,%llu] hold %llu",
                          t->dtype.p, wt_shape_text(sh, sizeof(sh), t, 0),
                          (unsigned long long)(bits / 8), (unsigned long long)t->data_start,
                          (unsigned long long)t->data_end,
                          (unsigned long long)(t->data_end - t->data_start));
  t->numel = numel;
  t->nbytes = bits / 8;
  t->nbytes_known = 1;
  return 0;
}

/* Check that the sorted tensors tile the data buffer and that each one's
** byte range matches its dtype and shape; fill numel, nbytes, offset. */
static int st_validate(st_parse *p) {
  wt_model *m = p->m;
  uint64_t expected = 0, need;
  size_t i;
  for (i = 0; i < m->n_tensors; i++) {
    wt_tensor *t = &m->tensors[i];
    if (t->data_start != expected || t->data_end < t->data_start)
      return st_bad_offsets(p, t, i, expected);
    if (st_check_size(p, t))
      return -1;
    t->offset = 8 + p->n + t->data_start;
    expected = t->data_end;
  }
  need = 8 + p->n + expected;
  if (need == p->size)
    return 0;
  if (need > p->size)
    return wt_fail(p->err,
                   "file is truncated: the header and tensors need %llu bytes, the file has %llu",
                   (unsigned long long)need, (unsigned long long)p->size);
  return wt_fail(p->err,
                 "the %s ends at byte %llu but the file has %llu bytes: trailing bytes (%llu) "
                 "are not allowed",
                 m->n_tensors ? "last tensor" : "header", (unsigned long long)need,
                 (unsigned long long)p->size, (unsigned long long)(p->size - need));
}

/* =============================== The parse ================================ */

/* Walk the root object: metadata and tensors in document order. */
static int st_walk(st_parse *p) {
  const json_token *root = st_tok(p, 0);
  size_t c, key;
  int seen_meta = 0;
  if (root->type != JSON_OBJECT)
    return wt_fail(p->err, "header is %s, not a JSON object", st_json_type(root));
  p->m->tensors = wt_arena_alloc(p->m->arena, root->len * sizeof(wt_tensor) + 1);
  if (p->m->tensors == NULL)
    return wt_fail(p->err, "out of memory");
  for (c = 0, key = 1; c < root->len; c++, key = st_after(p, key + 1)) {
    wt_tensor *t = &p->m->tensors[p->m->n_tensors];
    wt_str name;
    if (st_str(p, key, &name))
      return -1;
    if (st_is(name, "__metadata__")) {
      if (seen_meta++)
        return wt_fail(p->err, "duplicate __metadata__");
      if (st_metadata(p, key + 1))
        return -1;
      continue;
    }
    t->name = name;
    if (st_tensor(p, key + 1, t))
      return -1;
    p->m->n_tensors++;
  }
  return 0;
}

/* Checks 1 to 3: the header length against the file.  Sets p->n and
** p->header. */
static int st_header_length(st_parse *p) {
  char msg[ST_NOTE_SIZE];
  uint64_t n;
  if (p->size < 8) {
    snprintf(msg, sizeof(msg), "file size %llu is less than the 8 bytes of the header length",
             (unsigned long long)p->size);
    return st_fail_lookalike(p, msg);
  }
  if (p->avail < 8) {
    p->need = 8;
    return -1;
  }
  n = wt_load_le64(p->data);
  p->n = n;
  p->header = (const char *)p->data + 8;
  if (n > ST_MAX_HEADER) {
    snprintf(msg, sizeof(msg), "header length %llu is over the limit of %llu bytes",
             (unsigned long long)n, ST_MAX_HEADER);
    return st_fail_lookalike(p, msg);
  }
  if (n > p->size - 8) {
    snprintf(msg, sizeof(msg), "header length %llu runs past the end of the file (%llu bytes)",
             (unsigned long long)n, (unsigned long long)p->size);
    return st_fail_lookalike(p, msg);
  }
  if (8 + n > p->avail) {
    p->need = 8 + n;
    return -1;
  }
  return 0;
}

/* Checks 4 and 5 up to the JSON: UTF-8, then the tokens. */
static int st_tokens(st_parse *p) {
  size_t valid = wt_utf8_valid_prefix(p->header, (size_t)p->n);
  if (valid != p->n)
    return wt_fail(p->err, "invalid UTF-8 in header at byte %llu", (unsigned long long)(8 + valid));
  return json_parse(p->header, (size_t)p->n, 8, &p->doc, p->err);
}

int safetensors_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err) {
  return safetensors_parse_prefix(data, size, size, out, NULL, err);
}

int safetensors_parse_prefix(const unsigned char *data, uint64_t avail, uint64_t size,
                             wt_model *out, uint64_t *need, wt_error *err) {
  st_parse p;
  int rc = -1;

  memset(out, 0, sizeof(*out));
  memset(&p, 0, sizeof(p));
  p.data = data;
  p.size = size;
  p.avail = avail < size ? avail : size;
  p.m = out;
  p.last_dtype = -1;
  p.err = err;
  if (st_header_length(&p)) {
    if (p.need > p.avail && need != NULL) {
      *need = p.need;
      rc = 1;
    } else if (p.need > p.avail) {
      wt_fail(err, "the header runs past the %llu bytes given", (unsigned long long)p.avail);
    }
    goto done;
  }
  if (st_tokens(&p))
    goto done;
  out->arena = wt_arena_new();
  if (out->arena == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  if (st_walk(&p) || st_dedupe_all(&p) || st_sort(&p) || st_validate(&p))
    goto done;
  out->format = WT_FORMAT_SAFETENSORS;
  out->file_size = size;
  out->header_len = p.n;
  out->data_offset = 8 + p.n;
  rc = 0;
done:
  json_doc_free(&p.doc);
  if (rc)
    wt_model_free(out);
  return rc;
}
