/*
** decode_quants.c: decoders of the ggml block types, written from the
** format (the block structs of src/ggml-common.h and the dequantize_row_*
** functions of src/ggml-quants.c, ggml-org/ggml commit d99724f2), not
** copied from ggml.
** Layer: decode.
**
** A block of B elements decodes to B consecutive values; blocks follow
** each other with no state between them.  Multi-byte fields arrive in
** host order (decode_range.c swaps big-endian blocks first).
**
** Exactness: every product below is exact in float32 (an fp16 scale has
** 11 significant bits and the factors multiplied into it never bring the
** total above 24), so the only rounding is the final addition of the
** types with a min term (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K) or Q8_K's float32
** scale times an int8: the result is the exact value of the formula
** rounded once, which is what ggml produces.  The
** formulas are kept in ggml's association, e.g. (d * sc) * q - (dmin * m),
** never factored.
**
** Q4_K, the most common of them, also has an AVX2 version chosen at run
** time; it gives the same bits (decode_test checks).
**
** Notation of the comments: lo(x)/hi(x) are the low/high nibble, s8(x) a
** byte read as signed, e the element index inside the block.
*/
#include "decode.h"

#include <string.h>

#if WT_AVX2
#include <immintrin.h>
#endif

/* ============================= Shared helpers ============================= */

/* The fp16 at p (host order). */
static inline float f16_at(const unsigned char *p) {
  uint16_t h;
  memcpy(&h, p, 2);
  return wt_f16_to_f32(h);
}

/* The non-linear 4-bit table of IQ4_NL and IQ4_XS (kvalues_iq4nl). */
static const int8_t wt_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                    1,    13,   25,  38,  53,  69,  89,  113};

/* Twice the E2M1 value of a nibble (kvalues_fp4): MXFP4 and NVFP4 use it
** with a halved scale; nibble 8 (-0) gives +0, as in ggml. */
static const int8_t wt_fp4x2[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* The 16-byte nibble layout of the 32-element types: element e < 16 is
** lo(qs[e]), element e >= 16 is hi(qs[e - 16]).  Decodes to q[32]. */
static inline void nibbles32(const unsigned char *restrict qs, int *restrict q) {
  int e;
  for (e = 0; e < 16; e++) {
    q[e] = qs[e] & 15;
    q[e + 16] = qs[e] >> 4;
  }
}

/* ==================== 32-element blocks: Q4_0 to Q8_1 ===================== */

/* Q4_0 (32 el., 18 bytes): d fp16 at 0, qs at 2.  y = (q - 8) * d. */
void wt_dec_q4_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 18, out += 32) {
    float d = f16_at(src);
    nibbles32(src + 2, q);
    for (e = 0; e < 32; e++)
      out[e] = (float)(q[e] - 8) * d;
  }
}

/* Q4_1 (32, 20): d at 0, m at 2, qs at 4.  y = q * d + m. */
void wt_dec_q4_1(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 20, out += 32) {
    float d = f16_at(src), m = f16_at(src + 2);
    nibbles32(src + 4, q);
    for (e = 0; e < 32; e++)
      out[e] = (float)q[e] * d + m;
  }
}

/* Add the fifth bits of Q5_0/Q5_1: bit e of the uint32 qh is element e's. */
static inline void fifth_bits(const unsigned char *p, int *restrict q) {
  uint32_t qh;
  int e;
  memcpy(&qh, p, 4);
  for (e = 0; e < 32; e++)
    q[e] += (int)((qh >> e) & 1u) << 4;
}

/* Q5_0 (32, 22): d at 0, qh at 2, qs at 6.  y = (q - 16) * d. */
void wt_dec_q5_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 22, out += 32) {
    float d = f16_at(src);
    nibbles32(src + 6, q);
    fifth_bits(src + 2, q);
    for (e = 0; e < 32; e++)
      out[e] = (float)(q[e] - 16) * d;
  }
}

/* Q5_1 (32, 24): d at 0, m at 2, qh at 4, qs at 8.  y = q * d + m. */
void wt_dec_q5_1(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 24, out += 32) {
    float d = f16_at(src), m = f16_at(src + 2);
    nibbles32(src + 8, q);
    fifth_bits(src + 4, q);
    for (e = 0; e < 32; e++)
      out[e] = (float)q[e] * d + m;
  }
}

