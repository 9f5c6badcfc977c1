/*
** repeat.c: the first repeated name of a list.  See repeat.h.
**
** The names are sorted by a 64-bit FNV-1a hash (a cheap first key, so that
** most comparisons skip memcmp), then by their bytes, length and index, so
** colliding names, even crafted ones, cost no more than a sort; equal names
** end up next to each other, the earlier in the list first.
*/
#include "repeat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* The 64-bit FNV-1a offset basis and prime. */
#define WT_FNV_OFFSET 0xcbf29ce484222325ULL
#define WT_FNV_PRIME  0x100000001b3ULL

/* A name with its index and hash, for sorting. */
typedef struct wt_named {
  uint64_t h;
  const char *p;
  size_t n;
  size_t idx;
} wt_named;

/* FNV-1a of n bytes at p. */
static uint64_t wt_fnv1a(const char *p, size_t n) {
  uint64_t h = WT_FNV_OFFSET;
  size_t i;
  for (i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * WT_FNV_PRIME;
  return h;
}

/* Order by hash, then bytes, then length, then index. */
static int wt_named_cmp(const void *a, const void *b) {
  const wt_named *x = a, *y = b;
  size_t n = x->n < y->n ? x->n : y->n;
  int c;
  if (x->h != y->h)
    return x->h < y->h ? -1 : 1;
  c = n ? memcmp(x->p, y->p, n) : 0;
  if (c != 0)
    return c;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int wt_first_repeat(const void *base, size_t n, size_t stride, size_t off, size_t *dup,
                    size_t *first) {
  wt_named *v;
  size_t i;
  int found = 0;
  if (n < 2)
    return 0;
  v = malloc(n * sizeof(*v));
  if (v == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    const wt_str *s = (const wt_str *)((const char *)base + i * stride + off);
    v[i] = (wt_named){wt_fnv1a(s->p, s->n), s->p, s->n, i};
  }
  qsort(v, n, sizeof(*v), wt_named_cmp);
  for (i = 1; i < n; i++)
    if (v[i].h == v[i - 1].h && v[i].n == v[i - 1].n &&
        (v[i].n == 0 || memcmp(v[i].p, v[i - 1].p, v[i].n) == 0) && (!found || v[i].idx < *dup)) {
      *dup = v[i].idx;
      *first = v[i - 1].idx;
      found = 1;
    }
  free(v);
  return found;
}
