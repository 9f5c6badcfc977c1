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
    for (i = 0; i < n; i++)
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

/* ================================ encoding ================================ */

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
    for (i = 0; i < n; i++) {
      h = t == CV_GGML_F16 ? cv_f32_to_f16(x[i]) : cv_f32_to_bf16(x[i]);
      out[2 * i] = (unsigned char)(h & 0xff);
      out[2 * i + 1] = (unsigned char)(h >> 8);
    }
    break;
  case CV_GGML_Q8_0:
    for (i = 0; i + CV_QK8_0 <= n; i += CV_QK8_0)
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
