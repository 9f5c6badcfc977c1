/*
** cuda_ops.c: ggml's CUDA backend as the scheduler sees it (cuda_ops.h).
**
** Each function restates one of ggml-cuda.cu's (llama.cpp de3ff815) for
** the operations the planner's graphs hold: supports_op, which decides
** where the scheduler may put a node; get_op_batch_size, which offload_op
** compares with 32; get_alloc_size, which pads a quantized tensor's last
** row to MATRIX_ROW_PADDING and gives flash attention room for f16 copies
** of K and V when its kernel needs them (fattn.cu,
** ggml_cuda_get_best_fattn_kernel).  Layer: plan.
*/
#include "cuda_ops.h"

#include <stddef.h>
#include <string.h>

#include "formats/ggml_type.h"

/* ggml type ids (ggml.h's enum ggml_type). */
enum {
  CU_F32 = 0,
  CU_F16 = 1,
  CU_Q4_0 = 2,
  CU_Q4_1 = 3,
  CU_Q5_0 = 6,
  CU_Q5_1 = 7,
  CU_Q8_0 = 8,
  CU_Q2_K = 10,
  CU_Q6_K = 14,
  CU_Q8_K = 15,
  CU_IQ2_XXS = 16,
  CU_IQ4_NL = 20,
  CU_IQ4_XS = 23,
  CU_I32 = 26,
  CU_I64 = 27,
  CU_IQ1_M = 29,
  CU_BF16 = 30,
  CU_MXFP4 = 39,
  CU_NVFP4 = 40,
  CU_Q1_0 = 41,
  CU_Q2_0 = 42
};

#define CU_QK_K         256 /* QK_K: the k-quants' super-block */
#define CU_KQ_STRIDE    256 /* FATTN_KQ_STRIDE */
#define CU_FA_ALIGN     128 /* flash attention's f16 copies start on this */
#define CU_GQA_VEC_HEAD 256 /* heads this wide (or caches of 8192 cells) skip the vector kernel */

enum { CU_FA_NONE, CU_FA_VEC, CU_FA_TILE, CU_FA_MMA };

/* ggml_is_quantized: a type of blocks of several values. */
static int cu_quantized(int64_t type) {
  const ggml_type_info *ti = ggml_type_get(type);
  return ti != NULL && ti->block_size > 1;
}

int wt_cuda_mul_mat_type(int64_t type) {
  /* F32, F16, BF16, the 1- to 8-bit quants and the IQ types (supports_op's
  ** MUL_MAT case); not TQ1_0, TQ2_0 nor the removed ids */
  return type == CU_F32 || type == CU_F16 || type == CU_BF16 || type == CU_Q1_0 ||
         type == CU_Q2_0 || type == CU_Q4_0 || type == CU_Q4_1 || type == CU_Q5_0 ||
         type == CU_Q5_1 || type == CU_Q8_0 || type == CU_MXFP4 || type == CU_NVFP4 ||
         (type >= CU_Q2_K && type <= CU_Q8_K) || (type >= CU_IQ2_XXS && type <= CU_IQ4_XS) ||
         type == CU_IQ1_M;
}

int wt_cuda_get_rows_type(int64_t type, int64_t ne0) {
  if (type == CU_IQ4_NL || type == CU_MXFP4)
    return ne0 % CU_QK_K == 0;
  return type == CU_F16 || type == CU_F32 || type == CU_BF16 || type == CU_I32 || type == CU_Q1_0 ||
         type == CU_Q2_0 || type == CU_Q4_0 || type == CU_Q4_1 || type == CU_Q5_0 ||
         type == CU_Q5_1 || type == CU_Q8_0 || (type >= CU_Q2_K && type <= CU_Q6_K) ||
         (type >= CU_IQ2_XXS && type <= CU_IQ4_XS && type != CU_IQ4_NL) || type == CU_IQ1_M;
}

/* Whether name (n bytes) ends with suffix, a whole part of it ("ssm_a" ends
** "blk.0.ssm_a" and "ssm_a", not "xssm_a"; "norm.weight" ends any norm's). */
static int cu_ends(const char *name, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(name + n - k, suffix, k) == 0 &&
         (n == k || name[n - k - 1] == '.' || name[n - k - 1] == '_' || suffix[0] == '.');
}

