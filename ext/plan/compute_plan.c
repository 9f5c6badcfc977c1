/*
** compute_plan.c: which models' compute buffer the planner knows exactly,
** and the settings llama_graph.c needs to build their graph.
**
** llama.cpp builds one graph per architecture (src/models/ARCH.cpp at commit
** de3ff815).  llama_graph.c builds llama's and the ones that differ from it
** only by pieces it knows: biases, Q/K norms, experts (within groups or
** not), embedding, residual and logit scales, post-norms, soft-capping, a
** fused QKV, a sliding-window cache, and deepseek2's multi-head latent
** attention and router (sigmoid or softmax, a bias on the scores, weights
** normalised and scaled, leading dense layers, shared experts).  This file
** says which of those pieces an architecture has (mp_llama_like), checks
** that every layer has exactly the tensors that graph reads (a missing
** FFN, a fused QKV bias or norm biases mean another graph), and reads the
** widths.  Not modelled: deepseek2 without MLA keys, with MTP layers or
** another gating function, or with Q direct unless llama.cpp takes it for
** a "lite" model; the planner's other architectures.  mamba's graph is
** modelled too (mp_exact_compute_mamba), without dt/B/C norms.  A model it cannot vouch for
** keeps the lower bound of mp_compute; so does part 1 of a split GGUF
** planned without its other parts (wt_mem_settings.parts), since it does
** not hold every layer.
*/
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_value.h"
#include "llama_graph.h"
#include "memory_plan_int.h"

/* ============================ The layer tensors =========================== */

/* The per-layer tensors that decide the graph, by bit (blk.N.<name>);
** lt_names holds the names in the same order. */
/* clang-format off */
enum {
  LT_Q,            /* attention */
  LT_K,
  LT_V,
  LT_O,
  LT_QKV,          /* Q, K and V fused */
  LT_Q_A,          /* MLA (deepseek2) */
  LT_Q_A_NORM,
  LT_Q_B,
  LT_KV_A,
  LT_KV_A_NORM,
  LT_K_B,
  LT_V_B,
  LT_UP,           /* a dense FFN */
  LT_GATE,
  LT_DOWN,
  LT_GATE_INP,     /* experts */
  LT_UP_EXPS,
  LT_GATE_EXPS,
  LT_DOWN_EXPS,
  LT_PROBS_B,
  LT_SH_GATE_INP,  /* shared experts */
  LT_SH_UP,
  LT_SH_GATE,
  LT_SH_DOWN,
  LT_Q_NORM,       /* Q/K norms */
  LT_K_NORM,
  LT_POST_ATTN,    /* post-norms */
  LT_POST_FFN,
  LT_BQ,           /* biases, in WT_LG_B* order */
  LT_BK,
  LT_BV,
  LT_BO,
  LT_B_UP,
  LT_B_GATE,
  LT_B_DOWN,
  LT_SSM_IN,       /* mamba */
  LT_SSM_CONV,
  LT_SSM_X,
  LT_SSM_DT,
  LT_SSM_OUT,
  LT_QKV_B,        /* not modelled */
  LT_ATTN_NORM_B,
  LT_FFN_NORM_B,
  LT_GATE_UP_EXPS,
  LT_COUNT
};

