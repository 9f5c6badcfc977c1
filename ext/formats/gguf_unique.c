/*
** gguf_unique.c: reject a GGUF header whose keys or tensor names repeat
** (ggml's checks K3 and T2), by sorting the names (n log n, whatever the
** input), and name the first repeat in file order.
** Layer: formats (pure C; uses base/).
*/
#include <stdlib.h>

#include "gguf_internal.h"

/* The 64-bit FNV-1a offset basis and prime. */
#define GG_FNV_OFFSET 0xcbf29ce484222325ULL
#define GG_FNV_PRIME  0x100000001b3ULL

/* =============================== Duplicates =============================== */

/* A key or tensor name with its index and a hash, for sorting. */
typedef struct gg_name {
  uint64_t h;
  const char *p;
  size_t n;
  size_t idx;
} gg_name;

/* FNV-1a: a cheap first sort key, so that most comparisons skip memcmp.
** Colliding names (even crafted ones) are then ordered by their bytes, so
** the sort stays n log n whatever the input. */
static uint64_t gg_hash(const char *p, size_t n) {
  uint64_t h = GG_FNV_OFFSET;
  size_t i;
  for (i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * GG_FNV_PRIME;
  return h;
}

/* Order by hash, then bytes, then length, then index. */
static int gg_name_cmp(const void *a, const void *b) {
  const gg_name *x = a, *y = b;
  int c;
  if (x->h != y->h)
    return x->h < y->h ? -1 : 1;
  c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
  if (c != 0)
    return c;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort v[0..n) and find the earliest entry (in file order) whose name
** occurred before: returns 1 with *dup and *first set, or 0. */
static int gg_find_dup(gg_name *v, size_t n, size_t *dup, size_t *first) {
  size_t i;
  int found = 0;
  qsort(v, n, sizeof(*v), gg_name_cmp);
  for (i = 1; i < n; i++) {
    if (v[i].h == v[i - 1].h && v[i].n == v[i - 1].n && memcmp(v[i].p, v[i - 1].p, v[i].n) == 0 &&
        (!found || v[i].idx < *dup)) {
      *dup = v[i].idx;
      *first = v[i - 1].idx;
      found = 1;
    }
  }
  return found;
}

/* Reject a file whose keys (K3, kind GG_KV) or tensor names (T2, kind
** GG_TENSOR) are not unique, naming the first repeat in file order. */
int gg_unique(gg_parser *g, int kind) {
  wt_model *m = g->m;
  size_t i, n = kind == GG_KV ? m->n_meta : m->n_tensors, dup = 0, first = 0;
  gg_name *v;
  int found;
  if (n < 2)
    return 0;
  v = malloc(n * sizeof(*v));
  if (v == NULL)
    return gg_oom(g, "a name index", n);
  for (i = 0; i < n; i++) {
    const wt_str *s = kind == GG_KV ? &m->meta[i].key : &m->tensors[i].name;
    v[i] = (gg_name){gg_hash(s->p, s->n), s->p, s->n, i};
  }
  found = gg_find_dup(v, n, &dup, &first);
  free(v);
  if (!found)
    return 0;
  g->kind = kind;
  g->index = dup;
  g->name = kind == GG_KV ? m->meta[dup].key : m->tensors[dup].name;
  return gg_fail(g, (uint64_t)((const unsigned char *)g->name.p - g->d) - g->len,
                 kind == GG_KV ? "duplicate key (first at kv #%llu)"
                               : "duplicate tensor name (first at tensor #%llu)",
                 U(first));
}
