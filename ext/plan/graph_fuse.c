/*
** graph_fuse.c: the CUDA backend's fusions that keep tensors alive
** (graph_fuse.h), as ggml_backend_cuda_graph_optimize finds them in a
** split: for each node in order, first the weighted sum of the experts
** (a MUL of the experts' outputs by their weights, the views of each
** expert's rows and the ADDs of them: its experts, weights and scale stay
** until the last ADD), then the expert routing from a SOFT_MAX or a
** sigmoid (reshape, an optional bias, top-k, the weights' rows, their
** normalisation and scale: every tensor of it and its sources stay until
** the node after it).  Layer: plan.
*/
#include "graph_fuse.h"

#include <stdlib.h>
#include <string.h>

#define FZ_MAX_OPS     32 /* ggml_can_fuse_subgraph's limit */
#define FZ_MAX_USED    15 /* MOE_WEIGHTED_REDUCTION_MAX_EXPERTS */
#define FZ_MAX_EXPERTS 512
#define FZ_SRC_MAX     WT_GM_MAX_SRC

/* A split as the CUDA backend sees it: g's nodes from first, n of them
** (it may read past its end into the graph's next nodes, as ggml does). */
typedef struct fz_view {
  const wt_graph *g;
  const int *nd; /* g->nodes + first */
  int n, avail;  /* the split's nodes; those readable from nd */
  const int *use;
} fz_view;

static const wt_gm_tensor *fz_t(const fz_view *v, int k) {
  return &v->g->t[v->nd[k]];
}

static int fz_op(const fz_view *v, int k) {
  return k < v->avail ? (int)fz_t(v, k)->op : -1;
}

static int fz_src(const fz_view *v, int k, int s) {
  return k < v->avail ? fz_t(v, k)->src[s] : -2;
}

/* ggml_can_fuse_subgraph: nodes [i, i + count) of these ops, each but the
** outputs read only inside the group (its use count), not a graph output,
** a view only of the group's tensors or of weights. */
static int fz_can_fuse(const fz_view *v, int i, int count, const int *ops, const int *outs,
                       int n_outs) {
  int k, j, s, o;
  if (count >= FZ_MAX_OPS || i + count > v->n)
    return 0;
  for (k = 0; k < count; k++) {
    const wt_gm_tensor *x = fz_t(v, i + k);
    int id = v->nd[i + k], uses = 0, is_out = 0;
    if ((int)x->op != ops[k])
      return 0;
    for (o = 0; o < n_outs; o++)
      is_out |= outs[o] == i + k;
    if (is_out)
      continue;
    if (x->flags & WT_GM_OUTPUT)
      return 0;
    for (j = k + 1; j < count; j++)
      for (s = 0; s < FZ_SRC_MAX; s++)
        uses += fz_t(v, i + j)->src[s] == id;
    if (uses != v->use[id])
      return 0;
    if (x->view_src >= 0) {
      const wt_gm_tensor *vs = &v->g->t[x->view_src];
      int inside = 0;
      for (j = 0; j < count; j++)
        inside |= v->nd[i + j] == x->view_src;
      if (!inside &&
          (vs->flags & (WT_GM_EXTERNAL | WT_GM_WEIGHTS)) != (WT_GM_EXTERNAL | WT_GM_WEIGHTS))
        return 0;
    }
  }
  return 1;
}

/* ============================ The weighted sum ============================ */

/* F32 and contiguous. */
static int fz_f32c(const wt_graph *g, int t) {
  return t >= 0 && g->t[t].type == WT_GM_F32 && wt_gm_contiguous(g, t, 0, 4);
}

/* split_mul: which source of mul is the experts' outputs (its shape) and
** which their weights (1 wide, its other dimensions). */
static int fz_split_mul(const wt_graph *g, int mul, int *full, int *bcast) {
  const wt_gm_tensor *m = &g->t[mul];
  int k;
  for (k = 0; k < 2; k++) {
    int e = m->src[k], w = m->src[1 - k];
    if (fz_f32c(g, e) && memcmp(g->t[e].ne, m->ne, sizeof(m->ne)) == 0 && fz_f32c(g, w) &&
        g->t[w].ne[0] == 1 && g->t[w].ne[1] == m->ne[1] && g->t[w].ne[2] == m->ne[2] &&
        g->t[w].ne[3] == m->ne[3]) {
      *full = e;
      *bcast = w;
      return 1;
    }
  }
  return 0;
}

