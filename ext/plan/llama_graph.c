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
*/
#include "llama_graph.h"

#include <string.h>

#include "formats/ggml_type.h"
#include "graph_model.h"

#define LG_ALIGNMENT   32   /* ggml's TENSOR_ALIGNMENT, the CPU buffer type's */
#define LG_MAX_EXPERTS 1024 /* LLAMA_MAX_EXPERTS: llama.cpp refuses more */
/* Bounds on the hyperparameters, far past any model's, under which every
** product of them below fits 64 bits (a projection's width and a token
** count: 2^48; a cache's values: 2^24 x 2^30 cells x 256 streams). */
#define LG_MAX_DIM   ((uint64_t)1 << 24) /* widths, heads, tokens, vocabulary */
#define LG_MAX_CELLS ((uint64_t)1 << 30) /* KV cells per stream */
#define LG_ROT_MIN   64                  /* the smallest rotation (llama_kv_cache's nrot) */

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
  int v_trans;              /* V cache stored transposed (flash attention off) */
  int64_t v_gqa;            /* the V cache's row: the widest layer's */
  int pos, out_ids, s_copy; /* s_copy: which recurrent state each sequence reads */
  lg_kv kv[2];              /* the cache, and the sliding-window one (llama_kv_cache_iswa) */
} lg_ctx;

/* Bytes of n values of ggml type t (ggml_row_size). */
static uint64_t lg_row(int t, int64_t n) {
  const ggml_type_info *ti = ggml_type_get(t);
  return ti == NULL || ti->block_size == 0 ? 0 : (uint64_t)n / ti->block_size * ti->type_size;
}

/* A weight: a leaf in a buffer of its own (its type does not matter here). */
static int lg_weight(lg_ctx *c, int64_t ne0, int64_t ne1) {
  return wt_gm_new(&c->g, WT_GM_F32, ne0, ne1, 1, 1, WT_GM_EXTERNAL);
}

/* build_lora_mm then an optional bias: w x cur (+ b). */
static int lg_linear(lg_ctx *c, int64_t n_in, int64_t n_out, int cur, int bias) {
  int t = wt_gm_mul_mat(&c->g, lg_weight(c, n_in, n_out), cur);
  return bias ? wt_gm_add(&c->g, t, lg_weight(c, n_out, 1)) : t;
}

/* build_norm: LLM_NORM_RMS and a weight; cohere2's LLM_NORM and a weight;
** starcoder2's LLM_NORM, a weight and a bias. */
static int lg_norm(lg_ctx *c, int cur) {
  wt_graph *g = &c->g;
  int64_t n_embd = (int64_t)c->p->n_embd;
  int n = c->p->features & (WT_LG_PARALLEL | WT_LG_LAYER_NORM) ? wt_gm_norm(g, cur)
                                                               : wt_gm_rms_norm(g, cur);
  n = wt_gm_mul(g, n, lg_weight(c, n_embd, 1));
  return c->p->features & WT_LG_LAYER_NORM ? wt_gm_add(g, n, lg_weight(c, n_embd, 1)) : n;
}

/* ggml_view_2d / ggml_reshape_2d / _3d in terms of the 4-d calls. */
static int lg_view_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, uint64_t nb1) {
  return wt_gm_view_4d(&c->g, a, ne0, ne1, 1, 1, nb1, nb1 * (uint64_t)ne1, nb1 * (uint64_t)ne1);
}
static int lg_reshape_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1) {
  return wt_gm_reshape_4d(&c->g, a, ne0, ne1, 1, 1);
}
static int lg_reshape_3d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, int64_t ne2) {
  return wt_gm_reshape_4d(&c->g, a, ne0, ne1, ne2, 1);
}

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
}

/* build_inp_embd: the token path's rows and the unused vector input. */
static int lg_embeddings(lg_ctx *c) {
  wt_graph *g = &c->g;
  int64_t n_embd = (int64_t)c->p->n_embd;
  int cur, tokens = wt_gm_new(g, WT_GM_I32, c->n_tokens, 1, 1, 1, WT_GM_INPUT);
  int embd = wt_gm_new(g, WT_GM_F32, n_embd, c->n_tokens, 1, 1, WT_GM_INPUT);
  int rows = wt_gm_get_rows(g, lg_weight(c, n_embd, (int64_t)c->p->n_vocab), tokens);
  wt_gm_expand(g, rows); /* ggml_build_forward_select: both paths are in the graph */
  wt_gm_expand(g, embd);
  cur = c->p->features & WT_LG_EMBD_SCALE ? wt_gm_scale(g, rows) : rows;
  wt_gm_expand(g, cur);
  return cur;
}

/* ggml_is_contiguous of tensor a. */
static int lg_contiguous(const wt_graph *g, int a) {
  const wt_gm_tensor *t = &g->t[a];
  uint64_t next = lg_row(t->type, t->ne[0]);
  int i;
  for (i = 1; i < 4; i++) {
    if (t->ne[i] != 1 && t->nb[i] != next)
      return 0;
    if (t->ne[i] != 1)
      next *= (uint64_t)t->ne[i];
  }
  return 1;
}

