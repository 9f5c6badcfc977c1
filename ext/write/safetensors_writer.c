/*
** safetensors_writer.c: encode a safetensors header.  See
** safetensors_writer.h.
** Layer: write (pure C; uses formats/, base/).
*/
#include "safetensors_writer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/repeat.h"
#include "base/utf8.h"
#include "formats/dtype.h"
#include "formats/safetensors_parser.h"
#include "write_buf.h"

static const char sw_metadata_key[] = "__metadata__";

/* Byte order of two names, then length (Rust's String ordering). */
static int sw_str_cmp(wt_str a, wt_str b) {
  size_t n = a.n < b.n ? a.n : b.n;
  int c = n ? memcmp(a.p, b.p, n) : 0;
  if (c != 0)
    return c;
  return a.n < b.n ? -1 : a.n > b.n;
}

static int sw_crate_cmp(const void *a, const void *b) {
  const sw_tensor *x = a, *y = b;
  if (x->dtype != y->dtype)
    return x->dtype > y->dtype ? -1 : 1;
  return sw_str_cmp(x->name, y->name);
}

void sw_sort_crate(sw_tensor *t, size_t n) {
  if (n > 1)
    qsort(t, n, sizeof(*t), sw_crate_cmp);
}

/* Append s as a JSON string, escaped as serde_json does. */
static void sw_json_string(wt_buf *b, wt_str s) {
  static const char hex[] = "0123456789abcdef";
  size_t i, run = 0;
  WB_LIT(b, "\"");
  for (i = 0; i < s.n; i++) {
    unsigned char c = (unsigned char)s.p[i];
    char esc[6] = {'\\', 0, '0', '0', 0, 0};
    size_t len = 2;
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    wb_put(b, s.p + run, i - run);
    run = i + 1;
    switch (c) {
    case '"':
    case '\\':
      esc[1] = (char)c;
      break;
    case '\b':
      esc[1] = 'b';
      break;
    case '\f':
      esc[1] = 'f';
      break;
    case '\n':
      esc[1] = 'n';
      break;
    case '\r':
      esc[1] = 'r';
      break;
    case '\t':
      esc[1] = 't';
      break;
    default:
      esc[1] = 'u';
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      len = 6;
    }
    wb_put(b, esc, len);
  }
  if (run < s.n)
    wb_put(b, s.p + run, s.n - run);
  WB_LIT(b, "\"");
}

/* Check the names and strings, and set each tensor's size and offset. */
static int sw_check(const sw_meta *meta, size_t n_meta, sw_tensor *t, size_t n_t,
                    uint64_t *data_size, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  uint64_t at = 0;
  size_t i;
  int k;
  for (i = 0; i < n_meta; i++) {
    if (!wt_utf8_valid(meta[i].key.p, meta[i].key.n))
      return wt_fail(err, "metadata key %s is not valid UTF-8",
                     wt_quote(q, sizeof(q), meta[i].key.p, meta[i].key.n));
    if (!wt_utf8_valid(meta[i].value.p, meta[i].value.n))
      return wt_fail(err, "metadata value of key %s is not valid UTF-8",
                     wt_quote(q, sizeof(q), meta[i].key.p, meta[i].key.n));
  }
  for (i = 0; i < n_t; i++) {
    const st_dtype_info *d = st_dtype_get(t[i].dtype);
    uint64_t numel = 1, bits;
    const char *name = wt_quote(q, sizeof(q), t[i].name.p, t[i].name.n);
    if (!wt_utf8_valid(t[i].name.p, t[i].name.n))
      return wt_fail(err, "tensor name %s is not valid UTF-8", name);
    if (t[i].name.n == sizeof(sw_metadata_key) - 1 &&
        memcmp(t[i].name.p, sw_metadata_key, t[i].name.n) == 0)
      return wt_fail(err, "a tensor may not be named __metadata__");
    if (d == NULL)
      return wt_fail(err, "tensor %s: dtype #%d is not in the crate's table", name, t[i].dtype);
    if (t[i].ndim < 0)
      return wt_fail(err, "tensor %s: negative rank", name);
    for (k = 0; k < t[i].ndim; k++)
      if (wt_mul(numel, t[i].dims[k], &numel) != 0)
        return wt_fail(err, "tensor %s: the element count overflows 64 bits", name);
    if (wt_mul(numel, d->bits, &bits) != 0 || bits % 8 != 0)
      return wt_fail(err, "tensor %s: %llu elements of %s do not fill whole bytes", name, U(numel),
                     d->name);
    t[i].nbytes = bits / 8;
    t[i].data_start = at;
    if (wt_add(at, t[i].nbytes, &at) != 0)
      return wt_fail(err, "the data section overflows 64 bits");
  }
  *data_size = at;
  return 0;
}

