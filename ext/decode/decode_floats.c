/*
** decode_floats.c: decoders of the element types that are not ggml
** blocks: IEEE F64/F32/F16, BF16, the 8-bit floats (E4M3FN, E5M2, the two
** FNUZ variants, the E8M0 scale format), the 6- and 4-bit OCP MX floats
** with their sub-byte packing, integers and BOOL.  See decode.h.
** Layer: decode.
**
** Every conversion is exact.  A small float's normal code becomes a
** float32 by moving its fields into place and re-biasing the exponent
** (integer operations); a subnormal code is its integer mantissa times a
** power of two; specials (Inf, NaN) are tested for.  The loops are
** branch-free so that the compiler can vectorize them; F16 and BF16, the
** hot ones, have an SSE2 version (8 values a step), and F16 an F16C one
** when the CPU has AVX2.  The run-time CPU check (wt_cpu_avx2) is here.
**
** Formats (the OCP Microscaling Formats (MX) v1.0 specification for E8M0,
** the FP6 and FP4 types; jax-ml/ml_dtypes README.md for the FNUZ ones):
** S = sign bit, E = exponent field, M =
** mantissa field; normal = 2^(E-bias) * (1 + M/2^m), subnormal (E = 0) =
** 2^(1-bias) * M/2^m.
**   F16 1/5/10 bias 15, E=31: Inf (M=0) or NaN
**   BF16 the top half of a float32
**   F8_E4M3 (FN) 1/4/3 bias 7: no Inf, S.1111.111 is NaN, max 448
**   F8_E5M2 1/5/2 bias 15: IEEE-like, E=31: Inf or NaN
**   F8_E4M3FNUZ 1/4/3 bias 8, F8_E5M2FNUZ 1/5/2 bias 16: 0x80 (which
**     would be -0) is the only NaN; no Inf, no -0
**   F8_E8M0 0/8/0: 2^(x-127), 0xFF is NaN, no zero
**   F6_E2M3 1/2/3 bias 1, F6_E3M2 1/3/2 bias 3, F4 (E2M1) 1/2/1 bias 1:
**     no Inf, no NaN
** Packing: F4 two per byte, the first element in the low nibble; F6 four
** per 3 bytes read as a little-endian 24-bit word W, element k being bits
** 6k..6k+5 of W (ONNX's rule, onnx/onnx docs/docsgen/source/technical/
** float6.md; no other written convention is known).
*/
#include "decode.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if WT_AVX2
#include <immintrin.h>
#endif

/* ============================== CPU features ============================== */

#if WT_AVX2
/* -1 until checked; then whether the AVX2 kernels run. */
static int wt_avx2 = -1;

/* What the CPU has.  Every CPU with AVX2 also has F16C (Intel since
** Haswell, AMD since Excavator), which clang cannot test for by name. */
static int cpu_has_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

int wt_cpu_avx2(void) {
  int v = __atomic_load_n(&wt_avx2, __ATOMIC_RELAXED);
  if (v < 0) { /* every thread stores the same */
    v = cpu_has_avx2();
    __atomic_store_n(&wt_avx2, v, __ATOMIC_RELAXED);
  }
  return v;
}

int wt_cpu_set_avx2(int on) {
  int v = on && cpu_has_avx2();
  __atomic_store_n(&wt_avx2, v, __ATOMIC_RELAXED);
  return v;
}

/* F16 with the F16C instruction: 8 values a step, exact (a NaN keeps its
** payload but comes out quiet). */
__attribute__((target("avx2,f16c"))) static size_t f16_f16c(const unsigned char *restrict src,
                                                            size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 2 * i))));
  return i;
}
#else
int wt_cpu_avx2(void) {
  return 0;
}

int wt_cpu_set_avx2(int on) {
  (void)on;
  return 0;
}
#endif

/* ============================= fp16 and bf16 ============================== */

/* Reinterpret bits. */
static inline float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* The float32 bits of a sign-less minifloat code with m mantissa bits
** and exponent bias `bias`, specials left aside: a normal code is
** re-biased (exponent + 127 - bias), a subnormal one (exponent 0) is
** M * 2^(1-bias-m) computed from the integer M, so that no float32
** subnormal ever enters an arithmetic instruction (slow on x86). */
static inline uint32_t mini_bits(uint32_t code, int m, int bias) {
  uint32_t nrm = (code << (23 - m)) + ((uint32_t)(127 - bias) << 23);
  float sub = (float)(int32_t)(code & ((1u << m) - 1)) * bits_f32((uint32_t)(128 - bias - m) << 23);
  return code >> m ? nrm : f32_bits(sub);
}