static const char *const lt_names[LT_COUNT] = {
  "attn_q.weight",
  "attn_k.weight",
  "attn_v.weight",
  "attn_output.weight",
  "attn_qkv.weight",
  "attn_q_a.weight",
  "attn_q_a_norm.weight",
  "attn_q_b.weight",
  "attn_kv_a_mqa.weight",
  "attn_kv_a_norm.weight",
  "attn_k_b.weight",
  "attn_v_b.weight",
  "ffn_up.weight",
  "ffn_gate.weight",
  "ffn_down.weight",
  "ffn_gate_inp.weight",
  "ffn_up_exps.weight",
  "ffn_gate_exps.weight",
  "ffn_down_exps.weight",
  "exp_probs_b.bias",
  "ffn_gate_inp_shexp.weight",
  "ffn_up_shexp.weight",
  "ffn_gate_shexp.weight",
  "ffn_down_shexp.weight",
  "attn_q_norm.weight",
  "attn_k_norm.weight",
  "post_attention_norm.weight",
  "post_ffw_norm.weight",
  "attn_q.bias",
  "attn_k.bias",
  "attn_v.bias",
  "attn_output.bias",
  "ffn_up.bias",
  "ffn_gate.bias",
  "ffn_down.bias",
  "ssm_in.weight",
  "ssm_conv1d.weight",
  "ssm_x.weight",
  "ssm_dt.weight",
  "ssm_out.weight",
  "attn_qkv.bias",
  "attn_norm.bias",
  "ffn_norm.bias",
  "ffn_gate_up_exps.weight",
};
/* clang-format on */

#define LT_BIT(b) ((uint64_t)1 << (b)) /* LT_COUNT <= 64 */
#define LT_ATTN   (LT_BIT(LT_Q) | LT_BIT(LT_K) | LT_BIT(LT_V) | LT_BIT(LT_O))
#define LT_FUSED  (LT_BIT(LT_QKV) | LT_BIT(LT_O))
#define LT_MLA                                                                                     \
  (LT_BIT(LT_KV_A) | LT_BIT(LT_KV_A_NORM) | LT_BIT(LT_K_B) | LT_BIT(LT_V_B) | LT_BIT(LT_O))
#define LT_MLA_Q   (LT_BIT(LT_Q_A) | LT_BIT(LT_Q_A_NORM) | LT_BIT(LT_Q_B))
#define LT_DENSE   (LT_BIT(LT_UP) | LT_BIT(LT_GATE) | LT_BIT(LT_DOWN))
#define LT_UP_DOWN (LT_BIT(LT_UP) | LT_BIT(LT_DOWN))
#define LT_MOE                                                                                     \
  (LT_BIT(LT_GATE_INP) | LT_BIT(LT_UP_EXPS) | LT_BIT(LT_GATE_EXPS) | LT_BIT(LT_DOWN_EXPS))
#define LT_SHARED  (LT_BIT(LT_SH_UP) | LT_BIT(LT_SH_GATE) | LT_BIT(LT_SH_DOWN))
#define LT_QK_NORM (LT_BIT(LT_Q_NORM) | LT_BIT(LT_K_NORM))
#define LT_POST    (LT_BIT(LT_POST_ATTN) | LT_BIT(LT_POST_FFN))
#define LT_NOT_MODELLED                                                                            \
  (LT_BIT(LT_QKV_B) | LT_BIT(LT_ATTN_NORM_B) | LT_BIT(LT_FFN_NORM_B) | LT_BIT(LT_GATE_UP_EXPS))
#define LT_N_BIASES 7

/* One pass over the tensors of model m: mask[il] gets the bit of each
** blk.il.<name> of lt_names it has. */
static void lt_masks(const wt_model *m, uint64_t n_layer, uint64_t *mask) {
  size_t i, k;
  for (i = 0; i < m->n_tensors; i++) {
    const wt_str *n = &m->tensors[i].name;
    size_t at = 4;
    uint64_t il = 0;
    if (n->n < 6 || memcmp(n->p, "blk.", 4) != 0)
      continue;
    while (at < n->n && n->p[at] >= '0' && n->p[at] <= '9' && il < n_layer)
      il = il * 10 + (uint64_t)(n->p[at++] - '0');
    if (at == 4 || at >= n->n || n->p[at] != '.' || il >= n_layer)
      continue;
    at++;
    for (k = 0; k < LT_COUNT; k++)
      if (strlen(lt_names[k]) == n->n - at && memcmp(lt_names[k], n->p + at, n->n - at) == 0)
        mask[il] |= LT_BIT(k);
  }
}

/* ============================ The architectures =========================== */