/* 32 int8 quants times an fp16 scale. */
static inline void int8x32(const unsigned char *restrict qs, float d, float *restrict out) {
  int e;
  for (e = 0; e < 32; e++)
    out[e] = (float)(int8_t)qs[e] * d;
}

/* Q8_0 (32, 34): d at 0, qs int8 at 2.  y = s8(qs[e]) * d. */
void wt_dec_q8_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++, src += 34, out += 32)
    int8x32(src + 2, f16_at(src), out);
}

/* Q8_1 (32, 36): d at 0, s at 2 (unused), qs at 4.  As Q8_0. */
void wt_dec_q8_1(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  for (i = 0; i < n; i++, src += 36, out += 32)
    int8x32(src + 4, f16_at(src), out);
}

/* ========================= K-quants: Q2_K to Q8_K ========================= */

/* Q2_K (256, 84): scales[16] at 0 (lo = scale, hi = min, per 16
** elements), qs[64] at 16, d at 80, dmin at 82.  Element e = 128h + 32j
** + r: q = bits(qs[32h + r], 2j, 2).  y = (d * lo(S)) * q - (dmin * hi(S)). */
void wt_dec_q2_k(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int h, j, r;
  for (i = 0; i < n; i++, src += 84, out += 256) {
    const unsigned char *sc = src, *qs = src + 16;
    float d = f16_at(src + 80), dmin = f16_at(src + 82);
    for (h = 0; h < 2; h++) {
      for (j = 0; j < 8; j++) { /* 16-element sub-block sb = 8h + j */
        int sb = 8 * h + j, plane = j / 2, half = j % 2;
        float dl = d * (float)(sc[sb] & 15), ml = dmin * (float)(sc[sb] >> 4);
        float *y = out + 16 * sb;
        const unsigned char *p = qs + 32 * h + 16 * half;
        for (r = 0; r < 16; r++)
          y[r] = dl * (float)((p[r] >> (2 * plane)) & 3) - ml;
      }
    }
  }
}

/* The sixteen signed 6-bit scales of Q3_K: L = bits(s[i mod 8], 4*(i/8),
** 4), H = bits(s[8 + i mod 4], 2*(i/4), 2), scale = L + 16 H - 32. */
static inline void q3k_scales(const unsigned char *s, int *scale) {
  int i;
  for (i = 0; i < 16; i++) {
    int lo = (s[i % 8] >> (4 * (i / 8))) & 15;
    int hi = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
    scale[i] = lo + 16 * hi - 32;
  }
}

/* Q3_K (256, 110): hmask[32] at 0, qs[64] at 32, scales[12] at 96, d at
** 108.  e = 128h + 32j + r: low = bits(qs[32h + r], 2j, 2), high =
** bits(hmask[r], 4h + j, 1); q = low - 4 when high is 0, else low.
** y = (d * scale[e / 16]) * q. */
void wt_dec_q3_k(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int h, j, r, scale[16];
  for (i = 0; i < n; i++, src += 110, out += 256) {
    const unsigned char *hm = src, *qs = src + 32;
    float d = f16_at(src + 108);
    q3k_scales(src + 96, scale);
    for (h = 0; h < 2; h++) {
      for (j = 0; j < 4; j++) {
        float *y = out + 128 * h + 32 * j;
        float d0 = d * (float)scale[8 * h + 2 * j], d1 = d * (float)scale[8 * h + 2 * j + 1];
        int bit = 4 * h + j;
        for (r = 0; r < 32; r++) {
          int low = (qs[32 * h + r] >> (2 * j)) & 3;
          int q = low - (((hm[r] >> bit) & 1) ? 0 : 4);
          y[r] = (r < 16 ? d0 : d1) * (float)q;
        }
      }
    }
  }
}

/* The 12-byte scale/min field of Q4_K and Q5_K: eight 6-bit scales and
** eight 6-bit mins, one pair per 32 elements (ggml's get_scale_min_k4). */
static inline void k4_scale_min(const unsigned char *s, int *sc, int *mn) {
  int j;
  for (j = 0; j < 4; j++) {
    sc[j] = s[j] & 63;
    mn[j] = s[j + 4] & 63;
    sc[j + 4] = (s[j + 8] & 15) | (s[j] >> 6) << 4;
    mn[j + 4] = (s[j + 8] >> 4) | (s[j + 4] >> 6) << 4;
  }
}

