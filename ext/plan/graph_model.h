/*
** graph_model.h: a model of the part of ggml that decides how big
** llama.cpp's compute buffer is: tensors with their shapes and strides, the
** operations that make them, the order ggml puts them in a graph, and the
** allocator that lays them out in one buffer (ggml-alloc).
**
** llama_graph.c builds an architecture's graph with these calls, as
** llama.cpp's graph builder does with ggml's, and wt_graph_alloc()
** (graph_alloc.h) returns the buffer size ggml-alloc would reserve for it.  Only the bytes are
** modelled; nothing is computed.  Pure C, no SQLite.
**
** Upstream: ggml/src/ggml.c (shapes, ggml_visit_parents_graph) and
** ggml/src/ggml-alloc.c (ggml_gallocr_alloc_graph_impl, ggml_dyn_tallocr),
** llama.cpp commit de3ff815.
*/
#ifndef WT_GRAPH_MODEL_H
#define WT_GRAPH_MODEL_H

#include <stdint.h>

#define WT_GM_MAX_SRC 10 /* GGML_MAX_SRC */

/* ggml type ids the graphs use besides the cache types. */
enum { WT_GM_F32 = 0, WT_GM_F16 = 1, WT_GM_I32 = 26, WT_GM_I64 = 27 };

/* The operations the graphs use.  Only what ggml-alloc asks of an op
** matters: whether it is a view and whether it may reuse its input. */
typedef enum wt_gm_op {
  WT_GM_NONE, /* a leaf: a weight, a cache, an input */
  WT_GM_GET_ROWS,
  WT_GM_SET_ROWS,
  WT_GM_RMS_NORM,
  WT_GM_NORM,
  WT_GM_MUL,
  WT_GM_ADD,
  WT_GM_SCALE,
  WT_GM_MUL_MAT,
  WT_GM_MUL_MAT_ID,
  WT_GM_ARGSORT,
  WT_GM_SUM_ROWS,
  WT_GM_CLAMP,
  WT_GM_DIV,
  WT_GM_ROPE,
  WT_GM_SOFT_MAX,
  WT_GM_FLASH_ATTN_EXT,
  WT_GM_CONT,
  WT_GM_CPY,
  WT_GM_PAD,
  WT_GM_FILL,
  WT_GM_CONCAT,
  WT_GM_SSM_CONV,
  WT_GM_SSM_SCAN,
  WT_GM_GLU,
  WT_GM_UNARY,
  WT_GM_SQR,
  WT_GM_VIEW,
  WT_GM_RESHAPE,
  WT_GM_PERMUTE,
  WT_GM_TRANSPOSE
} wt_gm_op;

/* Tensor flags (ggml's input and output; external: the data lives in a
** buffer of its own, as weights and caches do, so ggml-alloc skips it;
** weights: that buffer holds a model's weights, GGML_BACKEND_BUFFER_USAGE_WEIGHTS,
** which ggml_backend_sched looks for). */
enum {
  WT_GM_INPUT = 1,
  WT_GM_OUTPUT = 2,
  WT_GM_EXTERNAL = 4,
  WT_GM_VISITED = 8,
  WT_GM_WEIGHTS = 16
};

/* The device an external tensor's buffer is on (wt_gm_tensor.dev). */
enum { WT_GM_DEV_NONE = -1, WT_GM_DEV_GPU = 0, WT_GM_DEV_CPU = 1 };

/* The name llama.cpp's graph callback looks for (wt_gm_tensor.tag): a
** norm of layer il ("norm"), an attention that flash attention computes
** (its fused-op record). */
enum { WT_GM_TAG_NONE = 0, WT_GM_TAG_NORM, WT_GM_TAG_FA };

/* Which function a UNARY or GLU node applies (wt_gm_tensor.sub), where it
** matters (CUDA's fusion of expert routing looks for a sigmoid). */
enum { WT_GM_SUB_NONE = 0, WT_GM_SUB_SIGMOID };

typedef struct wt_gm_tensor {
  int type;
  int64_t ne[4];
  uint64_t nb[4];
  wt_gm_op op;
  int src[WT_GM_MAX_SRC]; /* tensor ids, -1 for none */
  int view_src;           /* the tensor a view's data lies in, -1 */
  unsigned flags;
  uint64_t view_offs; /* a view's first byte in view_src's data */
  int il;             /* the layer of a weight, a cache or a tagged node; -1 */
  signed char dev;    /* WT_GM_DEV_*: where an external tensor's buffer is */
  unsigned char tag;  /* WT_GM_TAG_* */
  unsigned char sub;  /* WT_GM_SUB_* */
} wt_gm_tensor;

/* A tensor or a buffer larger is "too big" (WT_GM_TOO_BIG). */
#define WT_GM_MAX_BYTES ((uint64_t)1 << 60)

/* Why a graph failed. */
enum { WT_GM_OK = 0, WT_GM_NO_MEMORY = 1, WT_GM_TOO_BIG = 2 };