/* A scalar "{arch}.key" that is there and not zero/false: 1; 0 when absent
** or zero; -1 on an error.  An array or a string counts as there. */
static int mp_nonzero(mp_ctx *x, const char *key) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_scalar v;
  if (kv == NULL)
    return 0;
  if (kv->type == GGUF_TYPE_ARRAY || kv->type == GGUF_TYPE_STRING)
    return 1;
  if (mp_scalar(x, kv, &v) != 0)
    return -1;
  return v.i != 0 || v.u != 0 || v.r != 0.0;
}

/* "{arch}.key" as a float (absent: dflt); -1 on an error. */
static int mp_float(mp_ctx *x, const char *key, double dflt, double *v) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_scalar sc;
  *v = dflt;
  if (kv == NULL)
    return 0;
  if (kv->type == GGUF_TYPE_ARRAY || kv->type == GGUF_TYPE_STRING)
    return wt_fail(x->err, "key '%.*s.%s' is not a number", (int)x->arch.n, x->arch.p, key);
  if (mp_scalar(x, kv, &sc) != 0)
    return -1;
  *v = kv->type == GGUF_TYPE_FLOAT32 || kv->type == GGUF_TYPE_FLOAT64 ? sc.r
       : sc.kind == GGUF_SCALAR_BIGUINT                               ? (double)sc.u
                                                                      : (double)sc.i;
  return 0;
}

/* Architectures whose graph llama_graph.c builds: its pieces for a dense
** model, and for one with experts (0: not modelled); swa 1 when it runs a
** sliding-window cache beside the full one when the file has a window;
** experts_n_ff 1 when its experts are feed_forward_length wide (the
** loader never reads expert_feed_forward_length), else that key's width;
** shared_ffn 1 when expert_shared_feed_forward_length, if not 0, is the
** width of a plain FFN added to the experts' sum. */
static const struct {
  const char *arch;
  unsigned dense, moe;
  int swa, experts_n_ff, shared_ffn;
} mp_llama_like[] = {
    {"llama", 0, WT_LG_MOE | WT_LG_MOE_NORM, 0, 1, 0},
    {"mistral3", 0, 0, 0, 0, 0},
    {"qwen2", 0, 0, 0, 0, 0}, /* + the output bias when the file has one */
    {"qwen3", WT_LG_QK_NORM, 0, 0, 0, 0},
    {"qwen2moe", 0, WT_LG_MOE | WT_LG_SHARED_EXPERT, 0, 0, 0},
    {"qwen3moe", 0, WT_LG_QK_NORM | WT_LG_MOE | WT_LG_MOE_NORM, 0, 0, 0},
    {"granite", WT_LG_LOGIT_SCALE, 0, 0, 0, 0}, /* + embedding and residual scales when set */
    /* granite's graph (src/models/granite-moe.cpp: using graph = granite's),
    ** experts routed by softmax, their weights normalised; a shared FFN
    ** (GraniteMoeShared) when expert_shared_feed_forward_length is set */
    {"granitemoe", WT_LG_LOGIT_SCALE, WT_LG_LOGIT_SCALE | WT_LG_MOE | WT_LG_MOE_NORM, 0, 1, 1},
    /* llama's dense graph (src/models/exaone.cpp, xverse.cpp, internlm2.cpp) */
    {"exaone", 0, 0, 0, 0, 0},
    {"xverse", 0, 0, 0, 0, 0},
    {"internlm2", 0, 0, 0, 0, 0},
    /* llama's, but for the FFN (src/models/arcee.cpp) or RoPE left out of
    ** every 4th layer (smollm3.cpp) */
    {"arcee", WT_LG_FFN_RELU_SQR, 0, 0, 0, 0},
    {"smollm3", WT_LG_NOPE_EVERY_4, 0, 0, 0, 0},
    /* LayerNorms with biases, a GELU FFN without a gate (starcoder2.cpp);
    ** llama's graph with LayerNorms with biases (orion.cpp) */
    {"starcoder2", WT_LG_LAYER_NORM | WT_LG_FFN_GELU, 0, 0, 0, 0},
    {"orion", WT_LG_LAYER_NORM, 0, 0, 0, 0},
    /* llama's graph, RoPE in the 7B (32 layers) only (baichuan.cpp) */
    {"baichuan", 0, 0, 0, 0, 0},
    {"gemma", WT_LG_EMBD_SCALE | WT_LG_Q_SCALE, 0, 0, 0, 0},
    {"gemma2",
     WT_LG_EMBD_SCALE | WT_LG_Q_SCALE | WT_LG_POST_NORMS | WT_LG_ATTN_SOFTCAP | WT_LG_FINAL_SOFTCAP,
     0, 1, 0, 0},
    {"gemma3", WT_LG_EMBD_SCALE | WT_LG_QK_NORM | WT_LG_Q_SCALE | WT_LG_POST_NORMS, 0, 1, 0, 0},
    {"phi3", WT_LG_Q_SCALE | WT_LG_FFN_SWIGLU | WT_LG_RESIDUAL_FIRST, 0, 0, 0, 0},
    {"cohere2", WT_LG_PARALLEL, 0, 1, 0, 0}, /* + the logit scale when set */
    {"deci", WT_LG_DECI, 0, 0, 0, 0},
    {"deepseek2", 0, WT_LG_MLA | WT_LG_MOE | WT_LG_SHARED_FFN, 0, 0,
     0}, /* + routing from its keys */
};
#define MP_N_LLAMA_LIKE (sizeof(mp_llama_like) / sizeof(mp_llama_like[0]))

