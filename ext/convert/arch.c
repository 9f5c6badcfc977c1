/*
** arch.c: the supported architectures and the tensors their converter
** classes generate.  See arch.h.  Layer: convert.
**
** The generated values are computed as convert_hf_to_gguf.py computes
** them (llama.cpp c392e50): LlamaModel.generate_extra_tensors in torch
** float32, one operation at a time, a Python number meeting a float32
** tensor becoming a float32 first; Phi3MiniModel's attn_factor in Python
** doubles.  The one operation that is not exactly specified there is
** torch's float32 pow (its vectorized SLEEF kernel, 1 ulp), which is
** computed here correctly rounded; for the bases and head sizes of Llama
** 3.1 to 3.3 (500000; 64 and 128) the two agree on every value (torch
** 1.13 checked), for some other pairs one value of the table may differ
** in its last bit.
*/
#include "arch.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "convert/config_values.h"

/* ================================ Llama 3 ================================= */

/* rope_scaling[key] as a number, or dflt when absent (dict.get). */
static int get_real(const wt_config *c, const char *key, double dflt, double *out, wt_error *err) {
  const wt_config_entry *e = cv_cfg_find(c, key);
  if (e == NULL) {
    *out = dflt;
    return 0;
  }
  return cv_cfg_real(e, out, err);
}

/* LlamaModel.generate_extra_tensors: rope_freqs.weight for rope_type llama3. */
static int extras_llama(const cv_hp *h, cv_extra *out, size_t *n, wt_error *err) {
  static const char *const hidden[] = {"hidden_size", NULL};
  static const char *const heads[] = {"num_attention_heads", NULL};
  const wt_config_entry *type = cv_cfg_get(h->cfg, "rope_scaling.rope_type");
  char *t = NULL;
  double base, factor, low, high, old, low_wl, high_wl;
  uint64_t dim, n_embd, n_head, i;
  int llama3;
  *n = 0;
  if (type == NULL || cv_cfg_string(type, &t, err) != 0)
    return type == NULL ? 0 : -1;
  llama3 = strcasecmp(t, "llama3") == 0;
  free(t);
  if (!llama3)
    return 0;
  if (cv_cfg_find(h->cfg, "head_dim") != NULL) {
    if (cv_hp_int(h->cfg, (const char *const[]){"head_dim", NULL}, 1 << 20, &dim, err) != 0)
      return -1;
  } else if (cv_hp_int(h->cfg, hidden, UINT32_MAX, &n_embd, err) != 0 ||
             cv_hp_int(h->cfg, heads, UINT32_MAX, &n_head, err) != 0) {
    return -1;
  } else {
    if (n_head == 0)
      return wt_fail(err, "config.json: num_attention_heads is 0");
    dim = n_embd / n_head;
  }
  if (get_real(h->cfg, "rope_theta", 10000.0, &base, err) != 0 ||
      get_real(h->cfg, "rope_scaling.factor", 8.0, &factor, err) != 0 ||
      get_real(h->cfg, "rope_scaling.low_freq_factor", 1.0, &low, err) != 0 ||
      get_real(h->cfg, "rope_scaling.high_freq_factor", 4.0, &high, err) != 0 ||
      get_real(h->cfg, "original_max_position_embeddings", 8192, &old, err) != 0)
    return -1;
  low_wl = old / low;
  high_wl = old / high;
  if (low_wl == high_wl || dim == 0 || dim > (1 << 20))
    return wt_fail(err,
                   "config.json: rope_scaling gives llama3 RoPE factors that cannot be made "
                   "(low_freq_factor equals high_freq_factor, or head size %llu)",
                   (unsigned long long)dim);
  snprintf(out[0].name, sizeof(out[0].name), "rope_freqs.weight");
  out[0].n = (size_t)((dim + 1) / 2);
  if ((out[0].v = malloc(out[0].n * sizeof(float))) == NULL)
    return wt_fail(err, "out of memory");
  *n = 1;
  for (i = 0; i < out[0].n; i++) {
    float e = (float)(2 * i) / (float)dim;
    float p = (float)pow((double)(float)base, (double)e); /* see the top comment */
    float freq = 1.0f / p;
    float wavelen = (float)(2 * M_PI) / freq, v;
    if (wavelen < (float)high_wl) {
      v = 1.0f;
    } else if (wavelen > (float)low_wl) {
      v = (float)factor;
    } else {
      float smooth = ((float)old / wavelen - (float)low) / (float)(high - low);
      v = 1.0f / ((1.0f - smooth) / (float)factor + smooth);
    }
    out[0].v[i] = v;
  }
  return 0;
}

/* ================================= Phi-3 ================================== */

