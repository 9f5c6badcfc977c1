/*
** llama_graph.c: llama's graph as llama.cpp builds it, for the size of its
** compute buffer (llama_graph.h).
**
** Each function below mirrors one of llama.cpp's graph builders
** (src/llama-graph.cpp: build_inp_embd, build_attn_inp_kv(_iswa),
** build_attn, build_attn_mha, build_ffn, build_moe_ffn;
** src/llama-kv-cache.cpp: cpy_k, cpy_v, get_k, get_v) and the layer loops
** of src/models/llama.cpp and the models that differ from it by the pieces
** llama_graph.h lists (qwen2, qwen3, qwen2moe, qwen3moe, granite, gemma*,
** phi3, cohere2, deci, deepseek2, arcee, smollm3, starcoder2, orion,
** baichuan; granitemoe is granite's, exaone, xverse and internlm2 are
** llama's), making the same tensors and expanding the graph at the same
** points, because ggml-alloc's layout depends on the order the graph ends
** up in.  llama.cpp reserves the buffer for the larger of a prompt
** micro-batch (n_tokens tokens, all of them outputs) and a
** one-token-per-sequence graph (llama_context::sched_reserve); the CPU
** buffer type aligns tensors to 32 bytes (TENSOR_ALIGNMENT).
**
** This file builds the inputs and the layer loops and sizes the graph;
** the blocks a layer is made of are llama_attention.c's, llama_ffn.c's and
** llama_mamba.c's, on llama_pieces.c's weights, norms and reshapes
** (llama_graph_int.h).
*/
#include "llama_graph.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "formats/ggml_type.h"
#include "graph_alloc.h"
#include "graph_model.h"
#include "graph_sched.h"
#include "llama_graph_int.h"

#define LG_ALIGNMENT   32   /* ggml's TENSOR_ALIGNMENT, the CPU buffer type's */
#define LG_MAX_EXPERTS 1024 /* LLAMA_MAX_EXPERTS: llama.cpp refuses more */
/* Bounds on the hyperparameters, far past any model's, under which every
** product of them below fits 64 bits (a projection's width and a token
** count: 2^48; a cache's values: 2^24 x 2^30 cells x 256 streams). */
#define LG_MAX_DIM   ((uint64_t)1 << 24) /* widths, heads, tokens, vocabulary */
#define LG_MAX_CELLS ((uint64_t)1 << 30) /* KV cells per stream */
#define LG_ROT_MIN   64                  /* the smallest rotation (llama_kv_cache's nrot) */

/* Whether a cache of ggml type t with heads `head` wide is rotated
** (llama_kv_cache's attn_rot_k / attn_rot_v: a quantized type, heads a
** multiple of 64 wide, the same in every layer, as they are here). */
static int lg_rotated(int t, uint64_t head) {
  const ggml_type_info *ti = ggml_type_get(t);
  return ti != NULL && ti->block_size > 1 && head > 0 && head % LG_ROT_MIN == 0;
}

