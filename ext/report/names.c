/*
** names.c: the layer and kind of a tensor name (names.h).
*/
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
