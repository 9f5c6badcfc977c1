/*
** hparams.c: config.json's hyperparameters as the converter writes them.
** See hparams.h.  Layer: convert.
**
** The functions follow convert_hf_to_gguf.py line for line in what they
** write and in what order (llama.cpp c392e50: Model.set_gguf_parameters
** and the classes' own; de3ff815 for Qwen3: conversion/base.py
** TextModel.__init__ and set_gguf_parameters); the key names are gguf-py's
** (gguf/constants.py Keys) with the architecture for {arch}.
*/
#include "hparams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/config_values.h"

/* The longest metadata key built here. */
#define HP_KEY_MAX 128

/* find_hparam lists of the classes. */
static const char *const K_LAYERS[] = {"n_layers", "num_hidden_layers", "n_layer", "num_layers",
                                       NULL};

/* ============================== the helpers =============================== */

/* key: "{arch}." + suffix, or suffix itself when it starts with "general." */
static const char *hp_key(const cv_hp *h, const char *suffix, char *out) {
  if (strncmp(suffix, "general.", 8) == 0)
    snprintf(out, HP_KEY_MAX, "%s", suffix);
  else
    snprintf(out, HP_KEY_MAX, "%s.%s", h->arch, suffix);
  return out;
}

/* Write entry e (present, maybe null) as a UINT32 or FLOAT32 key: a null
** is what struct.pack refuses, an error naming the config key. */
static int hp_put(const cv_hp *h, const char *suffix, const wt_config_entry *e, int real,
                  wt_error *err) {
  char key[HP_KEY_MAX];
  uint64_t u;
  double r;
  if (real)
    return cv_cfg_real(e, &r, err) != 0 ? -1 : cv_kv_f32(h->kv, hp_key(h, suffix, key), r, err);
  return cv_cfg_uint(e, UINT32_MAX, &u, err) != 0
             ? -1
             : cv_kv_u32(h->kv, hp_key(h, suffix, key), u, err);
}

/* Write e when it is present and not null (find_hparam(optional=True) and
** hparams.get, then "is not None"). */
static int hp_opt(const cv_hp *h, const char *suffix, const wt_config_entry *e, int real,
                  wt_error *err) {
  return e == NULL || cv_cfg_is_null(e) ? 0 : hp_put(h, suffix, e, real, err);
}

/* The entry of a key the class indexes directly (hparams[key], or
** find_hparam without optional): a KeyError when none is present. */
static const wt_config_entry *hp_need(const cv_hp *h, const char *const *keys, wt_error *err) {
  const wt_config_entry *e = cv_cfg_first(h->cfg, keys);
  char list[256] = "";
  size_t i;
  if (e != NULL)
    return e;
  for (i = 0; keys[i] != NULL; i++)
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", keys[i]);
  wt_fail(err, i > 1 ? "config.json has none of %s" : "config.json has no %s", list);
  return NULL;
}

/* hp_need, then write it. */
static int hp_req(const cv_hp *h, const char *suffix, const char *const *keys, int real,
                  wt_error *err) {
  const wt_config_entry *e = hp_need(h, keys, err);
  return e == NULL ? -1 : hp_put(h, suffix, e, real, err);
}

/* hp_req of a single key. */
static int hp_req1(const cv_hp *h, const char *suffix, const char *key, int real, wt_error *err) {
  const char *keys[2] = {key, NULL};
  return hp_req(h, suffix, keys, real, err);
}

int cv_hp_int(const wt_config *cfg, const char *const *keys, uint64_t max, uint64_t *out,
              wt_error *err) {
  cv_hp h = {cfg, "", 0, NULL};
  const wt_config_entry *e = hp_need(&h, keys, err);
  return e == NULL ? -1 : cv_cfg_uint(e, max, out, err);
}

/* general.file_type. */
static int hp_file_type(const cv_hp *h, wt_error *err) {
  return cv_kv_u32(h->kv, "general.file_type", h->ftype, err);
}

/* A rope scaling type (gguf-py's RopeScalingType value). */
static int hp_scaling_type(const cv_hp *h, const char *type, wt_error *err) {
  char key[HP_KEY_MAX];
  return cv_kv_str(h->kv, hp_key(h, "rope.scaling.type", key), type, err);
}