int mp_compute_modelled(const char *arch) {
  size_t i;
  if (strcmp(arch, "mamba") == 0)
    return 1;
  for (i = 0; i < MP_N_LLAMA_LIKE; i++)
    if (strcmp(mp_llama_like[i].arch, arch) == 0)
      return 1;
  return 0;
}

/* deepseek2 (src/models/deepseek2.cpp): MLA widths, the dense layers
** first, routing (sigmoid or softmax, normalised, scaled) from its keys.
** 1 when modelled, 0 when not (no MLA, MTP layers), -1 on an error. */
static int mp_deepseek2(mp_ctx *x, const mp_attn_shape *a, wt_lg_params *p, unsigned *features) {
  uint64_t gating, nextn;
  double scale;
  int norm;
  if (a->kmla == 0 || a->vmla == 0 || a->kmla < 1)
    return 0; /* the older non-MLA path: not modelled */
  if (mp_vocab(x, &p->n_vocab) != 0 ||
      mp_uint(x, "attention.kv_lora_rank", 1, 0, &p->kv_lora, NULL) != 0 ||
      mp_uint(x, "attention.q_lora_rank", 0, 0, &p->q_lora, NULL) != 0 ||
      mp_uint(x, "rope.dimension_count", 1, 0, &p->n_rot, NULL) != 0 ||
      mp_uint(x, "leading_dense_block_count", 0, 0, &p->n_dense_lead, NULL) != 0 ||
      mp_uint(x, "expert_shared_count", 1, 0, &p->n_expert_shared, NULL) != 0 ||
      mp_uint(x, "expert_gating_func", 0, 0, &gating, NULL) != 0 ||
      mp_uint(x, "nextn_predict_layers", 0, 0, &nextn, NULL) != 0 ||
      (norm = mp_nonzero(x, "expert_weights_norm")) < 0 ||
      mp_float(x, "expert_weights_scale", 0, &scale) != 0)
    return -1;
  /* MTP layers, other gating functions, a shape that cannot be: not
  ** modelled; nor Q without its latent (q_lora_rank) unless llama.cpp takes
  ** the model for a "lite" one by its layer count, as it requires then */
  if (nextn != 0 || gating > 2 || p->n_rot >= a->kmla || p->n_expert_shared == 0 ||
      a->hk != p->kv_lora + p->n_rot || a->hv != p->kv_lora)
    return 0;
  if (p->q_lora == 0 && x->n_layer != 26 && x->n_layer != 27 &&
      !(x->n_layer == 48 && p->n_vocab == 128256))
    return 0;
  p->head_k_mla = a->kmla;
  p->head_v_mla = a->vmla;
  *features |= (norm ? WT_LG_MOE_NORM : 0) | (gating == 2 ? WT_LG_MOE_SIGMOID : 0) |
               (scale != 0.0 && scale != 1.0 ? WT_LG_MOE_SCALE : 0);
  return 1;
}

