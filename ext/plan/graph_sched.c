/*
** graph_sched.c: ggml_backend_sched over a graph of graph_model.h, for a
** CPU and one CUDA GPU (graph_sched.h).
**
** ggml_backend_sched_split_graph (ggml/src/ggml-backend.cpp, llama.cpp
** de3ff815) in the order it works:
**
**   1  a tensor with a buffer (a weight, a cache, a view of one) goes to
**      the backend of that buffer; a graph input to the CPU; a node that
**      reads a weight to the weight's backend, or to the GPU when the
**      weight is in host memory and the GPU's offload_op wants the node
**      (a batch of 32 or more: op_offload); llama.cpp's callback has
**      already pinned each layer's "norm" nodes to the layer's device for
**      small batches (llama_context::graph_get_cb);
**   2  the GPU's nodes spread down then up the graph, over the nodes not
**      yet placed that it runs, then any backend's likewise;
**   3  a node still unplaced goes to the backend that runs it and holds
**      the most of its sources;
**   4  a view goes where its data is, a source not yet placed where its
**      first reader is;
**   5  the graph is cut where the backend changes (or where a node reads a
**      weight the split's backend cannot, when it already has inputs), and
**      each split gets a copy, in its backend, of every source it reads
**      from a buffer its backend cannot use; a source copied once to a
**      backend is read from that copy by every later split there.
**
** The scheduler's own graph then lists, split by split, for each input a
** view of it (which keeps it alive until the copy is made) and its copy,
** then the split's nodes; ggml-alloc lays it out with a buffer per
** backend (graph_alloc.c), the CUDA buffer's bytes per tensor as the
** CUDA backend says (cuda_ops.c).  CUDA's fusions that keep tensors
** alive longer (graph_optimize) are graph_fuse.c's.  Layer: plan.
*/
#include "graph_sched.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "graph_alloc.h"
#include "graph_fuse.h"

#define GS_CPU_ALIGN 32 /* the CUDA_Host buffer type's alignment: the CPU's */

/* The buffer types a tensor's data may be in. */
enum { GS_BUFT_NONE = -1, GS_BUFT_CUDA, GS_BUFT_CPU, GS_BUFT_HOST };

typedef struct gs_split {
  int backend, first, end; /* nodes [first, end) of the graph */
  int *inputs;
  int n_inputs, cap_inputs;
} gs_split;

typedef struct gs_ctx {
  wt_graph *g;
  const wt_sched_params *p;
  signed char *bid; /* per tensor: its backend, -1 not yet */
  int *copy;        /* per tensor and backend: its copy there, -1 none */
  int cap;          /* entries of bid (and of copy / WT_SCHED_N) */
  gs_split *splits;
  int n_splits;
  wt_fuse_deps deps; /* the CUDA backend's: tensors kept until a later node */
} gs_ctx;

/* ========================== What each backend says ========================= */

/* The buffer type of t's own buffer (a weight's, a cache's), or NONE. */
static int gs_own_buft(const gs_ctx *c, int t) {
  const wt_gm_tensor *x = &c->g->t[t];
  if (!(x->flags & WT_GM_EXTERNAL))
    return GS_BUFT_NONE;
  return x->dev == WT_GM_DEV_GPU ? GS_BUFT_CUDA : GS_BUFT_CPU;
}

/* The buffer type t's data lies in: its own, or its view source's. */
static int gs_data_buft(const gs_ctx *c, int t) {
  int v = c->g->t[t].view_src;
  return gs_own_buft(c, v >= 0 ? v : t);
}

/* supports_buft: the GPU uses its own buffers, the CPU any host buffer. */
static int gs_supports_buft(int b, int buft) {
  return b == WT_SCHED_GPU ? buft == GS_BUFT_CUDA : buft == GS_BUFT_CPU || buft == GS_BUFT_HOST;
}

/* supports_op: the CPU backend runs every operation of these graphs. */
static int gs_supports_op(const gs_ctx *c, int b, int t) {
  return b == WT_SCHED_CPU || wt_cuda_supports(c->g, t, c->p->cc);
}

/* ggml_backend_sched_backend_from_buffer: the first backend that uses the
** buffer t's data is in and runs op; -1. */
static int gs_from_buffer(const gs_ctx *c, int t, int op) {
  int buft = gs_data_buft(c, t), b;
  if (buft == GS_BUFT_NONE)
    return -1;
  for (b = 0; b < WT_SCHED_N; b++)
    if (gs_supports_buft(b, buft) && gs_supports_op(c, b, op))
      return b;
  return -1;
}