/* 1 when config entry key is the string s. */
static int hp_is(const cv_hp *h, const char *key, const char *s) {
  const wt_config_entry *e = cv_cfg_get(h->cfg, key);
  char *v = NULL;
  wt_error ignored;
  int is = e != NULL && cv_cfg_string(e, &v, &ignored) == 0 && strcmp(v, s) == 0;
  free(v);
  return is;
}

/* ========================= llama.cpp c392e50 ============================== */

/* Model.set_gguf_parameters. */
static int hp_base(const cv_hp *h, wt_error *err) {
  static const char *const ctx[] = {"max_position_embeddings", "n_ctx", NULL};
  static const char *const embd[] = {"hidden_size", "n_embd", NULL};
  static const char *const ff[] = {"intermediate_size", "n_inner", NULL};
  static const char *const head[] = {"num_attention_heads", "n_head", NULL};
  static const char *const eps[] = {"layer_norm_eps", "layer_norm_epsilon", "norm_epsilon", NULL};
  const wt_config *c = h->cfg;
  if (hp_req(h, "block_count", K_LAYERS, 0, err) != 0 ||
      hp_opt(h, "context_length", cv_cfg_first(c, ctx), 0, err) != 0 ||
      hp_opt(h, "embedding_length", cv_cfg_first(c, embd), 0, err) != 0 ||
      hp_opt(h, "feed_forward_length", cv_cfg_first(c, ff), 0, err) != 0 ||
      hp_opt(h, "attention.head_count", cv_cfg_first(c, head), 0, err) != 0 ||
      hp_opt(h, "attention.head_count_kv", cv_cfg_get(c, "num_key_value_heads"), 0, err) != 0 ||
      hp_opt(h, "rope.freq_base", cv_cfg_get(c, "rope_theta"), 1, err) != 0 ||
      hp_opt(h, "attention.layer_norm_rms_epsilon", cv_cfg_get(c, "rms_norm_eps"), 1, err) != 0 ||
      hp_opt(h, "attention.layer_norm_epsilon", cv_cfg_first(c, eps), 1, err) != 0 ||
      hp_opt(h, "expert_count", cv_cfg_get(c, "num_local_experts"), 0, err) != 0 ||
      hp_opt(h, "expert_used_count", cv_cfg_get(c, "num_experts_per_tok"), 0, err) != 0 ||
      hp_opt(h, "attention.key_length", cv_cfg_get(c, "head_dim"), 0, err) != 0 ||
      hp_opt(h, "attention.value_length", cv_cfg_get(c, "head_dim"), 0, err) != 0)
    return -1;
  return hp_file_type(h, err);
}

int cv_hparams_llama(const cv_hp *h, wt_error *err) {
  static const char *const head_dim[] = {"head_dim", NULL};
  static const char *const hidden[] = {"hidden_size", NULL};
  static const char *const heads[] = {"num_attention_heads", NULL};
  char key[HP_KEY_MAX];
  uint64_t n_embd, n_head;
  if (hp_base(h, err) != 0 || hp_req1(h, "vocab_size", "vocab_size", 0, err) != 0)
    return -1;
  if (cv_cfg_find(h->cfg, "head_dim") != NULL) {
    if (hp_req(h, "rope.dimension_count", head_dim, 0, err) != 0)
      return -1;
  } else {
    if (cv_hp_int(h->cfg, hidden, UINT64_MAX, &n_embd, err) != 0 ||
        cv_hp_int(h->cfg, heads, UINT64_MAX, &n_head, err) != 0)
      return -1;
    if (n_head == 0)
      return wt_fail(err, "config.json: num_attention_heads is 0");
    if (cv_kv_u32(h->kv, hp_key(h, "rope.dimension_count", key), n_embd / n_head, err) != 0)
      return -1;
  }
  if (cv_cfg_present(h->cfg, "rope_scaling") && cv_cfg_find(h->cfg, "rope_scaling.factor") &&
      hp_is(h, "rope_scaling.type", "linear"))
    return hp_scaling_type(h, "linear", err) != 0 ||
                   hp_req1(h, "rope.scaling.factor", "rope_scaling.factor", 1, err) != 0
               ? -1
               : 0;
  return 0;
}

