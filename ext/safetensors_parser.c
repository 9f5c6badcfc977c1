/*
** safetensors_parser.c: bytes in, a validated wt_model or a precise error
** out.
**
** The file is an 8-byte little-endian header length N, N bytes of UTF-8
** JSON, then the data buffer.  The checks follow the reference crate, in
** its order:
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
** cJSON builds the tree; names, keys, values and numbers are read from
** their own text (see json_check.h), so u64 values are exact and a name
** with an escaped NUL is kept whole, as the crate keeps it.
*/
#include "safetensors_parser.h"

#include <cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "json_check.h"
#include "sniff.h"
#include "utf8.h"

/* Parsing state: the model being built and where numbers and strings are. */
typedef struct st_parse {
  const unsigned char *data;
  uint64_t size;
  const char *header; /* data + 8 */
  uint64_t n;         /* header length */
  json_tokens tok;
  size_t next_num; /* index in tok.nums of the next number node in document order */
  size_t next_str; /* index in tok.strs of the next string (keys included) */
  wt_model *m;
  wt_str dup_tensor; /* a tensor name that appeared more than once */
  wt_error *err;
} st_parse;

/* Quote a name for a message. */
#define ST_Q(buf, s) wt_quote(buf, sizeof(buf), (s).p, (s).n)

/* Append " (this looks like ...)" to a message when the bytes are a known
** non-safetensors file. */
static int st_fail_lookalike(st_parse *p, const char *msg) {
  const char *what = wt_sniff_describe(p->data, p->size, WT_FORMAT_SAFETENSORS);
  if (what != NULL)
    return wt_fail(p->err, "not a safetensors file: this is %s (%s)", what, msg);
  return wt_fail(p->err, "%s", msg);
}

/* Step over a subtree that is ignored: its numbers and strings (object
** keys included) so that the indexes stay in document order. */
static void st_skip(st_parse *p, const cJSON *j) {
  const cJSON *c;
  if (cJSON_IsNumber(j))
    p->next_num++;
  else if (cJSON_IsString(j))
    p->next_str++;
  for (c = j->child; c; c = c->next) {
    if (cJSON_IsObject(j))
      p->next_str++;
    st_skip(p, c);
  }
}

/* Take the next string of the header (a key or a string value), decoded.
** Strings without escapes point into the mapped header. */
static int st_next_str(st_parse *p, wt_str *out) {
  const json_span *sp;
  const char *raw;
  char *buf;
  if (p->next_str >= p->tok.strs.n)
    return wt_fail(p->err, "internal error: string index out of step");
  sp = &p->tok.strs.a[p->next_str++];
  raw = p->header + sp->pos;
  if (!p->tok.strs_escaped || memchr(raw, '\\', sp->len) == NULL) {
    out->p = raw;
    out->n = sp->len;
    return 0;
  }
  buf = wt_arena_alloc(p->m->arena, sp->len + 1);
  if (buf == NULL)
    return wt_fail(p->err, "out of memory");
  out->p = buf;
  out->n = json_unescape(raw, sp->len, buf);
  return 0;
}

/* True when s holds exactly the C string z. */
static int st_is(wt_str s, const char *z) {
  return s.n == strlen(z) && memcmp(s.p, z, s.n) == 0;
}

/* Name a JSON node's type for messages. */
static const char *st_json_type(const cJSON *j) {
  if (cJSON_IsNull(j))
    return "null";
  if (cJSON_IsBool(j))
    return "a boolean";
  if (cJSON_IsNumber(j))
    return "a number";
  if (cJSON_IsString(j))
    return "a string";
  if (cJSON_IsArray(j))
    return "an array";
  return "an object";
}

