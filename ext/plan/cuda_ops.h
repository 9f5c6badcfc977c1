/*
** cuda_ops.h: what ggml's CUDA backend says of a tensor of a graph
** (graph_model.h): whether it runs an operation, whether it asks the
** scheduler to take an operation off the CPU, the bytes a tensor takes in
** its buffer, and which weights it holds.  graph_sched.c asks these
** questions as ggml_backend_sched asks the backend.  Pure C, no SQLite.
**
** Upstream: ggml/src/ggml-cuda/ggml-cuda.cu (supports_op, offload_op,
** get_alloc_size), ggml/src/ggml-cuda/fattn.cu (the flash-attention kernel
** and its f16 copies of K and V), llama.cpp commit de3ff815, as
** node-llama-cpp 3.22.1 builds it (its libggml-cuda.so holds the vector
** kernels for f16, q4_0, q8_0 and bf16 caches, K and V of one type, heads
** 64, 128 or 256 wide: GGML_CUDA_FA_QUANTS' default).
*/
#ifndef WT_CUDA_OPS_H
#define WT_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "graph_model.h"

#define WT_CUDA_ALIGN     128 /* the CUDA buffer type's alignment */
#define WT_CUDA_ROW_PAD   512 /* MATRIX_ROW_PADDING: a quantized tensor's last row padded to it */
#define WT_CUDA_MIN_BATCH 32  /* op_offload_min_batch_size: offload from this batch on */
#define WT_CUDA_CC_MIN                                                                             \
  750 /* the oldest compute capability modelled: Turing (ggml: 100 major + 10 minor) */
#define WT_CUDA_CC_ADA 890 /* Ada Lovelace: the vector kernel for one or two queries */

/* 1 when the CUDA backend of a GPU of compute capability cc (900: 9.0, the
** H200 the shared records were taken on) runs node t of g. */
int wt_cuda_supports(const wt_graph *g, int t, int cc);

/* ggml's get_op_batch_size: the batch the CUDA backend's offload_op
** compares with WT_CUDA_MIN_BATCH. */
int64_t wt_cuda_batch(const wt_graph *g, int t);

/* The bytes tensor t takes in a CUDA buffer (get_alloc_size: a quantized
** tensor's rows padded, flash attention's f16 copies of K and V), cc as
** above; 0 when it passes 2^60. */
uint64_t wt_cuda_alloc_size(const wt_graph *g, int t, int cc);

/* The bytes a weight or cache of ggml type `type`, shape ne0 x rows, takes
** in a CUDA buffer, aligned (ggml_backend_alloc_ctx_tensors_from_buft);
** 0 when it overflows. */
uint64_t wt_cuda_tensor_bytes(int64_t type, uint64_t ne0, uint64_t rows);

/* 1 when llama.cpp keeps weight `name` ("blk.N.ssm_a", "output.weight":
** the name's end decides) of ggml type `type` and shape ne on the GPU for
** an offloaded layer: the CUDA backend runs the operation llama.cpp uses
** it in (LLM_TENSOR_INFOS; llama_model_loader's weight_buft_supported): a
** bias (ADD) or a norm's or ssm_d's weight (MUL) of F32 or F16, ssm_conv1d
** (SSM_CONV) d_inner a multiple of 128, ssm_a (SSM_SCAN) of the shapes its
** kernels take (d_inner, d_state, n_group: the model's ssm keys), RoPE
** factors, a matrix of a type it multiplies.  Else llama.cpp leaves it on
** the CPU (in the mapped file). */
int wt_cuda_holds_weight(const char *name, size_t n, int64_t type, const uint64_t *ne, int ndim,
                         uint64_t d_inner, uint64_t d_state, uint64_t n_group);

/* 1 when the CUDA backend multiplies a weight of ggml type `type`
** (MUL_MAT, MUL_MAT_ID), or looks up its rows (GET_ROWS), so that
** llama.cpp keeps such a weight of an offloaded layer on the GPU. */
int wt_cuda_mul_mat_type(int64_t type);
int wt_cuda_get_rows_type(int64_t type, int64_t ne0);

#endif