/* ggml_backend_sched_buffer_supported: backend b can read t where it is
** (its buffer, or the buffer of the backend t or its data is assigned to). */
static int gs_buffer_ok(const gs_ctx *c, int t, int b) {
  int buft = gs_data_buft(c, t), a;
  if (buft == GS_BUFT_NONE) {
    a = c->bid[t];
    if (a < 0 && c->g->t[t].view_src >= 0)
      a = c->bid[c->g->t[t].view_src];
    if (a < 0)
      return 0;
    buft = a == WT_SCHED_GPU ? GS_BUFT_CUDA : GS_BUFT_HOST;
  }
  return gs_supports_buft(b, buft);
}

/* Whether t is a weight: a tensor with a weights buffer of its own. */
static int gs_is_weight(const gs_ctx *c, int t) {
  return (c->g->t[t].flags & (WT_GM_EXTERNAL | WT_GM_WEIGHTS)) == (WT_GM_EXTERNAL | WT_GM_WEIGHTS);
}

/* ======================== Passes 1 to 4: placement ======================== */

/* ggml_backend_sched_backend_id_from_cur; -2 for a tensor in a buffer no
** backend runs its operation on (ggml aborts). */
static int gs_from_cur(const gs_ctx *c, int t) {
  const wt_gm_tensor *x = &c->g->t[t];
  int b, i;
  if ((b = gs_from_buffer(c, t, t)) >= 0)
    return b;
  if (gs_data_buft(c, t) != GS_BUFT_NONE)
    return -2;
  if (x->flags & WT_GM_INPUT)
    return WT_SCHED_CPU;
  if (x->op == WT_GM_ROPE || x->op == WT_GM_FLASH_ATTN_EXT)
    return -1; /* their small sources say nothing of where they belong */
  for (i = 0; i < WT_GM_MAX_SRC; i++) {
    int s = x->src[i], sb;
    if (s < 0 || !gs_is_weight(c, s))
      continue;
    sb = gs_from_buffer(c, s, t);
    if (c->p->op_offload && sb == WT_SCHED_CPU && gs_supports_op(c, WT_SCHED_GPU, t) &&
        wt_cuda_batch(c->g, t) >= WT_CUDA_MIN_BATCH)
      return WT_SCHED_GPU;
    return sb;
  }
  return -1;
}

/* Pass 2: spread backends down (dir 1) or up (-1) the nodes; gpu_only:
** the CPU's nodes stop a run rather than spread. */
static void gs_expand(gs_ctx *c, int dir, int gpu_only) {
  const wt_graph *g = c->g;
  int k, cur = -1;
  for (k = 0; k < g->n_nodes; k++) {
    int t = g->nodes[dir > 0 ? k : g->n_nodes - 1 - k];
    if (wt_gm_is_view_op(g->t[t].op))
      continue;
    if (c->bid[t] != -1)
      cur = gpu_only && c->bid[t] == WT_SCHED_CPU ? -1 : c->bid[t];
    else if (cur != -1 && gs_supports_op(c, cur, t))
      c->bid[t] = (signed char)cur;
  }
}

/* Pass 3: a node still unplaced goes to the backend that runs it and can
** read the most of its sources (ties to the higher priority). */
static void gs_best(gs_ctx *c) {
  const wt_graph *g = c->g;
  int k, b, i;
  for (k = 0; k < g->n_nodes; k++) {
    int t = g->nodes[k], best = -1;
    if (wt_gm_is_view_op(g->t[t].op) || c->bid[t] != -1)
      continue;
    for (b = 0; b < WT_SCHED_N; b++) {
      int n = 0;
      if (!gs_supports_op(c, b, t))
        continue;
      for (i = 0; i < WT_GM_MAX_SRC; i++) {
        int s = g->t[t].src[i], v;
        if (s < 0)
          continue;
        v = g->t[s].view_src;
        if ((c->bid[s] != -1 || (v >= 0 && c->bid[v] != -1)) && gs_buffer_ok(c, s, b))
          n++;
      }
      if (n > best) {
        best = n;
        c->bid[t] = (signed char)b;
      }
    }
  }
}