/* Read the next number node (j) as an exact u64.  what names it in errors. */
static int st_u64(st_parse *p, const cJSON *j, wt_str tensor, const char *what, uint64_t *out) {
  char q[160];
  const json_span *sp;
  const char *t;
  uint64_t v = 0;
  size_t i;
  if (!cJSON_IsNumber(j)) {
    return wt_fail(p->err, "tensor %s: %s is %s, not an unsigned integer", ST_Q(q, tensor), what,
                   st_json_type(j));
  }
  if (p->next_num >= p->tok.nums.n)
    return wt_fail(p->err, "internal error: number index out of step");
  sp = &p->tok.nums.a[p->next_num++];
  t = p->header + sp->pos;
  for (i = 0; i < sp->len; i++) {
    unsigned d = (unsigned)(t[i] - '0');
    if (d > 9 || wt_mul(v, 10, &v) || wt_add(v, d, &v)) {
      return wt_fail(p->err, "tensor %s: %s is %.*s at byte %llu, not an unsigned 64-bit integer",
                     ST_Q(q, tensor), what, (int)(sp->len > 40 ? 40 : sp->len), t,
                     (unsigned long long)(8 + sp->pos));
    }
  }
  *out = v;
  return 0;
}

/* Read `__metadata__`: null, or an object whose values are all strings. */
static int st_metadata(st_parse *p, const cJSON *j) {
  const cJSON *c;
  size_t n = 0;
  char q[160];
  if (cJSON_IsNull(j))
    return 0;
  if (!cJSON_IsObject(j))
    return wt_fail(p->err, "__metadata__ is %s, not an object of strings", st_json_type(j));
  for (c = j->child; c; c = c->next)
    n++;
  p->m->meta = wt_arena_alloc(p->m->arena, n * sizeof(wt_meta) + 1);
  if (p->m->meta == NULL)
    return wt_fail(p->err, "out of memory");
  for (c = j->child; c; c = c->next) {
    wt_meta *kv = &p->m->meta[p->m->n_meta++];
    if (st_next_str(p, &kv->key))
      return -1;
    if (!cJSON_IsString(c)) {
      return wt_fail(p->err, "__metadata__ value of key %s is %s, not a string", ST_Q(q, kv->key),
                     st_json_type(c));
    }
    if (st_next_str(p, &kv->value))
      return -1;
  }
  return 0;
}

/* Read a tensor's shape array into t->dims. */
static int st_shape(st_parse *p, const cJSON *j, wt_tensor *t) {
  char q[160], what[48];
  const cJSON *c;
  uint64_t *dims;
  int k = 0;
  if (!cJSON_IsArray(j))
    return wt_fail(p->err, "tensor %s: shape is %s, not an array", ST_Q(q, t->name),
                   st_json_type(j));
  t->ndim = cJSON_GetArraySize(j);
  dims = wt_arena_alloc(p->m->arena, (size_t)t->ndim * sizeof(uint64_t) + 1);
  if (dims == NULL)
    return wt_fail(p->err, "out of memory");
  for (c = j->child; c; c = c->next, k++) {
    snprintf(what, sizeof(what), "shape[%d]", k);
    if (st_u64(p, c, t->name, what, &dims[k]))
      return -1;
  }
  t->dims = dims;
  return 0;
}

/* Read a tensor's data_offsets pair. */
static int st_offsets(st_parse *p, const cJSON *j, wt_tensor *t) {
  char q[160];
  if (!cJSON_IsArray(j)) {
    return wt_fail(p->err, "tensor %s: data_offsets is %s, not an array", ST_Q(q, t->name),
                   st_json_type(j));
  }
  if (cJSON_GetArraySize(j) != 2) {
    return wt_fail(p->err, "tensor %s: data_offsets must have 2 elements, not %d", ST_Q(q, t->name),
                   cJSON_GetArraySize(j));
  }
  if (st_u64(p, j->child, t->name, "data_offsets[0]", &t->data_start) ||
      st_u64(p, j->child->next, t->name, "data_offsets[1]", &t->data_end))
    return -1;
  return 0;
}

