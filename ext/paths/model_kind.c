/*
** model_kind.c: what a model is (architecture, kind, base model, context
** length, quantization).  See model_kind.h for the rules.
*/
#define _GNU_SOURCE /* memmem */
#include "model_kind.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_ftype.h"
#include "hf_config_file.h"
#include "model_arch.h"
#include "model_card_file.h"
#include "paths_int.h"

#define KIND_MAX_DTYPES 24 /* distinct dtypes kept for the mix (ggml has ~40) */
#define HF_URL          "https://huggingface.co/"
#define POOLING_RANK    4 /* llama.h: LLAMA_POOLING_TYPE_RANK (1 mean, 2 cls, 3 last) */

/* Tensors that a quantization scheme writes (kind_scan.flags). */
enum {
  T_QWEIGHT = 1 << 0,      /* .qweight (gptq, awq) */
  T_QZEROS = 1 << 1,       /* .qzeros (gptq, awq) */
  T_SCALE_INV = 1 << 2,    /* .weight_scale_inv (fp8, block-wise) */
  T_WEIGHT_SCALE = 1 << 3, /* .weight_scale (fp8, compressed-tensors) */
  T_F8 = 1 << 4,           /* a tensor of an F8_* dtype */
  T_ABSMAX = 1 << 5,       /* .absmax (bitsandbytes 4-bit) */
  T_SCB = 1 << 6,          /* .SCB (bitsandbytes 8-bit) */
  T_PACKED = 1 << 7,       /* .weight_packed (compressed-tensors) */
  T_SCALES = 1 << 8,       /* .scales (mlx, gptq) */
  T_BIASES = 1 << 9,       /* .biases (mlx) */
  T_LORA = 1 << 10         /* lora_A, lora_B, lora_down, lora_up in a name */
};

/* The bytes of one dtype. */
typedef struct kind_dtype {
  char name[24];
  uint64_t bytes;
} kind_dtype;

/* What the tensors of every part say. */
typedef struct kind_scan {
  kind_dtype dt[KIND_MAX_DTYPES];
  size_t n_dt;
  int complete; /* every part opened, every dtype known and kept */
  unsigned flags;
  uint64_t n_tensors;
} kind_scan;

/* The rule of a quantization method: the tensors it writes (all of need_all,
** or one of need_any) and the name given when they are absent. */
static const struct {
  const char *method;
  unsigned need_all, need_any;
  const char *missing;
} quant_rules[] = {
    {"gptq", T_QWEIGHT | T_QZEROS, 0, ".qweight"},
    {"awq", T_QWEIGHT | T_QZEROS, 0, ".qweight"},
    {"fp8", 0, T_SCALE_INV | T_WEIGHT_SCALE | T_F8, ".weight_scale_inv"},
    {"bitsandbytes", 0, T_ABSMAX | T_SCB, ".absmax"},
    {"compressed-tensors", 0, T_WEIGHT_SCALE | T_PACKED, ".weight_scale"},
    {"mlx", T_SCALES | T_BIASES, 0, ".scales"},
};

/* Copy p[0..n) into out (WT_KIND_TEXT bytes); too long leaves it empty. */
static void put(char *out, const char *p, size_t n) {
  out[0] = 0;
  if (n < WT_KIND_TEXT && memchr(p, 0, n) == NULL) {
    memcpy(out, p, n);
    out[n] = 0;
  }
}

/* printf into out (WT_KIND_TEXT bytes); what does not fit leaves it empty. */
static void textf(char *out, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(out, WT_KIND_TEXT, fmt, ap);
  va_end(ap);
  if (n < 0 || n >= WT_KIND_TEXT)
    out[0] = 0;
}

/* Does s[0..n) contain sub? */
static int holds(const char *s, size_t n, const char *sub) {
  return memmem(s, n, sub, strlen(sub)) != NULL;
}

/* ---- the tensors of every part ---- */

