/*
** graph_model.c: ggml's graph, for sizes only (graph_model.h).
**
** A graph here is what ggml builds: tensors that record their type, shape,
** strides, operation, sources and, for a view, the tensor its data lies
** in.  wt_gm_expand() orders them as ggml_visit_parents_graph does (depth
** first, sources left to right, leafs apart from nodes); graph_alloc.c
** lays the ordered graph out as ggml-alloc does.
*/
#include "graph_model.h"

#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"

/* ============================ Building tensors ============================ */

void wt_graph_init(wt_graph *g) {
  memset(g, 0, sizeof(*g));
}

void wt_graph_free(wt_graph *g) {
  free(g->t);
  free(g->nodes);
  free(g->leafs);
  memset(g, 0, sizeof(*g));
}

/* Grow an int array by one slot; 0, or -1 when out of memory. */
static int gm_push(int **a, int *n, int *cap, int v) {
  if (*n == *cap) {
    int c = *cap ? *cap * 2 : 256;
    int *p = realloc(*a, (size_t)c * sizeof(*p));
    if (p == NULL)
      return -1;
    *a = p;
    *cap = c;
  }
  (*a)[(*n)++] = v;
  return 0;
}

/* Element size and block size of a ggml type; 0 for a type ggml lacks. */
static int gm_type(int type, uint64_t *size, uint64_t *block) {
  const ggml_type_info *ti = ggml_type_get(type);
  if (ti == NULL || ti->block_size == 0 || ti->removed)
    return -1;
  *size = ti->type_size;
  *block = ti->block_size;
  return 0;
}

/* Contiguous strides for t's type and shape (ggml_new_tensor_impl). */
static int gm_strides(wt_gm_tensor *t) {
  uint64_t size, block;
  int i;
  if (gm_type(t->type, &size, &block) != 0)
    return -1;
  t->nb[0] = size;
  t->nb[1] = size * ((uint64_t)t->ne[0] / block);
  for (i = 2; i < 4; i++)
    t->nb[i] = t->nb[i - 1] * (uint64_t)t->ne[i - 1];
  /* each ne <= 2^40 and size small, so a stride overflows only past 2^60
  ** of a smaller one: check each before the next is formed */
  for (i = 1; i < 4; i++)
    if (t->nb[i] > WT_GM_MAX_BYTES ||
        (uint64_t)t->ne[i] > WT_GM_MAX_BYTES / (t->nb[i] ? t->nb[i] : 1))
      return -2;
  return 0;
}

/* A new tensor (op, no sources yet); -1 once the graph has failed. */
static int gm_tensor(wt_graph *g, int type, const int64_t shape[4], wt_gm_op op, int view_of) {
  wt_gm_tensor *t;
  int64_t ne[4]; /* shape may point into g->t, which the realloc below moves */
  int i;
  memcpy(ne, shape, sizeof(ne));
  if (g->failed)
    return -1;
  for (i = 0; i < 4; i++)
    if (ne[i] < 0 || ne[i] > ((int64_t)1 << 40)) {
      g->failed = WT_GM_TOO_BIG;
      return -1;
    }
  if (g->n_t == g->cap_t) {
    int c = g->cap_t ? g->cap_t * 2 : 1024;
    wt_gm_tensor *p = realloc(g->t, (size_t)c * sizeof(*p));
    if (p == NULL) {
      g->failed = WT_GM_NO_MEMORY;
      return -1;
    }
    g->t = p;
    g->cap_t = c;
  }
  t = &g->t[g->n_t];
  memset(t, 0, sizeof(*t));
  t->type = type;
  memcpy(t->ne, ne, sizeof(t->ne));
  t->op = op;
  for (i = 0; i < WT_GM_MAX_SRC; i++)
    t->src[i] = -1;
  /* a view of a view lies in the first one's data, further in */
  t->view_src = view_of >= 0 && g->t[view_of].view_src >= 0 ? g->t[view_of].view_src : view_of;
  t->view_offs = view_of >= 0 && g->t[view_of].view_src >= 0 ? g->t[view_of].view_offs : 0;
  t->il = -1;
  t->dev = WT_GM_DEV_NONE;
  if ((i = gm_strides(t)) != 0) {
    g->failed = i == -2 ? WT_GM_TOO_BIG : WT_GM_NO_MEMORY;
    return -1;
  }
  return g->n_t++;
}