/* Q4_K (256, 144): d at 0, dmin at 2, scales[12] at 4, qs[128] at 16.
** 64-element chunk c uses qs[32c..32c+31]: its first 32 elements are the
** low nibbles, the next 32 the high nibbles.  Sub-block t = e / 32:
** y = (d * sc[t]) * q - (dmin * m[t]). */
static void q4_k_portable(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int c, r, sc[8], mn[8];
  for (i = 0; i < n; i++, src += 144, out += 256) {
    float d = f16_at(src), dmin = f16_at(src + 2);
    const unsigned char *qs = src + 16;
    k4_scale_min(src + 4, sc, mn);
    for (c = 0; c < 4; c++) {
      const unsigned char *p = qs + 32 * c;
      float *y = out + 64 * c;
      float d0 = d * (float)sc[2 * c], m0 = dmin * (float)mn[2 * c];
      float d1 = d * (float)sc[2 * c + 1], m1 = dmin * (float)mn[2 * c + 1];
      for (r = 0; r < 32; r++)
        y[r] = d0 * (float)(p[r] & 15) - m0;
      for (r = 0; r < 32; r++)
        y[32 + r] = d1 * (float)(p[r] >> 4) - m1;
    }
  }
}

#if WT_AVX2
/* 16 nibbles (one per byte of v, values 0-15) times dl minus ml: the
** product is exact, so the fused multiply-subtract rounds once, as the
** portable code does. */
__attribute__((target("avx2,fma"))) static inline void q4_16(__m128i v, __m256 dl, __m256 ml,
                                                             float *y) {
  __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
  __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)));
  _mm256_storeu_ps(y, _mm256_fmsub_ps(dl, a, ml));
  _mm256_storeu_ps(y + 8, _mm256_fmsub_ps(dl, b, ml));
}

/* Q4_K with AVX2: the same values, 16 a step. */
__attribute__((target("avx2,fma"))) static void q4_k_avx2(const unsigned char *restrict src,
                                                          size_t n, float *restrict out) {
  __m128i mask = _mm_set1_epi8(15);
  size_t i;
  int c, h, sc[8], mn[8];
  for (i = 0; i < n; i++, src += 144, out += 256) {
    float d = f16_at(src), dmin = f16_at(src + 2);
    k4_scale_min(src + 4, sc, mn);
    for (c = 0; c < 4; c++) {
      __m256 d0 = _mm256_set1_ps(d * (float)sc[2 * c]),
             m0 = _mm256_set1_ps(dmin * (float)mn[2 * c]);
      __m256 d1 = _mm256_set1_ps(d * (float)sc[2 * c + 1]);
      __m256 m1 = _mm256_set1_ps(dmin * (float)mn[2 * c + 1]);
      for (h = 0; h < 2; h++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + 16 + 32 * c + 16 * h));
        q4_16(_mm_and_si128(v, mask), d0, m0, out + 64 * c + 16 * h);
        q4_16(_mm_and_si128(_mm_srli_epi16(v, 4), mask), d1, m1, out + 64 * c + 32 + 16 * h);
      }
    }
  }
}
#endif

void wt_dec_q4_k(const unsigned char *restrict src, size_t n, float *restrict out) {
#if WT_AVX2
  if (wt_cpu_avx2()) {
    q4_k_avx2(src, n, out);
    return;
  }
#endif
  q4_k_portable(src, n, out);
}

/* Q5_K (256, 176): d at 0, dmin at 2, scales[12] at 4, qh[32] at 16,
** qs[128] at 48.  Low 4 bits as Q4_K, fifth bit = bits(qh[r], e / 32, 1). */
void wt_dec_q5_k(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int c, r, sc[8], mn[8];
  for (i = 0; i < n; i++, src += 176, out += 256) {
    float d = f16_at(src), dmin = f16_at(src + 2);
    const unsigned char *qh = src + 16, *qs = src + 48;
    k4_scale_min(src + 4, sc, mn);
    for (c = 0; c < 4; c++) {
      const unsigned char *p = qs + 32 * c;
      float *y = out + 64 * c;
      float d0 = d * (float)sc[2 * c], m0 = dmin * (float)mn[2 * c];
      float d1 = d * (float)sc[2 * c + 1], m1 = dmin * (float)mn[2 * c + 1];
      for (r = 0; r < 32; r++)
        y[r] = d0 * (float)((p[r] & 15) | ((qh[r] >> (2 * c)) & 1) << 4) - m0;
      for (r = 0; r < 32; r++)
        y[32 + r] = d1 * (float)((p[r] >> 4) | ((qh[r] >> (2 * c + 1)) & 1) << 4) - m1;
    }
  }
}

