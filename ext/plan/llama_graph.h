/*
** llama_graph.h: the compute buffer llama.cpp reserves for a model whose
** graph is llama's (src/models/llama.cpp at llama.cpp commit de3ff815):
** token embeddings, per layer RMS norm, Q/K/V with optional biases, RoPE,
** attention over the KV cache (flash attention or not), output projection,
** RMS norm and a SwiGLU feed-forward; final norm and logits.  Also the
** graphs that differ from it by the pieces below (experts, within groups
** or not; Q/K norms, scales, post-norms, soft-capping, a fused QKV, a
** sliding-window cache; deepseek2's multi-head latent attention and its
** router: sigmoid or softmax, a bias on the scores, weights normalised and
** scaled, leading dense layers, shared experts): those of compute_plan.c's
** architectures.
**
** wt_llama_compute() builds that graph with graph_model.h for the two
** graphs llama.cpp reserves (a micro-batch of prompt, then one token per
** sequence) and returns the larger buffer, exactly as ggml-alloc sizes it
** for the CPU backend.  Pure C, no SQLite.
*/
#ifndef WT_LLAMA_GRAPH_H
#define WT_LLAMA_GRAPH_H

#include <stdint.h>

/* Optional biases a layer may have (llama.cpp creates them when present). */
enum {
  WT_LG_BQ = 1,
  WT_LG_BK = 2,
  WT_LG_BV = 4,
  WT_LG_BO = 8,
  WT_LG_B_UP = 16,
  WT_LG_B_GATE = 32,
  WT_LG_B_DOWN = 64
};

/* How a model's graph departs from llama's, as llama.cpp's builders for
** these architectures do (src/models/ARCH.cpp: qwen2, qwen2moe, qwen3,
** qwen3moe, granite, gemma, gemma2, gemma3, phi3, cohere2, deci, deepseek2,
** arcee, smollm3, starcoder2, orion, baichuan). */
enum {
  WT_LG_QK_NORM = 1,            /* qwen3: RMS norm of Q and K per head, before RoPE */
  WT_LG_OUTPUT_BIAS = 2,        /* qwen2: a bias added to the logits */
  WT_LG_EMBD_SCALE = 4,         /* granite: embeddings scaled */
  WT_LG_RESIDUAL_SCALE = 8,     /* granite: attention and FFN outputs scaled */
  WT_LG_LOGIT_SCALE = 16,       /* granite: logits scaled */
  WT_LG_MOE = 32,               /* experts in place of the FFN (build_moe_ffn, softmax gating) */
  WT_LG_MOE_NORM = 64,          /* the selected experts' weights normalised (llama, qwen3moe) */
  WT_LG_SHARED_EXPERT = 128,    /* qwen2moe: a shared expert with a sigmoid gate */
  WT_LG_Q_SCALE = 256,          /* gemma: Q scaled after RoPE */
  WT_LG_POST_NORMS = 512,       /* gemma2/3: RMS norms after attention and FFN */
  WT_LG_ATTN_SOFTCAP = 1024,    /* gemma2: scores capped (scale, tanh, scale) */
  WT_LG_FINAL_SOFTCAP = 2048,   /* gemma2/3: logits capped likewise */
  WT_LG_FUSED_QKV = 4096,       /* Q, K and V are views of one projection (attn_qkv) */
  WT_LG_FFN_SWIGLU = 8192,      /* phi3: one up projection twice n_ff wide, swiglu of its halves */
  WT_LG_RESIDUAL_FIRST = 16384, /* phi3: the FFN's residual add names the residual first */
  WT_LG_PARALLEL = 32768,       /* cohere2: attention and FFN read the same LayerNorm'd input,
                                   RoPE in the sliding-window layers only */
  WT_LG_DECI = 65536,           /* deci: layers may lack attention (0 heads), KV heads (a
                                   linear layer instead) or the FFN (0 wide) */
  WT_LG_MLA = 1 << 17,          /* deepseek2: multi-head latent attention (K-only cache) */
  WT_LG_MOE_SIGMOID = 1 << 18,  /* experts routed by sigmoid, not softmax */
  WT_LG_MOE_PROBS_BIAS = 1 << 19, /* a bias added to the routing scores (exp_probs_b) */
  WT_LG_MOE_SCALE = 1 << 20,      /* the experts' weights scaled */
  WT_LG_SHARED_FFN = 1 << 21,     /* deepseek2, granitemoe: shared experts, an FFN n_ff_shared
                                     wide added to the experts' sum */
  WT_LG_MAMBA = 1 << 22,          /* mamba: selective state-space layers, a recurrent state */
  WT_LG_SSM_NORMS = 1 << 23,      /* mamba: dt, B and C RMS-normed (not modelled) */
  WT_LG_FFN_RELU_SQR = 1 << 24,   /* arcee: FFN = down(relu(up x)^2), no gate */
  WT_LG_NOPE_EVERY_4 = 1 << 25,   /* smollm3: no RoPE in every 4th layer */
  WT_LG_LAYER_NORM = 1 << 26,     /* starcoder2: LayerNorms with a weight and a bias */
  WT_LG_FFN_GELU = 1 << 27,       /* starcoder2: FFN = down(gelu(up x)), no gate */
  WT_LG_NO_ROPE = 1 << 28         /* baichuan but its 7B (32 layers): no RoPE (ALiBi) */
};