/* Name endings, and parts of names, that tell a scheme's tensors. */
static const struct {
  const char *text;
  int suffix; /* 1: the name ends with text; 0: holds it anywhere */
  unsigned flag;
} name_marks[] = {
    {".qweight", 1, T_QWEIGHT},
    {".qzeros", 1, T_QZEROS},
    {".weight_scale_inv", 1, T_SCALE_INV},
    {".weight_scale", 1, T_WEIGHT_SCALE},
    {".absmax", 1, T_ABSMAX},
    {".SCB", 1, T_SCB},
    {".weight_packed", 1, T_PACKED},
    {".scales", 1, T_SCALES},
    {".biases", 1, T_BIASES},
    {"lora_A", 0, T_LORA},
    {"lora_B", 0, T_LORA},
    {"lora_down", 0, T_LORA},
    {"lora_up", 0, T_LORA},
};

/* Add tensor t to the scan. */
static void scan_tensor(kind_scan *sc, const wt_tensor *t) {
  const char *p = t->name.p;
  size_t n = t->name.n, i;
  sc->n_tensors++;
  for (i = 0; i < sizeof(name_marks) / sizeof(name_marks[0]); i++)
    if (name_marks[i].suffix ? wt_paths_ends(p, n, name_marks[i].text)
                             : holds(p, n, name_marks[i].text))
      sc->flags |= name_marks[i].flag;
  if (t->dtype.n > 3 && memcmp(t->dtype.p, "F8_", 3) == 0)
    sc->flags |= T_F8;
  if (t->dtype.n == 0 || t->dtype.n >= sizeof(sc->dt[0].name) || !t->nbytes_known) {
    sc->complete = 0;
    return;
  }
  for (i = 0; i < sc->n_dt; i++)
    if (strlen(sc->dt[i].name) == t->dtype.n && memcmp(sc->dt[i].name, t->dtype.p, t->dtype.n) == 0)
      break;
  if (i == sc->n_dt) {
    if (sc->n_dt == KIND_MAX_DTYPES) {
      sc->complete = 0;
      return;
    }
    memcpy(sc->dt[i].name, t->dtype.p, t->dtype.n);
    sc->dt[i].name[t->dtype.n] = 0;
    sc->dt[i].bytes = 0;
    sc->n_dt++;
  }
  sc->dt[i].bytes += t->nbytes;
}

/* Scan the tensors of every part of model pm; *first gets part 1's source
** (to release), or NULL when it does not open. */
static void scan_parts(wt_cache *cache, const wt_pathlist *l, const wt_path_model *pm,
                       kind_scan *sc, wt_source **first) {
  size_t i, k;
  memset(sc, 0, sizeof(*sc));
  sc->complete = pm->n_parts > 0;
  *first = NULL;
  for (i = 0; i < pm->n_parts; i++) {
    const char *path = l->files[pm->parts[i]].path;
    wt_source *src;
    wt_error e;
    if (wt_cache_open(cache, path, strlen(path), pm->format, &src, &e) != 0) {
      sc->complete = 0;
      continue;
    }
    for (k = 0; k < src->model.n_tensors; k++)
      scan_tensor(sc, &src->model.tensors[k]);
    if (i == 0)
      *first = src;
    else
      wt_source_release(src);
  }
}

/* Write the dtype mix (most bytes first, "+"-joined) into out; empty when
** the scan is incomplete or found no tensors. */
static void dtype_mix(kind_scan *sc, char *out) {
  size_t i, j, at = 0;
  out[0] = 0;
  if (!sc->complete || sc->n_dt == 0)
    return;
  for (i = 1; i < sc->n_dt; i++) /* insertion sort: bytes descending, then name */
    for (j = i; j > 0 && (sc->dt[j].bytes > sc->dt[j - 1].bytes ||
                          (sc->dt[j].bytes == sc->dt[j - 1].bytes &&
                           strcmp(sc->dt[j].name, sc->dt[j - 1].name) < 0));
         j--) {
      kind_dtype t = sc->dt[j];
      sc->dt[j] = sc->dt[j - 1];
      sc->dt[j - 1] = t;
    }
  for (i = 0; i < sc->n_dt; i++) {
    int w = snprintf(out + at, WT_KIND_TEXT - at, "%s%s", i ? "+" : "", sc->dt[i].name);
    if (w < 0 || (size_t)w >= WT_KIND_TEXT - at) {
      out[0] = 0;
      return;
    }
    at += (size_t)w;
  }
}

