/*
** decode_iq.c: decoders of ggml's seven codebook ("IQ") block types,
** IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S and IQ1_M, written from
** the format (the block_iq* structs of src/ggml-common.h and the
** dequantize_row_iq* functions of src/ggml-quants.c, ggml-org/ggml commit
** d99724f2), not copied from ggml.  Layer: decode, pure C; the codec table
** (decode_codecs.c) points at these.
**
** Every type is a 256-element super-block of eight 32-element sub-blocks
** ib, each of four 8-element groups l: element 32*ib + 8*l + j comes from
** byte j of a grid entry (iq_grids.c) times a sub-block scale derived from
** the fp16 d, with a sign per element (IQ2, IQ3) or a +-1/8 shift per
** group (IQ1).  Multi-byte fields arrive in host order: decode_range.c swaps
** the fields listed in the wt_swap_iq* arrays below first when a GGUF
** file is big-endian.
**
** Exactness: every product is exact in float32 (11-bit fp16 significand x
** a sub-scale of at most 5 bits x a grid byte of at most 6 bits), so any
** order of evaluation gives ggml's bits.  A sign is applied by flipping
** the sign bit, as ggml's optimized build does (it only matters for the
** sign of a NaN); with SSE2, eight values of a group at once.
*/
#include "decode.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "iq_grids.h"

/* The fp16 at p (host order). */
static inline float f16_at(const unsigned char *p) {
  uint16_t h;
  memcpy(&h, p, 2);
  return wt_f16_to_f32(h);
}

static inline uint16_t u16_at(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

static inline uint32_t u32_at(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Eight values: db * byte j of grid entry g, negated where bit j of the
** sign mask m is set (by flipping the sign bit: no branch on random
** signs). */
static inline void signed8(uint64_t g, unsigned m, float db, float *restrict y) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i bits_lo = _mm_set_epi32(8, 4, 2, 1), bits_hi = _mm_set_epi32(128, 64, 32, 16);
  __m128i b16 = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)g), zero);
  __m128i mv = _mm_set1_epi32((int)m);
  __m128 d = _mm_set1_ps(db);
  __m128i s_lo = _mm_slli_epi32(_mm_cmpeq_epi32(_mm_and_si128(mv, bits_lo), bits_lo), 31);
  __m128i s_hi = _mm_slli_epi32(_mm_cmpeq_epi32(_mm_and_si128(mv, bits_hi), bits_hi), 31);
  __m128 v_lo = _mm_mul_ps(d, _mm_cvtepi32_ps(_mm_unpacklo_epi16(b16, zero)));
  __m128 v_hi = _mm_mul_ps(d, _mm_cvtepi32_ps(_mm_unpackhi_epi16(b16, zero)));
  _mm_storeu_ps(y, _mm_xor_ps(v_lo, _mm_castsi128_ps(s_lo)));
  _mm_storeu_ps(y + 4, _mm_xor_ps(v_hi, _mm_castsi128_ps(s_hi)));
#else
  int j;
  for (j = 0; j < 8; j++) {
    float v = db * (float)(unsigned)((g >> (8 * j)) & 0xff);
    uint32_t u;
    memcpy(&u, &v, 4);
    u ^= ((m >> j) & 1u) << 31;
    memcpy(&y[j], &u, 4);
  }
#endif
}

/* IQ2_XXS (256 el., 66 bytes): d at 0; sub-block ib is 8 bytes at 2 + 8ib:
** grid indices a0..a3, then w = u32: sign index of group l = bits(w, 7l, 7)
** (through ksigns), scale s = bits(w, 28, 4); db = d * (0.5 + s) * 0.25. */
void wt_dec_iq2_xxs(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 66) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      const unsigned char *q = src + 2 + 8 * ib;
      uint32_t w = u32_at(q + 4);
      float db = d * (0.5f + (float)(w >> 28)) * 0.25f;
      for (l = 0; l < 4; l++, out += 8)
        signed8(wt_iq2xxs_grid[q[l]], wt_ksigns_iq2xs[(w >> (7 * l)) & 127], db, out);
    }
  }
}

