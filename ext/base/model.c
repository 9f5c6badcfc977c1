/*
** model.c: the small pieces every parser shares: error messages, quoting
** of names inside messages, the arena that owns a model's descriptions,
** and freeing a model.  No SQLite here.
** Layer: base (no SQLite; every other layer may use it).
*/
#include "model.h"

#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WT_ARENA_CHUNK (64 * 1024)

/* One block of arena memory; blocks form a list, newest first. */
typedef struct wt_block {
  struct wt_block *next;
  size_t used, size;
  max_align_t data[]; /* size bytes follow */
} wt_block;

struct wt_arena {
  wt_block *head;
};

int wt_fail(wt_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
  va_end(ap);
  return -1;
}

const char *wt_quote(char *out, size_t out_size, const char *p, size_t n) {
  size_t max = out_size > 16 ? (out_size - 8) / 4 : 0; /* input bytes that always fit */
  size_t i = 0, j = 0;
  if (out_size < 3) {
    if (out_size > 0)
      out[0] = 0;
    return out;
  }
  out[j++] = '\'';
  while (i < n && i < max) {
    unsigned char c = (unsigned char)p[i];
    size_t k = c >= 0x80 ? wt_utf8_char(p + i, n - i) : 0;
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out[j++] = (char)c;
    } else if (k > 1) {
      if (i + k > max)
        break; /* never cut a character in half */
      memcpy(out + j, p + i, k);
      j += k;
      i += k;
      continue;
    } else {
      j += (size_t)snprintf(out + j, out_size - j, "\\x%02x", c);
    }
    i++;
  }
  if (i < n) {
    memcpy(out + j, "...", 3);
    j += 3;
  }
  out[j++] = '\'';
  out[j] = 0;
  return out;
}

const char *wt_shape_text(char *buf, size_t size, const wt_tensor *t, int row_major) {
  size_t j = (size_t)snprintf(buf, size, "[");
  int k;
  for (k = 0; k < t->ndim && j < size; k++) {
    uint64_t d = row_major ? t->dims[t->ndim - 1 - k] : t->dims[k];
    j += (size_t)snprintf(buf + j, size - j, "%s%llu", k ? "," : "", (unsigned long long)d);
  }
  if (j < size)
    snprintf(buf + j, size - j, "]");
  return buf;
}

struct wt_arena *wt_arena_new(void) {
  return calloc(1, sizeof(struct wt_arena));
}

void *wt_arena_alloc(struct wt_arena *a, size_t n) {
  wt_block *b = a->head;
  size_t need = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  void *p;
  if (need < n)
    return NULL;
  if (b == NULL || b->size - b->used < need) {
    size_t size = need > WT_ARENA_CHUNK ? need : WT_ARENA_CHUNK;
    if (size > SIZE_MAX - sizeof(wt_block))
      return NULL;
    b = malloc(sizeof(wt_block) + size);
    if (b == NULL)
      return NULL;
    b->used = 0;
    b->size = size;
    b->next = a->head;
    a->head = b;
  }
  p = (char *)b->data + b->used;
  b->used += need;
  memset(p, 0, n);
  return p;
}

size_t wt_arena_size(const struct wt_arena *a) {
  const wt_block *b;
  size_t n = 0;
  for (b = a ? a->head : NULL; b; b = b->next)
    n += sizeof(wt_block) + b->size;
  return n;
}

void wt_arena_free(struct wt_arena *a) {
  wt_block *b, *next;
  if (a == NULL)
    return;
  for (b = a->head; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

void wt_model_free(wt_model *m) {
  if (m == NULL)
    return;
  wt_arena_free(m->arena);
  memset(m, 0, sizeof(*m));
}
