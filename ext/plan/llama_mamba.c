/*
** llama_mamba.c: one mamba layer as llama.cpp builds it
** (src/models/mamba-base.cpp, build_mamba_layer, and build_rs for its
** recurrent states): the convolution over the last tokens, the selective
** scan, the gated output projection.
*/
#include "llama_graph_int.h"

/* build_rs, first half: the recurrent states as rows (all: the cache of
** one layer, width values a row, n_rs rows), the zeroed row (a view scaled
** in place), and the view of s_copy that names this batch's rows. */
static int lg_states(lg_ctx *c, int all, int64_t width, int64_t n_rs, int *copy_main) {
  wt_graph *g = &c->g;
  uint64_t row = lg_row(WT_GM_F32, width);
  int states = lg_reshape_2d(c, all, width, n_rs);
  wt_gm_expand(g, wt_gm_scale_inplace(g, wt_gm_view_4d(g, states, width, 1, 1, 1, row, row, row)));
  *copy_main = c->s_copy_main;
  return states;
}

/* build_rs, second half: the rows not in this batch (none when the cache
** holds exactly its sequences) copied back. */
static void lg_states_rest(lg_ctx *c, int all, int states, int64_t width, int64_t n_rs) {
  wt_graph *g = &c->g;
  uint64_t row = lg_row(WT_GM_F32, width), rest = (uint64_t)(n_rs - c->n_stream);
  int extra = wt_gm_get_rows(g, states, c->s_copy_extra);
  wt_gm_expand(
      g, wt_gm_cpy(g, extra,
                   wt_gm_view_4d(g, all, width, (int64_t)rest, 1, 1, row, row * rest, row * rest)));
}

/* build_mamba_layer (src/models/mamba-base.cpp) of layer il: the
** convolution over the last tokens, the selective scan, the gated output
** projection. */
int lg_mamba(lg_ctx *c, uint64_t il, int cur) {
  wt_graph *g = &c->g;
  const wt_lg_params *p = c->p;
  int64_t n_embd = (int64_t)p->n_embd, dc = (int64_t)p->d_conv, di = (int64_t)p->d_inner;
  int64_t ds = (int64_t)p->d_state, dr = (int64_t)p->dt_rank, ns = c->n_stream;
  int64_t t = c->n_tokens / ns, n_rs = ns, w_r = (dc - 1) * di, w_s = ds * di, l = (int64_t)il;
  int conv_all = lg_cache(c, l, WT_GM_F32, w_r, n_rs, 1);
  int ssm_all = lg_cache(c, l, WT_GM_F32, w_s, n_rs, 1);
  int conv, xz, x, z, conv_x, xdb, dt, b, cc, states, ids, y, xs;
  uint64_t r, r2, e = 4;
  states = lg_states(c, conv_all, w_r, n_rs, &ids);
  conv = wt_gm_get_rows(g, states, ids);
  wt_gm_expand(g, conv);
  lg_states_rest(c, conv_all, states, w_r, n_rs);
  conv = lg_reshape_3d(c, conv, dc - 1, di, ns);
  cur = lg_reshape_3d(c, cur, n_embd, t, ns);
  xz = lg_linear(c, l, "ssm_in", n_embd, 2 * di, cur, 0);
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
  x = wt_gm_ssm_conv(g, conv_x, lg_weight(c, l, "ssm_conv1d.weight", dc, di, 1));
  x = wt_gm_unary(g, wt_gm_add(g, x, lg_weight(c, l, "ssm_conv1d.bias", di, 1, 1)));
  xdb = lg_linear(c, l, "ssm_x", di, dr + 2 * ds, x, 0);
  if (g->failed)
    return -1;
  r = g->t[xdb].nb[1];
  r2 = g->t[xdb].nb[2];
  dt = wt_gm_view_4d(g, xdb, dr, t, ns, 1, r, r2, r2 * (uint64_t)ns);
  b = wt_gm_view_4d(g, xdb, ds, 1, t, ns, e * (uint64_t)ds, r, r2);
  cc = wt_gm_view_4d(g, xdb, ds, 1, t, ns, e * (uint64_t)ds, r, r2);
  if (p->features & WT_LG_SSM_NORMS) {
    dt = lg_rms_weighted(c, l, "ssm_dt_norm", dr, dt);
    b = lg_rms_weighted(c, l, "ssm_b_norm", ds, b);
    cc = lg_rms_weighted(c, l, "ssm_c_norm", ds, cc);
  } else {
    dt = wt_gm_cont_4d(g, dt, dr, t, ns, 1);
  }
  dt = lg_linear(c, l, "ssm_dt", dr, di, dt, 1);
  cur = x;
  xs = wt_gm_reshape_4d(g, x, 1, di, t, ns);
  /* build_rs with the scan as its row getter */
  states = lg_states(c, ssm_all, w_s, n_rs, &ids);
  y = wt_gm_ssm_scan(g, wt_gm_reshape_4d(g, states, ds, 1, di, n_rs), xs, dt,
                     lg_weight(c, l, "ssm_a", ds, di, 1), b, cc, ids);
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
  y = wt_gm_add(g, y, wt_gm_mul(g, cur, lg_weight(c, l, "ssm_d", di, 1, 1)));
  y = wt_gm_glu_split(g, wt_gm_cont_4d(g, z, di, t, ns, 1), y);
  cur = lg_linear(c, l, "ssm_out", di, n_embd, y, 0);
  return lg_reshape_2d(c, cur, n_embd, t * ns);
}
