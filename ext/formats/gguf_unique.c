/*
** gguf_unique.c: reject a GGUF header whose keys or tensor names repeat
** (ggml's checks K3 and T2), naming the first repeat in file order
** (base/repeat.h: n log n, whatever the input).
** Layer: formats (pure C; uses base/).
*/
#include <stddef.h>

#include "base/repeat.h"
#include "gguf_internal.h"

/* =============================== Duplicates =============================== */

/* Reject a file whose keys (K3, kind GG_KV) or tensor names (T2, kind
** GG_TENSOR) are not unique, naming the first repeat in file order. */
int gg_unique(gg_parser *g, int kind) {
  wt_model *m = g->m;
  size_t dup = 0, first = 0;
  int found = kind == GG_KV ? wt_first_repeat(m->meta, m->n_meta, sizeof(wt_meta),
                                              offsetof(wt_meta, key), &dup, &first)
                            : wt_first_repeat(m->tensors, m->n_tensors, sizeof(wt_tensor),
                                              offsetof(wt_tensor, name), &dup, &first);
  if (found < 0)
    return gg_oom(g, "a name index", kind == GG_KV ? m->n_meta : m->n_tensors);
  if (found == 0)
    return 0;
  g->kind = kind;
  g->index = dup;
  g->name = kind == GG_KV ? m->meta[dup].key : m->tensors[dup].name;
  return gg_fail(g, kind == GG_KV ? g->key_at[dup] : g->name_at[dup],
                 kind == GG_KV ? "duplicate key (first at kv #%llu)"
                               : "duplicate tensor name (first at tensor #%llu)",
                 U(first));
}
