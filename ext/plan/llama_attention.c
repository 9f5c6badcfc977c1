/*
** llama_attention.c: one layer's attention as llama.cpp builds it
** (src/llama-graph.cpp: build_attn, build_attn_mha; src/llama-kv-cache.cpp:
** cpy_k, cpy_v, get_k, get_v; the llama builder's Q/K/V, norms and RoPE,
** and deepseek2's multi-head latent attention), with a quantized cache's
** Hadamard rotations (llama_mul_mat_hadamard).
*/
#include <string.h>

#include "llama_graph_int.h"

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

/* build_attn_mha: layer il's attention of q over the cached k and v. */
static int lg_mha(lg_ctx *c, uint64_t il, int mask, int q, int k, int v, int v_mla) {
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
    wt_gm_tag(g, cur, WT_GM_TAG_FA, (int64_t)il); /* res->add_fused_node */
    if (v_mla >= 0) {                             /* MLA: decompress each head's output */
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
int lg_attention_mla(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  const lg_kv *kv = &c->kv[0];
  int64_t n_embd = (int64_t)p->n_embd, nh = (int64_t)p->n_head[il], n = c->n_tokens;
  int64_t hq = (int64_t)p->head_k_mla, rope = (int64_t)p->n_rot, nope = hq - rope;
  int64_t lora = (int64_t)p->kv_lora, hk = (int64_t)p->head_k, cells = kv->cells, l = (int64_t)il;
  uint64_t row = lg_row(WT_GM_F32, lora + rope), qrow;
  int q, ckv, kvc, kpe, qn, qpe, k, v, kc;
  if (p->q_lora != 0) {
    q = lg_linear(c, l, "attn_q_a", n_embd, (int64_t)p->q_lora, cur, 0);
    q = lg_rms_weighted(c, l, "attn_q_a_norm", (int64_t)p->q_lora, q);
    q = lg_linear(c, l, "attn_q_b", (int64_t)p->q_lora, nh * hq, q, 0);
  } else {
    q = lg_linear(c, l, "attn_q", n_embd, nh * hq, cur, 0);
  }
  q = lg_reshape_3d(c, q, hq, nh, n);
  ckv = lg_linear(c, l, "attn_kv_a_mqa", n_embd, lora + rope, cur, 0);
  kvc = lg_view_2d(c, ckv, lora, n, row);
  kpe = wt_gm_view_4d(g, ckv, rope, 1, n, 1, row, row, row * (uint64_t)n);
  kpe = wt_gm_rope(g, kpe, c->pos, -1);
  kvc = lg_rms_weighted(c, l, "attn_kv_a_norm", lora, kvc);
  if (g->failed)
    return -1;
  qrow = g->t[q].nb[2];
  qn = wt_gm_view_4d(g, q, nope, nh, n, 1, g->t[q].nb[1], qrow, qrow * (uint64_t)n);
  qpe = wt_gm_view_4d(g, q, rope, nh, n, 1, g->t[q].nb[1], qrow, qrow * (uint64_t)n);
  qpe = wt_gm_rope(g, qpe, c->pos, -1);
  /* Q's no-RoPE part absorbed into the latent space (wk_b, per head) */
  qn = wt_gm_mul_mat(g, lg_weight(c, l, "attn_k_b.weight", nope, lora, nh),
                     wt_gm_permute(g, qn, 0, 2, 1, 3));
  q = wt_gm_concat(g, wt_gm_permute(g, qn, 0, 2, 1, 3), qpe, 0);
  kvc = lg_reshape_3d(c, kvc, lora, 1, n);
  k = wt_gm_concat(g, kvc, kpe, 0);
  v = kvc;
  wt_gm_expand(g, q);
  wt_gm_expand(g, v);
  wt_gm_expand(g, k);
  kc = lg_cache(c, l, p->type_k, hk, cells, c->n_stream);
  wt_gm_expand(g, lg_store(c, kv, kc, k, hk, 0));
  k = wt_gm_view_4d(g, kc, hk, 1, cells, c->n_stream, lg_row(p->type_k, hk), lg_row(p->type_k, hk),
                    lg_row(p->type_k, hk * cells));
  if (g->failed)
    return -1;
  v = wt_gm_view_4d(g, k, lora, g->t[k].ne[1], g->t[k].ne[2], g->t[k].ne[3], g->t[k].nb[1],
                    g->t[k].nb[2], g->t[k].nb[3]);
  cur = lg_mha(c, il, kv->mask, q, k, v,
               lg_weight(c, l, "attn_v_b.weight", lora, (int64_t)p->head_v_mla, nh));
  return lg_linear(c, l, "attn_output", nh * (int64_t)p->head_v_mla, n_embd, cur, 0);
}

/* One layer's self-attention (the llama builder, then build_attn). */
int lg_attention(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t hk = (int64_t)p->head_k, hv = (int64_t)p->head_v, nh = (int64_t)p->n_head[il];
  int64_t nkv = (int64_t)p->n_head_kv[il], n_embd = (int64_t)p->n_embd, l = (int64_t)il;
  int iswa = p->swa != NULL;
  const lg_kv *kv = &c->kv[iswa && p->swa[il]];
  int64_t cells = kv->cells;
  unsigned b = p->bias[il];
  int q, k, v, kc, vc, factors = lg_rope_factors(c, l);
  if (p->features & WT_LG_FUSED_QKV) {
    /* build_qkv's fused path: views of one projection's rows */
    int qkv = lg_linear(c, l, "attn_qkv", n_embd, hk * nh + hk * nkv + hv * nkv, cur, 0);
    uint64_t row = g->failed ? 0 : g->t[qkv].nb[1];
    q = wt_gm_view_4d(g, qkv, hk, nh, c->n_tokens, 1, lg_row(WT_GM_F32, hk), row,
                      row * (uint64_t)c->n_tokens);
    k = wt_gm_view_4d(g, qkv, hk, nkv, c->n_tokens, 1, lg_row(WT_GM_F32, hk), row,
                      row * (uint64_t)c->n_tokens);
    v = wt_gm_view_4d(g, qkv, hv, nkv, c->n_tokens, 1, lg_row(WT_GM_F32, hv), row,
                      row * (uint64_t)c->n_tokens);
  } else {
    q = lg_linear(c, l, "attn_q", n_embd, hk * nh, cur, b & WT_LG_BQ);
    k = lg_linear(c, l, "attn_k", n_embd, hk * nkv, cur, b & WT_LG_BK);
    v = lg_linear(c, l, "attn_v", n_embd, hv * nkv, cur, b & WT_LG_BV);
    q = lg_reshape_3d(c, q, hk, nh, c->n_tokens);
    k = lg_reshape_3d(c, k, hk, nkv, c->n_tokens);
    v = lg_reshape_3d(c, v, hv, nkv, c->n_tokens);
  }
  if (p->features & WT_LG_QK_NORM) {
    q = wt_gm_rope(g, lg_rms_weighted(c, l, "attn_q_norm", hk, q), c->pos, factors);
    k = wt_gm_rope(g, lg_rms_weighted(c, l, "attn_k_norm", hk, k), c->pos, factors);
  } else if ((!(p->features & WT_LG_PARALLEL) || (p->swa != NULL && p->swa[il])) &&
             !((p->features & WT_LG_NOPE_EVERY_4) && (il + 1) % 4 == 0) &&
             !(p->features & WT_LG_NO_ROPE)) {
    q = wt_gm_rope(g, q, c->pos, factors);
    k = wt_gm_rope(g, k, c->pos, factors);
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
  kc = lg_cache(c, l, p->type_k, hk * nkv, cells, c->n_stream);
  vc = lg_cache(c, l, p->type_v, c->v_trans ? c->v_gqa : hv * nkv, cells, c->n_stream);
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
  cur = lg_mha(c, il, kv->mask, q, k, v, -1);
  if (kv->v_rot >= 0)
    cur = lg_hadamard(c, cur, kv->v_rot);
  return lg_linear(c, l, "attn_output", hv * nh, n_embd, cur, b & WT_LG_BO);
}
