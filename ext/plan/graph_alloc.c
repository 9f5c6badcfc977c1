/*
** graph_alloc.c: ggml-alloc's buffer planning of a graph of
** graph_model.h, for sizes only (graph_alloc.h).
**
** wt_graph_alloc() runs ggml_gallocr_alloc_graph_impl over the graph
** wt_gm_expand() ordered: the input leafs first, then each node in order,
** reusing a source in place when ggml would, freeing a tensor after its
** last consumer, on ggml_dyn_tallocr's best-fit free list.  The result is
** the chunk's max_size, which is the compute buffer llama.cpp allocates
** (ggml/src/ggml-alloc.c, llama.cpp commit de3ff815).  wt_graph_alloc_n()
** does the same for a graph whose tensors go to several buffers, each
** with its own free list, alignment and bytes per tensor, as
** ggml_gallocr_reserve_n does for ggml_backend_sched (graph_sched.c).
*/
#include "graph_alloc.h"

#include <stdlib.h>
#include <string.h>

#define GM_MAX_FREE_BLOCKS 256 /* ggml-alloc's MAX_FREE_BLOCKS: it aborts past this */

/* ggml_dyn_tallocr with one chunk: free blocks sorted by offset, the last
** one open-ended. */
typedef struct gm_block {
  uint64_t offset, size;
} gm_block;

typedef struct gm_alloc {
  uint64_t alignment;
  gm_block blocks[GM_MAX_FREE_BLOCKS];
  int n_blocks;
  uint64_t max_size;
  int failed;
} gm_alloc;

/* Per tensor, ggml-alloc's hash_node. */
typedef struct gm_state {
  int n_children, n_views, allocated, buffer;
  uint64_t offset;
} gm_state;

/* A run of the allocator: the graph, its buffers, the per-tensor state. */
typedef struct gm_run {
  const wt_graph *g;
  const wt_alloc_buft *bufts;
  gm_alloc *al; /* one per buffer */
  gm_state *st;
  int failed;
} gm_run;

static uint64_t gm_align(uint64_t n, uint64_t a) {
  return (n + a - 1) / a * a;
}

static void gm_remove_block(gm_alloc *al, int i) {
  memmove(&al->blocks[i], &al->blocks[i + 1], (size_t)(al->n_blocks - i - 1) * sizeof(gm_block));
  al->n_blocks--;
}

/* ggml_dyn_tallocr_alloc: the best-fitting block before the last, else
** the last (which grows the chunk). */
static uint64_t gm_take(gm_alloc *al, uint64_t size) {
  int i, best = -1;
  uint64_t best_size = UINT64_MAX, at;
  if (size > WT_GM_MAX_BYTES) {
    al->failed = 1;
    return 0;
  }
  size = gm_align(size, al->alignment);
  for (i = 0; i < al->n_blocks - 1; i++)
    if (al->blocks[i].size >= size && al->blocks[i].size <= best_size) {
      best = i;
      best_size = al->blocks[i].size;
    }
  if (best < 0)
    best = al->n_blocks - 1;
  at = al->blocks[best].offset;
  al->blocks[best].offset += size;
  al->blocks[best].size -= size;
  if (al->blocks[best].size == 0)
    gm_remove_block(al, best);
  if (at > WT_GM_MAX_BYTES - size)
    al->failed = 1; /* the buffer passes 2^60 bytes */
  else if (at + size > al->max_size)
    al->max_size = at + size;
  return at;
}

