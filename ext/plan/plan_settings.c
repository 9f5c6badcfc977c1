/*
** plan_settings.c: gguf_memory()'s and gguf_fit()'s settings from a JSON
** object (plan_settings.h).  Every key is checked: its type, its range, and
** that it is one of the known ones, once, so that a misspelt key is an
** error rather than a default silently taken.  Layer: plan.
*/
#include "plan_settings.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/ggml_type.h"

#define PS_MAX_INT 9007199254740992.0 /* 2^53: the integers a JSON number holds exactly */

/* The keys, in the order plan_settings.h lists them. */
enum {
  PS_N_CTX,
  PS_N_SEQ,
  PS_N_UBATCH,
  PS_TYPE_K,
  PS_TYPE_V,
  PS_FLASH_ATTN,
  PS_CPU,
  PS_GPU,
  PS_N_GPU_LAYERS,
  PS_CUDA_CC,
  PS_OP_OFFLOAD,
  PS_SWA_FULL,
  PS_RAM,
  PS_VRAM,
  PS_N_KEYS
};

static const char *const ps_keys[PS_N_KEYS] = {
    "n_ctx", "n_seq",        "n_ubatch", "type_k",     "type_v",   "flash_attn", "cpu",
    "gpu",   "n_gpu_layers", "cuda_cc",  "op_offload", "swa_full", "ram",        "vram"};

int64_t wt_settings_type(const char *name) {
  int64_t id;
  for (id = 0; name != NULL && id < GGML_TYPE_TABLE_SIZE; id++) {
    const ggml_type_info *t = ggml_type_get(id);
    if (t != NULL && !t->removed && t->block_size != 0 && strcasecmp(t->name, name) == 0)
      return id;
  }
  return -1;
}

int wt_settings_is_json(const char *text, size_t n) {
  size_t i = 0;
  while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  return i < n && text[i] == '{';
}

/* Key v as an integer in [lo, 2^53]. */
static int ps_int(const cJSON *v, int64_t lo, int64_t *out, char *err, size_t n) {
  double d = v->valuedouble;
  if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)lo || d > PS_MAX_INT) {
    snprintf(err, n, "'%s' must be an integer from %lld to 2^53", v->string, (long long)lo);
    return -1;
  }
  *out = (int64_t)d;
  return 0;
}

/* Key v as one of names (NULL-terminated), into vals[i]. */
static int ps_choice(const cJSON *v, const char *const *names, const int *vals, int *out,
                     const char *expected, char *err, size_t n) {
  int i;
  for (i = 0; cJSON_IsString(v) && names[i] != NULL; i++)
    if (strcasecmp(names[i], v->valuestring) == 0) {
      *out = vals[i];
      return 0;
    }
  snprintf(err, n, "'%s' must be %s", v->string, expected);
  return -1;
}

/* flash_attn: "auto", "on", "off", true, false, 1, 0. */
static int ps_flash_attn(const cJSON *v, int *out, char *err, size_t n) {
  static const char *const names[] = {"auto", "on", "off", "1", "0", NULL};
  static const int vals[] = {WT_FA_AUTO, WT_FA_ON, WT_FA_OFF, WT_FA_ON, WT_FA_OFF};
  if (cJSON_IsBool(v)) {
    *out = cJSON_IsTrue(v) ? WT_FA_ON : WT_FA_OFF;
    return 0;
  }
  if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
    *out = v->valuedouble == 1 ? WT_FA_ON : WT_FA_OFF;
    return 0;
  }
  return ps_choice(v, names, vals, out, "'auto', 'on' or 'off' (or true, false, 1, 0)", err, n);
}

/* cuda_cc: "8.9" or 8.9 (major.minor) into ggml's 100 major + 10 minor. */
static int ps_cuda_cc(const cJSON *v, int *out, char *err, size_t n) {
  double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
  char *end = NULL;
  if (cJSON_IsString(v))
    d = strtod(v->valuestring, &end);
  if ((cJSON_IsString(v) && (end == v->valuestring || *end != 0)) || !(d >= 7.5 && d < 100) ||
      fabs(d * 10 - floor(d * 10 + 0.5)) > 1e-9) {
    snprintf(err, n, "'cuda_cc' must be a compute capability such as 8.9 or '9.0', from 7.5");
    return -1;
  }
  *out = (int)floor(d * 10 + 0.5) * 10;
  return 0;
}