/* fp16: exact for every pattern; NaN payloads are kept. */
float wt_f16_to_f32(uint16_t h) {
  uint32_t em = h & 0x7fffu, sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t v = em >= 0x7c00u ? 0x7f800000u | (em & 0x3ffu) << 13 : mini_bits(em, 10, 15);
  return bits_f32(v | sign);
}

/* bf16: the top 16 bits of a float32. */
float wt_bf16_to_f32(uint16_t h) {
  return bits_f32((uint32_t)h << 16);
}

#if defined(__SSE2__)
/* Four fp16 values (zero-extended into 32-bit lanes) to float32 bits, the
** same steps as wt_f16_to_f32 on every lane. */
static inline __m128i f16x4(__m128i h) {
  __m128i em = _mm_and_si128(h, _mm_set1_epi32(0x7fff));
  __m128i sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16);
  __m128i bias = _mm_set1_epi32(112 << 23);
  __m128i nrm = _mm_add_epi32(_mm_slli_epi32(em, 13), bias);
  __m128i spec = _mm_cmpgt_epi32(em, _mm_set1_epi32(0x7bff)); /* Inf, NaN: 112 more */
  __m128i tiny = _mm_cmplt_epi32(em, _mm_set1_epi32(0x0400)); /* zero, subnormal */
  __m128 sub = _mm_mul_ps(_mm_cvtepi32_ps(em), _mm_set1_ps(0x1p-24f));
  nrm = _mm_add_epi32(nrm, _mm_and_si128(spec, bias));
  nrm = _mm_or_si128(_mm_and_si128(tiny, _mm_castps_si128(sub)), _mm_andnot_si128(tiny, nrm));
  return _mm_or_si128(nrm, sign);
}
#endif

/* ======================== IEEE floats and integers ======================== */

void wt_dec_f32(const unsigned char *src, size_t n, float *out) {
  memcpy(out, src, n * 4);
}

/* C64: each element is two F32, real then imaginary. */
void wt_dec_c64(const unsigned char *src, size_t n, float *out) {
  memcpy(out, src, n * 8);
}

void wt_dec_f64(const unsigned char *src, size_t n, double *out) {
  memcpy(out, src, n * 8);
}

void wt_dec_f16(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i = 0;
#if WT_AVX2
  if (wt_cpu_avx2())
    i = f16_f16c(src, n, out);
#endif
#if defined(__SSE2__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128((const __m128i *)(src + 2 * i)), z = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)(out + i), f16x4(_mm_unpacklo_epi16(h, z)));
    _mm_storeu_si128((__m128i *)(out + i + 4), f16x4(_mm_unpackhi_epi16(h, z)));
  }
#endif
  for (; i < n; i++) {
    uint16_t h;
    memcpy(&h, src + 2 * i, 2);
    out[i] = wt_f16_to_f32(h);
  }
}

void wt_dec_bf16(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 8 <= n; i += 8) { /* interleave zeros below each half */
    __m128i h = _mm_loadu_si128((const __m128i *)(src + 2 * i)), z = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)(out + i), _mm_unpacklo_epi16(z, h));
    _mm_storeu_si128((__m128i *)(out + i + 4), _mm_unpackhi_epi16(z, h));
  }
#endif
  for (; i < n; i++) {
    uint16_t h;
    memcpy(&h, src + 2 * i, 2);
    out[i] = bits_f32((uint32_t)h << 16);
  }
}

/* Integers that a float holds exactly, and BOOL (any non-zero byte is
** true, as the safetensors writers only write 0 and 1). */
void wt_dec_bool(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++)
    out[i] = src[i] != 0;
}

void wt_dec_u8(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++)
    out[i] = src[i];
}

void wt_dec_i8(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++)
    out[i] = (int8_t)src[i];
}

void wt_dec_u16(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint16_t v;
    memcpy(&v, src + 2 * i, 2);
    out[i] = v;
  }
}