/* The entry of mp_llama_like for the model, its pieces and the routing,
** checked against the keys that change its graph: the entry's index, -2
** when the graph is not modelled, -1 on an error. */
static int mp_llama_features(mp_ctx *x, const mp_attn_shape *a, unsigned *features,
                             wt_lg_params *p) {
  size_t i;
  int f = 0, g = 0;
  for (i = 0; i < MP_N_LLAMA_LIKE; i++)
    if (strlen(mp_llama_like[i].arch) == x->arch.n &&
        memcmp(mp_llama_like[i].arch, x->arch.p, x->arch.n) == 0)
      break;
  if (i == MP_N_LLAMA_LIKE || (a->n_swa != 0 && !mp_llama_like[i].swa))
    return -2;
  if (mp_uint(x, "expert_count", 0, 0, &p->n_expert, NULL) != 0 ||
      mp_uint(x, "expert_group_count", 0, 0, &p->n_groups, NULL) != 0 ||
      mp_uint(x, "expert_group_used_count", 0, 0, &p->n_group_used, NULL) != 0)
    return -1;
  *features = p->n_expert ? mp_llama_like[i].moe : mp_llama_like[i].dense;
  if (*features == 0 && p->n_expert)
    return -2;
  /* shared experts: granitemoe's plain FFN; where the graph has none,
  ** another graph */
  if (p->n_expert && !(*features & (WT_LG_SHARED_EXPERT | WT_LG_SHARED_FFN))) {
    uint64_t shared_n = 0;
    if (mp_uint(x, "expert_shared_feed_forward_length", 0, 0, &p->n_ff_shared, NULL) != 0 ||
        mp_uint(x, "expert_shared_count", 0, 0, &shared_n, NULL) != 0)
      return -1;
    if (p->n_ff_shared != 0 && mp_llama_like[i].shared_ffn && shared_n == 0)
      *features |= WT_LG_SHARED_FFN;
    else if (p->n_ff_shared != 0 || shared_n != 0)
      return -2;
  }
  /* expert groups as llama.cpp accepts them (llama_model::load_hparams) */
  if (p->n_groups > 1 && (p->n_group_used == 0 || p->n_group_used >= p->n_groups ||
                          p->n_groups >= p->n_expert || p->n_expert % p->n_groups != 0))
    return -2;
  if ((a->kmla != 0) != ((*features & WT_LG_MLA) != 0))
    return -2;
  if ((*features & WT_LG_MLA) && (f = mp_deepseek2(x, a, p, features)) <= 0)
    return f < 0 ? -1 : -2;
  /* an attention temperature (mistral3, deepseek2), a granite vision
  ** deepstack: other graphs */
  if ((f = mp_nonzero(x, "attention.temperature_scale")) != 0 ||
      (g = mp_nonzero(x, "deepstack_mapping")) != 0)
    return f < 0 || g < 0 ? -1 : -2;
  if (*features & WT_LG_LOGIT_SCALE) {
    /* granite: rope only when rope.scaling.finetuned is absent or true */
    if (mp_find(x, "rope.scaling.finetuned", 0) != NULL &&
        (f = mp_nonzero(x, "rope.scaling.finetuned")) <= 0)
      return f < 0 ? -1 : -2;
    if ((f = mp_nonzero(x, "embedding_scale")) < 0 || (g = mp_nonzero(x, "residual_scale")) < 0)
      return -1;
    *features |= (f ? WT_LG_EMBD_SCALE : 0) | (g ? WT_LG_RESIDUAL_SCALE : 0);
  }
  if (*features & WT_LG_PARALLEL) {
    if ((f = mp_nonzero(x, "logit_scale")) < 0)
      return -1;
    *features |= f ? WT_LG_LOGIT_SCALE : 0;
    if (a->n_swa == 0)
      return -2; /* cohere2 always runs the sliding-window cache */
  }
  if (x->arch.n == 8 && memcmp(x->arch.p, "baichuan", 8) == 0 && x->n_layer != 32)
    *features |= WT_LG_NO_ROPE;
  if (x->arch.n == 6 && memcmp(x->arch.p, "gemma3", 6) == 0) {
    if ((f = mp_nonzero(x, "final_logit_softcapping")) < 0)
      return -1;
    *features |= f ? WT_LG_FINAL_SOFTCAP : 0;
  }
  if (x->arch.n == 5 && memcmp(x->arch.p, "qwen2", 5) == 0) {
    size_t t;
    for (t = 0; t < x->m->n_tensors; t++)
      if (x->m->tensors[t].name.n == 11 && memcmp(x->m->tensors[t].name.p, "output.bias", 11) == 0)
        *features |= WT_LG_OUTPUT_BIAS;
  }
  return (int)i;
}