int wt_cuda_holds_weight(const char *name, size_t n, int64_t type, const uint64_t *ne, int ndim,
                         uint64_t d_inner, uint64_t d_state, uint64_t n_group) {
  uint64_t ne0 = ndim > 0 ? ne[0] : 1, ne1 = ndim > 1 ? ne[1] : 1;
  int fl = type == CU_F32 || type == CU_F16;
  if (cu_ends(name, n, ".bias") || cu_ends(name, n, "ssm_d") || cu_ends(name, n, "norm.weight"))
    return fl;
  if (cu_ends(name, n, "ssm_conv1d.weight"))
    return ne1 % 128 == 0;
  if (cu_ends(name, n, "ssm_a")) {
    if (ne0 == 1) /* Mamba-2: a state 128 or 256 wide, heads a multiple of 16 */
      return (d_state == 128 || d_state == 256) && ne1 != 0 && (d_inner / ne1) % 16 == 0;
    return ne0 == 16 && ne1 % 128 == 0 && n_group <= 1 && ne1 != 0 && d_inner / ne1 == 1;
  }
  if (cu_ends(name, n, "rope_freqs.weight") || cu_ends(name, n, "rope_factors_long.weight") ||
      cu_ends(name, n, "rope_factors_short.weight"))
    return 1;
  return wt_cuda_mul_mat_type(type);
}

/* ggml_cuda_fattn_kv_type_supported */
static int cu_fa_type(int type) {
  return type == CU_F32 || type == CU_F16 || type == CU_BF16 || type == CU_Q4_0 ||
         type == CU_Q4_1 || type == CU_Q5_0 || type == CU_Q5_1 || type == CU_Q8_0;
}

/* Whether node t's source s has the ggml type size as its first stride
** (nb[0] == ggml_element_size). */
static int cu_elem_stride(const wt_graph *g, int s) {
  const ggml_type_info *ti = ggml_type_get(g->t[s].type);
  return ti != NULL && g->t[s].nb[0] == ti->type_size;
}

/* The vector kernel exists for this head width and K/V types (the
** instances node-llama-cpp's build compiled: K and V both f16, q4_0, q8_0
** or bf16; an F32 cache reads as f16). */
static int cu_vec_case(int64_t head, int tk, int tv) {
  tk = tk == CU_F32 ? CU_F16 : tk;
  tv = tv == CU_F32 ? CU_F16 : tv;
  return (head == 64 || head == 128 || head == 256) && tk == tv &&
         (tk == CU_F16 || tk == CU_Q4_0 || tk == CU_Q8_0 || tk == CU_BF16);
}

/* ggml_cuda_get_best_fattn_kernel for an NVIDIA GPU of compute capability
** cc >= Turing.  ALiBi (sub WT_GM_SUB_NONE only here) is not modelled:
** the graphs that use flash attention have none. */
static int cu_fa_kernel(const wt_graph *g, int t, int cc) {
  const wt_gm_tensor *kqv = &g->t[t], *q, *k, *v, *mask;
  int64_t gqa, d;
  int gqa_opt, vec, i, j;
  if (kqv->src[0] < 0 || kqv->src[1] < 0 || kqv->src[2] < 0)
    return CU_FA_NONE;
  q = &g->t[kqv->src[0]];
  k = &g->t[kqv->src[1]];
  v = &g->t[kqv->src[2]];
  mask = kqv->src[3] >= 0 ? &g->t[kqv->src[3]] : NULL;
  if (k->ne[2] == 0 || q->ne[2] % k->ne[2] != 0)
    return CU_FA_NONE;
  gqa = q->ne[2] / k->ne[2];
  gqa_opt = gqa >= 2 && mask != NULL && k->ne[1] % CU_KQ_STRIDE == 0;
  for (j = 0; j < 4; j++) {
    int s = kqv->src[j];
    if (s < 0 || cu_quantized(g->t[s].type))
      continue;
    for (i = 1; i < 4; i++)
      if (g->t[s].nb[i] % 16 != 0)
        gqa_opt = 0;
  }
  d = k->ne[0];
  switch (d) {
  case 40:
  case 64:
  case 72:
  case 80:
  case 96:
  case 112:
  case 128:
  case 256:
    if (v->ne[0] != d)
      return CU_FA_NONE;
    break;
  case 192:
    if (v->ne[0] != 128 || !gqa_opt || gqa % 8 != 0)
      return CU_FA_NONE;
    break;
  case 320:
    if (v->ne[0] != 256 || !gqa_opt || gqa % 32 != 0)
      return CU_FA_NONE;
    break;
  case 512:
    if (v->ne[0] != d || !gqa_opt)
      return CU_FA_NONE;
    break;
  case 576:
    if (v->ne[0] != 512 || !gqa_opt)
      return CU_FA_NONE;
    break;
  default:
    return CU_FA_NONE;
  }
  if (!cu_fa_type(k->type) || !cu_fa_type(v->type) || (mask != NULL && mask->ne[2] != 1))
    return CU_FA_NONE;
  if (q->ne[0] == 40 || q->ne[0] == 72)
    return CU_FA_TILE; /* no vector kernel for them (not a multiple of 64) */
  vec = q->ne[0] <= 256 && q->ne[0] % 64 == 0 && q->ne[0] != 192 && k->ne[1] % CU_KQ_STRIDE == 0;
  if (vec) {
    /* (the sparse gather needs an n_kv_max, which llama.cpp's attention
    ** leaves 0, so it is never chosen) */
    if (!cu_quantized(k->type) && !cu_quantized(v->type)) {
      if (cc >= WT_CUDA_CC_ADA && q->ne[1] == 1 && q->ne[3] == 1 &&
          !(gqa > 4 && (q->ne[0] >= CU_GQA_VEC_HEAD || k->ne[1] >= 8192)))
        return CU_FA_VEC;
    } else if (cc >= WT_CUDA_CC_ADA ? q->ne[1] <= 2 : q->ne[1] == 1) {
      return CU_FA_VEC;
    }
    if (!gqa_opt && q->ne[1] == 1)
      return CU_FA_VEC;
  }
  return CU_FA_MMA;
}