/* ggml_dyn_tallocr_free_bytes: merge with a neighbour, else insert. */
static void gm_give(gm_alloc *al, uint64_t offset, uint64_t size) {
  int i, at = 0;
  size = gm_align(size, al->alignment);
  for (i = 0; i < al->n_blocks; i++) {
    gm_block *b = &al->blocks[i];
    if (b->offset + b->size == offset) {
      b->size += size;
      if (i < al->n_blocks - 1 && b->offset + b->size == al->blocks[i + 1].offset) {
        b->size += al->blocks[i + 1].size;
        gm_remove_block(al, i + 1);
      }
      return;
    }
    if (offset + size == b->offset) {
      b->offset = offset;
      b->size += size;
      if (i > 0 && al->blocks[i - 1].offset + al->blocks[i - 1].size == b->offset) {
        al->blocks[i - 1].size += b->size;
        gm_remove_block(al, i);
      }
      return;
    }
  }
  if (al->n_blocks >= GM_MAX_FREE_BLOCKS) {
    al->failed = 1;
    return;
  }
  while (at < al->n_blocks && al->blocks[at].offset < offset)
    at++;
  memmove(&al->blocks[at + 1], &al->blocks[at], (size_t)(al->n_blocks - at) * sizeof(gm_block));
  al->blocks[at].offset = offset;
  al->blocks[at].size = size;
  al->n_blocks++;
}

/* ggml_are_same_layout */
static int gm_same_layout(const wt_gm_tensor *a, const wt_gm_tensor *b) {
  return a->type == b->type && memcmp(a->ne, b->ne, sizeof(a->ne)) == 0 &&
         memcmp(a->nb, b->nb, sizeof(a->nb)) == 0;
}

/* ggml_op_can_inplace, for the ops modelled. */
static int gm_can_inplace(wt_gm_op op) {
  return op == WT_GM_SCALE || op == WT_GM_ADD || op == WT_GM_MUL || op == WT_GM_DIV ||
         op == WT_GM_FILL || op == WT_GM_UNARY || op == WT_GM_SQR || op == WT_GM_ROPE ||
         op == WT_GM_RMS_NORM || op == WT_GM_CLAMP || op == WT_GM_SOFT_MAX;
}

/* ggml_backend_buft_get_alloc_size: the bytes tensor id takes in buffer b. */
static uint64_t gm_size(gm_run *r, int b, int id) {
  uint64_t n = r->bufts[b].alloc_size ? r->bufts[b].alloc_size(r->g, id, r->bufts[b].ctx)
                                      : wt_gm_nbytes(r->g, id);
  if (n > WT_GM_MAX_BYTES || (n == 0 && r->bufts[b].alloc_size && wt_gm_nbytes(r->g, id) != 0))
    r->failed = 1;
  return n;
}

/* ggml_gallocr_allocate_node: nothing for a view or a tensor with its own
** buffer; a source's memory when it may be reused in place; else a block
** of buffer b. */
static void gm_allocate(gm_run *r, int id, int b) {
  const wt_graph *g = r->g;
  gm_state *st = r->st;
  const wt_gm_tensor *t = &g->t[id];
  int i;
  if ((t->flags & WT_GM_EXTERNAL) || st[id].allocated || t->view_src >= 0)
    return;
  st[id].allocated = 1;
  if (gm_can_inplace(t->op))
    for (i = 0; i < WT_GM_MAX_SRC; i++) {
      int p = t->src[i];
      const wt_gm_tensor *pt;
      if (p < 0 || !st[p].allocated)
        continue; /* external, a view, or not ggml-alloc's */
      pt = &g->t[p];
      if ((pt->flags & WT_GM_OUTPUT) || !gm_same_layout(t, pt))
        continue;
      if (st[p].n_children == 1 && st[p].n_views == 0) {
        st[id].offset = st[p].offset;
        st[id].buffer = st[p].buffer;
        st[p].allocated = 0; /* the node owns the memory now */
        return;              /* same layout: no extra space to give back */
      }
    }
  st[id].buffer = b;
  st[id].offset = gm_take(&r->al[b], gm_size(r, b, id));
}

/* ggml_gallocr_free_node (outputs are never freed). */
static void gm_release(gm_run *r, int id) {
  gm_state *s = &r->st[id];
  if (r->g->t[id].flags & WT_GM_OUTPUT)
    return;
  gm_give(&r->al[s->buffer], s->offset, gm_size(r, s->buffer, id));
  s->allocated = 0;
}