/* Q6_K (256, 210): ql[128] at 0, qh[64] at 128, scales int8[16] at 192,
** d at 208.  e = 128h + 32j + r: low = nibble of ql[64h + r + 32 (j mod
** 2)] (low for j < 2, high for j >= 2), high = bits(qh[32h + r], 2j, 2),
** q = low + 16 high - 32.  y = (d * s8(scales[e / 16])) * q. */
void wt_dec_q6_k(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int h, j, r;
  for (i = 0; i < n; i++, src += 210, out += 256) {
    const unsigned char *ql = src, *qh = src + 128, *sc = src + 192;
    float d = f16_at(src + 208);
    for (h = 0; h < 2; h++) {
      for (j = 0; j < 4; j++) {
        const unsigned char *l = ql + 64 * h + 32 * (j % 2), *hb = qh + 32 * h;
        int shift = 4 * (j / 2);
        float *y = out + 128 * h + 32 * j;
        float d0 = d * (float)(int8_t)sc[8 * h + 2 * j];
        float d1 = d * (float)(int8_t)sc[8 * h + 2 * j + 1];
        for (r = 0; r < 32; r++) {
          int q = (((l[r] >> shift) & 15) | ((hb[r] >> (2 * j)) & 3) << 4) - 32;
          y[r] = (r < 16 ? d0 : d1) * (float)q;
        }
      }
    }
  }
}

/* Q8_K (256, 292): d float32 at 0, qs int8[256] at 4, bsums (unused) at
** 260.  y = d * s8(qs[e]). */
void wt_dec_q8_k(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e;
  for (i = 0; i < n; i++, src += 292, out += 256) {
    float d;
    memcpy(&d, src, 4);
    for (e = 0; e < 256; e++)
      out[e] = d * (float)(int8_t)src[4 + e];
  }
}

/* ==================== Non-linear 4-bit: IQ4_NL, IQ4_XS ==================== */

/* IQ4_NL (32, 18): d at 0, qs at 2 (Q4_0 order).  y = d * K[q]. */
void wt_dec_iq4_nl(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 18, out += 32) {
    float d = f16_at(src);
    nibbles32(src + 2, q);
    for (e = 0; e < 32; e++)
      out[e] = d * (float)wt_iq4nl[q[e]];
  }
}

/* IQ4_XS (256, 136): d at 0, scales_h uint16 at 2, scales_l[4] at 4,
** qs[128] at 8.  Sub-block b (32 elements): ls = bits(scales_l[b/2],
** 4 (b mod 2), 4) + 16 bits(scales_h, 2b, 2); dl = d * (ls - 32); qs[16b..]
** in Q4_0 order; y = dl * K[q]. */
void wt_dec_iq4_xs(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int b, e, q[32];
  for (i = 0; i < n; i++, src += 136, out += 256) {
    float d = f16_at(src);
    uint16_t sh;
    memcpy(&sh, src + 2, 2);
    for (b = 0; b < 8; b++) {
      int ls = ((src[4 + b / 2] >> (4 * (b % 2))) & 15) | ((sh >> (2 * b)) & 3) << 4;
      float dl = d * (float)(ls - 32);
      nibbles32(src + 8 + 16 * b, q);
      for (e = 0; e < 32; e++)
        out[32 * b + e] = dl * (float)wt_iq4nl[q[e]];
    }
  }
}

/* ========================= Ternary: TQ1_0, TQ2_0 ========================== */

/* Ternary digit k of a TQ1_0 byte x: floor(3 ((x 3^k) mod 256) / 256). */
static inline int trit(unsigned x, unsigned pow3) {
  return (int)((((x * pow3) & 255u) * 3u) >> 8);
}

/* TQ1_0 (256, 54): qs[48] at 0 (5 digits a byte), qh[4] at 48 (4 digits
** a byte), d at 52.  Elements 0-159: 32n + m from digit n of qs[m];
** 160-239: 160 + 16n + m from digit n of qs[32 + m]; 240-255: 240 + 4n +
** m from digit n of qh[m].  y = (t - 1) * d. */
void wt_dec_tq1_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  static const unsigned pow3[5] = {1, 3, 9, 27, 81};
  size_t i;
  int k, m;
  for (i = 0; i < n; i++, src += 54, out += 256) {
    float d = f16_at(src + 52);
    for (k = 0; k < 5; k++) {
      for (m = 0; m < 32; m++)
        out[32 * k + m] = (float)(trit(src[m], pow3[k]) - 1) * d;
      for (m = 0; m < 16; m++)
        out[160 + 16 * k + m] = (float)(trit(src[32 + m], pow3[k]) - 1) * d;
    }
    for (k = 0; k < 4; k++)
      for (m = 0; m < 4; m++)
        out[240 + 4 * k + m] = (float)(trit(src[48 + m], pow3[k]) - 1) * d;
  }
}