int wt_cuda_supports(const wt_graph *g, int id, int cc) {
  const wt_gm_tensor *t = &g->t[id];
  const wt_gm_tensor *s0 = t->src[0] >= 0 ? &g->t[t->src[0]] : NULL;
  const wt_gm_tensor *s1 = t->src[1] >= 0 ? &g->t[t->src[1]] : NULL;
  switch (t->op) {
  case WT_GM_NONE:
  case WT_GM_RESHAPE:
  case WT_GM_VIEW:
  case WT_GM_PERMUTE:
  case WT_GM_TRANSPOSE:
  case WT_GM_SCALE:
  case WT_GM_SQR:
  case WT_GM_CLAMP:
  case WT_GM_CONT:
  case WT_GM_SOFT_MAX:
  case WT_GM_PAD:
  case WT_GM_FILL:
  case WT_GM_ARGSORT: /* CUB sorts any width (CUDA 11.7 and later) */
    return 1;
  case WT_GM_UNARY:
    return wt_gm_contiguous(g, t->src[0], 0, 4);
  case WT_GM_GLU:
    return wt_gm_contiguous(g, t->src[0], 1, 4);
  case WT_GM_MUL_MAT:
  case WT_GM_MUL_MAT_ID:
    if (!cu_elem_stride(g, t->src[0]) || !cu_elem_stride(g, t->src[1]))
      return 0;
    if (s1->type == CU_F16 && s0->type != CU_F16)
      return 0;
    return wt_cuda_mul_mat_type(s0->type);
  case WT_GM_GET_ROWS:
    return wt_cuda_get_rows_type(s0->type, s0->ne[0]);
  case WT_GM_SET_ROWS:
    return ((s0->type == CU_F32 &&
             (t->type == CU_F32 || t->type == CU_F16 || t->type == CU_BF16 || t->type == CU_Q4_0 ||
              t->type == CU_Q4_1 || t->type == CU_Q5_0 || t->type == CU_Q5_1 ||
              t->type == CU_Q8_0 || t->type == CU_IQ4_NL)) ||
            (t->type == CU_F16 && s0->type == CU_F16)) &&
           (s1->type == CU_I64 || s1->type == CU_I32);
  case WT_GM_CPY: {
    int a = s0->type, b = s1->type;
    int fl_a = a == CU_F32 || a == CU_F16 || a == CU_BF16,
        fl_b = b == CU_F32 || b == CU_F16 || b == CU_BF16;
    if ((fl_a && fl_b) ||
        (a == CU_F32 && (b == CU_Q8_0 || b == CU_Q4_0 || b == CU_Q4_1 || b == CU_Q5_0 ||
                         b == CU_Q5_1 || b == CU_IQ4_NL || b == CU_I32)))
      return 1;
    return a == b && wt_gm_contiguous(g, t->src[0], 0, 4) && wt_gm_contiguous(g, t->src[1], 0, 4);
  }
  case WT_GM_CONCAT:
    /* the graphs concatenate F32 tensors: a 4-byte element, no blocks */
    return s0->type == s1->type && s0->type == t->type && !cu_quantized(s0->type);
  case WT_GM_NORM:
  case WT_GM_RMS_NORM:
    return wt_gm_contiguous_rows(g, t->src[0]);
  case WT_GM_ADD:
  case WT_GM_MUL:
  case WT_GM_DIV:
    return (s0->type == CU_F32 || s0->type == CU_F16) &&
           (s1->type == CU_F32 || s1->type == CU_F16) && (t->type == CU_F32 || t->type == CU_F16);
  case WT_GM_SUM_ROWS:
    return s0->type == CU_F32 && t->type == CU_F32 && wt_gm_contiguous_rows(g, t->src[0]);
  case WT_GM_ROPE:
    return cu_elem_stride(g, t->src[0]) && wt_gm_contiguous(g, t->src[0], 2, 4);
  case WT_GM_SSM_CONV:
    return s0->ne[1] % 128 == 0;
  case WT_GM_SSM_SCAN: {
    const wt_gm_tensor *a = &g->t[t->src[3]], *b = &g->t[t->src[4]];
    if (a->ne[0] == 1) /* Mamba-2 */
      return (s0->ne[0] == 128 || s0->ne[0] == 256) && s0->ne[1] % 16 == 0;
    return s0->ne[0] == 16 && s0->ne[1] == 1 && s0->ne[2] % 128 == 0 && b->ne[1] == 1;
  }
  case WT_GM_FLASH_ATTN_EXT:
    return cu_fa_kernel(g, id, cc) != CU_FA_NONE;
  }
  return 0;
}