/* Whether ids are tensors of g (a failed call upstream gave -1). */
static int gm_ok(wt_graph *g, int a, int b) {
  if (g->failed || a < 0 || a >= g->n_t || b < -1 || b >= g->n_t) {
    if (!g->failed)
      g->failed = WT_GM_NO_MEMORY; /* an id of no tensor: a bug, reported as a failure */
    return 0;
  }
  return 1;
}

int wt_gm_new(wt_graph *g, int type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
              unsigned flags) {
  int64_t ne[4] = {ne0, ne1, ne2, ne3};
  int t = gm_tensor(g, type, ne, WT_GM_NONE, -1);
  if (t >= 0)
    g->t[t].flags = flags;
  return t;
}

void wt_gm_set_flag(wt_graph *g, int t, unsigned flag) {
  if (gm_ok(g, t, -1))
    g->t[t].flags |= flag;
}

void wt_gm_place(wt_graph *g, int t, int dev, int weights, int64_t il) {
  if (!gm_ok(g, t, -1))
    return;
  g->t[t].dev = (signed char)dev;
  g->t[t].il = (int)il;
  if (weights)
    g->t[t].flags |= WT_GM_WEIGHTS;
}

void wt_gm_tag(wt_graph *g, int t, int tag, int64_t il) {
  if (!gm_ok(g, t, -1))
    return;
  g->t[t].tag = (unsigned char)tag;
  g->t[t].il = (int)il;
}

void wt_gm_set_sub(wt_graph *g, int t, int sub) {
  if (gm_ok(g, t, -1))
    g->t[t].sub = (unsigned char)sub;
}

void wt_gm_offset(wt_graph *g, int t, uint64_t offs) {
  if (gm_ok(g, t, -1))
    g->t[t].view_offs += offs;
}

/* A tensor shaped like a, contiguous (ggml_dup_tensor), made by op. */
static int gm_like(wt_graph *g, wt_gm_op op, int a, int b) {
  int t;
  if (!gm_ok(g, a, b))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, op, -1);
  if (t >= 0) {
    g->t[t].src[0] = a;
    g->t[t].src[1] = b;
  }
  return t;
}

int wt_gm_rms_norm(wt_graph *g, int a) {
  return gm_like(g, WT_GM_RMS_NORM, a, -1);
}
int wt_gm_norm(wt_graph *g, int a) {
  return gm_like(g, WT_GM_NORM, a, -1);
}
int wt_gm_mul(wt_graph *g, int a, int b) {
  return gm_like(g, WT_GM_MUL, a, b);
}
int wt_gm_add(wt_graph *g, int a, int b) {
  return gm_like(g, WT_GM_ADD, a, b);
}
int wt_gm_scale(wt_graph *g, int a) {
  return gm_like(g, WT_GM_SCALE, a, -1);
}
int wt_gm_unary(wt_graph *g, int a) {
  return gm_like(g, WT_GM_UNARY, a, -1);
}
int wt_gm_sqr(wt_graph *g, int a) {
  return gm_like(g, WT_GM_SQR, a, -1);
}
int wt_gm_clamp(wt_graph *g, int a) {
  return gm_like(g, WT_GM_CLAMP, a, -1);
}
int wt_gm_div(wt_graph *g, int a, int b) {
  return gm_like(g, WT_GM_DIV, a, b);
}
int wt_gm_soft_max_ext(wt_graph *g, int a, int mask) {
  return gm_like(g, WT_GM_SOFT_MAX, a, mask);
}

int wt_gm_rope(wt_graph *g, int a, int pos, int factors) {
  int t = gm_like(g, WT_GM_ROPE, a, pos);
  if (t >= 0)
    g->t[t].src[2] = factors;
  return t;
}

/* A new contiguous F32-or-given-type tensor made by op from a and b. */
static int gm_new_op(wt_graph *g, int type, const int64_t ne[4], wt_gm_op op, int a, int b) {
  int t;
  if (!gm_ok(g, a, b))
    return -1;
  t = gm_tensor(g, type, ne, op, -1);
  if (t >= 0) {
    g->t[t].src[0] = a;
    g->t[t].src[1] = b;
  }
  return t;
}

int wt_gm_mul_mat(wt_graph *g, int a, int b) {
  int64_t ne[4];
  if (!gm_ok(g, a, b) || b < 0)
    return -1;
  ne[0] = g->t[a].ne[1];
  ne[1] = g->t[b].ne[1];
  ne[2] = g->t[b].ne[2];
  ne[3] = g->t[b].ne[3];
  return gm_new_op(g, WT_GM_F32, ne, WT_GM_MUL_MAT, a, b);
}

