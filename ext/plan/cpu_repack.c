/*
** cpu_repack.c: the CPU_REPACK rules of llama.cpp (cpu_repack.h).
**
** The source is ggml-org/llama.cpp as node-llama-cpp 3.22.1 bundles it
** (commit de3ff815 of its bundle), checked against its log in
** tests/memory_oracle.test:
**
**   - src/llama-model-loader.cpp (select_weight_buft): a weight goes to the
**     first buffer type of the CPU's list that supports the operation the
**     model uses it for; the extra buffer types (CPU_REPACK) come before
**     the plain CPU one;
**   - src/llama-arch.cpp (LLM_TENSOR_INFOS): that operation, per tensor:
**     GGML_OP_MUL_MAT for the projections and output, MUL_MAT_ID for the
**     experts, GET_ROWS for token_embd (so a tied output stays mapped);
**   - ggml/src/ggml-cpu/repack.cpp (supports_op): MUL_MAT of a weight of 2
**     dimensions or MUL_MAT_ID of one of 3, whose type and row count
**     ggml_repack_get_optimal_repack_type accepts.  On x86 that is:
**     with AVX2, Q4_0, Q4_K, IQ4_NL and MXFP4 when ne[1] % 8 == 0; with
**     AVX-512 also Q2_K, likewise.  The buffer's tensors are as large as in
**     the file (get_alloc_size is ggml_nbytes), each aligned to 32 bytes.
**
** The ARM, s390x and RISC-V rules are not modelled: a plan for such a CPU
** says "unknown" for a tensor of a type one of them repacks.
*/
#include <string.h>

#include "cpu_repack.h"

#define CR_ALIGN 32 /* TENSOR_ALIGNMENT of the CPU buffer types */

enum {
  CR_Q4_0 = 2,
  CR_Q8_0 = 8,
  CR_Q2_K = 10,
  CR_Q4_K = 12,
  CR_Q5_K = 13,
  CR_Q6_K = 14,
  CR_IQ4_NL = 20,
  CR_MXFP4 = 39,
  CR_Q1_0 = 41
};

/* Layer tensors ("blk.N.<name>.weight") a model multiplies with
** GGML_OP_MUL_MAT (LLM_TENSOR_INFOS), for the architectures the planner
** knows and their kin. */
static const char *const cr_mul_mat[] = {
    "attn_q",       "attn_k",         "attn_v",
    "attn_qkv",     "attn_output",    "attn_gate",
    "attn_q_a",     "attn_q_b",       "attn_kv_a_mqa",
    "attn_kv_b",    "attn_k_b",       "attn_v_b",
    "attn_kv",      "ffn_gate",       "ffn_up",
    "ffn_down",     "ffn_gate_inp",   "ffn_gate_shexp",
    "ffn_up_shexp", "ffn_down_shexp", "ffn_gate_inp_shexp",
    "ssm_in",       "ssm_out",        "ssm_x",
    "ssm_dt",
};

/* Layer tensors multiplied with GGML_OP_MUL_MAT_ID (the experts). */
static const char *const cr_mul_mat_id[] = {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps",
                                            "ffn_gate_up_exps"};

enum { CR_OTHER = 0, CR_MUL_MAT, CR_MUL_MAT_ID };

int wt_cpu_host(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return WT_CPU_AVX512;
  if (__builtin_cpu_supports("avx2"))
    return WT_CPU_AVX2;
  return WT_CPU_NONE;
#else
  return WT_CPU_UNKNOWN;
#endif
}

const char *wt_cpu_name(int cpu) {
  switch (cpu) {
  case WT_CPU_AVX2:
    return "avx2";
  case WT_CPU_AVX512:
    return "avx512";
  case WT_CPU_NONE:
    return "none";
  default:
    return "unknown";
  }
}

/* Is name (n bytes) one of the k names of list? */
static int cr_in(const char *name, size_t n, const char *const *list, size_t k) {
  size_t i;
  for (i = 0; i < k; i++)
    if (strlen(list[i]) == n && memcmp(list[i], name, n) == 0)
      return 1;
  return 0;
}

/* The operation llama.cpp uses weight t for: CR_MUL_MAT, CR_MUL_MAT_ID or
** CR_OTHER. */
static int cr_op(const wt_tensor *t) {
  const char *p = t->name.p, *e = p + t->name.n, *s;
  static const char suffix[] = ".weight";
  size_t ns = sizeof(suffix) - 1;
  if (t->name.n == 13 && memcmp(p, "output.weight", 13) == 0)
    return CR_MUL_MAT;
  if (t->name.n < 4 + ns || memcmp(p, "blk.", 4) != 0 || memcmp(e - ns, suffix, ns) != 0)
    return CR_OTHER;
  for (s = p + 4; s < e && *s >= '0' && *s <= '9'; s++)
    ;
  if (s == p + 4 || s >= e || *s != '.')
    return CR_OTHER;
  s++;
  if (cr_in(s, (size_t)(e - ns - s), cr_mul_mat, sizeof(cr_mul_mat) / sizeof(cr_mul_mat[0])))
    return CR_MUL_MAT;
  if (cr_in(s, (size_t)(e - ns - s), cr_mul_mat_id,
            sizeof(cr_mul_mat_id) / sizeof(cr_mul_mat_id[0])))
    return CR_MUL_MAT_ID;
  return CR_OTHER;
}

/* ggml_n_dims: the dimensions up to the last one larger than 1. */
static int cr_n_dims(const wt_tensor *t) {
  int n = t->ndim;
  while (n > 1 && t->dims[n - 1] == 1)
    n--;
  return n < 1 ? 1 : n;
}

/* The x86 rule: does a CPU with these features repack type `type`? */
static int cr_x86_type(int64_t type, int cpu) {
  if (type == CR_Q4_0 || type == CR_Q4_K || type == CR_IQ4_NL || type == CR_MXFP4)
    return cpu == WT_CPU_AVX2 || cpu == WT_CPU_AVX512;
  return type == CR_Q2_K && cpu == WT_CPU_AVX512;
}

int wt_cpu_repacks(const wt_tensor *t, int cpu) {
  int op = cr_op(t), nd = cr_n_dims(t);
  uint64_t ne1 = t->ndim >= 2 ? t->dims[1] : 1;
  if (op == CR_OTHER || cpu == WT_CPU_NONE || (op == CR_MUL_MAT ? nd != 2 : nd != 3))
    return 0;
  if (cpu == WT_CPU_UNKNOWN) {
    switch (t->type_id) {
    case CR_Q4_0:
    case CR_Q8_0:
    case CR_Q2_K:
    case CR_Q4_K:
    case CR_Q5_K:
    case CR_Q6_K:
    case CR_IQ4_NL:
    case CR_MXFP4:
    case CR_Q1_0:
      return -1;
    default:
      return 0;
    }
  }
  return cr_x86_type(t->type_id, cpu) && ne1 % 8 == 0;
}

uint64_t wt_cpu_repack_size(const wt_tensor *t) {
  if (t->nbytes > UINT64_MAX - (CR_ALIGN - 1))
    return 0;
  return (t->nbytes + CR_ALIGN - 1) / CR_ALIGN * CR_ALIGN;
}