/* Read a tensor's dtype string. */
static int st_dtype(st_parse *p, const cJSON *j, wt_tensor *t) {
  char q[160], d[160];
  wt_str z;
  int i;
  if (!cJSON_IsString(j))
    return wt_fail(p->err, "tensor %s: dtype is %s, not a string", ST_Q(q, t->name),
                   st_json_type(j));
  if (st_next_str(p, &z))
    return -1;
  i = st_dtype_find(z.p, z.n);
  if (i < 0) {
    int hint = st_dtype_find_nocase(z.p, z.n);
    return wt_fail(p->err, "tensor %s: unknown dtype %s%s%s%s", ST_Q(q, t->name), ST_Q(d, z),
                   hint >= 0 ? " (dtype names are case-sensitive: did you mean " : "",
                   hint >= 0 ? st_dtype_get(hint)->name : "", hint >= 0 ? "?)" : "");
  }
  t->type_id = i;
  t->dtype.p = st_dtype_get(i)->name;
  t->dtype.n = strlen(t->dtype.p);
  return 0;
}

/* Read one tensor entry (its key already read into t->name).  Fields may
** come in any order, each at most once; unknown fields are ignored. */
static int st_tensor(st_parse *p, const cJSON *j, wt_tensor *t) {
  static const char *const fields[3] = {"dtype", "shape", "data_offsets"};
  const cJSON *c;
  int seen[3] = {0, 0, 0}, k, rc = 0;
  char q[160];
  if (!cJSON_IsObject(j)) {
    return wt_fail(p->err, "tensor %s is %s, not an object with dtype, shape and data_offsets",
                   ST_Q(q, t->name), st_json_type(j));
  }
  for (c = j->child; c && rc == 0; c = c->next) {
    wt_str key;
    if (st_next_str(p, &key))
      return -1;
    for (k = 0; k < 3 && !st_is(key, fields[k]); k++)
      ;
    if (k == 3) {
      st_skip(p, c);
      continue;
    }
    if (seen[k]++)
      return wt_fail(p->err, "tensor %s: duplicate field %s", ST_Q(q, t->name), fields[k]);
    rc = k == 0 ? st_dtype(p, c, t) : k == 1 ? st_shape(p, c, t) : st_offsets(p, c, t);
  }
  if (rc)
    return rc;
  for (k = 0; k < 3; k++) {
    if (!seen[k])
      return wt_fail(p->err, "tensor %s: missing field %s", ST_Q(q, t->name), fields[k]);
  }
  return 0;
}

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

/* A key and its position, for finding repeated keys. */
typedef struct st_keyed {
  wt_str key;
  size_t idx;
} st_keyed;