/* TQ2_0 (256, 66): qs[64] at 0 (the Q2_K planes), d at 64.
** y = (q - 1) * d. */
void wt_dec_tq2_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int h, j, r;
  for (i = 0; i < n; i++, src += 66, out += 256) {
    float d = f16_at(src + 64);
    for (h = 0; h < 2; h++)
      for (j = 0; j < 4; j++)
        for (r = 0; r < 32; r++)
          out[128 * h + 32 * j + r] = (float)(((src[32 * h + r] >> (2 * j)) & 3) - 1) * d;
  }
}

/* ======================== FP4 blocks: MXFP4, NVFP4 ======================== */

/* 2^(E-128) as a float, E = 0..255 (0 and 1 give float32 subnormals). */
static inline float pow2_m128(unsigned e) {
  uint32_t u = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* MXFP4 (32, 17): E8M0 exponent E at 0, qs at 1 (Q4_0 order).
** y = kvalues_fp4[q] * 2^(E-128).  E = 255 is 2^127 as in ggml (the OCP
** spec would say NaN). */
void wt_dec_mxfp4(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e, q[32];
  for (i = 0; i < n; i++, src += 17, out += 32) {
    float s = pow2_m128(src[0]);
    nibbles32(src + 1, q);
    for (e = 0; e < 32; e++)
      out[e] = (float)wt_fp4x2[q[e]] * s;
  }
}

/* ggml's UE4M3 scale byte: bit 7 ignored, exactly 0x7F gives 0, else
** E = bits 3-6, M = bits 0-2: M 2^-9 (E = 0), (1 + M/8) 2^(E-7). */
static inline float ue4m3(unsigned x) {
  unsigned ex = (x >> 3) & 15, m = x & 7;
  uint32_t u;
  float f;
  if (x == 0x7f)
    return 0.0f;
  if (ex == 0)
    return (float)m * 0x1p-9f;
  u = (ex + 120) << 23 | m << 20;
  memcpy(&f, &u, 4);
  return f;
}

/* NVFP4 (64, 36): four UE4M3 scales at 0, qs[32] at 4.  Sub-block s (16
** elements) uses d[s] and qs[8s..8s+7]: element 16s + i is lo(qs[8s + i])
** for i < 8, hi(qs[8s + i - 8]) for i >= 8.  y = kvalues_fp4[q] * (D/2). */
void wt_dec_nvfp4(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int s, k;
  for (i = 0; i < n; i++, src += 36, out += 64) {
    for (s = 0; s < 4; s++) {
      const unsigned char *p = src + 4 + 8 * s;
      float d = ue4m3(src[s]) * 0.5f;
      for (k = 0; k < 8; k++) {
        out[16 * s + k] = (float)wt_fp4x2[p[k] & 15] * d;
        out[16 * s + 8 + k] = (float)wt_fp4x2[p[k] >> 4] * d;
      }
    }
  }
}

/* ======================== 1- and 2-bit: Q1_0, Q2_0 ======================== */

/* Q1_0 (128, 18): d at 0, qs[16] at 2, bit e mod 8 of qs[e / 8]:
** y = +d when set, -d when clear. */
void wt_dec_q1_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e;
  for (i = 0; i < n; i++, src += 18, out += 128) {
    float d = f16_at(src);
    for (e = 0; e < 128; e++)
      out[e] = (src[2 + e / 8] >> (e % 8)) & 1 ? d : -d;
  }
}

/* Q2_0 (64, 18): d at 0, qs[16] at 2; q = bits(qs[e / 4], 2 (e mod 4),
** 2); y = (q - 1) * d. */
void wt_dec_q2_0(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int e;
  for (i = 0; i < n; i++, src += 18, out += 64) {
    float d = f16_at(src);
    for (e = 0; e < 64; e++)
      out[e] = (float)(((src[2 + e / 4] >> (2 * (e % 4))) & 3) - 1) * d;
  }
}