int cv_hparams_qwen2(const cv_hp *h, wt_error *err) {
  if (hp_base(h, err) != 0)
    return -1;
  if (cv_cfg_present(h->cfg, "rope_scaling") && cv_cfg_find(h->cfg, "rope_scaling.factor") &&
      hp_is(h, "rope_scaling.type", "yarn"))
    return hp_scaling_type(h, "yarn", err) != 0 ||
                   hp_req1(h, "rope.scaling.factor", "rope_scaling.factor", 1, err) != 0 ||
                   hp_req1(h, "rope.scaling.original_context_length",
                           "rope_scaling.original_max_position_embeddings", 0, err) != 0
               ? -1
               : 0;
  return 0;
}

/* GemmaModel.set_gguf_parameters, the part Gemma2Model repeats. */
static int hp_gemma_common(const cv_hp *h, wt_error *err) {
  const char *kv = cv_cfg_find(h->cfg, "num_key_value_heads") != NULL ? "num_key_value_heads"
                                                                      : "num_attention_heads";
  return hp_req1(h, "context_length", "max_position_embeddings", 0, err) != 0 ||
                 hp_req1(h, "embedding_length", "hidden_size", 0, err) != 0 ||
                 hp_req1(h, "block_count", "num_hidden_layers", 0, err) != 0 ||
                 hp_req1(h, "feed_forward_length", "intermediate_size", 0, err) != 0 ||
                 hp_req1(h, "attention.head_count", "num_attention_heads", 0, err) != 0 ||
                 hp_req1(h, "attention.head_count_kv", kv, 0, err) != 0 ||
                 hp_req1(h, "attention.layer_norm_rms_epsilon", "rms_norm_eps", 1, err) != 0 ||
                 hp_req1(h, "attention.key_length", "head_dim", 0, err) != 0 ||
                 hp_req1(h, "attention.value_length", "head_dim", 0, err) != 0 ||
                 hp_file_type(h, err) != 0
             ? -1
             : 0;
}

int cv_hparams_gemma(const cv_hp *h, wt_error *err) {
  return hp_gemma_common(h, err);
}

int cv_hparams_gemma2(const cv_hp *h, wt_error *err) {
  return hp_gemma_common(h, err) != 0 ||
                 hp_req1(h, "attn_logit_softcapping", "attn_logit_softcapping", 1, err) != 0 ||
                 hp_req1(h, "final_logit_softcapping", "final_logit_softcapping", 1, err) != 0 ||
                 hp_req1(h, "attention.sliding_window", "sliding_window", 0, err) != 0
             ? -1
             : 0;
}

int cv_hparams_phi3(const cv_hp *h, wt_error *err) {
  static const char *const layers[] = {"num_hidden_layers", "n_layer", NULL};
  static const char *const embd[] = {"hidden_size", "n_embd", NULL};
  static const char *const head[] = {"num_attention_heads", "n_head", NULL};
  static const char *const head_kv[] = {"num_key_value_heads", "n_head_kv", NULL};
  static const char *const eps[] = {"rms_norm_eps", NULL};
  static const char *const pos[] = {"n_positions", "max_position_embeddings", NULL};
  static const char *const orig[] = {"original_max_position_embeddings", NULL};
  static const char *const ff[] = {"intermediate_size", NULL};
  static const char *const theta[] = {"rope_theta", NULL};
  const wt_config_entry *sw = cv_cfg_get(h->cfg, "sliding_window");
  char key[HP_KEY_MAX];
  uint64_t n_embd, n_head;
  /* every value is read before the first is written, as the class does */
  if (hp_need(h, layers, err) == NULL || cv_hp_int(h->cfg, embd, UINT64_MAX, &n_embd, err) != 0 ||
      cv_hp_int(h->cfg, head, UINT64_MAX, &n_head, err) != 0 || hp_need(h, head_kv, err) == NULL ||
      hp_need(h, eps, err) == NULL || hp_need(h, pos, err) == NULL || hp_need(h, orig, err) == NULL)
    return -1;
  if (n_head == 0)
    return wt_fail(err, "config.json: num_attention_heads is 0");
  if (hp_req(h, "context_length", pos, 0, err) != 0 ||
      hp_req(h, "rope.scaling.original_context_length", orig, 0, err) != 0 ||
      hp_req(h, "embedding_length", embd, 0, err) != 0 ||
      hp_req(h, "feed_forward_length", ff, 0, err) != 0 ||
      hp_req(h, "block_count", layers, 0, err) != 0 ||
      hp_req(h, "attention.head_count", head, 0, err) != 0 ||
      hp_req(h, "attention.head_count_kv", head_kv, 0, err) != 0 ||
      hp_req(h, "attention.layer_norm_rms_epsilon", eps, 1, err) != 0 ||
      cv_kv_u32(h->kv, hp_key(h, "rope.dimension_count", key), n_embd / n_head, err) != 0 ||
      hp_req(h, "rope.freq_base", theta, 1, err) != 0 || hp_file_type(h, err) != 0)
    return -1;
  if (sw == NULL)
    return cv_kv_u32(h->kv, hp_key(h, "attention.sliding_window", key), 0, err);
  return hp_put(h, "attention.sliding_window", sw, 0, err);
}

