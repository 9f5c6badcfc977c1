/*
** llama_pieces.c: the pieces every block of llama.cpp's graphs is built
** from (llama_graph_int.h): row sizes, weights, linear layers, norms and
** the 2-d and 3-d views and reshapes, as ggml's calls make them.
*/
#include <stddef.h>

#include "formats/ggml_type.h"
#include "llama_graph_int.h"

/* Bytes of n values of ggml type t (ggml_row_size). */
uint64_t lg_row(int t, int64_t n) {
  const ggml_type_info *ti = ggml_type_get(t);
  return ti == NULL || ti->block_size == 0 ? 0 : (uint64_t)n / ti->block_size * ti->type_size;
}

/* A weight: a leaf in a buffer of its own (its type does not matter here). */
int lg_weight(lg_ctx *c, int64_t ne0, int64_t ne1) {
  return wt_gm_new(&c->g, WT_GM_F32, ne0, ne1, 1, 1, WT_GM_EXTERNAL);
}

/* build_lora_mm then an optional bias: w x cur (+ b). */
int lg_linear(lg_ctx *c, int64_t n_in, int64_t n_out, int cur, int bias) {
  int t = wt_gm_mul_mat(&c->g, lg_weight(c, n_in, n_out), cur);
  return bias ? wt_gm_add(&c->g, t, lg_weight(c, n_out, 1)) : t;
}

/* build_norm: LLM_NORM_RMS and a weight; cohere2's LLM_NORM and a weight;
** starcoder2's LLM_NORM, a weight and a bias. */
int lg_norm(lg_ctx *c, int cur) {
  wt_graph *g = &c->g;
  int64_t n_embd = (int64_t)c->p->n_embd;
  int n = c->p->features & (WT_LG_PARALLEL | WT_LG_LAYER_NORM) ? wt_gm_norm(g, cur)
                                                               : wt_gm_rms_norm(g, cur);
  n = wt_gm_mul(g, n, lg_weight(c, n_embd, 1));
  return c->p->features & WT_LG_LAYER_NORM ? wt_gm_add(g, n, lg_weight(c, n_embd, 1)) : n;
}

/* ggml_view_2d / ggml_reshape_2d / _3d in terms of the 4-d calls. */
int lg_view_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, uint64_t nb1) {
  return wt_gm_view_4d(&c->g, a, ne0, ne1, 1, 1, nb1, nb1 * (uint64_t)ne1, nb1 * (uint64_t)ne1);
}
int lg_reshape_2d(lg_ctx *c, int a, int64_t ne0, int64_t ne1) {
  return wt_gm_reshape_4d(&c->g, a, ne0, ne1, 1, 1);
}
int lg_reshape_3d(lg_ctx *c, int a, int64_t ne0, int64_t ne1, int64_t ne2) {
  return wt_gm_reshape_4d(&c->g, a, ne0, ne1, ne2, 1);
}