/* The inputs every layer reads: positions, where K and V rows go, the
** mask, the rotations, and which tokens are outputs (build_inp_pos,
** build_attn_inp_kv(_iswa), llama_kv_cache::build_input_k_rot and
** build_input_v_rot, build_inp_out_ids).  K's rotation is the widest power
** of two that divides the heads; V's is 64 wide. */
static void lg_inputs(lg_ctx *c) {
  wt_graph *g = &c->g;
  int64_t nv = c->v_trans ? c->n_tokens * c->v_gqa : c->n_tokens, nrot = LG_ROT_MIN;
  int i, n_caches = c->p->swa ? 2 : 1;
  c->pos = wt_gm_new(g, WT_GM_I32, c->n_tokens, 1, 1, 1, WT_GM_INPUT);
  c->kv[0].cells = (int64_t)c->p->cells;
  c->kv[1].cells = (int64_t)c->p->swa_cells;
  for (i = 0; i < n_caches; i++) {
    lg_kv *kv = &c->kv[i];
    kv->k_idxs = wt_gm_new(g, WT_GM_I64, c->n_tokens, 1, 1, 1, WT_GM_INPUT);
    kv->v_idxs = wt_gm_new(g, WT_GM_I64, nv, 1, 1, 1, WT_GM_INPUT);
    kv->mask = wt_gm_new(g, c->p->flash_attn ? WT_GM_F16 : WT_GM_F32, kv->cells,
                         c->n_tokens / c->n_stream, 1, c->n_stream, WT_GM_INPUT);
  }
  while ((uint64_t)nrot < c->p->head_k && c->p->head_k % (uint64_t)(2 * nrot) == 0)
    nrot *= 2;
  for (i = 0; i < n_caches; i++) {
    lg_kv *kv = &c->kv[i];
    kv->k_rot = kv->v_rot = -1;
    if (lg_rotated(c->p->type_k, c->p->head_k) && !(c->p->features & WT_LG_MLA))
      kv->k_rot = wt_gm_new(g, WT_GM_F32, nrot, nrot, 1, 1, WT_GM_INPUT);
    if (lg_rotated(c->p->type_v, c->p->head_v) && !(c->p->features & WT_LG_MLA))
      kv->v_rot = wt_gm_new(g, WT_GM_F32, LG_ROT_MIN, LG_ROT_MIN, 1, 1, WT_GM_INPUT);
  }
  c->out_ids = wt_gm_new(g, WT_GM_I32, c->n_outputs, 1, 1, 1, WT_GM_INPUT);
  c->s_copy = wt_gm_new(g, WT_GM_I32, c->n_stream, 1, 1, 1, WT_GM_INPUT);
  /* build_rs_inp_impl: the views every layer's states read, made once (the
  ** scheduler copies each view once); the cache holds one row a sequence */
  c->s_copy_main = wt_gm_view_4d(g, c->s_copy, c->n_stream, 1, 1, 1, 4, 4 * (uint64_t)c->n_stream,
                                 4 * (uint64_t)c->n_stream);
  c->s_copy_extra = wt_gm_view_4d(g, c->s_copy, 0, 1, 1, 1, 4, 0, 0);
  wt_gm_offset(g, c->s_copy_extra, 4 * (uint64_t)c->n_stream);
}

/* build_inp_embd: the token path's rows and the unused vector input. */
static int lg_embeddings(lg_ctx *c) {
  wt_graph *g = &c->g;
  int64_t n_embd = (int64_t)c->p->n_embd;
  int cur, tokens = wt_gm_new(g, WT_GM_I32, c->n_tokens, 1, 1, 1, WT_GM_INPUT);
  int embd = wt_gm_new(g, WT_GM_F32, n_embd, c->n_tokens, 1, 1, WT_GM_INPUT);
  int rows = wt_gm_get_rows(
      g, lg_weight(c, -1, "token_embd.weight", n_embd, (int64_t)c->p->n_vocab, 1), tokens);
  wt_gm_expand(g, rows); /* ggml_build_forward_select: both paths are in the graph */
  wt_gm_expand(g, embd);
  cur = c->p->features & WT_LG_EMBD_SCALE ? wt_gm_scale(g, rows) : rows;
  wt_gm_expand(g, cur);
  return cur;
}