/* Pass 4: views where their data is, sources where their reader is. */
static int gs_sources(gs_ctx *c) {
  const wt_graph *g = c->g;
  int k, i, b;
  for (k = 0; k < g->n_nodes; k++) {
    int t = g->nodes[k];
    const wt_gm_tensor *x = &g->t[t];
    if (x->view_src >= 0 && c->bid[t] == -1)
      c->bid[t] = c->bid[x->view_src];
    for (i = 0; i < WT_GM_MAX_SRC; i++) {
      int s = x->src[i];
      if (s < 0 || c->bid[s] != -1)
        continue;
      c->bid[s] = g->t[s].view_src >= 0 ? c->bid[g->t[s].view_src] : c->bid[t];
    }
    for (b = 0; b < WT_SCHED_N && c->bid[t] == -1; b++)
      if (gs_supports_op(c, b, t))
        c->bid[t] = (signed char)b;
    if (c->bid[t] == -1)
      return 1;
  }
  return 0;
}

/* Passes 1 to 4 into c->bid. */
static int gs_place(gs_ctx *c) {
  wt_graph *g = c->g;
  int k, b;
  memset(c->bid, -1, (size_t)c->cap);
  /* llama.cpp's callback, as the graph was built */
  for (k = 0; k < g->n_nodes && c->p->norm_to_layer; k++) {
    const wt_gm_tensor *x = &g->t[g->nodes[k]];
    if (x->tag != WT_GM_TAG_NORM || x->il < 0 || (uint64_t)x->il >= c->p->n_layer)
      continue;
    b = c->p->layer_gpu[x->il] ? WT_SCHED_GPU : WT_SCHED_CPU;
    if (gs_supports_op(c, b, g->nodes[k]))
      c->bid[g->nodes[k]] = (signed char)b;
  }
  for (k = 0; k < g->n_leafs; k++)
    if (c->bid[g->leafs[k]] == -1 && (b = gs_from_cur(c, g->leafs[k])) != -1) {
      if (b == -2)
        return 1;
      c->bid[g->leafs[k]] = (signed char)b;
    }
  for (k = 0; k < g->n_nodes; k++)
    if (c->bid[g->nodes[k]] == -1 && (b = gs_from_cur(c, g->nodes[k])) != -1) {
      if (b == -2)
        return 1;
      c->bid[g->nodes[k]] = (signed char)b;
    }
  gs_expand(c, 1, 1);
  gs_expand(c, -1, 1);
  gs_expand(c, 1, 0);
  gs_expand(c, -1, 0);
  gs_best(c);
  return gs_sources(c);
}

/* Room for every tensor of g in c (the copies add some). */
static int gs_grow(gs_ctx *c) {
  int need = c->g->n_t;
  if (need <= c->cap)
    return 0;
  need = need < 1024 ? 1024 : need * 2;
  {
    signed char *b = realloc(c->bid, (size_t)need);
    int *cp;
    if (b == NULL)
      return -1;
    c->bid = b;
    cp = realloc(c->copy, (size_t)need * WT_SCHED_N * sizeof(*cp));
    if (cp == NULL)
      return -1;
    memset(cp + (size_t)c->cap * WT_SCHED_N, -1,
           (size_t)(need - c->cap) * WT_SCHED_N * sizeof(*cp));
    memset(b + c->cap, -1, (size_t)(need - c->cap));
    c->copy = cp;
    c->cap = need;
  }
  return 0;
}

static void gs_free(gs_ctx *c) {
  int i;
  wt_fuse_deps_free(&c->deps);
  for (i = 0; i < c->n_splits; i++)
    free(c->splits[i].inputs);
  free(c->splits);
  free(c->bid);
  free(c->copy);
}

static int gs_init(gs_ctx *c, wt_graph *g, const wt_sched_params *p) {
  memset(c, 0, sizeof(*c));
  c->g = g;
  c->p = p;
  if (g->failed)
    return g->failed == WT_GM_TOO_BIG ? 1 : -1;
  return gs_grow(c);
}

int wt_sched_assign(wt_graph *g, const wt_sched_params *p, signed char *backend) {
  gs_ctx c;
  int rc = gs_init(&c, g, p);
  if (rc == 0 && (rc = gs_place(&c)) == 0)
    memcpy(backend, c.bid, (size_t)g->n_t);
  gs_free(&c);
  return rc;
}

int wt_sched_fa_on_layer_device(wt_graph *g, const wt_sched_params *p) {
  gs_ctx c;
  int rc = gs_init(&c, g, p), k;
  if (rc == 0 && (rc = gs_place(&c)) == 0) {
    rc = 1;
    for (k = 0; k < g->n_nodes; k++) {
      const wt_gm_tensor *x = &g->t[g->nodes[k]];
      int want;
      if (x->tag != WT_GM_TAG_FA || x->il < 0 || (uint64_t)x->il >= p->n_layer)
        continue;
      want = p->layer_gpu[x->il] ? WT_SCHED_GPU : WT_SCHED_CPU;
      if (c.bid[g->nodes[k]] != want)
        rc = 0;
    }
  } else if (rc == 1) {
    rc = 2;
  }
  gs_free(&c);
  return rc;
}

