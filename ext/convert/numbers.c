/*
** numbers.c: the converter's element arithmetic.  See numbers.h for the
** rules and where they come from.  Layer: convert.
**
** Everything here is float32 arithmetic, one IEEE operation at a time:
** no x87 (x86-64 evaluates float in SSE registers, FLT_EVAL_METHOD 0), no
** fused multiply-add (nothing here is a * b + c), no -ffast-math.  The
** rounding of Q8_0's q is done on the integer part and the exact
** fraction, so that it needs neither roundf() nor the current rounding
** mode.
*/
#include "numbers.h"

#include <math.h>
#include <string.h>

#include "decode/decode.h"

#if WT_AVX2
#include <immintrin.h>
#endif

/* The AVX2 kernels (below): how many values they did. */
static size_t cv_f16_to_f32_avx2(const unsigned char *src, size_t n, float *out);
static size_t cv_f16_encode_avx2(const float *x, size_t n, unsigned char *out);
static size_t cv_bf16_encode_avx2(const float *x, size_t n, unsigned char *out);
static int cv_q8_0_block_avx2(const float *x, unsigned char *out);
static size_t cv_bf16_quiet_avx2(const unsigned char *src, size_t n, unsigned char *dst);

/* Reinterpret bits. */
static inline uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

size_t cv_src_size(int t) {
  switch (t) {
  case CV_SRC_F32:
    return 4;
  case CV_SRC_F16:
  case CV_SRC_BF16:
    return 2;
  case CV_SRC_F64:
    return 8;
  }
  return 0;
}

void cv_src_to_f32(int t, const unsigned char *src, size_t n, float *out) {
  size_t i;
  switch (t) {
  case CV_SRC_F32:
    memcpy(out, src, n * 4);
    break;
  case CV_SRC_F16: /* numpy's npy_halfbits_to_floatbits: a NaN keeps its payload, quiet or not */
    i = cv_f16_to_f32_avx2(src, n, out);
    for (; i < n; i++)
      out[i] = wt_f16_to_f32((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
    break;
  case CV_SRC_BF16:
    wt_dec_bf16(src, n, out);
    break;
  case CV_SRC_F64:
    for (i = 0; i < n; i++) {
      double d;
      memcpy(&d, src + 8 * i, 8);
      out[i] = (float)d; /* torch's .to(float32): round to nearest even */
    }
    break;
  }
}

/* ================================ F16, BF16 =============================== */

uint16_t cv_f32_to_f16(float f) {
  uint32_t u = f32_bits(f), exp = u & 0x7f800000u, sig;
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  if (exp == 0x7f800000u) { /* Inf, or NaN with its top payload bits */
    sig = u & 0x007fffffu;
    if (sig == 0)
      return sign | 0x7c00u;
    return sign | (uint16_t)(0x7c00u + ((sig >> 13) != 0 ? (sig >> 13) : 1));
  }
  if (exp >= 0x47800000u) /* 2^16 and beyond: infinity */
    return sign | 0x7c00u;
  if (exp <= 0x38000000u) { /* an F16 subnormal, or zero */
    uint32_t shift, half, rest, q;
    if (exp < 0x33000000u) /* below half the smallest subnormal */
      return sign;
    /* The value is sig * 2^(e - 150) with the implicit bit; in units of
    ** the F16 subnormal 2^-24 it is sig >> (126 - e), rounded to even. */
    sig = 0x00800000u | (u & 0x007fffffu);
    shift = 126 - (exp >> 23);
    q = sig >> shift;
    rest = sig & ((1u << shift) - 1);
    half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
      q++;
    return sign | (uint16_t)q; /* q == 0x400 is the smallest normal: right */
  }
  /* Normal: re-bias the exponent, round the 13 dropped bits to even; a
  ** carry out of the mantissa moves into the exponent (to Inf at the top). */
  sig = u & 0x007fffffu;
  {
    uint32_t h = ((exp - 0x38000000u) >> 13) + (sig >> 13), rest = sig & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
      h++;
    return sign | (uint16_t)h;
  }
}

uint16_t cv_f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: made quiet */
    return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* ================================== Q8_0 ================================== */

void cv_q8_0_block(const float *x, unsigned char *out) {
  float amax = 0.0f, d, id;
  uint16_t dh;
  int j, nan = 0;
  for (j = 0; j < CV_QK8_0; j++) {
    float a = fabsf(x[j]);
    nan |= a != a;
    amax = a > amax ? a : amax;
  }
  if (nan)
    amax = NAN;
  d = amax / 127.0f;
  id = d != 0.0f ? 1.0f / d : 0.0f;
  dh = cv_f32_to_f16(d);
  out[0] = (unsigned char)(dh & 0xff);
  out[1] = (unsigned char)(dh >> 8);
  for (j = 0; j < CV_QK8_0; j++) {
    float v = x[j] * id, a = fabsf(v);
    int q = 0;
    if (a == a && a < 2147483648.0f) {
      /* round half away from zero: the integer part, plus one when the
      ** (exact) fraction is at least one half */
      int t = (int)a;
      q = t + ((a - (float)t) >= 0.5f);
      if (v < 0)
        q = -q;
    }
    out[2 + j] = (unsigned char)(int8_t)q;
  }
}

/* ============================== AVX2 kernels ============================== */

/* The same numbers as the portable code above, 8 at a time, when the CPU
** has AVX2 and F16C (decode/decode.h: wt_cpu_avx2).  Each gives back what
** it leaves to the portable code: the tail of a row, and a group holding
** a NaN (numpy's NaN rules are not the instructions'), or a Q8_0 block
** with a NaN, an infinity or a scale whose inverse overflows. */

#if WT_AVX2
/* 8 F16 values into float32: F16C's conversion is exact but makes a
** signaling NaN quiet, so a group with a NaN goes to the portable code. */
__attribute__((target("avx2,f16c"))) static size_t f16_to_f32_avx2(const unsigned char *src,
                                                                   size_t n, float *out) {
  const __m128i exp = _mm_set1_epi16(0x7c00), man = _mm_set1_epi16(0x03ff);
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128((const __m128i *)(src + 2 * i));
    __m128i nan = _mm_andnot_si128(_mm_cmpeq_epi16(_mm_and_si128(h, man), _mm_setzero_si128()),
                                   _mm_cmpeq_epi16(_mm_and_si128(h, exp), exp));
    if (_mm_movemask_epi8(nan))
      break;
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  return i;
}

/* 8 float32 into F16, rounded to nearest even (IEEE, numpy's rounding). */
__attribute__((target("avx2,f16c"))) static size_t f16_encode_avx2(const float *x, size_t n,
                                                                   unsigned char *out) {
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)))
      break;
    _mm_storeu_si128((__m128i *)(out + 2 * i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return i;
}

/* 8 float32 into BF16: the bits rounded to nearest even; NaN made quiet. */
__attribute__((target("avx2"))) static size_t bf16_encode_avx2(const float *x, size_t n,
                                                               unsigned char *out) {
  const __m256i abs = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  size_t i;
  for (i = 0; i + 16 <= n; i += 16) {
    __m256i r[2];
    int k;
    for (k = 0; k < 2; k++) {
      __m256i u = _mm256_loadu_si256((const __m256i *)(x + i + 8 * k));
      __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs), inf);
      __m256i rounded = _mm256_srli_epi32(
          _mm256_add_epi32(u,
                           _mm256_add_epi32(bias, _mm256_and_si256(_mm256_srli_epi32(u, 16), one))),
          16);
      __m256i quieted = _mm256_or_si256(_mm256_srli_epi32(u, 16), quiet);
      r[k] = _mm256_blendv_epi8(rounded, quieted, nan);
    }
    _mm256_storeu_si256((__m256i *)(out + 2 * i),
                        _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xd8));
  }
  return i;
}