/* ggml_gallocr_alloc_graph_impl over the order o. */
static void gm_run_graph(gm_run *r, const wt_alloc_order *o) {
  const wt_graph *g = r->g;
  gm_state *st = r->st;
  int i, j;
  for (i = 0; i < o->n_leafs; i++)
    gm_allocate(r, o->leafs[i], o->leaf_buf[i]);
  for (i = 0; i < o->n_nodes; i++) {
    const wt_gm_tensor *t = &g->t[o->nodes[i]];
    /* (an op NONE view is ggml-backend's dependency, not a view) */
    if (t->view_src >= 0 && t->op != WT_GM_NONE)
      st[t->view_src].n_views++;
    if (t->flags & WT_GM_INPUT)
      gm_allocate(r, o->nodes[i], o->node_buf[i]);
    for (j = 0; j < WT_GM_MAX_SRC; j++)
      if (t->src[j] >= 0) {
        st[t->src[j]].n_children++;
        if (g->t[t->src[j]].flags & WT_GM_INPUT)
          gm_allocate(r, t->src[j], o->node_buf[i]);
      }
  }
  for (i = 0; i < o->n_nodes && !r->failed; i++) {
    int id = o->nodes[i];
    const wt_gm_tensor *t = &g->t[id];
    for (j = 0; j < WT_GM_MAX_SRC; j++)
      if (t->src[j] >= 0)
        gm_allocate(r, t->src[j], o->node_buf[i]);
    gm_allocate(r, id, o->node_buf[i]);
    for (j = 0; j < WT_GM_MAX_SRC; j++) {
      int p = t->src[j];
      if (p < 0)
        continue;
      if (--st[p].n_children != 0 || st[p].n_views != 0)
        continue;
      if (g->t[p].view_src >= 0) {
        int v = g->t[p].view_src;
        if (--st[v].n_views == 0 && st[v].n_children == 0 && st[v].allocated)
          gm_release(r, v);
      } else if (st[p].allocated) {
        gm_release(r, p);
      }
    }
  }
}

int wt_graph_alloc_n(const wt_graph *g, const wt_alloc_order *o, const wt_alloc_buft *bufts,
                     int n_bufts, uint64_t *sizes) {
  gm_run r;
  int i, rc;
  for (i = 0; i < n_bufts; i++)
    sizes[i] = 0;
  if (g->failed)
    return g->failed == WT_GM_TOO_BIG ? 1 : -1;
  if (n_bufts < 1 || n_bufts > WT_ALLOC_MAX_BUFS)
    return -1;
  memset(&r, 0, sizeof(r));
  r.g = g;
  r.bufts = bufts;
  r.st = calloc((size_t)g->n_t + 1, sizeof(*r.st));
  r.al = calloc((size_t)n_bufts, sizeof(*r.al));
  if (r.st == NULL || r.al == NULL) {
    free(r.st);
    free(r.al);
    return -1;
  }
  for (i = 0; i < n_bufts; i++) {
    r.al[i].alignment = bufts[i].alignment;
    r.al[i].n_blocks = 1;
    r.al[i].blocks[0].size = UINT64_MAX / 2;
  }
  gm_run_graph(&r, o);
  rc = r.failed ? 1 : 0;
  for (i = 0; i < n_bufts; i++) {
    sizes[i] = r.al[i].max_size;
    if (r.al[i].failed)
      rc = 1;
  }
  free(r.st);
  free(r.al);
  return rc;
}

int wt_graph_alloc(const wt_graph *g, uint64_t alignment, uint64_t *size) {
  wt_alloc_order o;
  wt_alloc_buft b;
  int *zeros, n = g->n_nodes > g->n_leafs ? g->n_nodes : g->n_leafs, rc;
  *size = 0;
  if (g->failed)
    return g->failed == WT_GM_TOO_BIG ? 1 : -1;
  zeros = calloc((size_t)n + 1, sizeof(*zeros));
  if (zeros == NULL)
    return -1;
  o.leafs = g->leafs;
  o.n_leafs = g->n_leafs;
  o.leaf_buf = zeros;
  o.nodes = g->nodes;
  o.n_nodes = g->n_nodes;
  o.node_buf = zeros;
  b.alignment = alignment;
  b.alloc_size = NULL;
  b.ctx = NULL;
  rc = wt_graph_alloc_n(g, &o, &b, 1, size);
  free(zeros);
  return rc;
}