/* ---- GGUF ---- */

/* The string value of GGUF key of s into out (valid UTF-8, fitting): 1 when
** set, else 0. */
static int gguf_text(const wt_source *s, const char *key, char *out) {
  gguf_scalar v;
  out[0] = 0;
  if (wt_source_gguf_scalar(s, key, &v) != 0 || v.kind != GGUF_SCALAR_TEXT || !v.s_utf8)
    return 0;
  put(out, v.s.p, v.s.n);
  return out[0] != 0;
}

/* general.base_model.0.* of s as "org/name", into out. */
static void gguf_base_model(const wt_source *s, char *out) {
  char org[WT_KIND_TEXT], name[WT_KIND_TEXT];
  size_t k = strlen(HF_URL);
  if (gguf_text(s, "general.base_model.0.repo_url", out)) {
    if (strncmp(out, HF_URL, k) == 0 && out[k] != 0)
      memmove(out, out + k, strlen(out + k) + 1);
    return;
  }
  if (!gguf_text(s, "general.base_model.0.name", name))
    return;
  if (gguf_text(s, "general.base_model.0.organization", org))
    textf(out, "%s/%s", org, name);
  else
    textf(out, "%s", name);
}

/* The kind of GGUF model s (part 1), its architecture arch ("" if none). */
static const char *gguf_kind(const wt_source *s, const char *arch, const kind_scan *sc) {
  char type[WT_KIND_TEXT], key[WT_KIND_TEXT + 16];
  gguf_scalar v;
  gguf_text(s, "general.type", type);
  if (strcmp(type, "adapter") == 0 || strcmp(arch, "controlvector") == 0)
    return "adapter";
  if (strcmp(type, "mmproj") == 0 || strcmp(arch, "clip") == 0)
    return "projector";
  if (strcmp(type, "imatrix") == 0)
    return "imatrix";
  if (sc->complete && sc->n_tensors == 0 &&
      wt_source_find_meta(s, "tokenizer.ggml.model", strlen("tokenizer.ggml.model")) != NULL)
    return "vocab";
  snprintf(key, sizeof(key), "%s.pooling_type", arch);
  if (arch[0] != 0 && wt_source_gguf_scalar(s, key, &v) == 0 && v.kind == GGUF_SCALAR_INT) {
    if (v.i == POOLING_RANK)
      return "reranker";
    if (v.i >= 1 && v.i < POOLING_RANK)
      return "embedding";
  }
  return arch[0] != 0 ? "model" : "unknown";
}

/* Describe a GGUF model from part 1 (s) and the scan. */
static void gguf_describe(const wt_source *s, kind_scan *sc, wt_model_kind *out) {
  const char *ftype;
  int64_t id;
  gguf_text(s, "general.architecture", out->architecture);
  out->kind = gguf_kind(s, out->architecture, sc);
  gguf_base_model(s, out->base_model);
  out->has_context_length = wt_source_arch_uint(s, "context_length", &out->context_length) == 0;
  if (gguf_file_type(&s->model, s->header, &id) && (ftype = ggml_ftype_name(id)) != NULL &&
      strcmp(ftype, "GUESSED") != 0) {
    const char *u = strchr(ftype, '_'); /* MOSTLY_Q8_0 -> Q8_0, ALL_F32 -> F32 */
    textf(out->quantization, "%s", u != NULL ? u + 1 : ftype);
  } else {
    dtype_mix(sc, out->quantization);
  }
}

/* ---- safetensors and config.json ---- */

/* The entry of cfg named key, or NULL. */
static const wt_config_entry *cfg_get(const wt_config *cfg, const char *key) {
  size_t i;
  for (i = 0; i < cfg->n; i++)
    if (strcmp(cfg->entries[i].key, key) == 0)
      return &cfg->entries[i];
  return NULL;
}

/* A string entry of cfg without escapes into out: 1 when set. */
static int cfg_str(const wt_config *cfg, const char *key, char *out) {
  const wt_config_entry *e = cfg_get(cfg, key);
  size_t n;
  out[0] = 0;
  if (e == NULL || strcmp(e->type, "string") != 0 || strchr(e->value, '\\') != NULL)
    return 0;
  n = strlen(e->value);
  put(out, e->value + 1, n - 2); /* the JSON text between its quotes */
  return out[0] != 0;
}