/* 0 when the n entries of stride bytes at base have different names (a
** wt_str off bytes in), else -1 with err naming the first repeat as what. */
static int sw_unique(const void *base, size_t n, size_t stride, size_t off, const char *what,
                     wt_error *err) {
  char q[WT_QUOTE_SIZE];
  size_t dup, first;
  const wt_str *s;
  int found = wt_first_repeat(base, n, stride, off, &dup, &first);
  if (found < 0)
    return wt_fail(err, "out of memory");
  if (found == 0)
    return 0;
  s = (const wt_str *)((const char *)base + dup * stride + off);
  return wt_fail(err, "%s %s appears twice", what, wt_quote(q, sizeof(q), s->p, s->n));
}

/* No metadata key and no tensor name given twice. */
static int sw_check_unique(const sw_meta *meta, size_t n_meta, const sw_tensor *t, size_t n_t,
                           wt_error *err) {
  if (sw_unique(meta, n_meta, sizeof(*meta), offsetof(sw_meta, key), "metadata key", err) != 0)
    return -1;
  return sw_unique(t, n_t, sizeof(*t), offsetof(sw_tensor, name), "tensor name", err);
}

/* Append the shape and offsets of t. */
static void sw_tensor_json(wt_buf *b, const sw_tensor *t) {
  int k;
  sw_json_string(b, t->name);
  WB_LIT(b, ":{\"dtype\":\"");
  wb_put(b, st_dtype_get(t->dtype)->name, strlen(st_dtype_get(t->dtype)->name));
  WB_LIT(b, "\",\"shape\":[");
  for (k = 0; k < t->ndim; k++) {
    if (k > 0)
      WB_LIT(b, ",");
    wb_dec(b, t->dims[k]);
  }
  WB_LIT(b, "],\"data_offsets\":[");
  wb_dec(b, t->data_start);
  WB_LIT(b, ",");
  wb_dec(b, t->data_start + t->nbytes);
  WB_LIT(b, "]}");
}

int safetensors_write_header(const sw_meta *meta, size_t n_meta, sw_tensor *t, size_t n_t,
                             wt_buf *out, uint64_t *data_size, wt_error *err) {
  size_t i, start = out->n, json;
  uint64_t len;
  int k;
  if (sw_check(meta, n_meta, t, n_t, data_size, err) != 0 ||
      sw_check_unique(meta, n_meta, t, n_t, err) != 0)
    return -1;
  wb_u64(out, 0); /* the length, set below */
  json = out->n;
  WB_LIT(out, "{");
  if (n_meta > 0) {
    WB_LIT(out, "\"__metadata__\":{");
    for (i = 0; i < n_meta; i++) {
      if (i > 0)
        WB_LIT(out, ",");
      sw_json_string(out, meta[i].key);
      WB_LIT(out, ":");
      sw_json_string(out, meta[i].value);
    }
    WB_LIT(out, "}");
  }
  for (i = 0; i < n_t; i++) {
    if (i > 0 || n_meta > 0)
      WB_LIT(out, ",");
    sw_tensor_json(out, &t[i]);
  }
  WB_LIT(out, "}");
  wb_fill(out, ' ', (SW_HEADER_ALIGN - (out->n - json) % SW_HEADER_ALIGN) % SW_HEADER_ALIGN);
  if (out->oom)
    return wt_fail(err, "out of memory writing a header");
  len = out->n - json;
  if (len > ST_MAX_HEADER)
    return wt_fail(err, "the header of %llu bytes is over the crate's limit of %llu", U(len),
                   U(ST_MAX_HEADER));
  for (k = 0; k < 8; k++)
    out->p[start + (size_t)k] = (char)(len >> (8 * k));
  return 0;
}
