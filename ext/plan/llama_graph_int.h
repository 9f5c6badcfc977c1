/*
** llama_graph_int.h: what the files that build llama.cpp's graphs share
** (not for other layers): the graph under way, and the blocks of a layer.
** llama_graph.c, the driver, calls down to llama_attention.c, llama_ffn.c
** and llama_mamba.c, which all build on llama_pieces.c; none calls one
** that calls it.
*/
#ifndef WT_LLAMA_GRAPH_INT_H
#define WT_LLAMA_GRAPH_INT_H

#include <stdint.h>

#include "graph_model.h"
#include "llama_graph.h"

/* A KV cache's inputs: where this batch's K and V rows go, the mask, and
** the Hadamard rotations of a quantized K or V (-1: none). */
typedef struct lg_kv {
  int64_t cells;
  int k_idxs, v_idxs, mask;
  int k_rot, v_rot;
} lg_kv;

/* The graph being built and what every layer shares. */
typedef struct lg_ctx {
  wt_graph g;
  const wt_lg_params *p;
  int64_t n_tokens, n_outputs, n_stream;
  int v_trans;                   /* V cache stored transposed (flash attention off) */
  int64_t v_gqa;                 /* the V cache's row: the widest layer's */
  int pos, out_ids, s_copy;      /* s_copy: which recurrent state each sequence reads */
  int s_copy_main, s_copy_extra; /* its views: this batch's rows, the others (made once) */
  lg_kv kv[2];                   /* the cache, and the sliding-window one (llama_kv_cache_iswa) */
} lg_ctx;

/* llama_pieces.c: bytes of n values of ggml type t (ggml_row_size); the
** device of layer il (-1: the output layer); a weight "blk.il.name" (a
** leaf in a buffer of its own, its type and device llama.cpp's); a cache
** of layer il; layer il's RoPE factors or -1; build_lora_mm of
** "name.weight" and an optional "name.bias"; build_norm as the
** architecture norms (tagged: named "norm" for llama.cpp's callback); an
** RMS norm with a weight, tagged; ggml_view_2d, ggml_reshape_2d and _3d in
** terms of the 4-d calls. */
uint64_t lg_row(int t, int64_t n);
int lg_layer_dev(const lg_ctx *c, int64_t il);
int lg_weight(lg_ctx *c, int64_t il, const char *name, int64_t ne0, int64_t ne1, int64_t ne2);
int lg_cache(lg_ctx *c, int64_t il, int type, int64_t ne0, int64_t ne1, int64_t ne2);
int lg_rope_factors(lg_ctx *c, int64_t il);
int lg_linear(lg_ctx *c, int64_t il, const char *name, int64_t n_in, int64_t n_out, int cur,
              int bias);
int lg_norm(lg_ctx *c, int64_t il, const char *name, int tagged, int cur);
int lg_rms_weighted(lg_ctx *c, int64_t il, const char *name, int64_t n, int x);
int lg_view_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, uint64_t nb1);
int lg_reshape_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1);
int lg_reshape_3d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, int64_t ne2);

/* llama_attention.c: layer il's self-attention over the KV cache (the
** llama builder, then build_attn), or deepseek2's multi-head latent
** attention; cur is the normed input. */
int lg_attention(lg_ctx *c, uint64_t il, int cur);
int lg_attention_mla(lg_ctx *c, uint64_t il, int cur);

/* llama_ffn.c: layer il's build_ffn n_ff wide with the biases b (shexp:
** the shared experts' weights, "ffn_up_shexp"...); layer il's experts
** (build_moe_ffn); qwen2moe's gated shared expert. */
int lg_ffn(lg_ctx *c, uint64_t il, int shexp, int64_t n_ff, unsigned b, int cur);
int lg_moe(lg_ctx *c, uint64_t il, int cur);
int lg_shared_expert(lg_ctx *c, uint64_t il, int cur);

/* llama_mamba.c: build_mamba_layer of layer il over the normed input cur. */
int lg_mamba(lg_ctx *c, uint64_t il, int cur);

#endif