/* A non-negative integer entry of cfg (digits only) into *v: 1 when set. */
static int cfg_uint(const wt_config *cfg, const char *key, uint64_t *v) {
  const wt_config_entry *e = cfg_get(cfg, key);
  const char *p;
  uint64_t x = 0;
  if (e == NULL || strcmp(e->type, "number") != 0 || e->value[0] == 0)
    return 0;
  for (p = e->value; *p != 0; p++) {
    if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
      return 0;
    x = x * 10 + (uint64_t)(*p - '0');
  }
  *v = x;
  return 1;
}

/* Is entry key of cfg the JSON true? */
static int cfg_true(const wt_config *cfg, const char *key) {
  const wt_config_entry *e = cfg_get(cfg, key);
  return e != NULL && strcmp(e->value, "true") == 0;
}

/* How many entries of cfg start with prefix. */
static size_t cfg_count(const wt_config *cfg, const char *prefix) {
  size_t i, n = 0, k = strlen(prefix);
  for (i = 0; i < cfg->n; i++)
    n += strncmp(cfg->entries[i].key, prefix, k) == 0;
  return n;
}

/* The kind of a safetensors model: its file name, the scan, its config. */
static const char *st_kind(const char *path, const kind_scan *sc, const wt_config *cfg) {
  const char *base = strrchr(path, '/'), *a = cfg->hf_arch;
  uint64_t labels = 0;
  size_t n = a != NULL ? strlen(a) : 0;
  base = base != NULL ? base + 1 : path;
  if (strncmp(base, "adapter_model", strlen("adapter_model")) == 0 || (sc->flags & T_LORA))
    return "adapter";
  if (a != NULL && wt_paths_ends(a, n, "ForSequenceClassification") &&
      ((cfg_uint(cfg, "num_labels", &labels) && labels == 1) || cfg_count(cfg, "id2label.") == 1))
    return "reranker";
  if (a != NULL && wt_paths_ends(a, n, "Model") && strstr(a, "For") == NULL &&
      !wt_paths_ends(a, n, "LMHeadModel"))
    return "embedding";
  return cfg->model_type != NULL || a != NULL ? "model" : "unknown";
}

/* The quantization of a safetensors model: its config's method checked
** against the scan, the scan's tensors alone, or the dtype mix. */
static void st_quantization(const wt_config *cfg, kind_scan *sc, char *out) {
  char method[WT_KIND_TEXT], label[WT_KIND_TEXT];
  uint64_t bits = 0;
  size_t i;
  if (cfg_str(cfg, "quantization_config.quant_method", method)) {
    if (!cfg_uint(cfg, "quantization_config.bits", &bits))
      bits = cfg_true(cfg, "quantization_config.load_in_4bit")   ? 4
             : cfg_true(cfg, "quantization_config.load_in_8bit") ? 8
                                                                 : 0;
  } else if (cfg_count(cfg, "quantization.") > 0) { /* mlx: {"group_size": 64, "bits": 4} */
    strcpy(method, "mlx");
    cfg_uint(cfg, "quantization.bits", &bits);
  } else {
    method[0] = 0;
  }
  if (method[0] != 0) {
    if (bits > 0)
      textf(label, "%s %llu-bit", method, (unsigned long long)bits);
    else
      textf(label, "%s", method);
    for (i = 0; i < sizeof(quant_rules) / sizeof(quant_rules[0]); i++)
      if (strcmp(method, quant_rules[i].method) == 0 && sc->complete &&
          ((sc->flags & quant_rules[i].need_all) != quant_rules[i].need_all ||
           (quant_rules[i].need_any != 0 && (sc->flags & quant_rules[i].need_any) == 0))) {
        textf(out, "%s (config.json only: no %s tensors)", label, quant_rules[i].missing);
        return;
      }
    textf(out, "%s", label);
  } else if ((sc->flags & (T_QWEIGHT | T_QZEROS)) == (T_QWEIGHT | T_QZEROS)) {
    strcpy(out, "gptq/awq (tensor names)");
  } else if (sc->flags & (T_ABSMAX | T_SCB)) {
    strcpy(out, "bitsandbytes (tensor names)");
  } else if (sc->flags & T_SCALE_INV) {
    strcpy(out, "fp8 (tensor names)");
  } else if ((sc->flags & (T_SCALES | T_BIASES)) == (T_SCALES | T_BIASES)) {
    strcpy(out, "mlx (tensor names)");
  } else {
    dtype_mix(sc, out);
  }
}