/* ========================= Pass 5: splits, copies ========================= */

/* A new split of backend b from node index first; -1 out of memory. */
static int gs_new_split(gs_ctx *c, int b, int first) {
  gs_split *s = realloc(c->splits, (size_t)(c->n_splits + 1) * sizeof(*s));
  if (s == NULL)
    return -1;
  c->splits = s;
  s = &c->splits[c->n_splits++];
  memset(s, 0, sizeof(*s));
  s->backend = b;
  s->first = first;
  return 0;
}

static int gs_add_input(gs_split *s, int t) {
  if (s->n_inputs == s->cap_inputs) {
    int cap = s->cap_inputs ? s->cap_inputs * 2 : 16;
    int *in = realloc(s->inputs, (size_t)cap * sizeof(*in));
    if (in == NULL)
      return -1;
    s->inputs = in;
    s->cap_inputs = cap;
  }
  s->inputs[s->n_inputs++] = t;
  return 0;
}

/* Whether node t reads a weight that split backend b cannot use. */
static int gs_foreign_weight(const gs_ctx *c, int t, int b) {
  int i;
  for (i = 0; i < WT_GM_MAX_SRC; i++) {
    int s = c->g->t[t].src[i];
    if (s >= 0 && gs_is_weight(c, s) && c->bid[s] != b && !gs_buffer_ok(c, s, b))
      return 1;
  }
  return 0;
}

/* The CUDA backend's fusions in each of the GPU's splits (graph_fuse.h),
** with ggml's use counts of the graph as built (use). */
static int gs_fusions(gs_ctx *c, const int *use) {
  int i;
  for (i = 0; i < c->n_splits; i++)
    if (c->splits[i].backend == WT_SCHED_GPU &&
        wt_cuda_fusion_deps(c->g, c->splits[i].first, c->splits[i].end, use, &c->deps) != 0)
      return -1;
  return 0;
}

/* Cut the graph into splits and point each node at the copies of the
** sources its backend cannot read. */
static int gs_split_graph(gs_ctx *c) {
  wt_graph *g = c->g;
  int k = 0, i, cur;
  while (k < g->n_nodes && wt_gm_is_view_op(g->t[g->nodes[k]].op))
    k++;
  if (gs_new_split(c, k < g->n_nodes ? c->bid[g->nodes[k]] : WT_SCHED_CPU, 0) != 0)
    return -1;
  cur = c->splits[0].backend;
  for (; k < g->n_nodes; k++) {
    int t = g->nodes[k], b = c->bid[t];
    gs_split *sp = &c->splits[c->n_splits - 1];
    if (wt_gm_is_view_op(g->t[t].op))
      continue;
    if (b < 0)
      return 1;
    if (b != cur || (sp->n_inputs > 0 && gs_foreign_weight(c, t, cur))) {
      sp->end = k;
      if (gs_new_split(c, b, k) != 0)
        return -1;
      sp = &c->splits[c->n_splits - 1];
      cur = b;
    }
    for (i = 0; i < WT_GM_MAX_SRC; i++) {
      int s = g->t[t].src[i], cp;
      if (s < 0)
        continue;
      if (c->bid[s] < 0)
        return 1;
      if (c->bid[s] == cur || gs_buffer_ok(c, s, cur))
        continue;
      cp = c->copy[s * WT_SCHED_N + cur];
      if (cp < 0) {
        cp = wt_gm_dup_layout(g, s);
        if (cp < 0 || gs_grow(c) != 0 || gs_add_input(sp, s) != 0)
          return -1;
        c->copy[s * WT_SCHED_N + cur] = cp;
        c->bid[cp] = (signed char)cur;
      }
      g->t[t].src[i] = cp;
    }
  }
  c->splits[c->n_splits - 1].end = g->n_nodes;
  return 0;
}

/* ============================== The layout ============================== */

static uint64_t gs_cuda_size(const wt_graph *g, int t, const void *ctx) {
  return wt_cuda_alloc_size(g, t, *(const int *)ctx);
}