/* ggml_cuda_match_moe_weighted_reduction at node i: 0, or the nodes it
** spans with keep[] (experts, weights, scale or -1) and *dst. */
static int fz_reduction(const fz_view *v, int i, int keep[3], int *dst) {
  const wt_graph *g = v->g;
  int first = v->nd[i], weighted = first, experts = -1, scale = -1, weights = -1, mul_count = 1;
  int views[FZ_MAX_USED], ops[FZ_MAX_OPS], n_views = 0, n_adds = 0, prev = -1, count, off, k;
  int64_t n_tok;
  const wt_gm_tensor *w;
  if (fz_op(v, i) != WT_GM_MUL || !fz_f32c(g, first))
    return 0;
  if (i + 1 < v->n) {
    int second = v->nd[i + 1], scaled = -1, route = -1, raw = -1, sc = -1;
    if (fz_op(v, i + 1) == WT_GM_MUL && fz_f32c(g, second) &&
        fz_split_mul(g, second, &scaled, &route) && scaled == first &&
        fz_split_mul(g, first, &raw, &sc)) {
      weighted = second;
      experts = raw;
      scale = sc;
      weights = route;
      mul_count = 2;
    }
  }
  if (experts < 0 && !fz_split_mul(g, first, &experts, &weights))
    return 0;
  w = &g->t[weighted];
  k = (int)w->ne[1];
  n_tok = w->ne[2] * w->ne[3];
  count = 2 * k + mul_count - 1;
  if (k < 2 || k > FZ_MAX_USED || n_tok <= 0 || i + count > v->n)
    return 0;
  ops[0] = WT_GM_MUL;
  ops[1] = WT_GM_MUL; /* (overwritten below when one MUL) */
  for (off = mul_count; off < count; off++) {
    const wt_gm_tensor *c = fz_t(v, i + off);
    ops[off] = (int)c->op;
    if (c->op == WT_GM_VIEW) {
      if (n_views >= k || c->src[0] != weighted || c->view_src != weighted ||
          c->type != WT_GM_F32 || c->ne[0] != w->ne[0] || c->ne[1] != n_tok || c->ne[2] != 1 ||
          c->ne[3] != 1 || c->nb[0] != w->nb[0] || c->nb[1] != w->nb[2] ||
          c->view_offs != (uint64_t)n_views * w->nb[1])
        return 0;
      views[n_views++] = v->nd[i + off];
      continue;
    }
    if (c->op != WT_GM_ADD || n_views < 2 || n_adds + 1 >= n_views ||
        c->src[0] != (n_adds == 0 ? views[0] : prev) || c->src[1] != views[n_adds + 1] ||
        c->type != WT_GM_F32)
      return 0;
    prev = v->nd[i + off];
    n_adds++;
  }
  if (n_views != k || n_adds != k - 1 || prev < 0 || !wt_gm_contiguous(g, prev, 0, 4) ||
      g->t[prev].ne[0] != w->ne[0] || g->t[prev].ne[1] != n_tok || g->t[prev].ne[2] != 1 ||
      g->t[prev].ne[3] != 1)
    return 0;
  off = i + count - 1;
  if (!fz_can_fuse(v, i, count, ops, &off, 1))
    return 0;
  keep[0] = experts;
  keep[1] = weights;
  keep[2] = scale;
  *dst = v->nd[off];
  return count;
}

/* ============================== The routing ============================== */

/* ggml_cuda_topk_moe_fusion at node i, for a SOFT_MAX or sigmoid gate (an
** ARGSORT first is the delayed softmax, which adds nothing to keep): 0, or
** the ops of the group into ops[] (*n_ops) and its two outputs (the
** selected experts, the weights). */
static int fz_topk(const fz_view *v, int i, int *ops, int *n_ops, int outs[2]) {
  const wt_gm_tensor *x = fz_t(v, i);
  int k = i, reshaped, bias = 0, n = 0, j;
  static const int norm_ops[3] = {WT_GM_RESHAPE, WT_GM_SUM_ROWS, WT_GM_CLAMP};
  if (x->op == WT_GM_UNARY ? x->sub != WT_GM_SUB_SIGMOID : x->op != WT_GM_SOFT_MAX)
    return 0;
  ops[n++] = (int)x->op;
  k++;
  if (k >= v->n || fz_op(v, k) != WT_GM_RESHAPE || fz_src(v, k, 0) != v->nd[k - 1])
    return 0;
  reshaped = v->nd[k++];
  if (k >= v->n)
    return 0;
  if (fz_op(v, k) == WT_GM_ADD && fz_src(v, k, 0) == v->nd[k - 2]) {
    bias = 1;
    k++;
  }
  if (k >= v->n || fz_op(v, k) != WT_GM_ARGSORT || fz_src(v, k, 0) != v->nd[k - 1 - !bias])
    return 0;
  k++;
  if (k >= v->n || fz_op(v, k) != WT_GM_VIEW || fz_src(v, k, 0) != v->nd[k - 1])
    return 0;
  k++;
  if (k >= v->n || fz_op(v, k) != WT_GM_GET_ROWS || fz_src(v, k, 0) != reshaped ||
      fz_src(v, k, 1) != v->nd[k - 1])
    return 0;
  k++;
  ops[n++] = WT_GM_RESHAPE;
  if (bias)
    ops[n++] = WT_GM_ADD;
  ops[n++] = WT_GM_ARGSORT;
  outs[0] = i + n; /* the selected experts: the top-k view */
  ops[n++] = WT_GM_VIEW;
  ops[n++] = WT_GM_GET_ROWS;
  /* the weights' normalisation: RESHAPE, SUM_ROWS, CLAMP, DIV, RESHAPE */
  if (fz_op(v, k) == WT_GM_RESHAPE) {
    for (j = 0; j < 3 && fz_op(v, k) == norm_ops[j] && fz_src(v, k, 0) == v->nd[k - 1]; j++)
      k++;
    if (j == 3 && fz_op(v, k) == WT_GM_DIV && fz_src(v, k, 1) == v->nd[k - 1] &&
        fz_src(v, k, 0) == v->nd[k - 3] && fz_op(v, k + 1) == WT_GM_RESHAPE &&
        fz_src(v, k + 1, 0) == v->nd[k]) {
      ops[n++] = WT_GM_RESHAPE;
      ops[n++] = WT_GM_SUM_ROWS;
      ops[n++] = WT_GM_CLAMP;
      ops[n++] = WT_GM_DIV;
      ops[n++] = WT_GM_RESHAPE;
      k += 2;
      if (fz_op(v, k) == WT_GM_SCALE && fz_src(v, k, 0) == v->nd[k - 1])
        ops[n++] = WT_GM_SCALE;
    }
  } else if (fz_op(v, k) == WT_GM_SCALE && fz_src(v, k, 0) == v->nd[k - 1]) {
    ops[n++] = WT_GM_SCALE;
  }
  outs[1] = i + n - 1;
  *n_ops = n;
  return 1;
}