/* llama_mul_mat_hadamard (src/llama-impl.h): cur's values rotated by rot,
** rot's width at a time; the result has cur's shape. */
static int lg_hadamard(lg_ctx *c, int cur, int rot) {
  wt_graph *g = &c->g;
  int64_t ne[4], n, rows;
  int res;
  if (g->failed)
    return -1;
  memcpy(ne, g->t[cur].ne, sizeof(ne));
  n = g->t[rot].ne[0];
  rows = ne[0] * ne[1] * ne[2] * ne[3] / n;
  res =
      lg_contiguous(g, cur) ? lg_reshape_2d(c, cur, n, rows) : wt_gm_cont_4d(g, cur, n, rows, 1, 1);
  res = wt_gm_mul_mat(g, rot, res);
  return wt_gm_reshape_4d(g, res, ne[0], ne[1], ne[2], ne[3]);
}

/* cpy_k / cpy_v: store this layer's K or V rows into the cache. */
static int lg_store(lg_ctx *c, const lg_kv *kv, int cache, int cur, int64_t gqa, int is_v) {
  wt_graph *g = &c->g;
  if (is_v && c->v_trans) {
    int view, rows;
    /* rows already whole: a reshape; a view of a fused projection: a copy */
    if (!g->failed && g->t[cur].nb[2] == lg_row(g->t[cur].type, gqa))
      cur = lg_reshape_2d(c, cur, gqa, c->n_tokens);
    else
      cur = wt_gm_cont_4d(g, cur, gqa, c->n_tokens, 1, 1);
    if (gqa < c->v_gqa) /* a narrower layer's rows, padded to the cache's */
      cur = wt_gm_pad(g, cur, c->v_gqa - gqa);
    view = lg_reshape_2d(c, cache, 1, c->v_gqa * kv->cells * c->n_stream);
    rows = lg_reshape_2d(c, cur, 1, c->v_gqa * c->n_tokens);
    return wt_gm_set_rows(g, view, rows, kv->v_idxs);
  }
  cur = lg_view_2d(c, cur, gqa, c->n_tokens, g->failed ? 0 : g->t[cur].nb[2]);
  if (c->n_stream > 1)
    cache = lg_reshape_2d(c, cache, gqa, kv->cells * c->n_stream);
  return wt_gm_set_rows(g, cache, cur, is_v ? kv->v_idxs : kv->k_idxs);
}