/* IQ2_XS (256, 74): d at 0, qs = 32 u16 at 2, scales[8] at 66.  Group
** 4ib + l: v = qs[4ib + l], grid index bits(v, 0, 9), sign index bits(v,
** 9, 7); s = lo(scales[ib]) for l < 2, hi for l >= 2; db as IQ2_XXS. */
void wt_dec_iq2_xs(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 74) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      unsigned sc = src[66 + ib];
      for (l = 0; l < 4; l++, out += 8) {
        unsigned v = u16_at(src + 2 + 2 * (4 * ib + l));
        unsigned s = l < 2 ? sc & 15 : sc >> 4;
        float db = d * (0.5f + (float)s) * 0.25f;
        signed8(wt_iq2xs_grid[v & 511], wt_ksigns_iq2xs[v >> 9], db, out);
      }
    }
  }
}

/* IQ2_S (256, 82): d at 0, qs[32] at 2, signs[32] at 34, qh[8] at 66,
** scales[8] at 74.  Grid index qs[4ib + l] + 256 * bits(qh[ib], 2l, 2);
** the sign byte signs[4ib + l] directly; s and db as IQ2_XS. */
void wt_dec_iq2_s(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 82) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      unsigned sc = src[74 + ib], qh = src[66 + ib];
      for (l = 0; l < 4; l++, out += 8) {
        unsigned idx = src[2 + 4 * ib + l] + 256 * ((qh >> (2 * l)) & 3);
        unsigned s = l < 2 ? sc & 15 : sc >> 4;
        float db = d * (0.5f + (float)s) * 0.25f;
        signed8(wt_iq2s_grid[idx], src[34 + 4 * ib + l], db, out);
      }
    }
  }
}

/* Two 4-byte grid entries as one 8-element group (a: elements 0-3). */
static inline uint64_t pair(uint32_t a, uint32_t b) {
  return (uint64_t)a | (uint64_t)b << 32;
}

/* IQ3_XXS (256, 98): d at 0, grid indices qs[64] at 2, w = u32 at 66 + 4ib:
** sign index bits(w, 7l, 7) through ksigns, s = bits(w, 28, 4), db = d *
** (0.5 + s) * 0.5.  Group l: entries qs[8ib + 2l] (elements 0-3) and
** qs[8ib + 2l + 1] (4-7) of iq3xxs_grid. */
void wt_dec_iq3_xxs(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 98) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      const unsigned char *q = src + 2 + 8 * ib;
      uint32_t w = u32_at(src + 66 + 4 * ib);
      float db = d * (0.5f + (float)(w >> 28)) * 0.5f;
      for (l = 0; l < 4; l++, out += 8)
        signed8(pair(wt_iq3xxs_grid[q[2 * l]], wt_iq3xxs_grid[q[2 * l + 1]]),
                wt_ksigns_iq2xs[(w >> (7 * l)) & 127], db, out);
    }
  }
}

/* IQ3_S (256, 110): d at 0, qs[64] at 2, qh[8] at 66, signs[32] at 74,
** scales[4] at 106.  s = bits(scales[ib/2], 4 (ib mod 2), 4), db = d *
** (1 + 2s).  Group l: 9-bit indices qs[8ib + 2l] + 256 * bits(qh[ib], 2l,
** 1) (elements 0-3) and qs[8ib + 2l + 1] + 256 * bits(qh[ib], 2l + 1, 1)
** (4-7) into iq3s_grid; the sign byte signs[4ib + l] directly. */
void wt_dec_iq3_s(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 110) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      const unsigned char *q = src + 2 + 8 * ib;
      unsigned qh = src[66 + ib], s = (src[106 + ib / 2] >> (4 * (ib % 2))) & 15;
      float db = d * (float)(1 + 2 * s);
      for (l = 0; l < 4; l++, out += 8) {
        unsigned a = q[2 * l] + 256 * ((qh >> (2 * l)) & 1);
        unsigned b = q[2 * l + 1] + 256 * ((qh >> (2 * l + 1)) & 1);
        signed8(pair(wt_iq3s_grid[a], wt_iq3s_grid[b]), src[74 + 4 * ib + l], db, out);
      }
    }
  }
}

/* Eight values dl * (g[j] + delta), g the signed bytes of an iq1s_grid
** entry (-1, 0 or +1). */
static inline void shifted8(uint64_t g, float dl, float delta, float *restrict y) {
  int j;
  for (j = 0; j < 8; j++)
    y[j] = dl * ((float)(int8_t)(uint8_t)(g >> (8 * j)) + delta);
}