int64_t wt_cuda_batch(const wt_graph *g, int id) {
  const wt_gm_tensor *t = &g->t[id];
  switch (t->op) {
  case WT_GM_GET_ROWS:
    return 0;
  case WT_GM_MUL_MAT:
    return t->ne[1];
  case WT_GM_MUL_MAT_ID:
  case WT_GM_ROPE:
    return t->ne[2];
  default:
    return t->ne[1] * t->ne[2] * t->ne[3]; /* ggml_nrows */
  }
}

/* The bytes of n values of ggml type type (ggml_row_size). */
static uint64_t cu_row(int64_t type, uint64_t n) {
  const ggml_type_info *ti = ggml_type_get(type);
  return ti == NULL || ti->block_size == 0 ? 0 : n / ti->block_size * ti->type_size;
}

/* The elements of tensor t. */
static uint64_t cu_nelements(const wt_gm_tensor *t) {
  return (uint64_t)t->ne[0] * (uint64_t)t->ne[1] * (uint64_t)t->ne[2] * (uint64_t)t->ne[3];
}

static uint64_t cu_pad(uint64_t v, uint64_t p) {
  return (v + p - 1) / p * p;
}

uint64_t wt_cuda_alloc_size(const wt_graph *g, int id, int cc) {
  const wt_gm_tensor *t = &g->t[id];
  uint64_t size = wt_gm_nbytes(g, id);
  if (t->op == WT_GM_FLASH_ATTN_EXT) {
    /* ggml_cuda_flash_attn_ext_get_f16_extra_data: after the output, f16
    ** copies of a K or V that is not f16, when the kernel wants them */
    const wt_gm_tensor *k = &g->t[t->src[1]], *v = &g->t[t->src[2]];
    int kernel = cu_fa_kernel(g, id, cc), need_k = 0, need_v = 0;
    int v_is_k = v->view_src >= 0 && v->view_src == k->view_src && v->view_offs == k->view_offs;
    if (kernel == CU_FA_TILE || kernel == CU_FA_MMA) {
      need_k = need_v = 1;
    } else if (kernel == CU_FA_VEC) {
      int fallback = !cu_vec_case(g->t[t->src[0]].ne[0], k->type, v->type);
      need_k = k->type == CU_F32 || fallback;
      need_v = v->type == CU_F32 || fallback;
    }
    if (need_k && k->type != CU_F16)
      size = cu_pad(size, CU_FA_ALIGN) + cu_nelements(k) * 2;
    if (need_v && v->type != CU_F16 && !v_is_k)
      size = cu_pad(size, CU_FA_ALIGN) + cu_nelements(v) * 2;
  }
  if (cu_quantized(t->type) && t->ne[0] % WT_CUDA_ROW_PAD != 0)
    size += cu_row(t->type, (uint64_t)(WT_CUDA_ROW_PAD - t->ne[0] % WT_CUDA_ROW_PAD));
  return size > WT_GM_MAX_BYTES ? 0 : size;
}

uint64_t wt_cuda_tensor_bytes(int64_t type, uint64_t ne0, uint64_t rows) {
  const ggml_type_info *ti = ggml_type_get(type);
  uint64_t row, size;
  if (ti == NULL || ti->block_size == 0 || ne0 % ti->block_size != 0)
    return 0;
  row = ne0 / ti->block_size * ti->type_size;
  if (rows != 0 && row > WT_GM_MAX_BYTES / rows)
    return 0;
  size = row * rows;
  if (ti->block_size > 1 && ne0 % WT_CUDA_ROW_PAD != 0)
    size += cu_row(type, WT_CUDA_ROW_PAD - ne0 % WT_CUDA_ROW_PAD);
  return cu_pad(size, WT_CUDA_ALIGN);
}
