/*
** graph_sched.h: ggml's backend scheduler over a graph of graph_model.h,
** for a CPU and one CUDA GPU: which backend runs each node, where the
** graph is split between them, the copies of each split's inputs made in
** its backend, and the compute buffer ggml-alloc reserves for each backend
** (the GPU's CUDA0 and the CPU's, of the GPU's pinned host type
** CUDA_Host).  graph_sched.c; pure C, no SQLite.
**
** Upstream: ggml/src/ggml-backend.cpp (ggml_backend_sched_split_graph,
** ggml_backend_sched_reserve), ggml/src/ggml-cuda/ggml-cuda.cu
** (graph_optimize's fusions, which keep tensors alive), src/llama-context.cpp
** (graph_get_cb), llama.cpp commit de3ff815.
*/
#ifndef WT_GRAPH_SCHED_H
#define WT_GRAPH_SCHED_H

#include <stdint.h>

#include "graph_model.h"

/* The backends, in ggml_backend_sched's order of priority: the GPU first,
** the CPU last. */
enum { WT_SCHED_GPU = 0, WT_SCHED_CPU = 1, WT_SCHED_N = 2 };

typedef struct wt_sched_params {
  int cc;                         /* the GPU's compute capability (cuda_ops.h) */
  int op_offload;                 /* ggml's op_offload: batches of CPU weights run on the GPU */
  int norm_to_layer;              /* llama.cpp's callback pins "norm" nodes to their layer's
                                     device (a batch under 32 tokens, or every layer offloaded) */
  const unsigned char *layer_gpu; /* [n_layer] 1: layer il is on the GPU */
  uint64_t n_layer;
} wt_sched_params;

/* Which backend runs each node of g (ggml_backend_sched_split_graph's
** passes 1 to 4): 0 with backend[t] for every tensor of g (-1 for a
** tensor no node reads), 1 when a node cannot be placed (a tensor with a
** buffer no backend runs its operation on), -1 out of memory.  backend
** holds g->n_t entries. */
int wt_sched_assign(wt_graph *g, const wt_sched_params *p, signed char *backend);

/* 1 when every flash-attention node (tagged WT_GM_TAG_FA) runs on its
** layer's device (llama_context::resolve_fused_ops: flash attention "auto"
** stays on), 0 when one does not, -1 out of memory; 2 when a node cannot
** be placed. */
int wt_sched_fa_on_layer_device(wt_graph *g, const wt_sched_params *p);

/* The compute buffers ggml_backend_sched_reserve plans for g: the nodes
** assigned, the graph split with its inputs copied, CUDA's fusions' extra
** lifetimes, laid out by ggml-alloc; sizes[WT_SCHED_GPU] the CUDA0
** buffer, sizes[WT_SCHED_CPU] the CUDA_Host one.  g gains the copies.
** 0, 1 when not modelled or too big (a tensor past 2^60 bytes, a node no
** backend runs), -1 out of memory. */
int wt_sched_reserve(wt_graph *g, const wt_sched_params *p, uint64_t sizes[WT_SCHED_N]);

#endif