/* Phi3MiniModel.generate_extra_tensors: rope.scaling.attn_factor and the
** long and short RoPE factors, when config.json has rope_scaling. */
static int extras_phi3(const cv_hp *h, cv_extra *out, size_t *n, wt_error *err) {
  static const char *const embd[] = {"hidden_size", "n_embd", NULL};
  static const char *const head[] = {"num_attention_heads", "n_head", NULL};
  static const char *const pos[] = {"n_positions", "max_position_embeddings", NULL};
  static const char *const orig[] = {"original_max_position_embeddings", NULL};
  static const char *const names[2] = {"rope_factors_long.weight", "rope_factors_short.weight"};
  const wt_config_entry *type = cv_cfg_get(h->cfg, "rope_scaling.type"), *f[2];
  uint64_t n_embd, n_head, max_pos, orig_pos;
  char *t = NULL, key[96];
  double scale, attn = 1.0, *vals[2] = {NULL, NULL};
  size_t k, count[2];
  int i, rc = -1;
  *n = 0;
  if (cv_hp_int(h->cfg, embd, UINT32_MAX, &n_embd, err) != 0 ||
      cv_hp_int(h->cfg, head, UINT32_MAX, &n_head, err) != 0 ||
      cv_hp_int(h->cfg, pos, UINT32_MAX, &max_pos, err) != 0 ||
      cv_hp_int(h->cfg, orig, UINT32_MAX, &orig_pos, err) != 0)
    return -1;
  if (!cv_cfg_present(h->cfg, "rope_scaling"))
    return 0;
  if (n_head == 0 || orig_pos == 0)
    return wt_fail(err, "config.json: num_attention_heads or original_max_position_embeddings "
                        "is 0");
  if (type == NULL)
    return wt_fail(err, "config.json: rope_scaling has no type");
  if (cv_cfg_string(type, &t, err) != 0)
    return -1;
  for (k = 0; t[k]; k++)
    t[k] = (char)tolower((unsigned char)t[k]);
  scale = (double)max_pos / (double)orig_pos;
  if (strcmp(t, "su") == 0 || strcmp(t, "longrope") == 0) {
    if (scale > 1.0) {
      volatile double q = log(scale) / log((double)orig_pos); /* no fused multiply-add */
      attn = sqrt(1 + q);
    }
  } else if (strcmp(t, "yarn") == 0) {
    if (scale > 1.0) {
      volatile double m = 0.1 * log(scale);
      attn = m + 1.0;
    }
  } else {
    wt_fail(err, "config.json: rope_scaling type \"%.40s\" is not supported (su, longrope, yarn)",
            t);
    goto done;
  }
  snprintf(key, sizeof(key), "%s.rope.scaling.attn_factor", h->arch);
  if (cv_kv_f32(h->kv, key, attn, err) != 0)
    goto done;
  f[0] = cv_cfg_get(h->cfg, "rope_scaling.long_factor");
  f[1] = cv_cfg_get(h->cfg, "rope_scaling.short_factor");
  if (f[0] == NULL || f[1] == NULL) {
    wt_fail(err, "config.json: rope_scaling has no long_factor or no short_factor");
    goto done;
  }
  for (i = 0; i < 2; i++)
    if (cv_cfg_reals(f[i], &vals[i], &count[i], err) != 0)
      goto done;
  if (count[0] != count[1] || 2 * count[0] != n_embd / n_head) {
    wt_fail(err,
            "config.json: rope_scaling's long_factor and short_factor have %zu and %zu "
            "values, not %llu (half the head size)",
            count[0], count[1], (unsigned long long)(n_embd / n_head / 2));
    goto done;
  }
  for (i = 0; i < 2; i++) {
    snprintf(out[i].name, sizeof(out[i].name), "%s", names[i]);
    out[i].n = count[i];
    if ((out[i].v = malloc((count[i] + 1) * sizeof(float))) == NULL) {
      wt_fail(err, "out of memory");
      goto done;
    }
    *n = (size_t)i + 1;
    for (k = 0; k < count[i]; k++)
      out[i].v[k] = (float)vals[i][k];
  }
  rc = 0;
done:
  free(t);
  free(vals[0]);
  free(vals[1]);
  return rc;
}

/* ================================ the table =============================== */

static const cv_arch archs[] = {
    {"LlamaForCausalLM", "llama", CV_CONV_C392E50, CV_RULE_PERMUTE_QK, cv_hparams_llama,
     extras_llama},
    {"LLaMAForCausalLM", "llama", CV_CONV_C392E50, CV_RULE_PERMUTE_QK, cv_hparams_llama,
     extras_llama},
    {"MistralForCausalLM", "llama", CV_CONV_C392E50, CV_RULE_PERMUTE_QK, cv_hparams_llama,
     extras_llama},
    {"Qwen2ForCausalLM", "qwen2", CV_CONV_C392E50, 0, cv_hparams_qwen2, NULL},
    {"Qwen3ForCausalLM", "qwen3", CV_CONV_DE3FF815, 0, cv_hparams_qwen3, NULL},
    {"GemmaForCausalLM", "gemma", CV_CONV_C392E50, CV_RULE_NORM_PLUS_ONE | CV_RULE_SKIP_LM_HEAD,
     cv_hparams_gemma, NULL},
    {"Gemma2ForCausalLM", "gemma2", CV_CONV_C392E50, CV_RULE_NORM_PLUS_ONE | CV_RULE_SKIP_LM_HEAD,
     cv_hparams_gemma2, NULL},
    {"Phi3ForCausalLM", "phi3", CV_CONV_C392E50, 0, cv_hparams_phi3, extras_phi3},
};

const cv_arch *cv_arch_find(const char *hf) {
  size_t i;
  for (i = 0; hf != NULL && i < sizeof(archs) / sizeof(archs[0]); i++)
    if (strcmp(archs[i].hf, hf) == 0)
      return &archs[i];
  return NULL;
}

void cv_arch_names(char *out, size_t cap) {
  size_t i;
  out[0] = 0;
  for (i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
    if (strcmp(archs[i].hf, "LLaMAForCausalLM") != 0)
      snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? ", " : "", archs[i].hf);
}

void cv_extras_free(cv_extra *e, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    free(e[i].v);
    e[i].v = NULL;
  }
}