/* Whether every tensor of the model is at hand: 1 for a model in one file
** (no split.count, or 1) or a split's part 1 given all its other parts
** (s->parts), else 0; -1 on an error. */
static int mp_all_parts(mp_ctx *x, const wt_mem_settings *s) {
  const wt_meta *kv = mp_find(x, "split.count", 1);
  gguf_scalar v;
  uint64_t n;
  if (kv == NULL)
    return 1;
  if (kv->type == GGUF_TYPE_ARRAY || kv->type == GGUF_TYPE_STRING)
    return 0;
  if (mp_scalar(x, kv, &v) != 0)
    return -1;
  n = v.kind == GGUF_SCALAR_BIGUINT ? v.u : v.i < 0 ? 0 : (uint64_t)v.i;
  return n == 1 + (s->parts != NULL ? s->n_parts : 0);
}

/* ============================= The exact figure =========================== */

/* The tensors layer il must have for the graph of these features (mask0:
** layer 0's, which decides a fused QKV; ff: the layer's FFN width). */
static uint64_t lt_wanted(unsigned features, const mp_attn_shape *a, const wt_lg_params *p,
                          uint64_t il, uint64_t mask0, uint64_t ff) {
  uint64_t attn, ffn;
  if (features & WT_LG_MLA)
    attn = LT_MLA | (p->q_lora != 0 ? LT_MLA_Q : LT_BIT(LT_Q));
  else if (mask0 & LT_BIT(LT_QKV))
    attn = LT_FUSED;
  else
    attn = LT_ATTN;
  if ((features & WT_LG_MOE) && il >= p->n_dense_lead)
    ffn = LT_MOE | (features & WT_LG_SHARED_EXPERT ? LT_SHARED | LT_BIT(LT_SH_GATE_INP) : 0) |
          (features & WT_LG_SHARED_FFN ? LT_SHARED : 0);
  else
    ffn =
        features & (WT_LG_FFN_SWIGLU | WT_LG_FFN_RELU_SQR | WT_LG_FFN_GELU) ? LT_UP_DOWN : LT_DENSE;
  if (features & WT_LG_DECI) /* attention or not, FFN or not */
    return (a->head[il] == 0 ? 0 : a->head_kv[il] == 0 ? LT_BIT(LT_O) : attn) | (ff == 0 ? 0 : ffn);
  return attn | ffn | (features & WT_LG_QK_NORM ? LT_QK_NORM : 0) |
         (features & WT_LG_POST_NORMS ? LT_POST : 0) |
         (features & WT_LG_LAYER_NORM ? LT_BIT(LT_ATTN_NORM_B) | LT_BIT(LT_FFN_NORM_B) : 0);
}

