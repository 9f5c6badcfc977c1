/*
** llama_ffn.c: one layer's feed-forward as llama.cpp builds it
** (src/llama-graph.cpp: build_ffn, build_moe_ffn): SwiGLU, phi3's fused
** up projection, arcee's squared ReLU, starcoder2's GELU; experts routed by
** softmax or sigmoid, within groups or not; qwen2moe's shared expert.
*/
#include "llama_graph_int.h"

/* build_ffn with SiLU and a parallel gate (fused into swiglu), n_ff wide;
** or phi3's: one up projection 2 n_ff wide and swiglu of its halves; or
** arcee's: up, ReLU, square, down; or starcoder2's: up, GELU, down.  The
** weights are layer il's ffn_up, ffn_gate, ffn_down, or with shexp the
** shared experts' ffn_up_shexp... */
int lg_ffn(lg_ctx *c, uint64_t il, int shexp, int64_t n_ff, unsigned b, int cur) {
  int64_t n_embd = (int64_t)c->p->n_embd, l = (int64_t)il;
  const char *up_n = shexp ? "ffn_up_shexp" : "ffn_up",
             *down_n = shexp ? "ffn_down_shexp" : "ffn_down";
  if (c->p->features & WT_LG_FFN_SWIGLU) {
    int up = lg_linear(c, l, up_n, n_embd, 2 * n_ff, cur, 0);
    return lg_linear(c, l, down_n, n_ff, n_embd, wt_gm_glu(&c->g, up), 0);
  }
  if (c->p->features & (WT_LG_FFN_RELU_SQR | WT_LG_FFN_GELU)) { /* no gate: LLM_FFN_SEQ */
    int act = wt_gm_unary(&c->g, lg_linear(c, l, up_n, n_embd, n_ff, cur, b & WT_LG_B_UP));
    if (c->p->features & WT_LG_FFN_RELU_SQR)
      act = wt_gm_sqr(&c->g, act);
    return lg_linear(c, l, down_n, n_ff, n_embd, act, b & WT_LG_B_DOWN);
  }
  int up = lg_linear(c, l, up_n, n_embd, n_ff, cur, b & WT_LG_B_UP);
  int gate =
      lg_linear(c, l, shexp ? "ffn_gate_shexp" : "ffn_gate", n_embd, n_ff, cur, b & WT_LG_B_GATE);
  return lg_linear(c, l, down_n, n_ff, n_embd, wt_gm_glu_split(&c->g, gate, up), b & WT_LG_B_DOWN);
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
int lg_moe(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t n_embd = (int64_t)p->n_embd, n_exp = (int64_t)p->n_expert;
  int64_t k = (int64_t)p->n_expert_used, n_ff = (int64_t)p->n_ff[il];
  int64_t n = g->failed ? 1 : g->t[cur].ne[1];
  int probs, sel, w, up, gate, experts, out, first;
  int64_t i;
  int scores;
  probs = wt_gm_mul_mat(g, lg_weight(c, (int64_t)il, "ffn_gate_inp.weight", n_embd, n_exp, 1), cur);
  if (p->features & WT_LG_MOE_SIGMOID) {
    probs = wt_gm_unary(g, probs);
    wt_gm_set_sub(g, probs, WT_GM_SUB_SIGMOID);
  } else {
    probs = wt_gm_soft_max_ext(g, probs, -1);
  }
  scores = p->features & WT_LG_MOE_PROBS_BIAS
               ? wt_gm_add(g, probs, lg_weight(c, (int64_t)il, "exp_probs_b.bias", n_exp, 1, 1))
               : probs;
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
  up = wt_gm_mul_mat_id(g, lg_weight(c, (int64_t)il, "ffn_up_exps.weight", n_embd, n_ff, n_exp),
                        cur, sel);
  gate = wt_gm_mul_mat_id(g, lg_weight(c, (int64_t)il, "ffn_gate_exps.weight", n_embd, n_ff, n_exp),
                          cur, sel);
  experts =
      wt_gm_mul_mat_id(g, lg_weight(c, (int64_t)il, "ffn_down_exps.weight", n_ff, n_embd, n_exp),
                       wt_gm_glu_split(g, gate, up), sel);
  experts = wt_gm_mul(g, experts, w);
  wt_gm_expand(g, experts);
  if (experts < 0)
    return -1;
  /* the views of each expert's rows first, then the adds (as llama.cpp
  ** orders them); a view's id is the first of the k made in a row */
  first = g->n_t;
  for (i = 0; i < k; i++) {
    uint64_t nb2 = g->failed ? 0 : g->t[experts].nb[2];
    int v = wt_gm_view_4d(g, experts, n_embd, n, 1, 1, nb2, nb2 * (uint64_t)n, nb2 * (uint64_t)n);
    wt_gm_offset(g, v, (uint64_t)i * (g->failed ? 0 : g->t[experts].nb[1]));
    wt_gm_expand(g, v);
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
int lg_shared_expert(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  int in = wt_gm_mul_mat(
      g, lg_weight(c, (int64_t)il, "ffn_gate_inp_shexp.weight", (int64_t)c->p->n_embd, 1, 1), cur);
  int gate = wt_gm_div(g, wt_gm_unary(g, in), in);
  return wt_gm_mul(g, lg_ffn(c, il, 1, (int64_t)c->p->n_ff_shared, 0, cur), gate);
}