/* BF16 values copied, a signaling NaN made quiet, 16 at a time. */
__attribute__((target("avx2"))) static size_t bf16_quiet_avx2(const unsigned char *src, size_t n,
                                                              unsigned char *dst) {
  const __m256i top = _mm256_set1_epi16(0x7fc0), nan = _mm256_set1_epi16(0x7f80);
  const __m256i low = _mm256_set1_epi16(0x3f), quiet = _mm256_set1_epi16(0x40);
  const __m256i zero = _mm256_setzero_si256();
  size_t i;
  for (i = 0; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256((const __m256i *)(src + 2 * i));
    __m256i sig = _mm256_andnot_si256(_mm256_cmpeq_epi16(_mm256_and_si256(h, low), zero),
                                      _mm256_cmpeq_epi16(_mm256_and_si256(h, top), nan));
    _mm256_storeu_si256((__m256i *)(dst + 2 * i), _mm256_or_si256(h, _mm256_and_si256(sig, quiet)));
  }
  return i;
}

/* One Q8_0 block; 0 when it is left to the portable code. */
__attribute__((target("avx2,f16c"))) static int q8_0_block_avx2(const float *x,
                                                                unsigned char *out) {
  const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f);
  __m256 v[4], m = _mm256_setzero_ps(), nan = _mm256_setzero_ps(), vid;
  __m256i q[4];
  __m128 h;
  float amax, d, id;
  uint16_t dh;
  int k;
  for (k = 0; k < 4; k++) {
    v[k] = _mm256_loadu_ps(x + 8 * k);
    m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q));
  }
  if (_mm256_movemask_ps(nan))
    return 0;
  h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  amax = _mm_cvtss_f32(h);
  d = amax / 127.0f;
  id = d != 0.0f ? 1.0f / d : 0.0f;
  if (!(amax < INFINITY) || !(id < INFINITY))
    return 0;
  dh = cv_f32_to_f16(d);
  out[0] = (unsigned char)(dh & 0xff);
  out[1] = (unsigned char)(dh >> 8);
  vid = _mm256_set1_ps(id);
  for (k = 0; k < 4; k++) { /* as the portable code: |v| truncated, + (fraction >= 1/2), signed */
    __m256 p = _mm256_mul_ps(v[k], vid), a = _mm256_andnot_ps(sign, p);
    __m256i t = _mm256_cvttps_epi32(a);
    __m256i up = _mm256_castps_si256(
        _mm256_cmp_ps(_mm256_sub_ps(a, _mm256_cvtepi32_ps(t)), half, _CMP_GE_OQ));
    __m256i neg = _mm256_castps_si256(_mm256_cmp_ps(p, _mm256_setzero_ps(), _CMP_LT_OQ));
    t = _mm256_sub_epi32(t, up);
    q[k] = _mm256_sub_epi32(_mm256_xor_si256(t, neg), neg);
  }
  _mm256_storeu_si256((__m256i *)(out + 2), _mm256_permutevar8x32_epi32(
                                                _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]),
                                                                   _mm256_packs_epi32(q[2], q[3])),
                                                _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  return 1;
}
#endif