int mp_exact_compute(mp_ctx *x, const wt_mem_settings *s, const mp_attn_shape *a) {
  wt_lg_params p;
  uint64_t *ff = NULL, *ff_exp, *mask, il;
  unsigned *bias, features = 0;
  unsigned char *swa;
  int rc, entry, n_ff_experts,
      probs_b = -1; /* the MoE layers' routing bias: -1 not seen yet, 0, 1 */
  size_t i;
  memset(&p, 0, sizeof(p));
  entry = mp_llama_features(x, a, &features, &p);
  if (entry == -1)
    return -1;
  if (entry < 0 || (a->kmla == 0 && a->hk != a->hv))
    return 0;
  if ((rc = mp_all_parts(x, s)) <= 0)
    return rc; /* 0: part 1 of a split GGUF without the others: layers missing */
  ff = calloc((size_t)x->n_layer, 3 * sizeof(*ff) + sizeof(*bias) + 1);
  if (ff == NULL)
    return wt_fail(x->err, "out of memory");
  ff_exp = ff + x->n_layer;
  mask = ff_exp + x->n_layer;
  bias = (unsigned *)(mask + x->n_layer);
  swa = (unsigned char *)(bias + x->n_layer);
  rc = -1;
  /* the FFN's width per layer; experts are expert_feed_forward_length wide
  ** (llama's and granitemoe's: feed_forward_length), after the dense layers */
  n_ff_experts = mp_llama_like[entry].experts_n_ff;
  if (((features & WT_LG_MOE) == 0 || p.n_dense_lead > 0 || n_ff_experts) &&
      mp_per_layer(x, "feed_forward_length", NULL, ff) != 0)
    goto done;
  if ((features & WT_LG_MOE) && !n_ff_experts &&
      mp_per_layer(x, "expert_feed_forward_length", NULL, ff_exp) != 0)
    goto done;
  for (il = 0; il < x->n_layer; il++)
    if ((features & WT_LG_MOE) && il >= p.n_dense_lead)
      ff[il] = n_ff_experts ? ff[il] : ff_exp[il];
  if (mp_vocab(x, &p.n_vocab) != 0 ||
      mp_uint(x, "expert_used_count", (features & WT_LG_MOE) != 0, 0, &p.n_expert_used, NULL) !=
          0 ||
      ((features & WT_LG_SHARED_EXPERT) &&
       mp_uint(x, "expert_shared_feed_forward_length", 1, 0, &p.n_ff_shared, NULL) != 0))
    goto done;
  /* deepseek2's shared experts: n_expert_shared of an expert's width, as one
  ** FFN (a product past 64 bits is left to llama_graph.c to refuse) */
  if ((features & WT_LG_MLA) && p.n_dense_lead < x->n_layer &&
      wt_mul(ff[p.n_dense_lead], p.n_expert_shared, &p.n_ff_shared) != 0)
    p.n_ff_shared = UINT64_MAX;
  lt_masks(x->m, x->n_layer, mask);
  for (i = 0; s->parts != NULL && i < s->n_parts; i++)
    lt_masks(s->parts[i], x->n_layer, mask);
  if (!(features & WT_LG_MLA) && (mask[0] & LT_BIT(LT_QKV)))
    features |= WT_LG_FUSED_QKV; /* Q, K and V from one projection, as layer 0 has them */
  for (il = 0; il < x->n_layer; il++) {
    uint64_t want = lt_wanted(features, a, &p, il, mask[0], ff[il]);
    int moe_layer = (features & WT_LG_MOE) && il >= p.n_dense_lead;
    if ((mask[il] & want) != want || (mask[il] & LT_NOT_MODELLED & ~want) ||
        (mask[il] & LT_BIT(LT_QKV)) != (mask[0] & LT_BIT(LT_QKV)) ||
        (moe_layer && probs_b >= 0 && ((mask[il] & LT_BIT(LT_PROBS_B)) != 0) != probs_b)) {
      rc = 0; /* a layer this graph does not describe */
      goto done;
    }
    if (moe_layer)
      probs_b = (mask[il] & LT_BIT(LT_PROBS_B)) != 0;
    bias[il] = (unsigned)(mask[il] >> LT_BQ) & ((1u << LT_N_BIASES) - 1);
    swa[il] = a->n_swa != 0 && il % a->swa_pattern < a->swa_pattern - 1;
  }
  if (probs_b == 1)
    features |= WT_LG_MOE_PROBS_BIAS;
  p.features = features;
  p.n_layer = x->n_layer;
  p.n_embd = a->n_embd;
  p.head_k = a->hk;
  p.head_v = a->hv;
  p.n_head = a->head;
  p.n_head_kv = a->head_kv;
  p.n_ff = ff;
  p.bias = bias;
  p.cells = a->cells;
  p.swa = a->n_swa != 0 ? swa : NULL;
  p.swa_cells = a->swa_cells;
  p.n_seq = s->n_seq;
  p.n_tokens = x->n_tokens;
  p.flash_attn = s->flash_attn == WT_FA_ON;
  p.type_k = (int)s->type_k;
  p.type_v = (int)s->type_v;
  if (x->gpu) { /* the scheduler's buffers (gpu_plan.c) */
    uint64_t n_rot;
    if (mp_uint(x, "rope.dimension_count", 0, a->hk, &n_rot, NULL) != 0 ||
        (rc = mp_gpu_compute(x, s, &p, n_rot)) < 0)
      goto done;
  } else if ((rc = wt_llama_compute(&p, &x->compute)) < 0) {
    wt_fail(x->err, "out of memory planning the compute graph");
    goto done;
  }
  x->exact_compute = rc == 0;
  rc = 0;
done:
  free(ff);
  return rc;
}