/* The whole graph for a micro-batch of n_tokens (n_outputs of them
** outputs), into c->g (free it with wt_graph_free). */
static void lg_build(lg_ctx *cp, const wt_lg_params *p, int64_t n_tokens, int64_t n_outputs) {
  lg_ctx c;
  wt_graph *g = &c.g;
  uint64_t il;
  int cur;
  memset(&c, 0, sizeof(c));
  wt_graph_init(g);
  c.p = p;
  c.n_tokens = n_tokens;
  c.n_outputs = n_outputs;
  c.n_stream = (int64_t)p->n_seq;
  c.v_trans = p->gpu.on ? p->v_trans : !p->flash_attn;
  for (il = 0; p->n_head_kv != NULL && il < p->n_layer; il++)
    if ((int64_t)(p->head_v * p->n_head_kv[il]) > c.v_gqa)
      c.v_gqa = (int64_t)(p->head_v * p->n_head_kv[il]);
  cur = lg_embeddings(&c);
  lg_inputs(&c);
  for (il = 0; il < p->n_layer && (p->features & WT_LG_PARALLEL); il++) {
    /* cohere2: the FFN reads the attention's input; both added to it */
    int in = cur, normed = lg_norm(&c, (int64_t)il, "attn_norm", 1, cur), attn;
    attn = lg_attention(&c, il, normed);
    if (il == p->n_layer - 1) {
      attn = wt_gm_get_rows(g, attn, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
      normed = wt_gm_get_rows(g, normed, c.out_ids);
    }
    cur = lg_ffn(&c, il, 0, (int64_t)p->n_ff[il], p->bias[il], normed);
    cur = wt_gm_add(g, wt_gm_add(g, cur, in), attn);
  }
  for (il = 0; il < p->n_layer && (p->features & WT_LG_MAMBA); il++) {
    int in = cur;
    cur = lg_mamba(&c, il, lg_norm(&c, (int64_t)il, "attn_norm", 1, cur));
    if (il == p->n_layer - 1) {
      cur = wt_gm_get_rows(g, cur, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
    }
    cur = wt_gm_add(g, cur, in);
  }
  for (il = 0; il < p->n_layer && (p->features & WT_LG_DECI); il++) {
    /* deci: attention, a linear layer (no KV heads) or nothing (no heads);
    ** without an FFN the layer's output is dropped, as llama.cpp does */
    int in = cur, ffn_in;
    if (p->n_head[il] != 0)
      cur = lg_norm(&c, (int64_t)il, "attn_norm", 1, cur);
    if (p->n_head[il] != 0 && p->n_head_kv[il] == 0)
      cur =
          lg_linear(&c, (int64_t)il, "attn_output", (int64_t)p->n_embd, (int64_t)p->n_embd, cur, 0);
    else if (p->n_head[il] != 0)
      cur = lg_attention(&c, il, cur);
    if (il == p->n_layer - 1) {
      cur = wt_gm_get_rows(g, cur, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
    }
    if (p->n_ff[il] == 0) {
      cur = in;
      continue;
    }
    ffn_in = p->n_head[il] != 0 ? wt_gm_add(g, cur, in) : cur;
    cur = lg_ffn(&c, il, 0, (int64_t)p->n_ff[il], p->bias[il],
                 lg_norm(&c, (int64_t)il, "ffn_norm", 1, ffn_in));
    cur = wt_gm_add(g, cur, ffn_in);
  }
  for (il = 0; il < p->n_layer && !(p->features & (WT_LG_PARALLEL | WT_LG_DECI | WT_LG_MAMBA));
       il++) {
    int in = cur, ffn_in;
    cur = lg_norm(&c, (int64_t)il, "attn_norm", 1, cur);
    cur = p->features & WT_LG_MLA ? lg_attention_mla(&c, il, cur) : lg_attention(&c, il, cur);
    if (il == p->n_layer - 1) {
      cur = wt_gm_get_rows(g, cur, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
    }
    if (p->features & WT_LG_POST_NORMS)
      cur = lg_norm(&c, (int64_t)il, "post_attention_norm", 1, cur);
    if (p->features & WT_LG_RESIDUAL_SCALE)
      cur = wt_gm_scale(g, cur);
    ffn_in = wt_gm_add(g, cur, in);
    cur = lg_norm(&c, (int64_t)il, "ffn_norm", 1, ffn_in);
    if ((p->features & WT_LG_MOE) && il >= p->n_dense_lead) {
      int moe = lg_moe(&c, il, cur);
      if (p->features & WT_LG_SHARED_EXPERT)
        cur = wt_gm_add(g, moe, lg_shared_expert(&c, il, cur));
      else if (p->features & WT_LG_SHARED_FFN)
        cur = wt_gm_add(g, moe, lg_ffn(&c, il, 1, (int64_t)p->n_ff_shared, 0, cur));
      else
        cur = moe;
    } else {
      cur = lg_ffn(&c, il, 0, (int64_t)p->n_ff[il], p->bias[il], cur);
    }
    /* (gemma2 and gemma3 pass -1 as this norm's layer: not tagged) */
    if (p->features & WT_LG_POST_NORMS)
      cur = lg_norm(&c, (int64_t)il, "post_ffw_norm", 0, cur);
    if (p->features & WT_LG_RESIDUAL_SCALE)
      cur = wt_gm_scale(g, cur);
    cur =
        p->features & WT_LG_RESIDUAL_FIRST ? wt_gm_add(g, ffn_in, cur) : wt_gm_add(g, cur, ffn_in);
  }
  cur = lg_norm(&c, -1, "output_norm", 0, cur);
  wt_gm_set_flag(g, cur, WT_GM_OUTPUT); /* the embeddings, kept */
  cur = lg_linear(&c, -1, "output", (int64_t)p->n_embd, (int64_t)p->n_vocab, cur,
                  (p->features & WT_LG_OUTPUT_BIAS) != 0);
  if (p->features & WT_LG_LOGIT_SCALE)
    cur = wt_gm_scale(g, cur);
  if (p->features & WT_LG_FINAL_SOFTCAP)
    cur = wt_gm_scale(g, wt_gm_unary(g, wt_gm_scale(g, cur)));
  wt_gm_set_flag(g, cur, WT_GM_OUTPUT); /* the logits */
  wt_gm_expand(g, cur);
  *cp = c;
}

/* The bytes ggml-alloc plans for that graph on the CPU. */
static int lg_graph(const wt_lg_params *p, int64_t n_tokens, int64_t n_outputs, uint64_t *bytes) {
  lg_ctx c;
  int rc;
  lg_build(&c, p, n_tokens, n_outputs);
  rc = wt_graph_alloc(&c.g, LG_ALIGNMENT, bytes);
  wt_graph_free(&c.g);
  return rc;
}

/* Whether v is within LG_MAX_DIM (a product is checked after both its
** factors, so it cannot wrap). */
static int lg_dim(uint64_t v) {
  return v <= LG_MAX_DIM;
}

/* 0 when p describes a graph this file builds, else 1. */
static int lg_valid(const wt_lg_params *p) {
  const ggml_type_info *tk = ggml_type_get(p->type_k), *tv = ggml_type_get(p->type_v);
  uint64_t il;
  if (tk == NULL || tv == NULL || p->n_seq == 0 || p->n_tokens == 0)
    return 1;
  if (p->features & WT_LG_MAMBA) {
    if (p->d_conv < 2 || p->d_inner == 0 || p->d_state == 0 || p->dt_rank == 0 ||
        !lg_dim(p->d_conv) || !lg_dim(p->d_inner) || !lg_dim(p->d_state) || !lg_dim(p->dt_rank) ||
        !lg_dim(p->n_embd) || !lg_dim(p->n_vocab) || !lg_dim(p->n_tokens) || p->n_seq > 256 ||
        (p->features & WT_LG_SSM_NORMS))
      return 1;
  } else if (!lg_dim(p->n_embd) || !lg_dim(p->n_vocab) || !lg_dim(p->head_k) ||
             !lg_dim(p->head_v) || !lg_dim(p->head_k_mla) || !lg_dim(p->head_v_mla) ||
             !lg_dim(p->kv_lora) || !lg_dim(p->q_lora) || !lg_dim(p->n_rot) ||
             !lg_dim(p->n_ff_shared) || !lg_dim(p->n_tokens) || p->n_seq > 256 ||
             p->n_expert_shared > LG_MAX_EXPERTS || p->cells > LG_MAX_CELLS ||
             p->swa_cells > LG_MAX_CELLS || p->n_groups > LG_MAX_EXPERTS)
    return 1;
  for (il = 0; il < p->n_layer && !(p->features & WT_LG_MAMBA); il++)
    if ((!(p->features & WT_LG_DECI) &&
         (p->n_head_kv[il] == 0 || p->n_head[il] == 0 || p->n_ff[il] == 0)) ||
        !lg_dim(p->n_head[il]) || !lg_dim(p->n_head_kv[il]) || !lg_dim(p->n_ff[il]) ||
        !lg_dim(p->n_head[il] * p->head_k) || !lg_dim(p->n_head[il] * p->head_v) ||
        !lg_dim(p->n_head_kv[il] * p->head_k) || !lg_dim(p->n_head_kv[il] * p->head_v) ||
        !lg_dim(p->n_head[il] * p->head_k_mla) || !lg_dim(p->n_head[il] * p->head_v_mla))
      return 1;
  if ((p->features & WT_LG_MOE) &&
      (p->n_expert_used == 0 || p->n_expert_used > p->n_expert || p->n_expert > LG_MAX_EXPERTS ||
       ((p->features & (WT_LG_SHARED_EXPERT | WT_LG_SHARED_FFN)) && p->n_ff_shared == 0 &&
        p->n_dense_lead < p->n_layer)))
    return 1;
  return 0;
}

int wt_llama_compute(const wt_lg_params *p, uint64_t *bytes) {
  uint64_t pp = 0, tg = 0, n_tokens;
  int rc;
  *bytes = 0;
  if (lg_valid(p) != 0)
    return 1;
  /* graph_reserve rounds the tokens up to a multiple of the sequences */
  n_tokens = (p->n_tokens + p->n_seq - 1) / p->n_seq * p->n_seq;
  if ((rc = lg_graph(p, (int64_t)n_tokens, (int64_t)p->n_tokens, &pp)) != 0 ||
      (rc = lg_graph(p, (int64_t)p->n_seq, (int64_t)p->n_seq, &tg)) != 0)
    return rc;
  *bytes = pp > tg ? pp : tg;
  return 0;
}

/* ================================ With a GPU =============================== */

/* The graph of n_tokens (n_outputs outputs) split between the GPU and the
** CPU: its compute buffers into sizes (graph_sched.h); or, with fa_probe,
** only whether its flash attention runs on each layer's device (1, 0). */
static int lg_graph_gpu(const wt_lg_params *p, wt_sched_params *sp, int64_t n_tokens,
                        int64_t n_outputs, int fa_probe, uint64_t sizes[WT_SCHED_N]) {
  lg_ctx c;
  int rc;
  lg_build(&c, p, n_tokens, n_outputs);
  /* llama.cpp's callback pins the norms for small batches, or always when
  ** every layer is offloaded (llama_context::graph_get_cb) */
  sp->norm_to_layer = n_tokens < WT_CUDA_MIN_BATCH || p->gpu.full;
  rc = fa_probe ? wt_sched_fa_on_layer_device(&c.g, sp) : wt_sched_reserve(&c.g, sp, sizes);
  wt_graph_free(&c.g);
  return rc;
}

int wt_llama_compute_gpu(const wt_lg_params *p, uint64_t *cuda, uint64_t *host, int *fa) {
  wt_lg_params q = *p;
  wt_sched_params sp;
  unsigned char *layer_gpu;
  uint64_t pp[WT_SCHED_N], tg[WT_SCHED_N], n_tokens, il;
  int rc;
  *cuda = *host = 0;
  *fa = p->flash_attn == 1;
  if (lg_valid(p) != 0 || !p->gpu.on || p->gpu.cc < WT_CUDA_CC_MIN ||
      (p->features & WT_LG_NO_ROPE)) /* (ALiBi: not modelled on the GPU) */
    return 1;
  layer_gpu = malloc((size_t)p->n_layer + 1);
  if (layer_gpu == NULL)
    return -1;
  for (il = 0; il < p->n_layer; il++)
    layer_gpu[il] = il >= p->gpu.first_layer;
  memset(&sp, 0, sizeof(sp));
  sp.cc = p->gpu.cc;
  sp.op_offload = p->gpu.op_offload;
  sp.layer_gpu = layer_gpu;
  sp.n_layer = p->n_layer;
  /* flash attention "auto": on when a one-token-per-sequence graph with it
  ** runs every layer's attention on the layer's device
  ** (llama_context::resolve_fused_ops) */
  rc = 0;
  if (p->flash_attn == 2) {
    q.flash_attn = 1;
    rc = lg_graph_gpu(&q, &sp, (int64_t)p->n_seq, (int64_t)p->n_seq, 1, NULL);
    q.flash_attn = rc == 1;
    rc = rc == 2 ? 1 : rc < 0 ? -1 : 0;
  }
  *fa = q.flash_attn;
  n_tokens = (p->n_tokens + p->n_seq - 1) / p->n_seq * p->n_seq;
  if (rc == 0)
    rc = lg_graph_gpu(&q, &sp, (int64_t)n_tokens, (int64_t)p->n_tokens, 0, pp);
  if (rc == 0)
    rc = lg_graph_gpu(&q, &sp, (int64_t)p->n_seq, (int64_t)p->n_seq, 0, tg);
  free(layer_gpu);
  if (rc != 0)
    return rc;
  *cuda = pp[WT_SCHED_GPU] > tg[WT_SCHED_GPU] ? pp[WT_SCHED_GPU] : tg[WT_SCHED_GPU];
  *host = pp[WT_SCHED_CPU] > tg[WT_SCHED_CPU] ? pp[WT_SCHED_CPU] : tg[WT_SCHED_CPU];
  return 0;
}