/* mul_mat_id: for each token, its selected experts' matrices (as) times b. */
int wt_gm_mul_mat_id(wt_graph *g, int as, int b, int ids) {
  int64_t ne[4];
  int t;
  if (!gm_ok(g, as, b) || !gm_ok(g, ids, -1) || b < 0)
    return -1;
  ne[0] = g->t[as].ne[1];
  ne[1] = g->t[ids].ne[0];
  ne[2] = g->t[b].ne[2];
  ne[3] = 1;
  t = gm_new_op(g, WT_GM_F32, ne, WT_GM_MUL_MAT_ID, as, b);
  if (t >= 0)
    g->t[t].src[2] = ids;
  return t;
}

/* argsort: the I32 order of each row of a (a new tensor). */
int wt_gm_argsort(wt_graph *g, int a) {
  if (!gm_ok(g, a, -1))
    return -1;
  return gm_new_op(g, WT_GM_I32, g->t[a].ne, WT_GM_ARGSORT, a, -1);
}

int wt_gm_sum_rows(wt_graph *g, int a) {
  int64_t ne[4];
  if (!gm_ok(g, a, -1))
    return -1;
  memcpy(ne, g->t[a].ne, sizeof(ne));
  ne[0] = 1;
  return gm_new_op(g, g->t[a].type, ne, WT_GM_SUM_ROWS, a, -1);
}

int wt_gm_get_rows(wt_graph *g, int a, int b) {
  int64_t ne[4];
  if (!gm_ok(g, a, b) || b < 0)
    return -1;
  ne[0] = g->t[a].ne[0];
  ne[1] = g->t[b].ne[0];
  ne[2] = g->t[b].ne[1];
  ne[3] = g->t[b].ne[2];
  return gm_new_op(g, g->t[a].type == WT_GM_I32 ? WT_GM_I32 : WT_GM_F32, ne, WT_GM_GET_ROWS, a, b);
}

int wt_gm_flash_attn_ext(wt_graph *g, int q, int k, int v, int mask) {
  int64_t ne[4];
  int t;
  if (!gm_ok(g, q, k) || !gm_ok(g, v, mask) || k < 0)
    return -1;
  ne[0] = g->t[v].ne[0];
  ne[1] = g->t[q].ne[2];
  ne[2] = g->t[q].ne[1];
  ne[3] = g->t[q].ne[3];
  t = gm_new_op(g, WT_GM_F32, ne, WT_GM_FLASH_ATTN_EXT, q, k);
  if (t >= 0) {
    g->t[t].src[2] = v;
    g->t[t].src[3] = mask;
  }
  return t;
}

int wt_gm_cont_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
  int64_t ne[4] = {ne0, ne1, ne2, ne3};
  if (!gm_ok(g, a, -1))
    return -1;
  return gm_new_op(g, g->t[a].type, ne, WT_GM_CONT, a, -1);
}

/* ggml_cast: a copy of a in another type (op CPY into a new tensor that
** names itself as its second source, as ggml's does). */
int wt_gm_cast(wt_graph *g, int a, int type) {
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_new_op(g, type, g->t[a].ne, WT_GM_CPY, a, -1);
  if (t >= 0)
    g->t[t].src[1] = t;
  return t;
}

/* ggml_pad: a copy of a with p0 more values in each row. */
int wt_gm_pad(wt_graph *g, int a, int64_t p0) {
  int64_t ne[4];
  if (!gm_ok(g, a, -1))
    return -1;
  memcpy(ne, g->t[a].ne, sizeof(ne));
  ne[0] += p0;
  return gm_new_op(g, g->t[a].type, ne, WT_GM_PAD, a, -1);
}

/* ggml_fill: a tensor like a, every value set (a copy; may reuse a). */
int wt_gm_fill(wt_graph *g, int a) {
  return gm_like(g, WT_GM_FILL, a, -1);
}

/* ggml_concat: a and b joined along dimension dim (the others equal). */
int wt_gm_concat(wt_graph *g, int a, int b, int dim) {
  int64_t ne[4];
  if (!gm_ok(g, a, b) || b < 0 || dim < 0 || dim > 3)
    return -1;
  memcpy(ne, g->t[a].ne, sizeof(ne));
  ne[dim] += g->t[b].ne[dim];
  return gm_new_op(g, g->t[a].type, ne, WT_GM_CONCAT, a, b);
}

/* ggml_scale_inplace: a scaled where it lies (a view of a). */
int wt_gm_scale_inplace(wt_graph *g, int a) {
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, WT_GM_SCALE, a);
  if (t >= 0) {
    memcpy(g->t[t].nb, g->t[a].nb, sizeof(g->t[t].nb));
    g->t[t].src[0] = a;
  }
  return t;
}

