/*
** graph_alloc.h: the bytes ggml-alloc reserves for a graph of
** graph_model.h (graph_alloc.c).  Pure C, no SQLite.
**
** Upstream: ggml/src/ggml-alloc.c (ggml_gallocr_alloc_graph_impl,
** ggml_dyn_tallocr), llama.cpp commit de3ff815.
*/
#ifndef WT_GRAPH_ALLOC_H
#define WT_GRAPH_ALLOC_H

#include <stdint.h>

#include "graph_model.h"

/* The bytes ggml-alloc reserves for the graph in one buffer of the given
** alignment: 0 with *size set; 1 when a tensor or the buffer would pass
** 2^60 bytes, or ggml-alloc would abort (more than its 256 free blocks);
** -1 when the graph ran out of memory. */
int wt_graph_alloc(const wt_graph *g, uint64_t alignment, uint64_t *size);

/* A graph as ggml_gallocr_reserve_n is given it: its leafs and nodes (ids
** into g) in order, each with the buffer it goes to. */
typedef struct wt_alloc_order {
  const int *leafs, *leaf_buf;
  int n_leafs;
  const int *nodes, *node_buf;
  int n_nodes;
} wt_alloc_order;

/* What ggml-alloc asks a buffer type: its alignment and the bytes a tensor
** takes in it (NULL: ggml_nbytes; 0 from alloc_size: too big), given ctx. */
typedef struct wt_alloc_buft {
  uint64_t alignment;
  uint64_t (*alloc_size)(const wt_graph *g, int t, const void *ctx);
  const void *ctx;
} wt_alloc_buft;

#define WT_ALLOC_MAX_BUFS 4

/* The same over n_bufts buffers (ggml_gallocr with a buffer type per
** backend): sizes[i], each buffer's bytes; the return values as above. */
int wt_graph_alloc_n(const wt_graph *g, const wt_alloc_order *o, const wt_alloc_buft *bufts,
                     int n_bufts, uint64_t *sizes);

#endif