/* ========================= llama.cpp de3ff815 ============================= */

/* TextModel's rope_parameters: rope_parameters, or rope_scaling, or {},
** with the global keys mirrored into it when it has neither
** full_attention nor sliding_attention.  Entries of it are "P.x". */
typedef struct hp_rope {
  char prefix[32]; /* "rope_parameters" or "rope_scaling" */
  const wt_config_entry *theta, *theta_swa, *type, *orig;
} hp_rope;

/* rp[key] as TextModel.__init__ leaves it: its own entry, else (when it
** mirrors) the value found at top level. */
static const wt_config_entry *hp_rope_get(const cv_hp *h, const hp_rope *rp, const char *key) {
  char k[HP_KEY_MAX];
  snprintf(k, sizeof(k), "%s.%s", rp->prefix, key);
  return cv_cfg_find(h->cfg, k);
}

static int hp_rope_init(const cv_hp *h, hp_rope *rp, wt_error *err) {
  static const char *const theta[] = {"global_rope_theta", "rope_global_theta", "rope_theta_global",
                                      "rope_theta",        "rotary_emb_base",   NULL};
  static const char *const local[] = {"local_rope_theta",     "rope_local_theta",
                                      "rope_theta_local",     "swa_rope_theta",
                                      "rope_local_base_freq", NULL};
  const wt_config_entry *e;
  memset(rp, 0, sizeof(*rp));
  snprintf(rp->prefix, sizeof(rp->prefix), "%s",
           cv_cfg_find(h->cfg, "rope_parameters") != NULL ||
                   cv_cfg_present(h->cfg, "rope_parameters")
               ? "rope_parameters"
               : "rope_scaling");
  if (hp_rope_get(h, rp, "full_attention") != NULL || hp_rope_get(h, rp, "sliding_attention"))
    return wt_fail(err,
                   "config.json: %s with full_attention or sliding_attention is not "
                   "supported for this architecture",
                   rp->prefix);
  rp->theta = hp_rope_get(h, rp, "rope_theta");
  if (rp->theta == NULL)
    rp->theta = cv_cfg_first(h->cfg, theta);
  e = cv_cfg_first(h->cfg, local);
  rp->theta_swa = e != NULL && !cv_cfg_is_null(e) ? e : NULL;
  rp->type = hp_rope_get(h, rp, "rope_type");
  if (rp->type == NULL)
    rp->type = hp_rope_get(h, rp, "type");
  rp->orig = hp_rope_get(h, rp, "original_max_position_embeddings");
  if (rp->orig == NULL)
    rp->orig =
        cv_cfg_first(h->cfg, (const char *const[]){"original_max_position_embeddings", NULL});
  return 0;
}

/* TextModel.set_gguf_parameters' RoPE scaling block. */
static int hp_rope_scaling(const cv_hp *h, const hp_rope *rp, wt_error *err) {
  const wt_config_entry *factor = hp_rope_get(h, rp, "factor"), *attn;
  char *type = NULL;
  int rc = 0;
  factor = factor != NULL && !cv_cfg_is_null(factor) ? factor : NULL;
  if (rp->type == NULL || cv_cfg_is_null(rp->type))
    return 0;
  if (cv_cfg_string(rp->type, &type, err) != 0)
    return -1;
  if (strcmp(type, "linear") == 0 && factor != NULL) {
    rc = hp_scaling_type(h, "linear", err) || hp_put(h, "rope.scaling.factor", factor, 1, err);
  } else if (strcmp(type, "yarn") == 0 && factor != NULL) {
    attn = hp_rope_get(h, rp, "attention_factor");
    if (attn == NULL)
      attn = hp_rope_get(h, rp, "attn_factor");
    if (rp->orig == NULL)
      rc = wt_fail(err, "config.json: %s has no original_max_position_embeddings", rp->prefix);
    else
      rc = hp_scaling_type(h, "yarn", err) || hp_put(h, "rope.scaling.factor", factor, 1, err) ||
           hp_put(h, "rope.scaling.original_context_length", rp->orig, 0, err) ||
           hp_opt(h, "rope.scaling.yarn_ext_factor", hp_rope_get(h, rp, "extrapolation_factor"), 1,
                  err) ||
           hp_opt(h, "rope.scaling.yarn_attn_factor", attn, 1, err) ||
           hp_opt(h, "rope.scaling.yarn_beta_fast", hp_rope_get(h, rp, "beta_fast"), 1, err) ||
           hp_opt(h, "rope.scaling.yarn_beta_slow", hp_rope_get(h, rp, "beta_slow"), 1, err);
  } else if (strcmp(type, "su") == 0 || strcmp(type, "longrope") == 0) {
    rc = hp_scaling_type(h, "longrope", err);
  } /* dynamic, llama3 and unknown types: nothing written (a warning there) */
  free(type);
  return rc ? -1 : 0;
}