static size_t cv_f16_to_f32_avx2(const unsigned char *src, size_t n, float *out) {
#if WT_AVX2
  if (wt_cpu_avx2())
    return f16_to_f32_avx2(src, n, out);
#endif
  (void)src, (void)n, (void)out;
  return 0;
}

static size_t cv_f16_encode_avx2(const float *x, size_t n, unsigned char *out) {
#if WT_AVX2
  if (wt_cpu_avx2())
    return f16_encode_avx2(x, n, out);
#endif
  (void)x, (void)n, (void)out;
  return 0;
}

static size_t cv_bf16_encode_avx2(const float *x, size_t n, unsigned char *out) {
#if WT_AVX2
  if (wt_cpu_avx2())
    return bf16_encode_avx2(x, n, out);
#endif
  (void)x, (void)n, (void)out;
  return 0;
}

static size_t cv_bf16_quiet_avx2(const unsigned char *src, size_t n, unsigned char *dst) {
#if WT_AVX2
  if (wt_cpu_avx2())
    return bf16_quiet_avx2(src, n, dst);
#endif
  (void)src, (void)n, (void)dst;
  return 0;
}

static int cv_q8_0_block_avx2(const float *x, unsigned char *out) {
#if WT_AVX2
  if (wt_cpu_avx2())
    return q8_0_block_avx2(x, out);
#endif
  (void)x, (void)out;
  return 0;
}

/* ================================ encoding ================================ */

void cv_bf16_quiet(const unsigned char *src, size_t n, unsigned char *dst) {
  size_t i = cv_bf16_quiet_avx2(src, n, dst);
  for (; i < n; i++) {
    unsigned h = src[2 * i] | (unsigned)src[2 * i + 1] << 8;
    if ((h & 0x7fc0u) == 0x7f80u && (h & 0x3fu) != 0) /* exponent all ones, not quiet */
      h |= 0x40u;
    dst[2 * i] = (unsigned char)(h & 0xff);
    dst[2 * i + 1] = (unsigned char)(h >> 8);
  }
}

uint64_t cv_type_bytes(int t, uint64_t n) {
  switch (t) {
  case CV_GGML_F32:
    return n * 4;
  case CV_GGML_F16:
  case CV_GGML_BF16:
    return n * 2;
  case CV_GGML_Q8_0:
    return n / CV_QK8_0 * CV_Q8_0_BYTES;
  }
  return 0;
}

void cv_encode(int t, const float *x, size_t n, unsigned char *out) {
  size_t i;
  uint16_t h;
  switch (t) {
  case CV_GGML_F32:
    memcpy(out, x, n * 4);
    break;
  case CV_GGML_F16:
  case CV_GGML_BF16:
    i = t == CV_GGML_F16 ? cv_f16_encode_avx2(x, n, out) : cv_bf16_encode_avx2(x, n, out);
    for (; i < n; i++) {
      h = t == CV_GGML_F16 ? cv_f32_to_f16(x[i]) : cv_f32_to_bf16(x[i]);
      out[2 * i] = (unsigned char)(h & 0xff);
      out[2 * i + 1] = (unsigned char)(h >> 8);
    }
    break;
  case CV_GGML_Q8_0:
    for (i = 0; i + CV_QK8_0 <= n; i += CV_QK8_0)
      if (!cv_q8_0_block_avx2(x + i, out + i / CV_QK8_0 * CV_Q8_0_BYTES))
        cv_q8_0_block(x + i, out + i / CV_QK8_0 * CV_Q8_0_BYTES);
    break;
  }
}

void cv_plus_one(float *x, size_t n, int half16) {
  size_t i;
  for (i = 0; i < n; i++) {
    x[i] = x[i] + 1.0f;
    if (half16)
      x[i] = wt_f16_to_f32(cv_f32_to_f16(x[i]));
  }
}
