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
#include "safetensors_int.h"

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