/* One key's value into s or ask. */
static int ps_key(int k, const cJSON *v, wt_mem_settings *s, wt_fit_ask *ask, char *err, size_t n) {
  static const char *const cpus[] = {"host", "amx", "avx512", "avx2", "none", NULL};
  static const int cpu_vals[] = {WT_CPU_HOST, WT_CPU_AMX, WT_CPU_AVX512, WT_CPU_AVX2, WT_CPU_NONE};
  static const char *const gpus[] = {"cuda", "none", NULL};
  static const int gpu_vals[] = {WT_GPU_CUDA, WT_GPU_NONE};
  int64_t i;
  switch (k) {
  case PS_N_CTX:
  case PS_N_SEQ:
  case PS_N_UBATCH:
    if (ps_int(v, 1, &i, err, n) != 0)
      return -1;
    if (k == PS_N_CTX) {
      s->n_ctx = (uint64_t)i;
      if (ask)
        ask->has_ctx = 1;
    } else if (k == PS_N_SEQ)
      s->n_seq = (uint64_t)i;
    else
      s->n_ubatch = (uint64_t)i;
    return 0;
  case PS_TYPE_K:
  case PS_TYPE_V:
    i = cJSON_IsString(v) ? wt_settings_type(v->valuestring) : -1;
    if (i < 0) {
      snprintf(err, n,
               "'%s' must be a ggml type name (f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, "
               "q5_1, iq4_nl)",
               v->string);
      return -1;
    }
    *(k == PS_TYPE_K ? &s->type_k : &s->type_v) = i;
    return 0;
  case PS_FLASH_ATTN:
    return ps_flash_attn(v, &s->flash_attn, err, n);
  case PS_CPU:
    return ps_choice(v, cpus, cpu_vals, &s->cpu, "'host', 'amx', 'avx512', 'avx2' or 'none'", err,
                     n);
  case PS_GPU:
    return ps_choice(v, gpus, gpu_vals, &s->gpu, "'cuda' or 'none'", err, n);
  case PS_N_GPU_LAYERS:
    if (ps_int(v, -1, &s->n_gpu_layers, err, n) != 0)
      return -1;
    if (ask)
      ask->has_layers = 1;
    return 0;
  case PS_CUDA_CC:
    return ps_cuda_cc(v, &s->cuda_cc, err, n);
  case PS_OP_OFFLOAD:
  case PS_SWA_FULL:
    if (!cJSON_IsBool(v)) {
      snprintf(err, n, "'%s' must be true or false", v->string);
      return -1;
    }
    *(k == PS_OP_OFFLOAD ? &s->op_offload : &s->swa_full) = cJSON_IsTrue(v);
    return 0;
  default: /* PS_RAM, PS_VRAM */
    if (ask == NULL) {
      snprintf(err, n, "'%s' is a budget: gguf_fit() takes it, not gguf_memory()", v->string);
      return -1;
    }
    if (ps_int(v, 0, &i, err, n) != 0)
      return -1;
    if (k == PS_RAM) {
      ask->has_ram = 1;
      ask->ram = (uint64_t)i;
    } else {
      ask->has_vram = 1;
      ask->vram = (uint64_t)i;
    }
    return 0;
  }
}

int wt_settings_parse(const char *text, size_t n, wt_mem_settings *s, wt_fit_ask *ask, char *err,
                      size_t err_size) {
  cJSON *root = cJSON_ParseWithLength(text, n), *v;
  int seen[PS_N_KEYS] = {0}, given[PS_N_KEYS] = {0}, k, rc = -1;
  err[0] = 0;
  if (ask)
    memset(ask, 0, sizeof(*ask));
  if (root == NULL || !cJSON_IsObject(root)) {
    snprintf(err, err_size, "the settings are not a JSON object");
    goto done;
  }
  for (v = root->child; v != NULL; v = v->next) {
    for (k = 0; k < PS_N_KEYS && strcmp(ps_keys[k], v->string) != 0; k++)
      ;
    if (k == PS_N_KEYS) {
      snprintf(err, err_size,
               "unknown setting '%.40s' (n_ctx, n_seq, n_ubatch, type_k, "
               "type_v, flash_attn, cpu, gpu, n_gpu_layers, cuda_cc, op_offload, swa_full, ram, "
               "vram)",
               v->string);
      goto done;
    }
    if (seen[k]++) {
      snprintf(err, err_size, "setting '%s' is given twice", ps_keys[k]);
      goto done;
    }
    if (cJSON_IsNull(v) && k != PS_RAM && k != PS_VRAM)
      continue; /* the default */
    if (cJSON_IsNull(v)) {
      snprintf(err, err_size, "budget '%s' is null: give a number of bytes", ps_keys[k]);
      goto done;
    }
    if (ps_key(k, v, s, ask, err, err_size) != 0)
      goto done;
    given[k] = 1;
  }
  /* offloading layers, or a VRAM budget, means a GPU unless said otherwise */
  if (!given[PS_GPU] &&
      ((given[PS_N_GPU_LAYERS] && s->n_gpu_layers != 0) || (ask && ask->has_vram)))
    s->gpu = WT_GPU_CUDA;
  if (s->gpu == WT_GPU_NONE && given[PS_N_GPU_LAYERS] && s->n_gpu_layers != 0) {
    snprintf(err, err_size, "'n_gpu_layers' %lld with gpu 'none': no GPU to offload to",
             (long long)s->n_gpu_layers);
    goto done;
  }
  rc = 0;
done:
  cJSON_Delete(root);
  return rc;
}
