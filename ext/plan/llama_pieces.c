/*
** llama_pieces.c: the pieces every block of llama.cpp's graphs is built
** from (llama_graph_int.h): row sizes, weights and caches (with the type
** the file gives a weight and the device llama.cpp loads it to), linear
** layers, norms and the 2-d and 3-d views and reshapes, as ggml's calls
** make them.
*/
#include <stdio.h>
#include <string.h>

#include "cuda_ops.h"
#include "formats/ggml_type.h"
#include "llama_graph_int.h"

#define LG_NAME 64 /* "attn_kv_a_mqa.weight" and the like */

/* Bytes of n values of ggml type t (ggml_row_size). */
uint64_t lg_row(int t, int64_t n) {
  const ggml_type_info *ti = ggml_type_get(t);
  return ti == NULL || ti->block_size == 0 ? 0 : (uint64_t)n / ti->block_size * ti->type_size;
}

/* The device of layer il (-1: the output layer), as llama.cpp assigns the
** last n_gpu_layers layers, the output layer counting as one. */
int lg_layer_dev(const lg_ctx *c, int64_t il) {
  const wt_lg_gpu *gp = &c->p->gpu;
  if (!gp->on)
    return WT_GM_DEV_CPU;
  if (il < 0)
    return gp->output ? WT_GM_DEV_GPU : WT_GM_DEV_CPU;
  return (uint64_t)il >= gp->first_layer ? WT_GM_DEV_GPU : WT_GM_DEV_CPU;
}

/* A weight "blk.il.name" (il -1: "name"): a leaf in a buffer of its own,
** of the type the file gives it (F32 when the planner is not told), on the
** device llama.cpp loads it to: its layer's, but the CPU for the token
** embeddings and for a weight the GPU does not take (cuda_ops.h). */
int lg_weight(lg_ctx *c, int64_t il, const char *name, int64_t ne0, int64_t ne1, int64_t ne2) {
  const wt_lg_params *p = c->p;
  const ggml_type_info *ti;
  int type = WT_GM_F32, t, dev;
  if (p->weight_type != NULL) {
    int k = p->weight_type(p->ud, il, name);
    ti = ggml_type_get(k);
    if (k >= 0 && ti != NULL && ti->block_size != 0 && ne0 % ti->block_size == 0)
      type = k;
  }
  t = wt_gm_new(&c->g, type, ne0, ne1, ne2, 1, WT_GM_EXTERNAL);
  if (!p->gpu.on)
    return t;
  dev = strncmp(name, "output", 6) == 0 ? lg_layer_dev(c, -1)
        : il < 0                        ? WT_GM_DEV_CPU
                                        : lg_layer_dev(c, il);
  if (dev == WT_GM_DEV_GPU) {
    uint64_t ne[3] = {(uint64_t)ne0, (uint64_t)ne1, (uint64_t)ne2};
    if (!wt_cuda_holds_weight(name, strlen(name), type, ne, ne2 > 1 ? 3 : 2, p->d_inner, p->d_state,
                              0))
      dev = WT_GM_DEV_CPU;
  }
  wt_gm_place(&c->g, t, dev, 1, il);
  return t;
}

/* A cache (K, V or a recurrent state) of layer il: on the layer's device
** (offload_kqv, llama.cpp's default). */
int lg_cache(lg_ctx *c, int64_t il, int type, int64_t ne0, int64_t ne1, int64_t ne2) {
  int t = wt_gm_new(&c->g, type, ne0, ne1, ne2, 1, WT_GM_EXTERNAL);
  if (c->p->gpu.on)
    wt_gm_place(&c->g, t, lg_layer_dev(c, il), 0, il);
  return t;
}

/* Layer il's RoPE frequency factors (rope_freqs, or phi3's long/short
** ones: each layer holds a copy), or -1 when the file has none. */
int lg_rope_factors(lg_ctx *c, int64_t il) {
  static const char *const names[] = {"rope_freqs.weight", "rope_factors_long.weight",
                                      "rope_factors_short.weight"};
  const wt_lg_params *p = c->p;
  size_t i;
  for (i = 0; p->weight_type != NULL && p->n_rot_factors > 0 && i < 3; i++)
    if (p->weight_type(p->ud, -1, names[i]) >= 0) {
      int t = wt_gm_new(&c->g, WT_GM_F32, (int64_t)p->n_rot_factors, 1, 1, 1, WT_GM_EXTERNAL);
      if (p->gpu.on)
        wt_gm_place(&c->g, t, lg_layer_dev(c, il), 1, il);
      return t;
    }
  return -1;
}

/* build_lora_mm then an optional bias: w x cur (+ b), w "name.weight". */
int lg_linear(lg_ctx *c, int64_t il, const char *name, int64_t n_in, int64_t n_out, int cur,
              int bias) {
  char w[LG_NAME];
  int t;
  snprintf(w, sizeof(w), "%s.weight", name);
  t = wt_gm_mul_mat(&c->g, lg_weight(c, il, w, n_in, n_out, 1), cur);
  if (!bias)
    return t;
  snprintf(w, sizeof(w), "%s.bias", name);
  return wt_gm_add(&c->g, t, lg_weight(c, il, w, n_out, 1, 1));
}

/* build_norm: LLM_NORM_RMS and a weight; cohere2's LLM_NORM and a weight;
** starcoder2's LLM_NORM, a weight and a bias ("name.weight", "name.bias"
** of layer il).  tagged: the norm is named "norm" for layer il, which
** llama.cpp's callback looks for (build_norm's il is not -1). */
int lg_norm(lg_ctx *c, int64_t il, const char *name, int tagged, int cur) {
  wt_graph *g = &c->g;
  int64_t n_embd = (int64_t)c->p->n_embd;
  char w[LG_NAME];
  int n = c->p->features & (WT_LG_PARALLEL | WT_LG_LAYER_NORM) ? wt_gm_norm(g, cur)
                                                               : wt_gm_rms_norm(g, cur);
  if (tagged && il >= 0)
    wt_gm_tag(g, n, WT_GM_TAG_NORM, il);
  snprintf(w, sizeof(w), "%s.weight", name);
  n = wt_gm_mul(g, n, lg_weight(c, il, w, n_embd, 1, 1));
  if (!(c->p->features & WT_LG_LAYER_NORM))
    return n;
  snprintf(w, sizeof(w), "%s.bias", name);
  return wt_gm_add(g, n, lg_weight(c, il, w, n_embd, 1, 1));
}

/* An RMS norm of x with the weight "name.weight" (width n) of layer il,
** tagged "norm" for it (Q/K norms, MLA's latent norms). */
int lg_rms_weighted(lg_ctx *c, int64_t il, const char *name, int64_t n, int x) {
  char w[LG_NAME];
  int r = wt_gm_rms_norm(&c->g, x);
  wt_gm_tag(&c->g, r, WT_GM_TAG_NORM, il);
  snprintf(w, sizeof(w), "%s.weight", name);
  return wt_gm_mul(&c->g, r, lg_weight(c, il, w, n, 1, 1));
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