void wt_dec_i16(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    int16_t v;
    memcpy(&v, src + 2 * i, 2);
    out[i] = v;
  }
}

/* Wider integers go to double: exact up to 2^53. */
void wt_dec_u32(const unsigned char *restrict src, size_t n, double *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t v;
    memcpy(&v, src + 4 * i, 4);
    out[i] = v;
  }
}

void wt_dec_i32(const unsigned char *restrict src, size_t n, double *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    int32_t v;
    memcpy(&v, src + 4 * i, 4);
    out[i] = v;
  }
}

void wt_dec_u64(const unsigned char *restrict src, size_t n, double *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t v;
    memcpy(&v, src + 8 * i, 8);
    out[i] = (double)v;
  }
}

void wt_dec_i64(const unsigned char *restrict src, size_t n, double *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    int64_t v;
    memcpy(&v, src + 8 * i, 8);
    out[i] = (double)v;
  }
}

/* ============================== 8-bit floats ============================== */

/* F8_E4M3 (FN): only S.1111.111 is special (NaN). */
void wt_dec_f8_e4m3(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t c = src[i], em = c & 0x7fu;
    uint32_t v = em == 0x7fu ? 0x7fc00000u : mini_bits(em, 3, 7);
    out[i] = bits_f32(v | (c & 0x80u) << 24);
  }
}

/* F8_E5M2: E = 31 is Inf (M = 0) or NaN, as in IEEE. */
void wt_dec_f8_e5m2(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t c = src[i], em = c & 0x7fu;
    uint32_t v = em >= 0x7cu ? 0x7f800000u | (em & 3u) << 21 : mini_bits(em, 2, 15);
    out[i] = bits_f32(v | (c & 0x80u) << 24);
  }
}

/* F8_E4M3FNUZ: bias 8; 0x80 is NaN, every other code a number. */
void wt_dec_f8_e4m3fnuz(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t c = src[i];
    uint32_t v = mini_bits(c & 0x7fu, 3, 8) | (c & 0x80u) << 24;
    out[i] = bits_f32(c == 0x80u ? 0x7fc00000u : v);
  }
}

/* F8_E5M2FNUZ: bias 16; 0x80 is NaN, every other code a number. */
void wt_dec_f8_e5m2fnuz(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t c = src[i];
    uint32_t v = mini_bits(c & 0x7fu, 2, 16) | (c & 0x80u) << 24;
    out[i] = bits_f32(c == 0x80u ? 0x7fc00000u : v);
  }
}

/* F8_E8M0: 2^(x-127); 0x00 is the float32 subnormal 2^-127; 0xFF NaN. */
void wt_dec_f8_e8m0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint32_t c = src[i];
    uint32_t v = c == 0 ? 0x00400000u : c << 23;
    out[i] = bits_f32(c == 0xffu ? 0x7fc00000u : v);
  }
}

/* ========================== 6- and 4-bit floats =========================== */

/* One 6-bit code (sign = bit 5) with m mantissa bits. */
static inline float f6_value(uint32_t c, int m, int bias) {
  return bits_f32(mini_bits(c & 0x1fu, m, bias) | (c & 0x20u) << 26);
}

/* F6: 4 elements per 3 bytes, least significant bits first. */
static inline void f6_decode(const unsigned char *restrict src, size_t nblocks, float *restrict out,
                             int m, int bias) {
  size_t i;
  int k;
  for (i = 0; i < nblocks; i++) {
    const unsigned char *p = src + 3 * i;
    uint32_t w = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    for (k = 0; k < 4; k++)
      out[4 * i + k] = f6_value((w >> (6 * k)) & 0x3fu, m, bias);
  }
}

void wt_dec_f6_e2m3(const unsigned char *src, size_t n, float *out) {
  f6_decode(src, n, out, 3, 1);
}

void wt_dec_f6_e3m2(const unsigned char *src, size_t n, float *out) {
  f6_decode(src, n, out, 2, 3);
}

/* F4 (E2M1): the whole code table; index = the nibble, bit 3 the sign. */
static const float wt_e2m1[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                  -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

/* F4: two elements per byte, the first in the low nibble. */
void wt_dec_f4(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++) {
    out[2 * i] = wt_e2m1[src[i] & 15];
    out[2 * i + 1] = wt_e2m1[src[i] >> 4];
  }
}
