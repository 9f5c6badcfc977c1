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

#endif
