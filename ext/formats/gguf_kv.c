/*
** gguf_kv.c: the key-value section of a GGUF header: each pair's key, type
** and value (a number, a string, or an array of either), read without a
** copy or an allocation but the key's; and general.alignment, the one key the parser
** itself obeys.  See gguf_parser.c for the format and the checks.
** Layer: formats (pure C; uses base/).
*/
#include "ggml_type.h"
#include "gguf_internal.h"
#include "gguf_value.h"

/* The one key whose value the parser obeys. */
#define GG_KEY_ALIGNMENT "general.alignment"

/* ============================ Key-value pairs ============================= */

/* How far ahead of the cursor the loop below asks for the bytes: a page.
** Each length read depends on the last, and the processor's own prefetch
** stops at a page's end, so without it the loop waits on memory at every
** page: 408,000 strings (an 8 MB vocabulary) took 4.3 ms, 1.0 ms with it
** (2 KiB to 8 KiB ahead measured the same).  A prefetch never faults, past
** the end of the bytes or of a mapping included. */
#define GG_PREFETCH_AHEAD 4096

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
      __builtin_prefetch(d + pos + GG_PREFETCH_AHEAD);
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
      n = len == 8 ? wt_load64(d + pos, g->swap) : wt_load32(d + pos, g->swap);
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
  if (gg_u32(g, "array element type", &et) != 0) /* K4: an array's element type */
    return -1;
  if (et == GGUF_TYPE_ARRAY) /* K5: no arrays of arrays, a known element type */
    return gg_fail(g, at, "nested arrays are not allowed (ggml rejects them)");
  if (et >= GGUF_TYPE_COUNT)
    return gg_fail(g, at, "invalid array element type %u", et);
  at = g->pos;
  if (gg_len(g, "array count", &count) != 0) /* K4: and its count */
    return -1;
  if (count > GG_MAX_ARRAY) /* K6: at most ggml's limit, its bytes within the file (below) */
    return gg_fail(g, at, "array of %llu elements is over ggml's limit of %llu", U(count),
                   U(GG_MAX_ARRAY));
  kv->elem_type = et;
  kv->count = count;
  kv->value_pos = g->pos;
  left = g->size - g->pos;
  if (et == GGUF_TYPE_STRING) { /* K7: each string, as a key's length is checked */
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
int gg_kv(gg_parser *g, uint64_t i, wt_meta *kv) {
  uint64_t start = g->pos, at;
  uint32_t type, size;
  g->kind = GG_KV;
  g->index = i;
  g->name.p = NULL;
  g->key_at[i] = start;
  if (gg_string_copy(g, "key", "key length", &kv->key) != 0) /* K1: the key's length */
    return -1;
  if (kv->key.n == 0) /* K2: not empty (K3, not repeated: gguf_unique.c) */
    return gg_fail(g, start, "empty key");
  g->name = kv->key;
  at = g->pos;
  if (gg_u32(g, "value type", &type) != 0) /* K4: the value type */
    return -1;
  if (type >= GGUF_TYPE_COUNT) /* K5: a known one */
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
    if (gg_string(g, "string", "string length", &s) != 0) /* K7: a string value */
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

/* =============================== Alignment ================================ */

/* Apply general.alignment if present: UINT32 (A1), non-zero power of two
** (A2).  Keys are unique by now. */
int gg_alignment(gg_parser *g) {
  wt_model *m = g->m;
  size_t i;
  m->alignment = GG_ALIGNMENT;
  for (i = 0; i < m->n_meta; i++) {
    const wt_meta *kv = &m->meta[i];
    uint32_t a;
    if (kv->key.n != strlen(GG_KEY_ALIGNMENT) ||
        memcmp(kv->key.p, GG_KEY_ALIGNMENT, kv->key.n) != 0)
      continue;
    g->kind = GG_KV;
    g->index = i;
    g->name = kv->key;
    if (kv->type != GGUF_TYPE_UINT32) /* A1 */
      return gg_fail(g, g->key_at[i] + g->len + kv->key.n,
                     "general.alignment must have type UINT32, not %s%s%s",
                     gguf_type_name(kv->type), kv->type == GGUF_TYPE_ARRAY ? " of " : "",
                     kv->type == GGUF_TYPE_ARRAY ? gguf_type_name(kv->elem_type) : "");
    if (gg_need(g, kv->value_pos + 4) != 0)
      return -1;
    a = wt_load32(g->d + kv->value_pos, g->swap);
    if (a == 0 || (a & (a - 1)) != 0) /* A2 */
      return gg_fail(g, kv->value_pos, "alignment %u is not a non-zero power of two", a);
    m->alignment = a;
    return 0;
  }
  return 0;
}