/* ggml_cpy: a's values written into b; the result stands for b (a view). */
int wt_gm_cpy(wt_graph *g, int a, int b) {
  int t;
  if (!gm_ok(g, a, b) || b < 0)
    return -1;
  t = gm_tensor(g, g->t[b].type, g->t[b].ne, WT_GM_CPY, b);
  if (t >= 0) {
    memcpy(g->t[t].nb, g->t[b].nb, sizeof(g->t[t].nb));
    g->t[t].src[0] = a;
    g->t[t].src[1] = b;
  }
  return t;
}

/* ggml_ssm_conv: the convolution of each sequence's window sx (d_conv - 1
** + tokens wide) with kernel c, d_inner x tokens x sequences. */
int wt_gm_ssm_conv(wt_graph *g, int sx, int c) {
  int64_t ne[4];
  if (!gm_ok(g, sx, c) || c < 0)
    return -1;
  ne[0] = g->t[c].ne[1];
  ne[1] = g->t[sx].ne[0] - g->t[c].ne[0] + 1;
  ne[2] = g->t[sx].ne[2];
  ne[3] = 1;
  return gm_new_op(g, WT_GM_F32, ne, WT_GM_SSM_CONV, sx, c);
}

/* ggml_ssm_scan (K = 1): y for every token, then the last state of each
** sequence, in one vector. */
int wt_gm_ssm_scan(wt_graph *g, int s, int x, int dt, int a, int b, int c, int ids) {
  int64_t ne[4] = {0, 1, 1, 1};
  const wt_gm_tensor *ts, *tx;
  int t;
  if (!gm_ok(g, s, x) || !gm_ok(g, dt, a) || !gm_ok(g, b, c) || !gm_ok(g, ids, -1) || x < 0)
    return -1;
  ts = &g->t[s];
  tx = &g->t[x];
  ne[0] = tx->ne[0] * tx->ne[1] * tx->ne[2] * tx->ne[3] +
          ts->ne[0] * ts->ne[1] * ts->ne[2] * g->t[ids].ne[0];
  t = gm_new_op(g, WT_GM_F32, ne, WT_GM_SSM_SCAN, s, x);
  if (t >= 0) {
    g->t[t].src[2] = dt;
    g->t[t].src[3] = a;
    g->t[t].src[4] = b;
    g->t[t].src[5] = c;
    g->t[t].src[6] = ids;
  }
  return t;
}

/* ggml_glu of one tensor: its two halves of each row, half as wide. */
int wt_gm_glu(wt_graph *g, int a) {
  int64_t ne[4];
  if (!gm_ok(g, a, -1))
    return -1;
  memcpy(ne, g->t[a].ne, sizeof(ne));
  ne[0] /= 2;
  return gm_new_op(g, g->t[a].type, ne, WT_GM_GLU, a, -1);
}

int wt_gm_glu_split(wt_graph *g, int a, int b) {
  if (!gm_ok(g, a, b) || b < 0)
    return -1;
  return gm_new_op(g, g->t[a].type, g->t[a].ne, WT_GM_GLU, a, b);
}

/* set_rows writes b's rows into a at c and stands for a (a view of it). */
int wt_gm_set_rows(wt_graph *g, int a, int b, int c) {
  int t;
  if (!gm_ok(g, a, b) || !gm_ok(g, c, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, WT_GM_SET_ROWS, a);
  if (t >= 0) {
    memcpy(g->t[t].nb, g->t[a].nb, sizeof(g->t[t].nb));
    g->t[t].src[0] = b;
    g->t[t].src[1] = c;
    g->t[t].src[2] = a;
  }
  return t;
}

/* ================================= Views ================================== */

int wt_gm_reshape_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
  int64_t ne[4] = {ne0, ne1, ne2, ne3};
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, ne, WT_GM_RESHAPE, a);
  if (t >= 0)
    g->t[t].src[0] = a;
  return t;
}

int wt_gm_view_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
                  uint64_t nb1, uint64_t nb2, uint64_t nb3) {
  int64_t ne[4] = {ne0, ne1, ne2, ne3};
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, ne, WT_GM_VIEW, a);
  if (t >= 0) {
    g->t[t].nb[1] = nb1;
    g->t[t].nb[2] = nb2;
    g->t[t].nb[3] = nb3;
    g->t[t].src[0] = a;
  }
  return t;
}