/* A graph being built: every tensor made, and the nodes and leafs in the
** order ggml's build_forward_expand adds them. */
typedef struct wt_graph {
  wt_gm_tensor *t;
  int n_t, cap_t;
  int *nodes, n_nodes, cap_nodes;
  int *leafs, n_leafs, cap_leafs;
  int failed; /* WT_GM_*: once set, every call after is a no-op */
} wt_graph;

void wt_graph_init(wt_graph *g);
void wt_graph_free(wt_graph *g);

/* A new tensor: a leaf of ggml type `type` and shape ne (unused dims 1; a
** dimension may be 0, as in ggml: an empty tensor), contiguous; flags as
** above.  Returns its id (-1 once g has failed). */
int wt_gm_new(wt_graph *g, int type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
              unsigned flags);

/* The operations, as ggml's functions of the same names shape them. */
int wt_gm_get_rows(wt_graph *g, int a, int b);
int wt_gm_set_rows(wt_graph *g, int a, int b, int c);
int wt_gm_rms_norm(wt_graph *g, int a);
int wt_gm_norm(wt_graph *g, int a);
int wt_gm_mul(wt_graph *g, int a, int b);
int wt_gm_add(wt_graph *g, int a, int b);
int wt_gm_scale(wt_graph *g, int a);
int wt_gm_scale_inplace(wt_graph *g, int a);
int wt_gm_mul_mat(wt_graph *g, int a, int b);
int wt_gm_mul_mat_id(wt_graph *g, int as, int b, int ids);
int wt_gm_argsort(wt_graph *g, int a);
int wt_gm_sum_rows(wt_graph *g, int a);
int wt_gm_clamp(wt_graph *g, int a);
int wt_gm_div(wt_graph *g, int a, int b);
int wt_gm_rope(wt_graph *g, int a, int pos, int factors);
int wt_gm_soft_max_ext(wt_graph *g, int a, int mask);
int wt_gm_flash_attn_ext(wt_graph *g, int q, int k, int v, int mask);
int wt_gm_cont_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);
int wt_gm_cast(wt_graph *g, int a, int type);
int wt_gm_glu_split(wt_graph *g, int a, int b);
int wt_gm_glu(wt_graph *g, int a);
int wt_gm_pad(wt_graph *g, int a, int64_t p0);
int wt_gm_fill(wt_graph *g, int a);
int wt_gm_concat(wt_graph *g, int a, int b, int dim);
int wt_gm_cpy(wt_graph *g, int a, int b);
int wt_gm_ssm_conv(wt_graph *g, int sx, int c);
int wt_gm_ssm_scan(wt_graph *g, int s, int x, int dt, int a, int b, int c, int ids);
int wt_gm_unary(wt_graph *g, int a);
int wt_gm_sqr(wt_graph *g, int a);
int wt_gm_reshape_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);
int wt_gm_view_4d(wt_graph *g, int a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
                  uint64_t nb1, uint64_t nb2, uint64_t nb3);
int wt_gm_permute(wt_graph *g, int a, int ax0, int ax1, int ax2, int ax3);
int wt_gm_transpose(wt_graph *g, int a);

void wt_gm_set_flag(wt_graph *g, int t, unsigned flag);

/* An external tensor's device (WT_GM_DEV_*) and layer (-1: none); weights
** 1 when its buffer holds a model's weights. */
void wt_gm_place(wt_graph *g, int t, int dev, int weights, int64_t il);

/* Name node t for llama.cpp's callback (WT_GM_TAG_*) as of layer il. */
void wt_gm_tag(wt_graph *g, int t, int tag, int64_t il);

/* Set the function of a UNARY node (WT_GM_SUB_*). */
void wt_gm_set_sub(wt_graph *g, int t, int sub);

/* Move view t's first byte offs bytes further into its data. */
void wt_gm_offset(wt_graph *g, int t, uint64_t offs);

/* ggml_is_view_op: RESHAPE, VIEW, PERMUTE, TRANSPOSE. */
int wt_gm_is_view_op(wt_gm_op op);

/* ggml_is_contiguous_m_n: dimensions above m and below n laid out one
** after the other (m 0, n 4: ggml_is_contiguous; m 1: _1; m 2: _2); and
** ggml_is_contiguous_rows. */
int wt_gm_contiguous(const wt_graph *g, int t, int m, int n);
int wt_gm_contiguous_rows(const wt_graph *g, int t);

/* A new leaf with a's type, shape and strides (ggml_dup_tensor_layout), or
** a view of a (ggml_view_tensor: op NONE, a the source); -1 once g failed. */
int wt_gm_dup_layout(wt_graph *g, int a);
int wt_gm_view_of(wt_graph *g, int a);

/* Bytes of tensor t's data (ggml_nbytes). */
uint64_t wt_gm_nbytes(const wt_graph *g, int t);

/* Add t and the tensors it depends on to the graph, depth first, sources
** in order (ggml_build_forward_expand). */
void wt_gm_expand(wt_graph *g, int t);

#endif