/* ggml_cuda_should_use_topk_moe: a kernel for this many experts, the
** gate's input and the weights contiguous, a softmax without mask. */
static int fz_topk_kernel(const fz_view *v, int i, int weights, int ids) {
  const wt_graph *g = v->g;
  const wt_gm_tensor *gate = fz_t(v, i), *id = &g->t[ids];
  int64_t n = id->nb[0] ? (int64_t)(id->nb[1] / id->nb[0]) : 0;
  if (((n & (n - 1)) != 0 || n > FZ_MAX_EXPERTS || n <= 0) && n != 288 && n != 576)
    return 0;
  if (!wt_gm_contiguous(g, weights, 0, 4) || !wt_gm_contiguous(g, gate->src[0], 0, 4))
    return 0;
  return gate->op != WT_GM_SOFT_MAX || (gate->src[1] < 0 && gate->src[2] < 0);
}

/* ================================ The deps ================================ */

static int fz_add(wt_fuse_deps *d, int keep, int until) {
  int k;
  if (keep < 0)
    return 0;
  for (k = 0; k < d->n; k++)
    if (d->d[k].until == until && d->d[k].keep == keep)
      return 0;
  if (d->n == d->cap) {
    int cap = d->cap ? d->cap * 2 : 64;
    wt_fuse_dep *p = realloc(d->d, (size_t)cap * sizeof(*p));
    if (p == NULL)
      return -1;
    d->d = p;
    d->cap = cap;
  }
  d->d[d->n].until = until;
  d->d[d->n++].keep = keep;
  return 0;
}

int wt_cuda_fusion_deps(const wt_graph *g, int first, int end, const int *use, wt_fuse_deps *out) {
  fz_view v;
  int i, j, s;
  v.g = g;
  v.nd = g->nodes + first;
  v.n = end - first;
  v.avail = g->n_nodes - first;
  v.use = use;
  for (i = 0; i < v.n; i++) {
    int keep[3], dst, ops[FZ_MAX_OPS], n_ops, outs[2], span;
    if ((span = fz_reduction(&v, i, keep, &dst)) > 0) {
      for (j = 0; j < 3; j++)
        if (fz_add(out, keep[j], dst) != 0)
          return -1;
      i += span - 1;
    }
    if (fz_op(&v, i) != WT_GM_UNARY && fz_op(&v, i) != WT_GM_SOFT_MAX)
      continue;
    if (!fz_topk(&v, i, ops, &n_ops, outs) || !fz_can_fuse(&v, i, n_ops, ops, outs, 2) ||
        !fz_topk_kernel(&v, i, v.nd[outs[1]], v.nd[outs[0]]) || i + n_ops >= v.avail)
      continue;
    /* add_alloc_deps: the group's tensors and sources stay until the node
    ** after it */
    for (j = i; j < i + n_ops; j++) {
      if (fz_add(out, v.nd[j], v.nd[i + n_ops]) != 0)
        return -1;
      for (s = 0; s < FZ_SRC_MAX; s++)
        if (fz_add(out, fz_t(&v, j)->src[s], v.nd[i + n_ops]) != 0)
          return -1;
    }
    i += n_ops - 1;
  }
  return 0;
}

void wt_fuse_deps_free(wt_fuse_deps *d) {
  free(d->d);
  memset(d, 0, sizeof(*d));
}