/* mamba (src/models/mamba.cpp, build_mamba_layer): every layer a selective
** state-space block; modelled without dt/B/C norms (ssm.dt_b_c_rms). */
int mp_exact_compute_mamba(mp_ctx *x, const wt_mem_settings *s, uint64_t d_conv, uint64_t d_inner,
                           uint64_t d_state, uint64_t n_embd) {
  const uint64_t needed = LT_BIT(LT_SSM_IN) | LT_BIT(LT_SSM_CONV) | LT_BIT(LT_SSM_X) |
                          LT_BIT(LT_SSM_DT) | LT_BIT(LT_SSM_OUT);
  wt_lg_params p;
  uint64_t il, *mask;
  size_t i;
  int rc;
  if (x->arch.n != 5 || memcmp(x->arch.p, "mamba", 5) != 0)
    return 0;
  memset(&p, 0, sizeof(p));
  if ((rc = mp_nonzero(x, "ssm.dt_b_c_rms")) != 0 || (rc = mp_all_parts(x, s)) <= 0)
    return rc < 0 ? -1 : 0;
  if (mp_uint(x, "ssm.time_step_rank", 1, 0, &p.dt_rank, NULL) != 0 || mp_vocab(x, &p.n_vocab) != 0)
    return -1;
  mask = calloc((size_t)x->n_layer, sizeof(*mask));
  if (mask == NULL)
    return wt_fail(x->err, "out of memory");
  lt_masks(x->m, x->n_layer, mask);
  for (i = 0; s->parts != NULL && i < s->n_parts; i++)
    lt_masks(s->parts[i], x->n_layer, mask);
  for (il = 0; il < x->n_layer && (mask[il] & needed) == needed; il++)
    ;
  free(mask);
  if (il < x->n_layer)
    return 0; /* a layer this graph does not describe */
  p.features = WT_LG_MAMBA;
  p.n_layer = x->n_layer;
  p.n_embd = n_embd;
  p.d_conv = d_conv;
  p.d_inner = d_inner;
  p.d_state = d_state;
  p.n_seq = s->n_seq;
  p.n_tokens = x->n_tokens;
  p.flash_attn = s->flash_attn == WT_FA_ON;
  if (x->gpu)
    rc = mp_gpu_compute(x, s, &p, 0);
  else if ((rc = wt_llama_compute(&p, &x->compute)) < 0)
    return wt_fail(x->err, "out of memory planning the compute graph");
  if (rc < 0)
    return -1;
  x->exact_compute = rc == 0;
  return 0;
}
