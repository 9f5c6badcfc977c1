/*
** cpu_repack.c: the rules of llama.cpp's CPU extra buffer types, AMX and
** CPU_REPACK (cpu_repack.h).
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
**   - ggml/src/ggml-cpu/ggml-cpu.cpp (ggml_backend_cpu_get_extra_buffer_types):
**     the AMX buffer type first, in a build with AMX-INT8 and AVX512-VNNI
**     (node-llama-cpp's sapphirerapids variant) on a kernel that grants
**     AMX, then CPU_REPACK;
**   - ggml/src/ggml-cpu/amx/amx.cpp (supports_op): MUL_MAT of a contiguous
**     weight of Q4_0, Q4_1 or Q8_0 with ne[0] % 32 == 0, of Q4_K, Q5_K,
**     Q6_K or IQ4_XS with ne[0] % 256 == 0, of F16 with ne[0] % 16 == 0,
**     whose product's rows (the weight's ne[1]) are a multiple of 32 (the
**     llama.cpp model loader asks with an F32 batch); amx/mmq.cpp
**     (ggml_backend_amx_get_alloc_size): the quantized ones repacked in
**     ne[1] rows of get_row_size(ne[0]) bytes: the blocks, 4 bytes a block
**     more for Q8_0 (its compensation) and for Q4_K and Q5_K, 2 for
**     IQ4_XS (ne[2] is not counted: llama.cpp's own figure); F16 copied as
**     it is.  Checked against the sapphirerapids variant's log on a CPU
**     with AMX (docs/reference.md).
**
** The ARM, s390x and RISC-V rules are not modelled: a plan for such a CPU
** says "unknown" for a tensor of a type one of them repacks.
*/
#include <string.h>
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "cpu_repack.h"
#include "formats/ggml_type.h"

#define CR_ALIGN 32 /* TENSOR_ALIGNMENT of the CPU buffer types */

#define CR_AMX_ROWS            32     /* TILE_N * 2: the rows AMX's kernels take at once */
#define CR_ARCH_GET_XCOMP_SUPP 0x1021 /* arch_prctl: the extended states the kernel supports */
#define CR_XFEATURE_XTILEDATA  18

enum {
  CR_F16 = 1,
  CR_Q4_0 = 2,
  CR_Q4_1 = 3,
  CR_Q8_0 = 8,
  CR_Q2_K = 10,
  CR_Q4_K = 12,
  CR_Q5_K = 13,
  CR_Q6_K = 14,
  CR_IQ4_NL = 20,
  CR_IQ4_XS = 23,
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

/* Whether this CPU and kernel run llama.cpp's AMX kernels: AMX-INT8 and
** AVX512-VNNI (CPUID leaf 7), and the kernel able to give a process the
** AMX tile state (asked without taking it). */
static int cr_host_amx(void) {
#if defined(__x86_64__) && defined(__linux__)
  unsigned a = 7, b, c = 0, d;
  unsigned long supp = 0;
  __asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
  if (!(d & (1u << 25)) || !(c & (1u << 11)))
    return 0;
  if (syscall(SYS_arch_prctl, CR_ARCH_GET_XCOMP_SUPP, &supp) != 0)
    return 0;
  return (supp >> CR_XFEATURE_XTILEDATA) & 1;
#else
  return 0;
#endif
}

int wt_cpu_host(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return cr_host_amx() ? WT_CPU_AMX : WT_CPU_AVX512;
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
  case WT_CPU_AMX:
    return "amx";
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
    return cpu == WT_CPU_AVX2 || cpu == WT_CPU_AVX512 || cpu == WT_CPU_AMX;
  return type == CR_Q2_K && (cpu == WT_CPU_AVX512 || cpu == WT_CPU_AMX);
}

/* The values of a block AMX's supports_op asks ne[0] to be a multiple
** of, for a type it runs; 0 for the others. */
static uint64_t cr_amx_align(int64_t type) {
  switch (type) {
  case CR_Q4_0:
  case CR_Q4_1:
  case CR_Q8_0:
    return 32; /* TILE_K */
  case CR_Q4_K:
  case CR_Q5_K:
  case CR_Q6_K:
  case CR_IQ4_XS:
    return 256; /* QK_K */
  case CR_F16:
    return 16;
  default:
    return 0;
  }
}

int wt_cpu_repacks(const wt_tensor *t, int cpu) {
  int op = cr_op(t), nd = cr_n_dims(t);
  uint64_t ne1 = t->ndim >= 2 ? t->dims[1] : 1, align = cr_amx_align(t->type_id);
  if (cpu == WT_CPU_AMX && op == CR_MUL_MAT && align != 0 && t->ndim >= 1 &&
      t->dims[0] % align == 0 && ne1 % CR_AMX_ROWS == 0)
    return WT_CPU_IN_AMX;
  if (op == CR_OTHER || cpu == WT_CPU_NONE || (op == CR_MUL_MAT ? nd != 2 : nd != 3))
    return WT_CPU_MAPPED;
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
      return WT_CPU_MAPPED;
    }
  }
  return cr_x86_type(t->type_id, cpu) && ne1 % 8 == 0 ? WT_CPU_REPACKED : WT_CPU_MAPPED;
}

uint64_t wt_cpu_repack_size(const wt_tensor *t) {
  if (t->nbytes > UINT64_MAX - (CR_ALIGN - 1))
    return 0;
  return (t->nbytes + CR_ALIGN - 1) / CR_ALIGN * CR_ALIGN;
}

uint64_t wt_cpu_amx_size(const wt_tensor *t) {
  const ggml_type_info *ti = ggml_type_get(t->type_id);
  uint64_t kb, row, extra, ne1 = t->ndim >= 2 ? t->dims[1] : 1, size;
  if (t->type_id == CR_F16 || ti == NULL || ti->block_size == 0 || t->ndim < 1)
    return wt_cpu_repack_size(t);
  kb = t->dims[0] / ti->block_size;
  extra = t->type_id == CR_Q8_0 || t->type_id == CR_Q4_K || t->type_id == CR_Q5_K ? 4
          : t->type_id == CR_IQ4_XS                                               ? 2
                                                                                  : 0;
  if (kb > UINT64_MAX / (ti->type_size + extra))
    return 0;
  row = kb * (ti->type_size + extra);
  if (ne1 != 0 && row > (UINT64_MAX - CR_ALIGN) / ne1)
    return 0;
  size = row * ne1;
  return (size + CR_ALIGN - 1) / CR_ALIGN * CR_ALIGN;
}
