/*
** name_map.c: the Hugging Face <-> GGUF tensor-name table.  See
** name_map.h.
**
** Facts from llama.cpp's gguf-py (gguf/tensor_mapping.py: the HF names of
** each MODEL_TENSOR; gguf/constants.py: the GGUF name of each and the
** tensors each architecture has), not its code.  One row per name stem
** and the architectures it holds for; "{N}" stands for the layer number.
** Where one HF stem means different tensors in different architectures
** (post_attention_layernorm: the FFN norm of llama, the post-attention
** norm of gemma2/3, whose FFN norm is pre_feedforward_layernorm) there is
** a row per meaning with disjoint architectures, so that each direction
** is a function for every architecture (name_map_test checks pairs both
** ways).
*/
#include "name_map.h"

#include <string.h>

enum {
  A_LLAMA = 1,
  A_QWEN2 = 2,
  A_QWEN3 = 4,
  A_GEMMA = 8,
  A_GEMMA2 = 16,
  A_GEMMA3 = 32,
  A_PHI3 = 64,
  A_ALL = 127,
  A_GEMMA23 = A_GEMMA2 | A_GEMMA3,
};

static const struct {
  const char *name;
  int bit;
} name_archs[] = {
    {"llama", A_LLAMA}, {"mistral", A_LLAMA}, {"qwen2", A_QWEN2},   {"qwen3", A_QWEN3},
    {"gemma", A_GEMMA}, {"gemma2", A_GEMMA2}, {"gemma3", A_GEMMA3}, {"phi3", A_PHI3},
};

static const struct {
  const char *hf, *gguf;
  int archs;
} name_rows[] = {
    {"model.embed_tokens", "token_embd", A_ALL},
    {"model.norm", "output_norm", A_ALL},
    {"lm_head", "output", A_ALL},
    {"model.layers.{N}.input_layernorm", "blk.{N}.attn_norm", A_ALL},
    {"model.layers.{N}.self_attn.q_proj", "blk.{N}.attn_q", A_ALL & ~A_PHI3},
    {"model.layers.{N}.self_attn.k_proj", "blk.{N}.attn_k", A_ALL & ~A_PHI3},
    {"model.layers.{N}.self_attn.v_proj", "blk.{N}.attn_v", A_ALL & ~A_PHI3},
    {"model.layers.{N}.self_attn.qkv_proj", "blk.{N}.attn_qkv", A_PHI3},
    {"model.layers.{N}.self_attn.o_proj", "blk.{N}.attn_output", A_ALL},
    {"model.layers.{N}.self_attn.q_norm", "blk.{N}.attn_q_norm", A_QWEN3 | A_GEMMA3},
    {"model.layers.{N}.self_attn.k_norm", "blk.{N}.attn_k_norm", A_QWEN3 | A_GEMMA3},
    {"model.layers.{N}.post_attention_layernorm", "blk.{N}.ffn_norm", A_ALL & ~A_GEMMA23},
    {"model.layers.{N}.post_attention_layernorm", "blk.{N}.post_attention_norm", A_GEMMA23},
    {"model.layers.{N}.pre_feedforward_layernorm", "blk.{N}.ffn_norm", A_GEMMA23},
    {"model.layers.{N}.post_feedforward_layernorm", "blk.{N}.post_ffw_norm", A_GEMMA23},
    {"model.layers.{N}.mlp.gate_proj", "blk.{N}.ffn_gate", A_ALL & ~A_PHI3},
    {"model.layers.{N}.mlp.up_proj", "blk.{N}.ffn_up", A_ALL & ~A_PHI3},
    {"model.layers.{N}.mlp.gate_up_proj", "blk.{N}.ffn_up", A_PHI3},
    {"model.layers.{N}.mlp.down_proj", "blk.{N}.ffn_down", A_ALL},
};

/* The architecture's bit, or 0. */
static int arch_bit(const char *arch) {
  size_t i;
  for (i = 0; arch != NULL && i < sizeof(name_archs) / sizeof(name_archs[0]); i++)
    if (strcmp(arch, name_archs[i].name) == 0)
      return name_archs[i].bit;
  return 0;
}

int wt_name_map_knows(const char *arch) {
  return arch_bit(arch) != 0;
}

/* Does name[0..n) start with pattern's stem, followed by its end or a
** '.'?  On a match, *num, *num_n are the layer digits ({N}) and *rest the
** offset of what follows the stem. */
static int stem_match(const char *pat, const char *name, size_t n, size_t *num, size_t *num_n,
                      size_t *rest) {
  const char *brace = strstr(pat, "{N}");
  size_t lead = brace ? (size_t)(brace - pat) : strlen(pat), i = lead, tail;
  if (n < lead || memcmp(name, pat, lead) != 0)
    return 0;
  *num = i;
  *num_n = 0;
  if (brace) {
    while (i < n && name[i] >= '0' && name[i] <= '9')
      i++;
    *num_n = i - lead;
    if (*num_n == 0 || *num_n > 9)
      return 0;
    tail = strlen(brace + 3);
    if (n - i < tail || memcmp(name + i, brace + 3, tail) != 0)
      return 0;
    i += tail;
  }
  if (i < n && name[i] != '.')
    return 0;
  *rest = i;
  return 1;
}

/* Write pattern to out with the layer digits for {N} and then the rest of
** the name. */
static int fill(const char *pat, const char *num, size_t num_n, const char *rest, size_t rest_n,
                char *out, size_t cap) {
  const char *brace = strstr(pat, "{N}");
  size_t lead = brace ? (size_t)(brace - pat) : strlen(pat);
  size_t tail = brace ? strlen(brace + 3) : 0, len = lead + num_n + tail + rest_n;
  if (len + 1 > cap)
    return -1;
  memcpy(out, pat, lead);
  memcpy(out + lead, num, num_n);
  if (brace)
    memcpy(out + lead + num_n, brace + 3, tail);
  memcpy(out + lead + num_n + tail, rest, rest_n);
  out[len] = 0;
  return (int)len;
}

/* Map name with the rows' from column to their to column (to_gguf: HF to
** GGUF). */
static int map_name(const char *arch, const char *name, size_t n, char *out, size_t cap,
                    int to_gguf) {
  int bit = arch_bit(arch);
  size_t i, num, num_n, rest;
  if (bit == 0 || name == NULL)
    return 0;
  /* Gemma 3's multimodal checkpoints put the text model under
  ** language_model.; the converter drops the prefix. */
  if (to_gguf && bit == A_GEMMA3 && n > 15 && memcmp(name, "language_model.", 15) == 0) {
    name += 15;
    n -= 15;
  }
  for (i = 0; i < sizeof(name_rows) / sizeof(name_rows[0]); i++) {
    const char *from = to_gguf ? name_rows[i].hf : name_rows[i].gguf;
    const char *to = to_gguf ? name_rows[i].gguf : name_rows[i].hf;
    if ((name_rows[i].archs & bit) && stem_match(from, name, n, &num, &num_n, &rest))
      return fill(to, name + num, num_n, name + rest, n - rest, out, cap);
  }
  return 0;
}

int wt_name_hf_to_gguf(const char *arch, const char *name, size_t n, char *out, size_t cap) {
  return map_name(arch, name, n, out, cap, 1);
}

int wt_name_gguf_to_hf(const char *arch, const char *name, size_t n, char *out, size_t cap) {
  return map_name(arch, name, n, out, cap, 0);
}