/* The scheduler's graph, laid out by ggml-alloc into sizes. */
static int gs_layout(gs_ctx *c, uint64_t sizes[WT_SCHED_N]) {
  wt_graph *g = c->g;
  wt_alloc_order o;
  wt_alloc_buft bufts[WT_SCHED_N];
  int *nodes = NULL, *node_buf = NULL, *leaf_buf = NULL, n = 0, cap, i, j, k, rc = -1;
  cap = g->n_nodes + c->deps.n; /* (a node for at most each kept tensor) */
  for (i = 0; i < c->n_splits; i++)
    cap += 2 * c->splits[i].n_inputs;
  nodes = malloc((size_t)(cap + 1) * sizeof(*nodes));
  node_buf = malloc((size_t)(cap + 1) * sizeof(*node_buf));
  leaf_buf = malloc((size_t)(g->n_leafs + 1) * sizeof(*leaf_buf));
  if (nodes == NULL || node_buf == NULL || leaf_buf == NULL)
    goto done;
  for (i = 0; i < c->n_splits; i++) {
    const gs_split *s = &c->splits[i];
    for (j = 0; j < s->n_inputs; j++) {
      int in = s->inputs[j], dep = wt_gm_view_of(g, in);
      if (dep < 0 || gs_grow(c) != 0)
        goto done;
      nodes[n] = dep;
      node_buf[n++] = c->bid[in];
      nodes[n] = c->copy[in * WT_SCHED_N + s->backend];
      node_buf[n++] = s->backend;
    }
    for (k = s->first; k < s->end; k++) {
      int d, m = 0, dep = -1;
      nodes[n] = g->nodes[k];
      node_buf[n++] = c->bid[g->nodes[k]];
      /* the tensors kept until this node: views of them, ten a node */
      for (d = 0; d < c->deps.n; d++) {
        if (c->deps.d[d].until != g->nodes[k])
          continue;
        if (m % WT_GM_MAX_SRC == 0) {
          if ((dep = wt_gm_view_of(g, c->deps.d[d].keep)) < 0 || gs_grow(c) != 0)
            goto done;
          nodes[n] = dep;
          node_buf[n++] = s->backend;
        }
        g->t[dep].src[m++ % WT_GM_MAX_SRC] = c->deps.d[d].keep;
      }
    }
  }
  for (i = 0; i < g->n_leafs; i++)
    leaf_buf[i] = c->bid[g->leafs[i]] < 0 ? WT_SCHED_CPU : c->bid[g->leafs[i]];
  o.nodes = nodes;
  o.node_buf = node_buf;
  o.n_nodes = n;
  o.leafs = g->leafs;
  o.leaf_buf = leaf_buf;
  o.n_leafs = g->n_leafs;
  bufts[WT_SCHED_GPU].alignment = WT_CUDA_ALIGN;
  bufts[WT_SCHED_GPU].alloc_size = gs_cuda_size;
  bufts[WT_SCHED_GPU].ctx = &c->p->cc;
  bufts[WT_SCHED_CPU].alignment = GS_CPU_ALIGN;
  bufts[WT_SCHED_CPU].alloc_size = NULL;
  bufts[WT_SCHED_CPU].ctx = NULL;
  rc = wt_graph_alloc_n(g, &o, bufts, WT_SCHED_N, sizes);
done:
  free(nodes);
  free(node_buf);
  free(leaf_buf);
  return rc;
}

/* ggml's use counts: how many sources of the graph's nodes each tensor is. */
static int *gs_use_counts(const wt_graph *g) {
  int *use = calloc((size_t)g->n_t + 1, sizeof(*use)), k, i;
  for (k = 0; use != NULL && k < g->n_nodes; k++)
    for (i = 0; i < WT_GM_MAX_SRC; i++)
      if (g->t[g->nodes[k]].src[i] >= 0)
        use[g->t[g->nodes[k]].src[i]]++;
  return use;
}

int wt_sched_reserve(wt_graph *g, const wt_sched_params *p, uint64_t sizes[WT_SCHED_N]) {
  gs_ctx c;
  int rc = gs_init(&c, g, p), *use = NULL;
  sizes[WT_SCHED_GPU] = sizes[WT_SCHED_CPU] = 0;
  if (rc == 0)
    rc = gs_place(&c);
  if (rc == 0 && (use = gs_use_counts(g)) == NULL)
    rc = -1;
  if (rc == 0)
    rc = gs_split_graph(&c);
  if (rc == 0)
    rc = gs_fusions(&c, use);
  if (rc == 0)
    rc = gs_layout(&c, sizes);
  free(use);
  gs_free(&c);
  return rc;
}