int cv_hparams_qwen3(const cv_hp *h, wt_error *err) {
  static const char *const ctx[] = {
      "max_position_embeddings", "n_ctx", "n_positions", "max_length", "max_sequence_length",
      "model_max_length",        NULL};
  static const char *const embd[] = {"hidden_size", "n_embd", "dim", NULL};
  static const char *const ff[] = {"prefix_dense_intermediate_size",
                                   "dense_intermediate_size",
                                   "intermediate_size",
                                   "n_inner",
                                   "hidden_dim",
                                   NULL};
  static const char *const head[] = {"num_attention_heads", "n_head", "n_heads", NULL};
  static const char *const head_kv[] = {"num_key_value_heads", "n_kv_heads", NULL};
  static const char *const rms[] = {"rms_norm_eps", "norm_eps", NULL};
  static const char *const eps[] = {"layer_norm_eps", "layer_norm_epsilon", "norm_epsilon", NULL};
  static const char *const experts[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                        NULL};
  static const char *const used[] = {"num_experts_per_tok", "num_experts_per_token",
                                     "top_k_experts", NULL};
  const wt_config *c = h->cfg;
  const wt_config_entry *causal = cv_cfg_get(c, "is_causal");
  char key[HP_KEY_MAX];
  hp_rope rp;
  if (hp_rope_init(h, &rp, err) != 0 || hp_req(h, "block_count", K_LAYERS, 0, err) != 0 ||
      hp_opt(h, "context_length", cv_cfg_first(c, ctx), 0, err) != 0 ||
      hp_opt(h, "embedding_length", cv_cfg_first(c, embd), 0, err) != 0 ||
      hp_opt(h, "feed_forward_length", cv_cfg_first(c, ff), 0, err) != 0 ||
      hp_opt(h, "attention.head_count", cv_cfg_first(c, head), 0, err) != 0 ||
      hp_opt(h, "attention.head_count_kv", cv_cfg_first(c, head_kv), 0, err) != 0)
    return -1;
  if (causal != NULL && strcmp(causal->value, "false") == 0 &&
      cv_kv_bool(h->kv, hp_key(h, "attention.causal", key), 0, err) != 0)
    return -1;
  if (hp_rope_scaling(h, &rp, err) != 0 || hp_opt(h, "rope.freq_base", rp.theta, 1, err) != 0 ||
      hp_opt(h, "rope.freq_base_swa", rp.theta_swa, 1, err) != 0 ||
      hp_opt(h, "attention.layer_norm_rms_epsilon", cv_cfg_first(c, rms), 1, err) != 0 ||
      hp_opt(h, "attention.layer_norm_epsilon", cv_cfg_first(c, eps), 1, err) != 0 ||
      hp_opt(h, "expert_count", cv_cfg_first(c, experts), 0, err) != 0 ||
      hp_opt(h, "expert_used_count", cv_cfg_first(c, used), 0, err) != 0 ||
      hp_opt(h, "expert_group_count", cv_cfg_get(c, "n_group"), 0, err) != 0 ||
      hp_opt(h, "expert_group_used_count", cv_cfg_get(c, "topk_group"), 0, err) != 0 ||
      hp_opt(h, "attention.key_length", cv_cfg_get(c, "head_dim"), 0, err) != 0 ||
      hp_opt(h, "attention.value_length", cv_cfg_get(c, "head_dim"), 0, err) != 0)
    return -1;
  return hp_file_type(h, err);
}
