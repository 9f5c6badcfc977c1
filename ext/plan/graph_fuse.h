/*
** graph_fuse.h: the fusions of ggml's CUDA backend that make the scheduler
** keep tensors alive past their last reader (graph_fuse.c), for the
** layout of the GPU's compute buffer (graph_sched.c).
**
** Before a split of the graph runs on the GPU, the CUDA backend looks in it
** for two patterns of a mixture of experts and, where it will fuse one into
** a kernel, asks that the tensors the kernel reads stay allocated until a
** later node (ggml_backend_cuda_graph_optimize's add_alloc_dep): the expert
** routing (softmax or sigmoid, an optional bias, top-k, the weights and
** their normalisation and scale: topk-moe) and the weighted sum of the
** experts' outputs.  Upstream: ggml/src/ggml-cuda/ggml-cuda.cu
** (ggml_cuda_topk_moe_fusion, ggml_cuda_match_moe_weighted_reduction),
** topk-moe.cu (ggml_cuda_should_use_topk_moe), ggml/src/ggml.c
** (ggml_can_fuse_subgraph_ext), llama.cpp commit de3ff815.  Pure C.
*/
#ifndef WT_GRAPH_FUSE_H
#define WT_GRAPH_FUSE_H

#include "graph_model.h"

/* Tensor keep stays allocated until node `until` has run. */
typedef struct wt_fuse_dep {
  int until, keep;
} wt_fuse_dep;

typedef struct wt_fuse_deps {
  wt_fuse_dep *d;
  int n, cap;
} wt_fuse_deps;

/* The dependencies the CUDA backend adds for the split of g's nodes
** [first, end) (use[t]: how many sources of the graph's nodes, as built,
** are t, ggml's use counts), appended to *out (unique per until/keep pair).
** 0, or -1 out of memory. */
int wt_cuda_fusion_deps(const wt_graph *g, int first, int end, const int *use, wt_fuse_deps *out);

void wt_fuse_deps_free(wt_fuse_deps *d);

#endif