/* build_attn_mha: attention of q over the cached k and v. */
static int lg_mha(lg_ctx *c, int mask, int q, int k, int v, int v_mla) {
  wt_graph *g = &c->g;
  const wt_gm_tensor *qt, *t;
  int cur, v_trans;
  if (g->failed)
    return -1;
  qt = &g->t[q];
  v_trans = g->t[v].nb[1] > g->t[v].nb[2]; /* as the cache's view of V says */
  q = wt_gm_view_4d(g, q, qt->ne[0], qt->ne[1], qt->ne[2] / c->n_stream, c->n_stream, qt->nb[1],
                    qt->nb[2], qt->nb[3] / (uint64_t)c->n_stream);
  q = wt_gm_permute(g, q, 0, 2, 1, 3);
  k = wt_gm_permute(g, k, 0, 2, 1, 3);
  v = wt_gm_permute(g, v, 0, 2, 1, 3);
  if (c->p->flash_attn) {
    if (v_trans)
      v = wt_gm_transpose(g, v);
    if (!g->failed && g->t[k].type == WT_GM_F32)
      k = wt_gm_cast(g, k, WT_GM_F16);
    if (!g->failed && g->t[v].type == WT_GM_F32)
      v = wt_gm_cast(g, v, WT_GM_F16);
    cur = wt_gm_flash_attn_ext(g, q, k, v, mask);
    if (v_mla >= 0) { /* MLA: decompress each head's output */
      cur =
          wt_gm_permute(g, wt_gm_mul_mat(g, v_mla, wt_gm_permute(g, cur, 0, 2, 1, 3)), 0, 2, 1, 3);
      if (cur < 0)
        return -1;
      t = &g->t[cur];
      cur = wt_gm_cont_4d(g, cur, t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    }
    if (cur < 0)
      return -1;
    t = &g->t[cur];
    cur = lg_reshape_2d(c, cur, t->ne[0] * t->ne[1], t->ne[2] * t->ne[3]);
  } else {
    int kq = wt_gm_mul_mat(g, k, q), kqv;
    if (c->p->features & WT_LG_ATTN_SOFTCAP)
      kq = wt_gm_scale(g, wt_gm_unary(g, wt_gm_scale(g, kq)));
    kq = wt_gm_soft_max_ext(g, kq, mask);
    if (!v_trans) { /* V made contiguous transposed (MLA's V is the K cache's) */
      v = wt_gm_transpose(g, v);
      if (v < 0)
        return -1;
      t = &g->t[v];
      v = wt_gm_cont_4d(g, v, t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    }
    kqv = wt_gm_mul_mat(g, v, kq);
    if (v_mla >= 0)
      kqv = wt_gm_mul_mat(g, v_mla, kqv);
    cur = wt_gm_permute(g, kqv, 0, 2, 1, 3);
    if (cur < 0)
      return -1;
    t = &g->t[cur];
    cur = wt_gm_cont_4d(g, cur, t->ne[0] * t->ne[1], t->ne[2] * t->ne[3], 1, 1);
  }
  wt_gm_expand(g, cur);
  return cur;
}

/* deepseek2's multi-head latent attention (src/models/deepseek2.cpp, the
** MLA path; build_attn with a K-only cache): Q through its latent (or
** directly), K and V one compressed row per token, RoPE on a slice. */
static int lg_attention_mla(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  const lg_kv *kv = &c->kv[0];
  int64_t n_embd = (int64_t)p->n_embd, nh = (int64_t)p->n_head[il], n = c->n_tokens;
  int64_t hq = (int64_t)p->head_k_mla, rope = (int64_t)p->n_rot, nope = hq - rope;
  int64_t lora = (int64_t)p->kv_lora, hk = (int64_t)p->head_k, cells = kv->cells;
  uint64_t row = lg_row(WT_GM_F32, lora + rope), qrow;
  int q, ckv, kvc, kpe, qn, qpe, k, v, kc;
  if (p->q_lora != 0) {
    q = wt_gm_mul_mat(g, lg_weight(c, n_embd, (int64_t)p->q_lora), cur);
    q = wt_gm_mul(g, wt_gm_rms_norm(g, q), lg_weight(c, (int64_t)p->q_lora, 1));
    q = wt_gm_mul_mat(g, lg_weight(c, (int64_t)p->q_lora, nh * hq), q);
  } else {
    q = wt_gm_mul_mat(g, lg_weight(c, n_embd, nh * hq), cur);
  }
  q = lg_reshape_3d(c, q, hq, nh, n);
  ckv = wt_gm_mul_mat(g, lg_weight(c, n_embd, lora + rope), cur);
  kvc = lg_view_2d(c, ckv, lora, n, row);
  kpe = wt_gm_view_4d(g, ckv, rope, 1, n, 1, row, row, row * (uint64_t)n);
  kpe = wt_gm_rope(g, kpe, c->pos, -1);
  kvc = wt_gm_mul(g, wt_gm_rms_norm(g, kvc), lg_weight(c, lora, 1));
  if (g->failed)
    return -1;
  qrow = g->t[q].nb[2];
  qn = wt_gm_view_4d(g, q, nope, nh, n, 1, g->t[q].nb[1], qrow, qrow * (uint64_t)n);
  qpe = wt_gm_view_4d(g, q, rope, nh, n, 1, g->t[q].nb[1], qrow, qrow * (uint64_t)n);
  qpe = wt_gm_rope(g, qpe, c->pos, -1);
  /* Q's no-RoPE part absorbed into the latent space (wk_b, per head) */
  qn = wt_gm_mul_mat(g, wt_gm_new(g, WT_GM_F32, nope, lora, nh, 1, WT_GM_EXTERNAL),
                     wt_gm_permute(g, qn, 0, 2, 1, 3));
  q = wt_gm_concat(g, wt_gm_permute(g, qn, 0, 2, 1, 3), qpe, 0);
  kvc = lg_reshape_3d(c, kvc, lora, 1, n);
  k = wt_gm_concat(g, kvc, kpe, 0);
  v = kvc;
  wt_gm_expand(g, q);
  wt_gm_expand(g, v);
  wt_gm_expand(g, k);
  kc = wt_gm_new(g, p->type_k, hk, cells, c->n_stream, 1, WT_GM_EXTERNAL);
  wt_gm_expand(g, lg_store(c, kv, kc, k, hk, 0));
  k = wt_gm_view_4d(g, kc, hk, 1, cells, c->n_stream, lg_row(p->type_k, hk), lg_row(p->type_k, hk),
                    lg_row(p->type_k, hk * cells));
  if (g->failed)
    return -1;
  v = wt_gm_view_4d(g, k, lora, g->t[k].ne[1], g->t[k].ne[2], g->t[k].ne[3], g->t[k].nb[1],
                    g->t[k].nb[2], g->t[k].nb[3]);
  cur = lg_mha(c, kv->mask, q, k, v,
               wt_gm_new(g, WT_GM_F32, lora, (int64_t)p->head_v_mla, nh, 1, WT_GM_EXTERNAL));
  return wt_gm_mul_mat(g, lg_weight(c, nh * (int64_t)p->head_v_mla, n_embd), cur);
}

/* One layer's self-attention (the llama builder, then build_attn). */
static int lg_attention(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t hk = (int64_t)p->head_k, hv = (int64_t)p->head_v, nh = (int64_t)p->n_head[il];
  int64_t nkv = (int64_t)p->n_head_kv[il], n_embd = (int64_t)p->n_embd;
  int iswa = p->swa != NULL;
  const lg_kv *kv = &c->kv[iswa && p->swa[il]];
  int64_t cells = kv->cells;
  unsigned b = p->bias[il];
  int q, k, v, kc, vc;
  if (p->features & WT_LG_FUSED_QKV) {
    /* build_qkv's fused path: views of one projection's rows */
    int qkv = lg_linear(c, n_embd, hk * nh + hk * nkv + hv * nkv, cur, 0);
    uint64_t row = g->failed ? 0 : g->t[qkv].nb[1];
    q = wt_gm_view_4d(g, qkv, hk, nh, c->n_tokens, 1, lg_row(WT_GM_F32, hk), row,
                      row * (uint64_t)c->n_tokens);
    k = wt_gm_view_4d(g, qkv, hk, nkv, c->n_tokens, 1, lg_row(WT_GM_F32, hk), row,
                      row * (uint64_t)c->n_tokens);
    v = wt_gm_view_4d(g, qkv, hv, nkv, c->n_tokens, 1, lg_row(WT_GM_F32, hv), row,
                      row * (uint64_t)c->n_tokens);
  } else {
    q = lg_linear(c, n_embd, hk * nh, cur, b & WT_LG_BQ);
    k = lg_linear(c, n_embd, hk * nkv, cur, b & WT_LG_BK);
    v = lg_linear(c, n_embd, hv * nkv, cur, b & WT_LG_BV);
    q = lg_reshape_3d(c, q, hk, nh, c->n_tokens);
    k = lg_reshape_3d(c, k, hk, nkv, c->n_tokens);
    v = lg_reshape_3d(c, v, hv, nkv, c->n_tokens);
  }
  if (p->features & WT_LG_QK_NORM) {
    q = wt_gm_mul(g, wt_gm_rms_norm(g, q), lg_weight(c, hk, 1));
    q = wt_gm_rope(g, q, c->pos, -1);
    k = wt_gm_mul(g, wt_gm_rms_norm(g, k), lg_weight(c, hk, 1));
    k = wt_gm_rope(g, k, c->pos, -1);
  } else if ((!(p->features & WT_LG_PARALLEL) || (p->swa != NULL && p->swa[il])) &&
             !((p->features & WT_LG_NOPE_EVERY_4) && (il + 1) % 4 == 0) &&
             !(p->features & WT_LG_NO_ROPE)) {
    q = wt_gm_rope(g, q, c->pos, -1);
    k = wt_gm_rope(g, k, c->pos, -1);
  }
  if (p->features & WT_LG_Q_SCALE)
    q = wt_gm_scale(g, q);
  if (kv->k_rot >= 0) { /* build_attn: a quantized cache's rotations */
    q = lg_hadamard(c, q, kv->k_rot);
    k = lg_hadamard(c, k, kv->k_rot);
  }
  if (kv->v_rot >= 0)
    v = lg_hadamard(c, v, kv->v_rot);
  /* build_attn expands q, v, k; its sliding-window variant q, k, v */
  wt_gm_expand(g, q);
  wt_gm_expand(g, iswa ? k : v);
  wt_gm_expand(g, iswa ? v : k);
  kc = wt_gm_new(g, p->type_k, hk * nkv, cells, c->n_stream, 1, WT_GM_EXTERNAL);
  vc = wt_gm_new(g, p->type_v, c->v_trans ? c->v_gqa : hv * nkv, cells, c->n_stream, 1,
                 WT_GM_EXTERNAL);
  wt_gm_expand(g, lg_store(c, kv, kc, k, hk * nkv, 0));
  wt_gm_expand(g, lg_store(c, kv, vc, v, hv * nkv, 1));
  k = wt_gm_view_4d(g, kc, hk, nkv, cells, c->n_stream, lg_row(p->type_k, hk),
                    lg_row(p->type_k, hk * nkv), lg_row(p->type_k, hk * nkv * cells));
  if (c->v_trans)
    v = wt_gm_view_4d(g, vc, cells, nkv, hv, c->n_stream, lg_row(p->type_v, cells * hv),
                      lg_row(p->type_v, cells), lg_row(p->type_v, cells * c->v_gqa));
  else
    v = wt_gm_view_4d(g, vc, hv, nkv, cells, c->n_stream, lg_row(p->type_v, hv),
                      lg_row(p->type_v, hv * nkv), lg_row(p->type_v, hv * nkv * cells));
  cur = lg_mha(c, kv->mask, q, k, v, -1);
  if (kv->v_rot >= 0)
    cur = lg_hadamard(c, cur, kv->v_rot);
  return lg_linear(c, hv * nh, n_embd, cur, b & WT_LG_BO);
}

/* build_ffn with SiLU and a parallel gate (fused into swiglu), n_ff wide;
** or phi3's: one up projection 2 n_ff wide and swiglu of its halves; or
** arcee's: up, ReLU, square, down; or starcoder2's: up, GELU, down. */
static int lg_ffn(lg_ctx *c, int64_t n_ff, unsigned b, int cur) {
  int64_t n_embd = (int64_t)c->p->n_embd;
  if (c->p->features & WT_LG_FFN_SWIGLU) {
    int up = lg_linear(c, n_embd, 2 * n_ff, cur, 0);
    return lg_linear(c, n_ff, n_embd, wt_gm_glu(&c->g, up), 0);
  }
  if (c->p->features & (WT_LG_FFN_RELU_SQR | WT_LG_FFN_GELU)) { /* no gate: LLM_FFN_SEQ */
    int act = wt_gm_unary(&c->g, lg_linear(c, n_embd, n_ff, cur, b & WT_LG_B_UP));
    if (c->p->features & WT_LG_FFN_RELU_SQR)
      act = wt_gm_sqr(&c->g, act);
    return lg_linear(c, n_ff, n_embd, act, b & WT_LG_B_DOWN);
  }
  int up = lg_linear(c, n_embd, n_ff, cur, b & WT_LG_B_UP);
  int gate = lg_linear(c, n_embd, n_ff, cur, b & WT_LG_B_GATE);
  return lg_linear(c, n_ff, n_embd, wt_gm_glu_split(&c->g, gate, up), b & WT_LG_B_DOWN);
}

/* ggml_argsort_top_k: the order of each row of a, its first k. */
static int lg_top_k(lg_ctx *c, int a, int64_t k) {
  wt_graph *g = &c->g;
  const wt_gm_tensor *t;
  int sorted = wt_gm_argsort(g, a);
  if (sorted < 0)
    return -1;
  t = &g->t[sorted];
  return wt_gm_view_4d(g, sorted, k, t->ne[1], t->ne[2], t->ne[3], t->nb[1], t->nb[2], t->nb[3]);
}

/* build_moe_ffn's group selection: keep the scores of the n_group_used
** groups whose two best experts score highest, the others -inf. */
static int lg_moe_groups(lg_ctx *c, int scores, int64_t n) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t n_groups = (int64_t)p->n_groups, per = (int64_t)(p->n_expert / p->n_groups);
  int groups = lg_reshape_3d(c, scores, per, n_groups, n), best, kept;
  best =
      wt_gm_get_rows(g, wt_gm_reshape_4d(g, groups, 1, per, n_groups, n), lg_top_k(c, groups, 2));
  best = lg_reshape_2d(c, wt_gm_sum_rows(g, lg_reshape_3d(c, best, 2, n_groups, n)), n_groups, n);
  best = lg_top_k(c, best, (int64_t)p->n_group_used);
  kept = wt_gm_get_rows(g, groups, best);
  kept = wt_gm_set_rows(g, wt_gm_fill(g, groups), kept, best);
  return lg_reshape_2d(c, kept, (int64_t)p->n_expert, n);
}

/* build_moe_ffn with softmax or sigmoid routing and SiLU experts: route each token to
** its n_expert_used experts, weigh their outputs and add them up. */
static int lg_moe(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t n_embd = (int64_t)p->n_embd, n_exp = (int64_t)p->n_expert;
  int64_t k = (int64_t)p->n_expert_used, n_ff = (int64_t)p->n_ff[il];
  int64_t n = g->failed ? 1 : g->t[cur].ne[1];
  int probs, sel, w, up, gate, experts, out, first;
  int64_t i;
  int scores;
  probs = wt_gm_mul_mat(g, lg_weight(c, n_embd, n_exp), cur);
  probs =
      p->features & WT_LG_MOE_SIGMOID ? wt_gm_unary(g, probs) : wt_gm_soft_max_ext(g, probs, -1);
  scores = p->features & WT_LG_MOE_PROBS_BIAS ? wt_gm_add(g, probs, lg_weight(c, n_exp, 1)) : probs;
  if (p->n_groups > 1)
    scores = lg_moe_groups(c, scores, n);
  sel = lg_top_k(c, scores, k);
  w = wt_gm_get_rows(g, lg_reshape_3d(c, probs, 1, n_exp, n), sel);
  if (p->features & WT_LG_MOE_NORM) {
    int sum;
    w = lg_reshape_2d(c, w, k, n);
    sum = wt_gm_clamp(g, wt_gm_sum_rows(g, w));
    w = lg_reshape_3d(c, wt_gm_div(g, w, sum), 1, k, n);
  }
  if (p->features & WT_LG_MOE_SCALE)
    w = wt_gm_scale(g, w);
  wt_gm_expand(g, w);
  cur = lg_reshape_3d(c, cur, n_embd, 1, n);
  up = wt_gm_mul_mat_id(g, lg_weight(c, n_embd, n_ff), cur, sel);
  gate = wt_gm_mul_mat_id(g, lg_weight(c, n_embd, n_ff), cur, sel);
  experts = wt_gm_mul_mat_id(g, lg_weight(c, n_ff, n_embd), wt_gm_glu_split(g, gate, up), sel);
  experts = wt_gm_mul(g, experts, w);
  wt_gm_expand(g, experts);
  if (experts < 0)
    return -1;
  /* the views of each expert's rows first, then the adds (as llama.cpp
  ** orders them); a view's id is the first of the k made in a row */
  first = g->n_t;
  for (i = 0; i < k; i++) {
    uint64_t nb2 = g->failed ? 0 : g->t[experts].nb[2];
    wt_gm_expand(
        g, wt_gm_view_4d(g, experts, n_embd, n, 1, 1, nb2, nb2 * (uint64_t)n, nb2 * (uint64_t)n));
  }
  out = first;
  for (i = 1; i < k; i++) {
    out = wt_gm_add(g, out, first + (int)i);
    wt_gm_expand(g, out);
  }
  if (k == 1)
    out = wt_gm_cont_4d(g, out, n_embd, n, 1, 1);
  return out;
}

/* qwen2moe's shared expert: an FFN scaled by a sigmoid gate (written as
** silu(x) / x, as llama.cpp does). */
static int lg_shared_expert(lg_ctx *c, int cur) {
  wt_graph *g = &c->g;
  int in = wt_gm_mul_mat(g, lg_weight(c, (int64_t)c->p->n_embd, 1), cur);
  int gate = wt_gm_div(g, wt_gm_unary(g, in), in);
  return wt_gm_mul(g, lg_ffn(c, (int64_t)c->p->n_ff_shared, 0, cur), gate);
}

/* build_rs, first half: the recurrent states as rows (all: the cache of
** one layer, width values a row, n_rs rows), the zeroed row (a view scaled
** in place), and the view of s_copy that names this batch's rows. */
static int lg_states(lg_ctx *c, int all, int64_t width, int64_t n_rs, int *copy_main) {
  wt_graph *g = &c->g;
  uint64_t row = lg_row(WT_GM_F32, width), n = (uint64_t)c->n_stream;
  int states = lg_reshape_2d(c, all, width, n_rs);
  wt_gm_expand(g, wt_gm_scale_inplace(g, wt_gm_view_4d(g, states, width, 1, 1, 1, row, row, row)));
  *copy_main = wt_gm_view_4d(g, c->s_copy, c->n_stream, 1, 1, 1, 4, 4 * n, 4 * n);
  return states;
}

/* build_rs, second half: the rows not in this batch (none when the cache
** holds exactly its sequences) copied back. */
static void lg_states_rest(lg_ctx *c, int all, int states, int64_t width, int64_t n_rs) {
  wt_graph *g = &c->g;
  uint64_t row = lg_row(WT_GM_F32, width), rest = (uint64_t)(n_rs - c->n_stream);
  int copy_extra = wt_gm_view_4d(g, c->s_copy, (int64_t)rest, 1, 1, 1, 4, 4 * rest, 4 * rest);
  int extra = wt_gm_get_rows(g, states, copy_extra);
  wt_gm_expand(
      g, wt_gm_cpy(g, extra,
                   wt_gm_view_4d(g, all, width, (int64_t)rest, 1, 1, row, row * rest, row * rest)));
}

/* build_mamba_layer (src/models/mamba-base.cpp): the convolution over the
** last tokens, the selective scan, the gated output projection. */
static int lg_mamba(lg_ctx *c, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t n_embd = (int64_t)p->n_embd, dc = (int64_t)p->d_conv, di = (int64_t)p->d_inner;
  int64_t ds = (int64_t)p->d_state, dr = (int64_t)p->dt_rank, ns = c->n_stream;
  int64_t t = c->n_tokens / ns, n_rs = ns, w_r = (dc - 1) * di, w_s = ds * di;
  int conv_all = wt_gm_new(g, WT_GM_F32, w_r, n_rs, 1, 1, WT_GM_EXTERNAL);
  int ssm_all = wt_gm_new(g, WT_GM_F32, w_s, n_rs, 1, 1, WT_GM_EXTERNAL);
  int conv, xz, x, z, conv_x, xdb, dt, b, cc, states, ids, y, xs;
  uint64_t r, r2, e = 4;
  states = lg_states(c, conv_all, w_r, n_rs, &ids);
  conv = wt_gm_get_rows(g, states, ids);
  wt_gm_expand(g, conv);
  lg_states_rest(c, conv_all, states, w_r, n_rs);
  conv = lg_reshape_3d(c, conv, dc - 1, di, ns);
  cur = lg_reshape_3d(c, cur, n_embd, t, ns);
  xz = wt_gm_mul_mat(g, lg_weight(c, n_embd, 2 * di), cur);
  if (g->failed)
    return -1;
  r = g->t[xz].nb[1];
  r2 = g->t[xz].nb[2];
  x = wt_gm_view_4d(g, xz, di, t, ns, 1, r, r2, r2 * (uint64_t)ns);
  z = wt_gm_view_4d(g, xz, di, t, ns, 1, r, r2, r2 * (uint64_t)ns);
  conv_x = wt_gm_concat(g, conv, wt_gm_transpose(g, x), 0);
  if (g->failed)
    return -1;
  wt_gm_expand(g, wt_gm_cpy(g,
                            wt_gm_view_4d(g, conv_x, dc - 1, di, ns, 1, g->t[conv_x].nb[1],
                                          g->t[conv_x].nb[2], g->t[conv_x].nb[2] * (uint64_t)ns),
                            wt_gm_view_4d(g, conv_all, (dc - 1) * di * ns, 1, 1, 1, e,
                                          e * (uint64_t)((dc - 1) * di * ns),
                                          e * (uint64_t)((dc - 1) * di * ns))));
  x = wt_gm_ssm_conv(g, conv_x, lg_weight(c, dc, di));
  x = wt_gm_unary(g, wt_gm_add(g, x, lg_weight(c, di, 1)));
  xdb = wt_gm_mul_mat(g, lg_weight(c, di, dr + 2 * ds), x);
  if (g->failed)
    return -1;
  r = g->t[xdb].nb[1];
  r2 = g->t[xdb].nb[2];
  dt = wt_gm_view_4d(g, xdb, dr, t, ns, 1, r, r2, r2 * (uint64_t)ns);
  b = wt_gm_view_4d(g, xdb, ds, 1, t, ns, e * (uint64_t)ds, r, r2);
  cc = wt_gm_view_4d(g, xdb, ds, 1, t, ns, e * (uint64_t)ds, r, r2);
  if (p->features & WT_LG_SSM_NORMS) {
    dt = wt_gm_mul(g, wt_gm_rms_norm(g, dt), lg_weight(c, dr, 1));
    b = wt_gm_mul(g, wt_gm_rms_norm(g, b), lg_weight(c, ds, 1));
    cc = wt_gm_mul(g, wt_gm_rms_norm(g, cc), lg_weight(c, ds, 1));
  } else {
    dt = wt_gm_cont_4d(g, dt, dr, t, ns, 1);
  }
  dt = wt_gm_add(g, wt_gm_mul_mat(g, lg_weight(c, dr, di), dt), lg_weight(c, di, 1));
  cur = x;
  xs = wt_gm_reshape_4d(g, x, 1, di, t, ns);
  /* build_rs with the scan as its row getter */
  states = lg_states(c, ssm_all, w_s, n_rs, &ids);
  y = wt_gm_ssm_scan(g, wt_gm_reshape_4d(g, states, ds, 1, di, n_rs), xs, dt, lg_weight(c, ds, di),
                     b, cc, ids);
  wt_gm_expand(g, y);
  lg_states_rest(c, ssm_all, states, w_s, n_rs);
  if (g->failed)
    return -1;
  {
    uint64_t nb2 = g->t[xs].nb[2], nb3 = g->t[xs].nb[3];
    wt_gm_expand(
        g, wt_gm_cpy(g,
                     wt_gm_view_4d(g, y, ds * di * ns, 1, 1, 1, e, e * (uint64_t)(ds * di * ns),
                                   e * (uint64_t)(ds * di * ns)),
                     wt_gm_view_4d(g, ssm_all, ds * di * ns, 1, 1, 1, e,
                                   e * (uint64_t)(ds * di * ns), e * (uint64_t)(ds * di * ns))));
    y = wt_gm_view_4d(g, y, di, t, ns, 1, nb2, nb3, nb3 * (uint64_t)ns);
  }
  y = wt_gm_add(g, y, wt_gm_mul(g, cur, lg_weight(c, di, 1)));
  y = wt_gm_glu_split(g, wt_gm_cont_4d(g, z, di, t, ns, 1), y);
  cur = wt_gm_mul_mat(g, lg_weight(c, di, n_embd), y);
  return lg_reshape_2d(c, cur, n_embd, t * ns);
}

/* The whole graph for a micro-batch of n_tokens (n_outputs of them
** outputs), and the bytes ggml-alloc plans for it. */
static int lg_graph(const wt_lg_params *p, int64_t n_tokens, int64_t n_outputs, uint64_t *bytes) {
  lg_ctx c;
  wt_graph *g = &c.g;
  uint64_t il;
  int cur, rc;
  memset(&c, 0, sizeof(c));
  wt_graph_init(g);
  c.p = p;
  c.n_tokens = n_tokens;
  c.n_outputs = n_outputs;
  c.n_stream = (int64_t)p->n_seq;
  c.v_trans = !p->flash_attn;
  for (il = 0; p->n_head_kv != NULL && il < p->n_layer; il++)
    if ((int64_t)(p->head_v * p->n_head_kv[il]) > c.v_gqa)
      c.v_gqa = (int64_t)(p->head_v * p->n_head_kv[il]);
  cur = lg_embeddings(&c);
  lg_inputs(&c);
  for (il = 0; il < p->n_layer && (p->features & WT_LG_PARALLEL); il++) {
    /* cohere2: the FFN reads the attention's input; both added to it */
    int in = cur, normed = lg_norm(&c, cur), attn;
    attn = lg_attention(&c, il, normed);
    if (il == p->n_layer - 1) {
      attn = wt_gm_get_rows(g, attn, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
      normed = wt_gm_get_rows(g, normed, c.out_ids);
    }
    cur = lg_ffn(&c, (int64_t)p->n_ff[il], p->bias[il], normed);
    cur = wt_gm_add(g, wt_gm_add(g, cur, in), attn);
  }
  for (il = 0; il < p->n_layer && (p->features & WT_LG_MAMBA); il++) {
    int in = cur;
    cur = lg_mamba(&c, lg_norm(&c, cur));
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
      cur = lg_norm(&c, cur);
    if (p->n_head[il] != 0 && p->n_head_kv[il] == 0)
      cur = wt_gm_mul_mat(g, lg_weight(&c, (int64_t)p->n_embd, (int64_t)p->n_embd), cur);
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
    cur = lg_ffn(&c, (int64_t)p->n_ff[il], p->bias[il], lg_norm(&c, ffn_in));
    cur = wt_gm_add(g, cur, ffn_in);
  }
  for (il = 0; il < p->n_layer && !(p->features & (WT_LG_PARALLEL | WT_LG_DECI | WT_LG_MAMBA));
       il++) {
    int in = cur, ffn_in;
    cur = p->features & WT_LG_MLA ? lg_attention_mla(&c, il, lg_norm(&c, cur))
                                  : lg_attention(&c, il, lg_norm(&c, cur));
    if (il == p->n_layer - 1) {
      cur = wt_gm_get_rows(g, cur, c.out_ids);
      in = wt_gm_get_rows(g, in, c.out_ids);
    }
    if (p->features & WT_LG_POST_NORMS)
      cur = lg_norm(&c, cur);
    if (p->features & WT_LG_RESIDUAL_SCALE)
      cur = wt_gm_scale(g, cur);
    ffn_in = wt_gm_add(g, cur, in);
    cur = lg_norm(&c, ffn_in);
    if ((p->features & WT_LG_MOE) && il >= p->n_dense_lead) {
      int moe = lg_moe(&c, il, cur);
      if (p->features & WT_LG_SHARED_EXPERT)
        cur = wt_gm_add(g, moe, lg_shared_expert(&c, cur));
      else if (p->features & WT_LG_SHARED_FFN)
        cur = wt_gm_add(g, moe, lg_ffn(&c, (int64_t)p->n_ff_shared, 0, cur));
      else
        cur = moe;
    } else {
      cur = lg_ffn(&c, (int64_t)p->n_ff[il], p->bias[il], cur);
    }
    if (p->features & WT_LG_POST_NORMS)
      cur = lg_norm(&c, cur);
    if (p->features & WT_LG_RESIDUAL_SCALE)
      cur = wt_gm_scale(g, cur);
    cur =
        p->features & WT_LG_RESIDUAL_FIRST ? wt_gm_add(g, ffn_in, cur) : wt_gm_add(g, cur, ffn_in);
  }
  cur = lg_norm(&c, cur);
  wt_gm_set_flag(g, cur, WT_GM_OUTPUT); /* the embeddings, kept */
  cur = wt_gm_mul_mat(g, lg_weight(&c, (int64_t)p->n_embd, (int64_t)p->n_vocab), cur);
  if (p->features & WT_LG_OUTPUT_BIAS)
    cur = wt_gm_add(g, cur, lg_weight(&c, (int64_t)p->n_vocab, 1));
  if (p->features & WT_LG_LOGIT_SCALE)
    cur = wt_gm_scale(g, cur);
  if (p->features & WT_LG_FINAL_SOFTCAP)
    cur = wt_gm_scale(g, wt_gm_unary(g, wt_gm_scale(g, cur)));
  wt_gm_set_flag(g, cur, WT_GM_OUTPUT); /* the logits */
  wt_gm_expand(g, cur);
  rc = wt_graph_alloc(g, LG_ALIGNMENT, bytes);
  wt_graph_free(g);
  return rc;
}

/* Whether v is within LG_MAX_DIM (a product is checked after both its
** factors, so it cannot wrap). */
static int lg_dim(uint64_t v) {
  return v <= LG_MAX_DIM;
}

int wt_llama_compute(const wt_lg_params *p, uint64_t *bytes) {
  const ggml_type_info *tk = ggml_type_get(p->type_k), *tv = ggml_type_get(p->type_v);
  uint64_t pp = 0, tg = 0, n_tokens, il;
  int rc;
  *bytes = 0;
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
  /* graph_reserve rounds the tokens up to a multiple of the sequences */
  n_tokens = (p->n_tokens + p->n_seq - 1) / p->n_seq * p->n_seq;
  if ((rc = lg_graph(p, (int64_t)n_tokens, (int64_t)p->n_tokens, &pp)) != 0 ||
      (rc = lg_graph(p, (int64_t)p->n_seq, (int64_t)p->n_seq, &tg)) != 0)
    return rc;
  *bytes = pp > tg ? pp : tg;
  return 0;
}
