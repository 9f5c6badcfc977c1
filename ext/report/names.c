/*
** names.c: layers, kinds and the llama name map of the report (names.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

const char *wt_kind_name(int kind) {
  static const char *const names[WT_KIND_COUNT] = {"q",    "k",  "v",    "o",
                                                   "gate", "up", "down", "norms"};
  return kind >= 0 && kind < WT_KIND_COUNT ? names[kind] : "?";
}

/* If name has prefix at its start or right after a '.', followed by digits
** and a '.', return the number; else -1. */
static int wt_number_after(const char *name, const char *prefix) {
  size_t len = strlen(prefix);
  const char *p = name;
  while ((p = strstr(p, prefix)) != NULL) {
    if (p == name || p[-1] == '.') {
      const char *d = p + len;
      long v = 0;
      int digits = 0;
      while (*d >= '0' && *d <= '9' && digits < 9) {
        v = v * 10 + (*d++ - '0');
        digits++;
      }
      if (digits > 0 && *d == '.')
        return (int)v;
    }
    p += len;
  }
  return -1;
}

int wt_name_layer(const char *name) {
  int n = wt_number_after(name, "blk.");
  if (n < 0)
    n = wt_number_after(name, "layers.");
  if (n < 0)
    n = wt_number_after(name, "h."); /* GPT-2 style */
  if (n >= 0)
    return n;
  if (strstr(name, "embd") || strstr(name, "embed") || strstr(name, "wte."))
    return WT_LAYER_EMBED;
  if (strncmp(name, "output", 6) == 0 || strstr(name, "lm_head") || strstr(name, "norm"))
    return WT_LAYER_OUTPUT;
  return WT_LAYER_OTHER;
}

int wt_name_kind(const char *name) {
  static const struct {
    const char *part;
    int kind;
  } parts[] = {
      {"norm", WT_KIND_NORM},      {"attn_q.", WT_KIND_Q},       {"q_proj.", WT_KIND_Q},
      {"attn_k.", WT_KIND_K},      {"k_proj.", WT_KIND_K},       {"attn_v.", WT_KIND_V},
      {"v_proj.", WT_KIND_V},      {"attn_output.", WT_KIND_O},  {"o_proj.", WT_KIND_O},
      {"ffn_gate.", WT_KIND_GATE}, {"gate_proj.", WT_KIND_GATE}, {"ffn_up.", WT_KIND_UP},
      {"up_proj.", WT_KIND_UP},    {"ffn_down.", WT_KIND_DOWN},  {"down_proj.", WT_KIND_DOWN},
  };
  size_t i;
  if (wt_name_layer(name) < 0)
    return -1;
  for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
    if (strstr(name, parts[i].part))
      return parts[i].kind;
  return -1;
}

int wt_name_to_gguf(const char *name, char *out, size_t n) {
  static const struct {
    const char *hf, *gg;
  } whole[] = {{"model.embed_tokens.weight", "token_embd.weight"},
               {"model.norm.weight", "output_norm.weight"},
               {"lm_head.weight", "output.weight"}},
    part[] = {{"self_attn.q_proj.", "attn_q."},          {"self_attn.k_proj.", "attn_k."},
              {"self_attn.v_proj.", "attn_v."},          {"self_attn.o_proj.", "attn_output."},
              {"mlp.gate_proj.", "ffn_gate."},           {"mlp.up_proj.", "ffn_up."},
              {"mlp.down_proj.", "ffn_down."},           {"input_layernorm.", "attn_norm."},
              {"post_attention_layernorm.", "ffn_norm."}};
  static const char layers[] = "model.layers.";
  size_t i;
  int len;
  for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
    if (strcmp(name, whole[i].hf) == 0)
      return snprintf(out, n, "%s", whole[i].gg) < (int)n ? 1 : -1;
  if (strncmp(name, layers, sizeof(layers) - 1) == 0) {
    const char *p = name + sizeof(layers) - 1, *rest;
    char *end;
    long layer = strtol(p, &end, 10);
    if (end != p && *end == '.') {
      rest = end + 1;
      for (i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
        size_t pl = strlen(part[i].hf);
        if (strncmp(rest, part[i].hf, pl) == 0) {
          len = snprintf(out, n, "blk.%ld.%s%s", layer, part[i].gg, rest + pl);
          return len >= 0 && (size_t)len < n ? 1 : -1;
        }
      }
    }
  }
  len = snprintf(out, n, "%s", name);
  return len >= 0 && (size_t)len < n ? 0 : -1;
}

int64_t wt_permuted_row(int64_t r, int64_t rows, int64_t n_head) {
  int64_t per_head, half, head, within;
  if (n_head <= 0 || rows % n_head != 0 || (rows / n_head) % 2 != 0 || r < 0 || r >= rows)
    return r;
  per_head = rows / n_head;
  half = per_head / 2;
  head = r / per_head;
  within = r % per_head; /* = i * 2 + j in llama.cpp's order */
  return head * per_head + (within % 2) * half + within / 2;
}
