/*
** gguf_writer.c: encode a GGUF v3 header.  See gguf_writer.h.
** Layer: write (pure C; uses formats/, base/).
*/
#include "gguf_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/repeat.h"
#include "formats/ggml_type.h"
#include "write_buf.h"

static const char gw_magic[4] = {'G', 'G', 'U', 'F'};
static const char gw_alignment_key[] = "general.alignment";

/* ---- Values --------------------------------------------------------- */

/* Little-endian numbers of a value being checked. */
static uint64_t gw_get64le(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static uint32_t gw_get32le(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Walk count values of scalar type t from val[*pos..n): 0, or -1 with err. */
static int gw_check_elems(uint32_t t, uint64_t count, const unsigned char *val, size_t n,
                          size_t *pos, wt_error *err) {
  uint64_t i, len;
  uint32_t size = gguf_type_size(t);
  if (t != GGUF_TYPE_STRING) {
    if (size == 0)
      return wt_fail(err, "invalid value type %u", t);
    if (count > (n - *pos) / size)
      return wt_fail(err, "%llu %s values need %llu bytes, %llu given", U(count), gguf_type_name(t),
                     U(count * size), U(n - *pos));
    *pos += count * size;
    return 0;
  }
  for (i = 0; i < count; i++) {
    if (n - *pos < 8)
      return wt_fail(err, "string #%llu has no length", U(i));
    len = gw_get64le(val + *pos);
    *pos += 8;
    if (len > GW_MAX_STRING)
      return wt_fail(err, "string of %llu bytes is over ggml's limit of %llu", U(len),
                     U(GW_MAX_STRING));
    if (len > n - *pos)
      return wt_fail(err, "string #%llu of %llu bytes runs past the value", U(i), U(len));
    *pos += len;
  }
  return 0;
}

int gw_value_check(uint32_t type, const unsigned char *val, size_t n, wt_error *err) {
  size_t pos = 0;
  if (type == GGUF_TYPE_ARRAY) {
    uint32_t et;
    uint64_t count;
    if (n < 12)
      return wt_fail(err, "an array needs its element type and count");
    et = gw_get32le(val);
    count = gw_get64le(val + 4);
    if (et == GGUF_TYPE_ARRAY)
      return wt_fail(err, "nested arrays are not allowed (ggml rejects them)");
    if (count > GW_MAX_ARRAY)
      return wt_fail(err, "array of %llu elements is over ggml's limit of %llu", U(count),
                     U(GW_MAX_ARRAY));
    pos = 12;
    if (gw_check_elems(et, count, val, n, &pos, err) != 0)
      return -1;
  } else if (gw_check_elems(type, 1, val, n, &pos, err) != 0) {
    return -1;
  }
  if (pos != n)
    return wt_fail(err, "%llu bytes after the value", U(n - pos));
  return 0;
}

/* Append size bytes of p, reversed when swap. */
static int gw_put_swapped(wt_buf *out, const unsigned char *p, uint32_t size, int swap) {
  unsigned char tmp[8];
  uint32_t i;
  if (!swap)
    return wb_put(out, p, size);
  for (i = 0; i < size; i++)
    tmp[i] = p[size - 1 - i];
  return wb_put(out, tmp, size);
}

/* A string length of lensz (4 or 8) bytes in the file's byte order. */
static uint64_t gw_get_len(const unsigned char *p, uint32_t lensz, int swap) {
  uint64_t v = 0;
  uint32_t j;
  for (j = 0; j < lensz; j++)
    v |= (uint64_t)p[swap ? lensz - 1 - j : j] << (8 * j);
  return v;
}

int gw_value_copy(wt_buf *out, const wt_model *m, const unsigned char *data, const wt_meta *kv) {
  uint64_t pos = kv->value_pos, end = kv->value_pos + kv->value_len, i, len;
  uint32_t lensz = m->version == 1 ? 4 : 8, et = kv->elem_type, size = gguf_type_size(et);
  int swap = m->big_endian != 0;
  if (end < pos || end > m->file_size)
    return -1;
  if (kv->type == GGUF_TYPE_ARRAY && (wb_u32(out, et) != 0 || wb_u64(out, kv->count) != 0))
    return -1;
  if (et != GGUF_TYPE_STRING) {
    if (size == 0 || kv->count > (end - pos) / size)
      return -1;
    if (!swap || size == 1)
      return wb_put(out, data + pos, (size_t)(kv->count * size));
    for (i = 0; i < kv->count; i++, pos += size)
      if (gw_put_swapped(out, data + pos, size, 1) != 0)
        return -1;
    return 0;
  }
  for (i = 0; i < kv->count; i++) {
    if (end - pos < lensz)
      return -1;
    len = gw_get_len(data + pos, lensz, swap);
    pos += lensz;
    if (len > end - pos || gw_put_string(out, (const char *)data + pos, (size_t)len) != 0)
      return -1;
    pos += len;
  }
  return 0;
}

int gw_put_string(wt_buf *out, const char *p, size_t n) {
  if (wb_u64(out, n) != 0)
    return -1;
  return wb_put(out, p, n);
}

/* The range of the integer type t (BOOL: 0..1); 0 for a non-integer type. */
static int gw_int_range(uint32_t t, int64_t *lo, uint64_t *hi) {
  switch (t) {
  case GGUF_TYPE_UINT8:
    *lo = 0, *hi = UINT8_MAX;
    return 1;
  case GGUF_TYPE_INT8:
    *lo = INT8_MIN, *hi = INT8_MAX;
    return 1;
  case GGUF_TYPE_UINT16:
    *lo = 0, *hi = UINT16_MAX;
    return 1;
  case GGUF_TYPE_INT16:
    *lo = INT16_MIN, *hi = INT16_MAX;
    return 1;
  case GGUF_TYPE_UINT32:
    *lo = 0, *hi = UINT32_MAX;
    return 1;
  case GGUF_TYPE_INT32:
    *lo = INT32_MIN, *hi = INT32_MAX;
    return 1;
  case GGUF_TYPE_UINT64:
    *lo = 0, *hi = UINT64_MAX;
    return 1;
  case GGUF_TYPE_INT64:
    *lo = INT64_MIN, *hi = INT64_MAX;
    return 1;
  case GGUF_TYPE_BOOL:
    *lo = 0, *hi = 1;
    return 1;
  default:
    return 0;
  }
}

int gw_put_number(wt_buf *out, uint32_t type, int is_real, int64_t i, double r) {
  int64_t lo;
  uint64_t hi, bits;
  unsigned char le[8];
  uint32_t size = gguf_type_size(type), k;
  if (type == GGUF_TYPE_FLOAT32 || type == GGUF_TYPE_FLOAT64) {
    double d = is_real ? r : (double)i;
    if (type == GGUF_TYPE_FLOAT32) {
      float f = (float)d;
      uint32_t b32;
      if (isfinite(d) && !isfinite(f))
        return 1;
      memcpy(&b32, &f, 4);
      bits = b32;
    } else {
      memcpy(&bits, &d, 8);
    }
  } else if (gw_int_range(type, &lo, &hi)) {
    if (is_real) {
      /* 2^63 and above do not convert to int64 */
      if (!isfinite(r) || r != floor(r) || r < -9223372036854775808.0 || r >= 9223372036854775808.0)
        return 1;
      i = (int64_t)r;
    }
    if (i < lo || (i > 0 && (uint64_t)i > hi))
      return 1;
    bits = (uint64_t)i;
  } else {
    return 1;
  }
  for (k = 0; k < size; k++)
    le[k] = (unsigned char)(bits >> (8 * k));
  return wb_put(out, le, size);
}

/* ---- The header ------------------------------------------------------- */

/* 0 when the n entries of stride bytes at base, each starting with its
** name (a gw_kv's key, a gw_tensor's name), have different names, else -1
** with err naming the first repeat as what. */
static int gw_unique(const void *base, size_t n, size_t stride, const char *what, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  size_t dup, first;
  const wt_str *s;
  int found = wt_first_repeat(base, n, stride, 0, &dup, &first);
  if (found < 0)
    return wt_fail(err, "out of memory");
  if (found == 0)
    return 0;
  s = (const wt_str *)((const char *)base + dup * stride);
  return wt_fail(err, "%s %s appears twice (#%zu and #%zu)", what,
                 wt_quote(q, sizeof(q), s->p, s->n), first, dup);
}

/* Check the keys and values; set *alignment from general.alignment. */
static int gw_check_kvs(const gw_kv *kv, size_t n, uint64_t *alignment, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  size_t i;
  *alignment = GW_ALIGNMENT;
  for (i = 0; i < n; i++) {
    const gw_kv *e = &kv[i];
    if (e->key.n == 0)
      return wt_fail(err, "kv #%zu: empty key", i);
    if (e->key.n > GW_MAX_STRING)
      return wt_fail(err, "kv #%zu: key of %zu bytes is over ggml's limit", i, e->key.n);
    if (e->type >= GGUF_TYPE_COUNT)
      return wt_fail(err, "key %s: invalid value type %u",
                     wt_quote(q, sizeof(q), e->key.p, e->key.n), e->type);
    if (gw_value_check(e->type, e->val, e->val_len, err) != 0) {
      char why[WT_ERROR_MAX];
      memcpy(why, err->msg, sizeof(why));
      return wt_fail(err, "key %s (%s): %s", wt_quote(q, sizeof(q), e->key.p, e->key.n),
                     gguf_type_name(e->type), why);
    }
    if (e->key.n == sizeof(gw_alignment_key) - 1 &&
        memcmp(e->key.p, gw_alignment_key, e->key.n) == 0) {
      uint32_t a;
      if (e->type != GGUF_TYPE_UINT32)
        return wt_fail(err, "general.alignment must have type UINT32, not %s",
                       gguf_type_name(e->type));
      a = gw_get32le(e->val);
      if (a == 0 || (a & (a - 1)) != 0)
        return wt_fail(err, "general.alignment %u is not a non-zero power of two", a);
      *alignment = a;
    }
  }
  return gw_unique(kv, n, sizeof(*kv), "key", err);
}

/* Check tensor info *t and set its byte size. */
static int gw_check_tensor(gw_tensor *t, size_t i, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  const ggml_type_info *ti = ggml_type_get(t->type);
  uint64_t numel = 1, nbytes = 0;
  int j, zero = 0, over = 0;
  const char *name = wt_quote(q, sizeof(q), t->name.p, t->name.n);
  if (t->name.n > GW_MAX_NAME)
    return wt_fail(err, "tensor #%zu %s: name of %zu bytes is longer than ggml's limit of %d", i,
                   name, t->name.n, GW_MAX_NAME);
  if (t->ndim < 0 || t->ndim > GW_MAX_DIMS)
    return wt_fail(err, "tensor %s: %d dimensions (ggml allows 0 to %d)", name, t->ndim,
                   GW_MAX_DIMS);
  for (j = 0; j < GW_MAX_DIMS; j++) {
    uint64_t ne = j < t->ndim ? t->dims[j] : 1;
    if (ne > INT64_MAX)
      return wt_fail(err, "tensor %s: ne[%d] = %llu is over INT64_MAX", name, j, U(ne));
    zero |= ne == 0;
    over |= wt_mul(numel, ne, &numel) != 0;
  }
  if (!zero && (over || numel >= INT64_MAX))
    return wt_fail(err, "tensor %s: its dimensions hold 2^63-1 elements or more", name);
  if (ti == NULL || ti->block_size == 0)
    return wt_fail(err, "tensor %s: type %u has no known size", name, t->type);
  if (t->ndim > 0 && t->dims[0] % ti->block_size != 0)
    return wt_fail(err, "tensor %s: ne[0] = %llu is not a multiple of the %s block size %u", name,
                   U(t->dims[0]), ti->name, ti->block_size);
  if (!zero) {
    nbytes = (t->ndim > 0 ? t->dims[0] : 1) / ti->block_size;
    if (t->ndim == 0 && ti->block_size > 1)
      return wt_fail(err, "tensor %s: a scalar cannot be of block type %s", name, ti->name);
    over = wt_mul(nbytes, ti->type_size, &nbytes) != 0;
    for (j = 1; j < t->ndim; j++)
      over |= wt_mul(nbytes, t->dims[j], &nbytes) != 0;
    if (over)
      return wt_fail(err, "tensor %s: its byte size overflows 64 bits", name);
  }
  t->nbytes = nbytes;
  return 0;
}

/* Check the tensors (sizes, unique names) and lay out the data section. */
static int gw_layout(gw_tensor *t, size_t n, uint64_t alignment, uint64_t *data_size,
                     wt_error *err) {
  uint64_t at = 0, padded;
  size_t i;
  for (i = 0; i < n; i++) {
    if (gw_check_tensor(&t[i], i, err) != 0)
      return -1;
    if (wt_add(t[i].nbytes, alignment - 1, &padded) != 0 ||
        wt_add(at, padded & ~(alignment - 1), &padded) != 0)
      return wt_fail(err, "the data section overflows 64 bits");
    t[i].data_start = at;
    at = padded;
  }
  *data_size = at;
  return gw_unique(t, n, sizeof(*t), "tensor name", err);
}

/* Append a number of 4 or 8 bytes in the file's byte order. */
static int gw_u32(wt_buf *out, uint32_t v, int be) {
  return wb_u32(out, be ? __builtin_bswap32(v) : v);
}

static int gw_u64(wt_buf *out, uint64_t v, int be) {
  return wb_u64(out, be ? __builtin_bswap64(v) : v);
}

/* Append a value checked by gw_value_check (little-endian, version 3) in
** the file's byte order: big-endian, every number of it swapped (an
** array's element type and count, string lengths, each element). */
static int gw_put_value(wt_buf *out, uint32_t type, const unsigned char *val, size_t n, int be) {
  uint64_t count = 1, i, len;
  size_t pos = 0;
  uint32_t et = type, size;
  if (!be)
    return wb_put(out, val, n);
  if (type == GGUF_TYPE_ARRAY) {
    et = gw_get32le(val);
    count = gw_get64le(val + 4);
    gw_u32(out, et, 1);
    gw_u64(out, count, 1);
    pos = 12;
  }
  size = gguf_type_size(et);
  for (i = 0; i < count; i++) {
    if (et == GGUF_TYPE_STRING) {
      len = gw_get64le(val + pos);
      gw_u64(out, len, 1);
      wb_put(out, val + pos + 8, (size_t)len);
      pos += 8 + (size_t)len;
    } else {
      gw_put_swapped(out, val + pos, size, 1);
      pos += size;
    }
  }
  return out->oom ? -1 : 0;
}

int gguf_write_header(const gw_kv *kv, size_t n_kv, gw_tensor *t, size_t n_t, wt_buf *out,
                      uint64_t *alignment, uint64_t *data_size, wt_error *err) {
  return gguf_write_header_order(kv, n_kv, t, n_t, 0, out, alignment, data_size, err);
}

int gguf_write_header_order(const gw_kv *kv, size_t n_kv, gw_tensor *t, size_t n_t, int be,
                            wt_buf *out, uint64_t *alignment, uint64_t *data_size, wt_error *err) {
  size_t i, start = out->n, len;
  int j;
  if (gw_check_kvs(kv, n_kv, alignment, err) != 0 ||
      gw_layout(t, n_t, *alignment, data_size, err) != 0)
    return -1;
  wb_put(out, gw_magic, sizeof(gw_magic));
  gw_u32(out, GW_VERSION, be);
  gw_u64(out, n_t, be);
  gw_u64(out, n_kv, be);
  for (i = 0; i < n_kv; i++) {
    gw_u64(out, kv[i].key.n, be);
    wb_put(out, kv[i].key.p, kv[i].key.n);
    gw_u32(out, kv[i].type, be);
    gw_put_value(out, kv[i].type, kv[i].val, kv[i].val_len, be);
  }
  for (i = 0; i < n_t; i++) {
    gw_u64(out, t[i].name.n, be);
    wb_put(out, t[i].name.p, t[i].name.n);
    gw_u32(out, (uint32_t)t[i].ndim, be);
    for (j = 0; j < t[i].ndim; j++)
      gw_u64(out, t[i].dims[j], be);
    gw_u32(out, t[i].type, be);
    gw_u64(out, t[i].data_start, be);
  }
  len = out->n - start;
  wb_fill(out, 0, (size_t)((*alignment - len % *alignment) % *alignment));
  if (out->oom)
    return wt_fail(err, "out of memory writing a header of %zu bytes", len);
  return 0;
}
