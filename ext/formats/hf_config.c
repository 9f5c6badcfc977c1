/*
** hf_config.c: config.json into flattened entries and a GGUF
** architecture.  See hf_config.h.
**
** The architecture list is a fact table from llama.cpp's
** convert_hf_to_gguf.py (its ModelBase.register() names and each class's
** model_arch), not its code.
*/
#include "hf_config.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *hf, *gguf;
} config_archs[] = {
    {"LLaMAForCausalLM", "llama"},
    {"LlamaForCausalLM", "llama"},
    {"MistralForCausalLM", "llama"},
    {"MixtralForCausalLM", "llama"},
    {"Qwen2ForCausalLM", "qwen2"},
    {"Qwen2MoeForCausalLM", "qwen2moe"},
    {"Qwen3ForCausalLM", "qwen3"},
    {"Qwen3MoeForCausalLM", "qwen3moe"},
    {"GemmaForCausalLM", "gemma"},
    {"Gemma2ForCausalLM", "gemma2"},
    {"Gemma3ForCausalLM", "gemma3"},
    {"Gemma3ForConditionalGeneration", "gemma3"},
    {"Phi3ForCausalLM", "phi3"},
    {"PhiForCausalLM", "phi2"},
    {"GraniteForCausalLM", "granite"},
    {"GraniteMoeForCausalLM", "granitemoe"},
    {"Starcoder2ForCausalLM", "starcoder2"},
    {"GPT2LMHeadModel", "gpt2"},
    {"FalconForCausalLM", "falcon"},
    {"Olmo2ForCausalLM", "olmo2"},
    {"DeepseekV2ForCausalLM", "deepseek2"},
    {"DeepseekV3ForCausalLM", "deepseek2"},
};

const char *wt_config_gguf_arch(const char *hf_arch) {
  size_t i;
  for (i = 0; hf_arch != NULL && i < sizeof(config_archs) / sizeof(config_archs[0]); i++)
    if (strcmp(hf_arch, config_archs[i].hf) == 0)
      return config_archs[i].gguf;
  return NULL;
}

void wt_config_free(wt_config *c) {
  size_t i;
  for (i = 0; i < c->n; i++) {
    free(c->entries[i].key);
    free(c->entries[i].value);
  }
  free(c->entries);
  free(c->hf_arch);
  free(c->model_type);
  memset(c, 0, sizeof(*c));
}

/* The type name of a JSON value. */
static const char *json_type(const cJSON *v) {
  if (cJSON_IsObject(v))
    return "object";
  if (cJSON_IsArray(v))
    return "array";
  if (cJSON_IsString(v))
    return "string";
  if (cJSON_IsNumber(v))
    return "number";
  if (cJSON_IsBool(v))
    return "boolean";
  return "null";
}

/* A malloc'd copy of s. */
static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p != NULL)
    memcpy(p, s, n);
  return p;
}

/* Append entry prefix.key (prefix may be NULL) = v.  Returns 0 or -1. */
static int add_entry(wt_config *c, size_t *cap, const char *prefix, const char *key,
                     const cJSON *v) {
  size_t pn = prefix ? strlen(prefix) + 1 : 0, kn = strlen(key);
  wt_config_entry *e;
  if (c->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 32;
    wt_config_entry *p = realloc(c->entries, ncap * sizeof(*p));
    if (p == NULL)
      return -1;
    c->entries = p;
    *cap = ncap;
  }
  e = &c->entries[c->n];
  e->key = malloc(pn + kn + 1);
  e->value = cJSON_PrintUnformatted(v);
  e->type = json_type(v);
  if (e->key == NULL || e->value == NULL) {
    free(e->key);
    free(e->value);
    return -1;
  }
  if (prefix) {
    memcpy(e->key, prefix, pn - 1);
    e->key[pn - 1] = '.';
  }
  memcpy(e->key + pn, key, kn + 1);
  c->n++;
  return 0;
}

/* Walk the top-level object: each member, or each member of a non-empty
** object member. */
static int flatten(wt_config *c, const cJSON *root) {
  size_t cap = 0;
  const cJSON *m, *k;
  cJSON_ArrayForEach(m, root) {
    if (cJSON_IsObject(m) && m->child != NULL) {
      cJSON_ArrayForEach(k, m) {
        if (add_entry(c, &cap, m->string, k->string, k))
          return -1;
      }
    } else if (add_entry(c, &cap, NULL, m->string, m)) {
      return -1;
    }
  }
  return 0;
}

int wt_config_parse(const char *text, size_t n, int flatten_all, wt_config *out, wt_error *err) {
  cJSON *root;
  const cJSON *archs, *mt;
  const char *end = NULL;
  memset(out, 0, sizeof(*out));
  if (n > WT_CONFIG_MAX_BYTES)
    return wt_fail(err, "config.json has %zu bytes, more than the %zu read", n,
                   WT_CONFIG_MAX_BYTES);
  /* The end pointer, not cJSON_GetErrorPtr(): that one is a global. */
  root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
  while (root != NULL && end < text + n && strchr(" \t\r\n", *end) != NULL && *end != 0)
    end++;
  if (root == NULL || end != text + n) {
    size_t off = end != NULL && end >= text && end <= text + n ? (size_t)(end - text) : 0;
    cJSON_Delete(root);
    return wt_fail(err, "config.json is not valid JSON (at byte %zu)", off);
  }
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return wt_fail(err, "config.json is not a JSON object");
  }
  archs = cJSON_GetObjectItemCaseSensitive(root, "architectures");
  mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
  if (cJSON_IsArray(archs) && cJSON_IsString(archs->child)) {
    if ((out->hf_arch = dup_str(archs->child->valuestring)) == NULL)
      goto nomem;
    out->arch = wt_config_gguf_arch(out->hf_arch);
  }
  if (cJSON_IsString(mt) && (out->model_type = dup_str(mt->valuestring)) == NULL)
    goto nomem;
  if (flatten_all && flatten(out, root))
    goto nomem;
  cJSON_Delete(root);
  return 0;
nomem:
  cJSON_Delete(root);
  wt_config_free(out);
  return wt_fail(err, "out of memory reading config.json");
}