/* base_model_name_or_path of the adapter_config.json beside path. */
static void st_adapter_base(const char *path, char *out) {
  static const char name[] = "adapter_config.json";
  char cfg_path[PATH_MAX];
  const char *slash = strrchr(path, '/');
  size_t dir = slash != NULL ? (size_t)(slash - path) + 1 : 0;
  wt_config cfg;
  wt_error e;
  out[0] = 0;
  if (dir + sizeof(name) > sizeof(cfg_path))
    return;
  memcpy(cfg_path, path, dir);
  memcpy(cfg_path + dir, name, sizeof(name));
  if (wt_config_load(cfg_path, 1, &cfg, &e) != 0)
    return;
  cfg_str(&cfg, "base_model_name_or_path", out);
  wt_config_free(&cfg);
}

/* Describe a safetensors model named by path from its config.json and the
** scan.  Returns 0, or -1 when out of memory. */
static int st_describe(const char *path, kind_scan *sc, wt_model_kind *out) {
  static const char *const ctx_keys[] = {
      "max_position_embeddings", "n_ctx",           "n_positions", "max_length",
      "max_sequence_length",     "model_max_length"};
  char cfg_path[PATH_MAX], key[64];
  wt_config cfg;
  wt_error e;
  size_t i, pass;
  int rc;
  memset(&cfg, 0, sizeof(cfg));
  rc = wt_config_locate(path, cfg_path, sizeof(cfg_path)) == 0
           ? wt_config_load(cfg_path, 1, &cfg, &e)
           : 1;
  if (rc < 0 && strncmp(e.msg, "out of memory", strlen("out of memory")) == 0)
    return -1;
  if (rc != 0)
    memset(&cfg, 0, sizeof(cfg)); /* no config.json, or one that does not parse */
  if (cfg.model_type != NULL)
    put(out->architecture, cfg.model_type, strlen(cfg.model_type));
  else if (cfg.hf_arch != NULL)
    put(out->architecture, cfg.hf_arch, strlen(cfg.hf_arch));
  out->kind = st_kind(path, sc, &cfg);
  if (strcmp(out->kind, "adapter") == 0)
    st_adapter_base(path, out->base_model);
  for (pass = 0; pass < 2 && !out->has_context_length; pass++)
    for (i = 0; i < sizeof(ctx_keys) / sizeof(ctx_keys[0]) && !out->has_context_length; i++) {
      snprintf(key, sizeof(key), "%s%s", pass ? "text_config." : "", ctx_keys[i]);
      out->has_context_length = cfg_uint(&cfg, key, &out->context_length);
    }
  st_quantization(&cfg, sc, out->quantization);
  wt_config_free(&cfg);
  return 0;
}

int wt_model_kind_read(wt_cache *cache, const wt_pathlist *l, size_t m, wt_model_kind *out) {
  const wt_path_model *pm = &l->models[m];
  kind_scan sc;
  wt_source *first;
  int rc = 0;
  memset(out, 0, sizeof(*out));
  out->kind = "unknown";
  scan_parts(cache, l, pm, &sc, &first);
  if (pm->format == WT_FORMAT_GGUF && first != NULL)
    gguf_describe(first, &sc, out);
  else if (pm->format == WT_FORMAT_SAFETENSORS)
    rc = st_describe(l->files[pm->name_file].path, &sc, out);
  /* where the file's own metadata is silent, the model card's front matter
  ** (a card that cannot be read, or holds another form, says nothing) */
  if (rc == 0 && out->base_model[0] == 0 && (first != NULL || pm->format == WT_FORMAT_SAFETENSORS))
    wt_card_base_model(l->files[pm->name_file].path, out->base_model, sizeof(out->base_model));
  if (first != NULL)
    wt_source_release(first);
  return rc;
}
