/*
** gguf_read.c: the GGUF parser's cursor: read numbers and strings of the
** header (bounded by the file's size, and by the bytes in memory for a
** prefix parse), and word the errors, naming the item being read.
** See gguf_parser.c for the format.  Layer: formats (pure C; uses base/).
*/
#include <stdarg.h>
#include <stdio.h>

#include "gguf_internal.h"

/* Room for a label: "tensor #", an index of up to 20 digits, a space and
** a quoted name. */
#define GG_LABEL_SIZE (GG_QUOTE_SIZE + 32)

/* ================================ Messages ================================ */

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
__attribute__((format(printf, 3, 4))) int gg_fail(gg_parser *g, uint64_t at, const char *fmt, ...) {
  char label[GG_LABEL_SIZE], msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  wt_fail(g->err, "%s at byte %llu: %s", gg_label(g, label, sizeof(label)), U(at), msg);
  return -1; /* visibly, so that callers' outputs are known to be set on 0 */
}

/* Fail with "truncated: <item> <what> at byte <at> runs past the end of
** the file (<size> bytes)". */
__attribute__((format(printf, 3, 4))) int gg_truncated(gg_parser *g, uint64_t at, const char *fmt,
                                                       ...) {
  char label[GG_LABEL_SIZE], what[WT_ERROR_MAX];
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
int gg_oom(gg_parser *g, const char *what, uint64_t n) {
  return wt_fail(g->err, "out of memory allocating %s for %llu entries", what, U(n));
}

/* ============================ Reading numbers ============================= */

/* Read the u32 field what at the cursor. */
int gg_u32(gg_parser *g, const char *what, uint32_t *v) {
  if (g->size - g->pos < 4) {
    gg_truncated(g, g->pos, "%s", what);
    return -1;
  }
  if (gg_need(g, g->pos + 4) != 0)
    return -1;
  *v = wt_load32(g->d + g->pos, g->swap);
  g->pos += 4;
  return 0;
}

/* Read the u64 field what at the cursor. */
int gg_u64(gg_parser *g, const char *what, uint64_t *v) {
  if (g->size - g->pos < 8) {
    gg_truncated(g, g->pos, "%s", what);
    return -1;
  }
  if (gg_need(g, g->pos + 8) != 0)
    return -1;
  *v = wt_load64(g->d + g->pos, g->swap);
  g->pos += 8;
  return 0;
}

/* Read a length, count or dimension (u32 in v1, u64 after). */
int gg_len(gg_parser *g, const char *what, uint64_t *v) {
  uint32_t v32;
  if (g->len == 8)
    return gg_u64(g, what, v);
  if (gg_u32(g, what, &v32) != 0)
    return -1;
  *v = v32;
  return 0;
}

/* Read a string whose length is at the cursor; s points into the file.
** what names it in messages ("key"), what_len names its length field.
** The length checks of K1 (a key), K7 (a string value) and T1 (a tensor
** name): within the bytes left, at most ggml's limit. */
int gg_string(gg_parser *g, const char *what, const char *what_len, wt_str *s) {
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

int gg_string_copy(gg_parser *g, const char *what, const char *what_len, wt_str *s) {
  char *copy;
  if (gg_string(g, what, what_len, s) != 0)
    return -1;
  /* one byte more, so that an empty string has an address of its own */
  if ((copy = wt_arena_alloc(g->m->arena, s->n + 1)) == NULL)
    return gg_oom(g, what, 1);
  memcpy(copy, s->p, s->n);
  s->p = copy;
  return 0;
}