/* The GPU a graph runs beside the CPU on (on 0: the CPU alone). */
typedef struct wt_lg_gpu {
  int on;
  int cc;               /* compute capability, ggml's way (900: 9.0), cuda_ops.h */
  uint64_t first_layer; /* the first layer on the GPU (llama.cpp's i_gpu_start) */
  int output;           /* the output layer (output_norm, output) is on the GPU */
  int full;             /* n_gpu_layers > n_layer: every layer offloaded */
  int op_offload;       /* large batches of CPU weights' products run on the GPU */
} wt_lg_gpu;

/* The ggml type of the model's tensor "blk.IL.NAME" (il -1: "NAME"), or -1
** when the model has none (its stand-in then: F32). */
typedef int (*wt_lg_type_fn)(const void *ud, int64_t il, const char *name);

typedef struct wt_lg_params {
  unsigned features; /* WT_LG_QK_NORM ... */
  uint64_t n_layer, n_embd, n_vocab;
  uint64_t head_k, head_v;                       /* per-head widths of K and V (llama: equal) */
  const uint64_t *n_head;                        /* [n_layer] */
  const uint64_t *n_head_kv;                     /* [n_layer] */
  const uint64_t *n_ff;                          /* [n_layer]: the FFN's width, or each expert's */
  uint64_t n_expert, n_expert_used, n_ff_shared; /* WT_LG_MOE; the shared experts' width */
  uint64_t n_dense_lead;           /* WT_LG_MOE: layers before the first with experts */
  uint64_t n_expert_shared;        /* deepseek2: shared experts, n_ff_shared = n_ff x this */
  uint64_t n_groups, n_group_used; /* experts chosen within the best groups (> 1 groups) */
  uint64_t kv_lora, q_lora, n_rot; /* WT_LG_MLA: latent widths (q_lora 0: Q direct), RoPE'd part */
  uint64_t head_k_mla, head_v_mla; /* WT_LG_MLA: a head's Q/K and V widths decompressed */
  uint64_t d_conv, d_inner, d_state, dt_rank; /* WT_LG_MAMBA: the ssm.* keys */
  const unsigned *bias;                       /* [n_layer] WT_LG_* */
  uint64_t cells;                             /* KV cells per stream */
  const unsigned char *swa; /* [n_layer] 1: the layer attends in a sliding window; NULL: none */
  uint64_t swa_cells;       /* the sliding-window cache's cells per stream */
  uint64_t n_seq;           /* sequences = streams (kv_unified off) */
  uint64_t n_tokens;        /* the micro-batch: min(n_ctx, n_ubatch) */
  int flash_attn;           /* 0 or 1, resolved; with a GPU, 2: auto (llama.cpp decides) */
  int v_trans;              /* the V cache is stored transposed (the cache made for no flash
                               attention; "auto" makes it for flash attention) */
  int type_k, type_v;       /* ggml type ids of the caches */
  wt_lg_gpu gpu;
  wt_lg_type_fn weight_type; /* NULL: every weight F32 (the CPU's sizes do not depend on it) */
  const void *ud;            /* weight_type's */
  uint64_t n_rot_factors;    /* the RoPE factors' width when the architecture reads them */
} wt_lg_params;

/* 0 with *bytes set; 1 when the graph is not one this file models (a
** layer without KV heads outside deci, more experts than llama.cpp takes,
** dimensions past any model's) or a tensor of it would pass 2^60 bytes;
** -1 out of memory.  A quantized cache with heads a multiple of 64 wide is
** rotated as llama.cpp rotates it. */
int wt_llama_compute(const wt_lg_params *p, uint64_t *bytes);

/* The same beside a GPU (p->gpu.on): the CUDA0 and CUDA_Host compute
** buffers llama.cpp's scheduler reserves (graph_sched.h), and flash
** attention as resolved (*fa: 0 or 1; "auto" is on when every layer's
** attention runs on the layer's device).  Returns as wt_llama_compute. */
int wt_llama_compute_gpu(const wt_lg_params *p, uint64_t *cuda, uint64_t *host, int *fa);

#endif