/* Compare by key bytes, then position. */
static int st_cmp_keyed(const void *a, const void *b) {
  const st_keyed *x = a, *y = b;
  size_t n = x->key.n < y->key.n ? x->key.n : y->key.n;
  int c = memcmp(x->key.p, y->key.p, n);
  if (c != 0)
    return c;
  if (x->key.n != y->key.n)
    return x->key.n < y->key.n ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Keep only the last of the n elements (each size bytes, its wt_str key at
** key_off) that share a key, in document order: the crate reads tensors
** and __metadata__ into maps, where the last entry wins.  Sets *dropped to
** one dropped key.  Returns the new count, or -1 on OOM. */
static long st_dedupe(void *base, size_t n, size_t size, size_t key_off, wt_str *dropped) {
  char *el = base;
  st_keyed *keys;
  size_t i, k = 0;
  if (n < 2)
    return (long)n;
  keys = malloc(n * sizeof(*keys));
  if (keys == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    memcpy(&keys[i].key, el + i * size + key_off, sizeof(wt_str));
    keys[i].idx = i;
  }
  qsort(keys, n, sizeof(*keys), st_cmp_keyed);
  for (i = 0; i + 1 < n; i++) {
    if (keys[i].key.n == keys[i + 1].key.n &&
        memcmp(keys[i].key.p, keys[i + 1].key.p, keys[i].key.n) == 0) {
      *dropped = keys[i].key;
      ((wt_str *)(el + keys[i].idx * size + key_off))->p = NULL; /* mark as dropped */
    }
  }
  free(keys);
  for (i = 0; i < n; i++) {
    if (((wt_str *)(el + i * size + key_off))->p == NULL)
      continue;
    if (k != i)
      memcpy(el + k * size, el + i * size, size);
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

/* Reorder the tensors by data offsets, as the crate does before validating
** (JSON order is not offset order in files written by MLX). */
static int st_sort(st_parse *p) {
  wt_model *m = p->m;
  wt_tensor **by_offset, *sorted;
  size_t i;
  if (m->n_tensors < 2)
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

/* Format dims as "[a,b,c]" for a message. */
static const char *st_shape_text(char *buf, size_t size, const wt_tensor *t) {
  size_t j = 0;
  int k;
  j += (size_t)snprintf(buf + j, size - j, "[");
  for (k = 0; k < t->ndim && j < size; k++)
    j +=
        (size_t)snprintf(buf + j, size - j, "%s%llu", k ? "," : "", (unsigned long long)t->dims[k]);
  if (j < size)
    snprintf(buf + j, size - j, "]");
  return buf;
}

/* Check that the sorted tensors tile the data buffer and that each one's
** byte range matches its dtype and shape; fill numel, nbytes, offset. */
static int st_validate(st_parse *p) {
  wt_model *m = p->m;
  uint64_t expected = 0;
  size_t i;
  char q[160], sh[160], dup[200] = "";
  if (p->dup_tensor.p != NULL) {
    char qd[160];
    snprintf(dup, sizeof(dup), "; tensor %s appears more than once and only its last entry counts",
             ST_Q(qd, p->dup_tensor));
  }
  for (i = 0; i < m->n_tensors; i++) {
    wt_tensor *t = &m->tensors[i];
    uint64_t numel = 1, bits;
    uint32_t width = st_dtype_get((int)t->type_id)->bits;
    int k;
    const char *name = wt_quote(q, sizeof(q), t->name.p, t->name.n);
    if (t->data_start != expected || t->data_end < t->data_start) {
      if (t->data_end < t->data_start)
        return wt_fail(p->err, "tensor %s: data_offsets [%llu,%llu] end before they begin", name,
                       (unsigned long long)t->data_start, (unsigned long long)t->data_end);
      return wt_fail(p->err, "tensor %s: data_offsets [%llu,%llu] should start at %llu, %s (%s%s)",
                     name, (unsigned long long)t->data_start, (unsigned long long)t->data_end,
                     (unsigned long long)expected,
                     i == 0 ? "the start of the data buffer" : "where the previous tensor ends",
                     t->data_start > expected ? "a hole in the data buffer" : "tensors overlap",
                     dup);
    }
    for (k = 0; k < t->ndim; k++) {
      if (wt_mul(numel, t->dims[k], &numel))
        return wt_fail(p->err, "tensor %s: the element count of shape %s overflows 64 bits", name,
                       st_shape_text(sh, sizeof(sh), t));
    }
    if (wt_mul(numel, width, &bits))
      return wt_fail(p->err, "tensor %s: the bit size of %llu elements of %s overflows 64 bits",
                     name, (unsigned long long)numel, t->dtype.p);
    if (bits % 8 != 0)
      return wt_fail(p->err,
                     "tensor %s: %llu elements of %s (%u bits each) do not fill whole bytes", name,
                     (unsigned long long)numel, t->dtype.p, width);
    if (t->data_end - t->data_start != bits / 8)
      return wt_fail(p->err,
                     "tensor %s: dtype %s and shape %s need %llu bytes, but data_offsets "
                     "[%llu,%llu] hold %llu",
                     name, t->dtype.p, st_shape_text(sh, sizeof(sh), t),
                     (unsigned long long)(bits / 8), (unsigned long long)t->data_start,
                     (unsigned long long)t->data_end,
                     (unsigned long long)(t->data_end - t->data_start));
    t->numel = numel;
    t->nbytes = bits / 8;
    t->nbytes_known = 1;
    t->offset = 8 + p->n + t->data_start;
    expected = t->data_end;
  }
  if (8 + p->n + expected != p->size) {
    uint64_t need = 8 + p->n + expected;
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
  return 0;
}

/* Walk the parsed JSON object: metadata and tensors in document order. */
static int st_walk(st_parse *p, const cJSON *root) {
  const cJSON *c;
  size_t n = 0;
  int seen_meta = 0;
  if (!cJSON_IsObject(root))
    return wt_fail(p->err, "header is %s, not a JSON object", st_json_type(root));
  for (c = root->child; c; c = c->next)
    n++;
  p->m->tensors = wt_arena_alloc(p->m->arena, n * sizeof(wt_tensor) + 1);
  if (p->m->tensors == NULL)
    return wt_fail(p->err, "out of memory");
  for (c = root->child; c; c = c->next) {
    wt_tensor *t = &p->m->tensors[p->m->n_tensors];
    if (st_next_str(p, &t->name))
      return -1;
    if (st_is(t->name, "__metadata__")) {
      memset(t, 0, sizeof(*t));
      if (seen_meta++)
        return wt_fail(p->err, "duplicate __metadata__");
      if (st_metadata(p, c))
        return -1;
      continue;
    }
    if (st_tensor(p, c, t))
      return -1;
    p->m->n_tensors++;
  }
  return 0;
}

int safetensors_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err) {
  st_parse p;
  cJSON *root = NULL;
  size_t valid;
  char msg[200];
  int rc = -1;
  uint64_t n = 0;
  int i;

  memset(out, 0, sizeof(*out));
  memset(&p, 0, sizeof(p));
  p.data = data;
  p.size = size;
  p.m = out;
  p.err = err;
  if (size < 8) {
    snprintf(msg, sizeof(msg), "file size %llu is less than the 8 bytes of the header length",
             (unsigned long long)size);
    return st_fail_lookalike(&p, msg);
  }
  for (i = 0; i < 8; i++)
    n |= (uint64_t)data[i] << (8 * i);
  p.n = n;
  p.header = (const char *)data + 8;
  if (n > ST_MAX_HEADER) {
    snprintf(msg, sizeof(msg), "header length %llu is over the limit of 100000000 bytes",
             (unsigned long long)n);
    return st_fail_lookalike(&p, msg);
  }
  if (n > size - 8) {
    snprintf(msg, sizeof(msg), "header length %llu runs past the end of the file (%llu bytes)",
             (unsigned long long)n, (unsigned long long)size);
    return st_fail_lookalike(&p, msg);
  }
  valid = wt_utf8_valid_prefix(p.header, (size_t)n);
  if (valid != n)
    return wt_fail(err, "invalid UTF-8 in header at byte %llu", (unsigned long long)(8 + valid));
  if (json_check(p.header, (size_t)n, 8, &p.tok, err))
    goto done;
  out->arena = wt_arena_new();
  if (out->arena == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  root = cJSON_ParseWithLengthOpts(p.header, (size_t)n, NULL, 0);
  if (root == NULL) {
    wt_fail(err, "invalid JSON in header near byte %llu",
            (unsigned long long)(8 + (uint64_t)(cJSON_GetErrorPtr() - p.header)));
    goto done;
  }
  if (st_walk(&p, root) || st_dedupe_all(&p) || st_sort(&p) || st_validate(&p))
    goto done;
  out->format = WT_FORMAT_SAFETENSORS;
  out->file_size = size;
  out->header_len = n;
  out->data_offset = 8 + n;
  rc = 0;
done:
  cJSON_Delete(root);
  json_tokens_free(&p.tok);
  if (rc)
    wt_model_free(out);
  return rc;
}