/* IQ1_S (256, 50): d at 0, qs[32] at 2, qh = 8 u16 at 34.  h = qh[ib]: dl =
** d * (2 bits(h, 12, 3) + 1), delta = -1/8 if bit 15 of h, else +1/8;
** group l: index qs[4ib + l] + 256 * bits(h, 3l, 3) into iq1s_grid. */
void wt_dec_iq1_s(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 50) {
    float d = f16_at(src);
    for (ib = 0; ib < 8; ib++) {
      unsigned h = u16_at(src + 34 + 2 * ib);
      float dl = d * (float)(2 * ((h >> 12) & 7) + 1);
      float delta = h & 0x8000 ? -0.125f : 0.125f;
      for (l = 0; l < 4; l++, out += 8)
        shifted8(wt_iq1s_grid[src[2 + 4 * ib + l] + 256 * ((h >> (3 * l)) & 7)], dl, delta, out);
    }
  }
}

/* IQ1_M (256, 56): qs[32] at 0, qh[16] at 32, S0..S3 = u16 at 48..54.  d is
** the fp16 whose bits are the top nibbles of S0 (lowest) .. S3.  W =
** S[ib/2], o = 6 (ib mod 2): dl = d * (2 bits(W, o, 3) + 1) for groups 0-1,
** bits(W, o + 3, 3) for groups 2-3.  Group l: nibble N = bits(qh[2ib +
** l/2], 4 (l mod 2), 4), index qs[4ib + l] + 256 * bits(N, 0, 3), delta =
** -1/8 if bit 3 of N, else +1/8. */
void wt_dec_iq1_m(const unsigned char *restrict src, size_t n, float *restrict out) {
  size_t i;
  int ib, l;
  for (i = 0; i < n; i++, src += 56) {
    unsigned S[4], k;
    float d;
    for (k = 0; k < 4; k++)
      S[k] = u16_at(src + 48 + 2 * k);
    d = wt_f16_to_f32(
        (uint16_t)((S[0] >> 12) | (S[1] >> 12) << 4 | (S[2] >> 12) << 8 | (S[3] >> 12) << 12));
    for (ib = 0; ib < 8; ib++) {
      unsigned W = S[ib / 2], o = 6 * (ib % 2);
      for (l = 0; l < 4; l++, out += 8) {
        unsigned N = (src[32 + 2 * ib + l / 2] >> (4 * (l % 2))) & 15;
        float dl = d * (float)(2 * ((W >> (o + 3 * (l / 2))) & 7) + 1);
        shifted8(wt_iq1s_grid[src[4 * ib + l] + 256 * (N & 7)], dl, N & 8 ? -0.125f : 0.125f, out);
      }
    }
  }
}

/* The multi-byte fields each decoder reads as integers, for decode_range.c
** to byte-swap in a big-endian GGUF file (each field is swapped, byte
** arrays are not, as gguf-py/gguf/scripts/gguf_convert_endian.py of
** ggml-org/llama.cpp does for the types it knows).  No writer of big-endian IQ files is
** known (gguf_convert_endian.py refuses these types): this follows the
** field layout of the recipes, not an observed file. */
#define F16_D                                                                                      \
  { 0, 2 }
#define U32X8(o)                                                                                   \
  {(o), 4}, {(o) + 8, 4}, {(o) + 16, 4}, {(o) + 24, 4}, {(o) + 32, 4}, {(o) + 40, 4},              \
      {(o) + 48, 4}, {                                                                             \
    (o) + 56, 4                                                                                    \
  }
#define U16X8(o)                                                                                   \
  {(o), 2}, {(o) + 2, 2}, {(o) + 4, 2}, {(o) + 6, 2}, {(o) + 8, 2}, {(o) + 10, 2}, {(o) + 12, 2},  \
  {                                                                                                \
    (o) + 14, 2                                                                                    \
  }
const wt_field wt_swap_iq2_xxs[] = {F16_D, U32X8(6), {0, 0}};
const wt_field wt_swap_iq2_xs[] = {F16_D, U16X8(2), U16X8(18), U16X8(34), U16X8(50), {0, 0}};
const wt_field wt_swap_iq2_s[] = {F16_D, {0, 0}};
const wt_field wt_swap_iq3_xxs[] = {F16_D,   {66, 4}, {70, 4}, {74, 4}, {78, 4},
                                    {82, 4}, {86, 4}, {90, 4}, {94, 4}, {0, 0}};
const wt_field wt_swap_iq3_s[] = {F16_D, {0, 0}};
const wt_field wt_swap_iq1_s[] = {F16_D, U16X8(34), {0, 0}};
const wt_field wt_swap_iq1_m[] = {{48, 2}, {50, 2}, {52, 2}, {54, 2}, {0, 0}};