/* ggml_permute: axis i of a becomes axis ax[i] of the view. */
int wt_gm_permute(wt_graph *g, int a, int ax0, int ax1, int ax2, int ax3) {
  int ax[4] = {ax0, ax1, ax2, ax3}, t, i;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, WT_GM_PERMUTE, a);
  if (t < 0)
    return -1;
  for (i = 0; i < 4; i++) {
    g->t[t].ne[ax[i]] = g->t[a].ne[i];
    g->t[t].nb[ax[i]] = g->t[a].nb[i];
  }
  g->t[t].src[0] = a;
  return t;
}

int wt_gm_transpose(wt_graph *g, int a) {
  int t = wt_gm_permute(g, a, 1, 0, 2, 3);
  if (t >= 0)
    g->t[t].op = WT_GM_TRANSPOSE;
  return t;
}

uint64_t wt_gm_nbytes(const wt_graph *g, int id) {
  const wt_gm_tensor *t = &g->t[id];
  uint64_t size, block, n;
  int i;
  if (gm_type(t->type, &size, &block) != 0)
    return 0;
  for (i = 0; i < 4; i++)
    if (t->ne[i] == 0)
      return 0; /* an empty tensor */
  if (block == 1) {
    n = size;
    for (i = 0; i < 4; i++)
      n += (uint64_t)(t->ne[i] - 1) * t->nb[i];
  } else {
    n = (uint64_t)t->ne[0] * t->nb[0] / block;
    for (i = 1; i < 4; i++)
      n += (uint64_t)(t->ne[i] - 1) * t->nb[i];
  }
  return n;
}

/* ggml_dup_tensor_layout: a's type, shape and strides, no op. */
int wt_gm_dup_layout(wt_graph *g, int a) {
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, WT_GM_NONE, -1);
  if (t >= 0)
    memcpy(g->t[t].nb, g->t[a].nb, sizeof(g->t[t].nb));
  return t;
}

/* ggml_view_tensor: a view of all of a, op NONE, a its source. */
int wt_gm_view_of(wt_graph *g, int a) {
  int t;
  if (!gm_ok(g, a, -1))
    return -1;
  t = gm_tensor(g, g->t[a].type, g->t[a].ne, WT_GM_NONE, a);
  if (t >= 0) {
    memcpy(g->t[t].nb, g->t[a].nb, sizeof(g->t[t].nb));
    g->t[t].src[0] = a;
  }
  return t;
}

int wt_gm_is_view_op(wt_gm_op op) {
  return op == WT_GM_RESHAPE || op == WT_GM_VIEW || op == WT_GM_PERMUTE || op == WT_GM_TRANSPOSE;
}

int wt_gm_contiguous(const wt_graph *g, int id, int m, int n) {
  const wt_gm_tensor *t = &g->t[id];
  uint64_t size, block, next;
  int i;
  if (gm_type(t->type, &size, &block) != 0)
    return 0;
  if ((uint64_t)t->ne[0] != block && t->nb[0] != size)
    return 0;
  next = size * ((uint64_t)t->ne[0] / block);
  for (i = 1; i < n; i++) {
    if (i > m) {
      if (t->ne[i] != 1 && t->nb[i] != next)
        return 0;
      next *= (uint64_t)t->ne[i];
    } else {
      next = (uint64_t)t->ne[i] * t->nb[i]; /* this dimension need not follow */
    }
  }
  return 1;
}

int wt_gm_contiguous_rows(const wt_graph *g, int id) {
  const wt_gm_tensor *t = &g->t[id];
  uint64_t size, block;
  if (gm_type(t->type, &size, &block) != 0)
    return 0;
  return (uint64_t)t->ne[0] == block || t->nb[0] == size;
}

/* ============================ Ordering a graph ============================ */

/* ggml_visit_parents_graph: sources first, then t as a leaf or a node. */
static void gm_visit(wt_graph *g, int id) {
  wt_gm_tensor *t = &g->t[id];
  int i, rc;
  if (t->flags & WT_GM_VISITED)
    return;
  t->flags |= WT_GM_VISITED;
  for (i = 0; i < WT_GM_MAX_SRC; i++)
    if (g->t[id].src[i] >= 0)
      gm_visit(g, g->t[id].src[i]);
  t = &g->t[id];
  rc = t->op == WT_GM_NONE ? gm_push(&g->leafs, &g->n_leafs, &g->cap_leafs, id)
                           : gm_push(&g->nodes, &g->n_nodes, &g->cap_nodes, id);
  if (rc != 0)
    g->failed = WT_GM_NO_MEMORY;
}

void wt_gm_expand(wt_graph *g, int t) {
  if (gm_ok(g, t, -1))
    gm_visit(g, t);
}
