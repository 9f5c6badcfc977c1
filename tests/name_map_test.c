/*
** name_map_test.c: unit tests of ext/formats/name_map.c (Hugging Face <->
** GGUF tensor names).  Prints one line per test, then "name_map: N
** passed, M failed"; exits 1 on a failure.
**
** The expected pairs are written from llama.cpp's gguf-py (the HF names in
** gguf/tensor_mapping.py, the GGUF names and each architecture's tensor
** list in gguf/constants.py), one architecture at a time, not from the
** table in name_map.c.
*/
#include <stdio.h>
#include <string.h>

#include "formats/name_map.h"

static int n_pass, n_fail;

static void report(const char *what, int ok, const char *detail) {
  if (ok) {
    n_pass++;
    printf("ok   %s\n", what);
  } else {
    n_fail++;
    printf("FAIL %s: %s\n", what, detail);
  }
}

/* Both directions of one pair (gguf NULL: the HF name has no mapping). */
static int pair(const char *arch, const char *hf, const char *gguf, char *detail, size_t dn) {
  char out[256];
  int n = wt_name_hf_to_gguf(arch, hf, strlen(hf), out, sizeof(out));
  if (gguf == NULL) {
    if (n != 0)
      snprintf(detail, dn, "%s: %s -> %s, want no mapping", arch, hf, out);
    return n == 0;
  }
  if (n <= 0 || strcmp(out, gguf) != 0) {
    snprintf(detail, dn, "%s: %s -> %s, want %s", arch, hf, n > 0 ? out : "(none)", gguf);
    return 0;
  }
  n = wt_name_gguf_to_hf(arch, gguf, strlen(gguf), out, sizeof(out));
  if (n <= 0 || strcmp(out, hf) != 0) {
    snprintf(detail, dn, "%s: %s <- %s, want %s", arch, gguf, n > 0 ? out : "(none)", hf);
    return 0;
  }
  return 1;
}

typedef struct row {
  const char *hf, *gguf;
} row;

static void check_arch(const char *what, const char *arch, const row *r, size_t n) {
  char detail[512] = "";
  size_t i;
  int ok = 1;
  for (i = 0; i < n && ok; i++)
    ok = pair(arch, r[i].hf, r[i].gguf, detail, sizeof(detail));
  report(what, ok, detail);
}

/* The llama family (llama, mistral: the converter writes arch "llama"). */
static const row llama[] = {
    {"model.embed_tokens.weight", "token_embd.weight"},
    {"model.norm.weight", "output_norm.weight"},
    {"lm_head.weight", "output.weight"},
    {"model.layers.0.input_layernorm.weight", "blk.0.attn_norm.weight"},
    {"model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight"},
    {"model.layers.0.self_attn.k_proj.weight", "blk.0.attn_k.weight"},
    {"model.layers.0.self_attn.v_proj.weight", "blk.0.attn_v.weight"},
    {"model.layers.0.self_attn.o_proj.weight", "blk.0.attn_output.weight"},
    {"model.layers.0.post_attention_layernorm.weight", "blk.0.ffn_norm.weight"},
    {"model.layers.0.mlp.gate_proj.weight", "blk.0.ffn_gate.weight"},
    {"model.layers.0.mlp.up_proj.weight", "blk.0.ffn_up.weight"},
    {"model.layers.31.mlp.down_proj.weight", "blk.31.ffn_down.weight"},
    {"model.layers.123.self_attn.q_proj.weight", "blk.123.attn_q.weight"},
    {"model.layers.0.self_attn.rotary_emb.inv_freq", NULL},
    {"model.layers.0.self_attn.q_proj_no_perm.weight", NULL},
    {"model.layers.x.self_attn.q_proj.weight", NULL},
    {"model.normal.weight", NULL},
};

/* qwen2: llama's names, with q/k/v biases. */
static const row qwen2[] = {
    {"model.layers.3.self_attn.q_proj.bias", "blk.3.attn_q.bias"},
    {"model.layers.3.self_attn.k_proj.bias", "blk.3.attn_k.bias"},
    {"model.layers.3.self_attn.v_proj.bias", "blk.3.attn_v.bias"},
    {"model.layers.3.post_attention_layernorm.weight", "blk.3.ffn_norm.weight"},
    {"model.layers.3.self_attn.q_norm.weight", NULL},
};

/* qwen3: per-head q/k norms. */
static const row qwen3[] = {
    {"model.layers.5.self_attn.q_norm.weight", "blk.5.attn_q_norm.weight"},
    {"model.layers.5.self_attn.k_norm.weight", "blk.5.attn_k_norm.weight"},
    {"model.layers.5.post_attention_layernorm.weight", "blk.5.ffn_norm.weight"},
    {"model.layers.5.mlp.up_proj.weight", "blk.5.ffn_up.weight"},
};

/* gemma: llama's norms. */
static const row gemma[] = {
    {"model.embed_tokens.weight", "token_embd.weight"},
    {"model.layers.2.post_attention_layernorm.weight", "blk.2.ffn_norm.weight"},
    {"model.layers.2.pre_feedforward_layernorm.weight", NULL},
};

/* gemma2: sandwich norms; ffn_norm is the pre-feedforward norm. */
static const row gemma2[] = {
    {"model.layers.4.input_layernorm.weight", "blk.4.attn_norm.weight"},
    {"model.layers.4.post_attention_layernorm.weight", "blk.4.post_attention_norm.weight"},
    {"model.layers.4.pre_feedforward_layernorm.weight", "blk.4.ffn_norm.weight"},
    {"model.layers.4.post_feedforward_layernorm.weight", "blk.4.post_ffw_norm.weight"},
    {"model.layers.4.self_attn.q_norm.weight", NULL},
};

