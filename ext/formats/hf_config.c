/*
** hf_config.c: config.json into flattened entries and a GGUF
** architecture.  See hf_config.h.
**
** The text is parsed by json_check.h's strict parser (RFC 8259, as
** serde_json), whose tokens point at their own text: values are copied
** from the file, so numbers and escapes are exactly as written.
**
** The architecture list is a fact table from llama.cpp's
** convert_hf_to_gguf.py (its ModelBase.register() names and each class's
** model_arch), not its code.
*/
#include "hf_config.h"

#include "json_check.h"

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

/* The type name of a token. */
static const char *token_type(const json_token *t) {
  static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};
  return t->type <= JSON_OBJECT ? names[t->type] : "null";
}

/* One past the last byte of the text of token i (with its quotes, its
** closing bracket). */
static size_t token_end(const json_doc *d, const char *text, size_t n, uint32_t i) {
  const json_token *t = &d->tok[i];
  uint32_t j, k, last = 0;
  size_t end;
  switch (t->type) {
  case JSON_NULL:
    return t->pos + 4;
  case JSON_BOOL:
    return t->pos + (text[t->pos] == 't' ? 4 : 5);
  case JSON_NUMBER:
    return t->pos + t->len;
  case JSON_STRING:
    return t->pos + t->len + 1;
  }
  end = t->pos + 1;
  for (j = i + 1, k = 0; k < t->len; k++) {
    if (t->type == JSON_OBJECT)
      j++; /* the key */
    last = j;
    j = d->tok[j].next;
  }
  if (t->len > 0)
    end = token_end(d, text, n, last);
  while (end < n && text[end] != ']' && text[end] != '}')
    end++; /* whitespace, then the closing bracket */
  return end + 1;
}

/* The text of token i as JSON, malloc'd: as written, minus whitespace
** outside strings (so numbers and escapes stay exactly as in the file). */
static char *token_json(const json_doc *d, const char *text, size_t n, uint32_t i) {
  size_t a = d->tok[i].pos - (d->tok[i].type == JSON_STRING), b = token_end(d, text, n, i), k,
         m = 0;
  int in_str = 0, esc = 0;
  char *out = malloc(b - a + 1);
  if (out == NULL)
    return NULL;
  for (k = a; k < b; k++) {
    char ch = text[k];
    if (in_str) {
      in_str = esc || ch != '"';
      esc = !esc && ch == '\\';
    } else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      continue;
    } else {
      in_str = ch == '"';
    }
    out[m++] = ch;
  }
  out[m] = 0;
  return out;
}

/* A string token decoded, malloc'd (NULL on OOM). */
static char *token_string(const char *text, const json_token *t) {
  char *s = malloc((size_t)t->len + 1);
  if (s != NULL)
    s[json_unescape(text + t->pos, t->len, s)] = 0;
  return s;
}

/* Append entry key (decoded key token k, after prefix and a dot when
** prefix) = token v.  Returns 0 or -1 (out of memory). */
static int add_entry(wt_config *c, size_t *cap, const json_doc *d, const char *text, size_t n,
                     const char *prefix, uint32_t k, uint32_t v) {
  size_t pn = prefix ? strlen(prefix) + 1 : 0;
  char *key = token_string(text, &d->tok[k]);
  wt_config_entry *e;
  if (key == NULL)
    return -1;
  if (c->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 32;
    wt_config_entry *p = realloc(c->entries, ncap * sizeof(*p));
    if (p == NULL) {
      free(key);
      return -1;
    }
    c->entries = p;
    *cap = ncap;
  }
  e = &c->entries[c->n];
  e->key = malloc(pn + strlen(key) + 1);
  e->value = token_json(d, text, n, v);
  e->type = token_type(&d->tok[v]);
  if (e->key == NULL || e->value == NULL) {
    free(e->key);
    free(e->value);
    free(key);
    return -1;
  }
  if (prefix) {
    memcpy(e->key, prefix, pn - 1);
    e->key[pn - 1] = '.';
  }
  memcpy(e->key + pn, key, strlen(key) + 1);
  free(key);
  c->n++;
  return 0;
}

/* Walk the top-level object: each member, or each member of a non-empty
** object member.  Also picks architectures[0] and model_type. */
static int walk(wt_config *c, const json_doc *d, const char *text, size_t n, int flatten) {
  size_t cap = 0;
  uint32_t j = 1, k, kk, jj;
  for (k = 0; k < d->tok[0].len; k++, j = d->tok[j + 1].next) {
    const json_token *key = &d->tok[j], *v = &d->tok[j + 1];
    if (key->len == 13 && memcmp(text + key->pos, "architectures", 13) == 0 && !key->escaped &&
        v->type == JSON_ARRAY && v->len > 0 && d->tok[j + 2].type == JSON_STRING &&
        c->hf_arch == NULL) {
      if ((c->hf_arch = token_string(text, &d->tok[j + 2])) == NULL)
        return -1;
      c->arch = wt_config_gguf_arch(c->hf_arch);
    }
    if (key->len == 10 && memcmp(text + key->pos, "model_type", 10) == 0 && !key->escaped &&
        v->type == JSON_STRING && c->model_type == NULL &&
        (c->model_type = token_string(text, v)) == NULL)
      return -1;
    if (!flatten)
      continue;
    if (v->type == JSON_OBJECT && v->len > 0) {
      char *prefix = token_string(text, key);
      int rc = 0;
      if (prefix == NULL)
        return -1;
      for (kk = 0, jj = j + 2; kk < v->len && rc == 0; kk++, jj = d->tok[jj + 1].next)
        rc = add_entry(c, &cap, d, text, n, prefix, jj, jj + 1);
      free(prefix);
      if (rc)
        return -1;
    } else if (add_entry(c, &cap, d, text, n, NULL, j, j + 1)) {
      return -1;
    }
  }
  return 0;
}

int wt_config_parse(const char *text, size_t n, int flatten, wt_config *out, wt_error *err) {
  json_doc doc = {0};
  wt_error e;
  memset(out, 0, sizeof(*out));
  if (n > WT_CONFIG_MAX_BYTES)
    return wt_fail(err, "config.json has %zu bytes, more than the %zu read", n,
                   WT_CONFIG_MAX_BYTES);
  if (json_parse(text, n, 0, &doc, &e)) {
    json_doc_free(&doc);
    return wt_fail(err, "config.json is not valid JSON: %s", json_error_detail(e.msg));
  }
  if (doc.tok[0].type != JSON_OBJECT) {
    json_doc_free(&doc);
    return wt_fail(err, "config.json is not a JSON object");
  }
  if (walk(out, &doc, text, n, flatten)) {
    json_doc_free(&doc);
    wt_config_free(out);
    return wt_fail(err, "out of memory reading config.json");
  }
  json_doc_free(&doc);
  return 0;
}