/* gemma3: gemma2's norms and per-head q/k norms. */
static const row gemma3[] = {
    {"model.layers.6.post_attention_layernorm.weight", "blk.6.post_attention_norm.weight"},
    {"model.layers.6.pre_feedforward_layernorm.weight", "blk.6.ffn_norm.weight"},
    {"model.layers.6.post_feedforward_layernorm.weight", "blk.6.post_ffw_norm.weight"},
    {"model.layers.6.self_attn.q_norm.weight", "blk.6.attn_q_norm.weight"},
    {"model.layers.6.self_attn.k_norm.weight", "blk.6.attn_k_norm.weight"},
};

/* phi3: fused qkv and gate_up projections. */
static const row phi3[] = {
    {"model.layers.1.self_attn.qkv_proj.weight", "blk.1.attn_qkv.weight"},
    {"model.layers.1.self_attn.o_proj.weight", "blk.1.attn_output.weight"},
    {"model.layers.1.mlp.gate_up_proj.weight", "blk.1.ffn_up.weight"},
    {"model.layers.1.mlp.down_proj.weight", "blk.1.ffn_down.weight"},
    {"model.layers.1.post_attention_layernorm.weight", "blk.1.ffn_norm.weight"},
    {"model.layers.1.mlp.up_proj.weight", NULL},
};

/* The 21 tensors of the demo model (tests/gen_model.c, llama): every one
** maps both ways and back. */
static void test_demo(void) {
  static const char *const names[] = {
      "model.embed_tokens.weight",
      "model.norm.weight",
      "lm_head.weight",
      "model.layers.0.input_layernorm.weight",
      "model.layers.0.self_attn.q_proj.weight",
      "model.layers.0.self_attn.k_proj.weight",
      "model.layers.0.self_attn.v_proj.weight",
      "model.layers.0.self_attn.o_proj.weight",
      "model.layers.0.post_attention_layernorm.weight",
      "model.layers.0.mlp.gate_proj.weight",
      "model.layers.0.mlp.up_proj.weight",
      "model.layers.0.mlp.down_proj.weight",
      "model.layers.1.input_layernorm.weight",
      "model.layers.1.self_attn.q_proj.weight",
      "model.layers.1.self_attn.k_proj.weight",
      "model.layers.1.self_attn.v_proj.weight",
      "model.layers.1.self_attn.o_proj.weight",
      "model.layers.1.post_attention_layernorm.weight",
      "model.layers.1.mlp.gate_proj.weight",
      "model.layers.1.mlp.up_proj.weight",
      "model.layers.1.mlp.down_proj.weight",
  };
  char g[256], h[256], detail[512] = "";
  size_t i;
  int ok = 1;
  for (i = 0; i < sizeof(names) / sizeof(names[0]) && ok; i++) {
    ok = wt_name_hf_to_gguf("llama", names[i], strlen(names[i]), g, sizeof(g)) > 0 &&
         wt_name_gguf_to_hf("llama", g, strlen(g), h, sizeof(h)) > 0 && strcmp(h, names[i]) == 0;
    if (!ok)
      snprintf(detail, sizeof(detail), "%s -> %s -> %s", names[i], g, h);
  }
  report("the demo model's 21 tensors round-trip (llama)", ok, detail);
}

/* Unknown architectures, small buffers, the Gemma 3 prefix. */
static void test_edges(void) {
  char out[64];
  const char *n = "model.layers.10.mlp.down_proj.weight";
  int ok = wt_name_hf_to_gguf("gpt2", n, strlen(n), out, sizeof(out)) == 0 &&
           wt_name_hf_to_gguf(NULL, n, strlen(n), out, sizeof(out)) == 0 &&
           !wt_name_map_knows("falcon") && wt_name_map_knows("mistral") &&
           wt_name_hf_to_gguf("llama", n, strlen(n), out, 23) == 22 &&
           strcmp(out, "blk.10.ffn_down.weight") == 0 &&
           wt_name_hf_to_gguf("llama", n, strlen(n), out, 22) == -1 &&
           wt_name_hf_to_gguf("llama", n, 29, out, sizeof(out)) == 15 && /* the stem alone */
           strcmp(out, "blk.10.ffn_down") == 0 &&
           wt_name_hf_to_gguf("gemma3", "language_model.model.layers.0.self_attn.q_norm.weight", 53,
                              out, sizeof(out)) > 0 &&
           strcmp(out, "blk.0.attn_q_norm.weight") == 0 &&
           wt_name_gguf_to_hf("phi3", "rope_factors_long.weight", 24, out, sizeof(out)) == 0;
  report("unknown archs, small buffers, stems, gemma3's language_model. prefix", ok, out);
}

int main(void) {
  check_arch("llama: every tensor both ways; unmapped names", "llama", llama,
             sizeof(llama) / sizeof(llama[0]));
  check_arch("mistral is llama", "mistral", llama, 13);
  check_arch("qwen2: q/k/v biases", "qwen2", qwen2, sizeof(qwen2) / sizeof(qwen2[0]));
  check_arch("qwen3: q/k norms", "qwen3", qwen3, sizeof(qwen3) / sizeof(qwen3[0]));
  check_arch("gemma: llama's norms", "gemma", gemma, sizeof(gemma) / sizeof(gemma[0]));
  check_arch("gemma2: sandwich norms", "gemma2", gemma2, sizeof(gemma2) / sizeof(gemma2[0]));
  check_arch("gemma3: sandwich and q/k norms", "gemma3", gemma3,
             sizeof(gemma3) / sizeof(gemma3[0]));
  check_arch("phi3: fused qkv and gate_up", "phi3", phi3, sizeof(phi3) / sizeof(phi3[0]));
  test_demo();
  test_edges();
  printf("name_map: %d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
