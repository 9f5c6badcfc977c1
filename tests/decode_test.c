/*
** decode_test.c: unit tests of the pure-C decoding module (ext/decode/).
**
**   decode_test            run every test; one line per test, then
**                          "decode: N passed, M failed"; exit 1 on failure
**   decode_test --bench [MB]  throughput of decoding, and of stats, over
**                          BF16, F16, F32 and Q4_K against a u64 sum of
**                          the same bytes (CPU time; AVX2 and portable
**                          kernels)
**
** Expected values are worked out by hand from the formats' definitions
** (for GGUF: the block_* structs of src/ggml-common.h and the
** dequantize_row_* functions of src/ggml-quants.c in ggml-org/ggml, commit
** d99724f2), in the comments next to each block; where a block has too many
** elements to list, a per-element reference written as one formula per
** element index (not the decoder's loops) fills the expected array, and
** hand-computed spot values pin it.
*/
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/decode.h"
#include "decode/histogram.h"
#include "decode/iq_grids.h"
#include "decode/permute.h"
#include "formats/dtype.h"
#include "formats/ggml_type.h"

static int n_pass, n_fail;
static char detail[1024];
static const char *mode = ""; /* which kernels run: "", " [avx2]" */

/* Record one test's outcome. */
static void report(const char *name, int ok) {
  if (ok) {
    n_pass++;
    printf("ok   %s%s\n", name, mode);
  } else {
    n_fail++;
    printf("FAIL %s%s: %s\n", name, mode, detail);
  }
  detail[0] = 0;
}

/* Equal as values, NaN equal to any NaN, and -0 distinct from +0. */
static int same(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* Little-endian stores. */
static void put16(unsigned char *p, unsigned v) {
  p[0] = v & 255;
  p[1] = (v >> 8) & 255;
}
static void put32(unsigned char *p, uint32_t v) {
  put16(p, v & 0xffff);
  put16(p + 2, v >> 16);
}
static void putf32(unsigned char *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  put32(p, u);
}

/* The codec or a failed check. */
static const wt_codec *codec(int format, int64_t id, int be) {
  wt_error err;
  const wt_codec *c = wt_codec_find(format, id, be, &err);
  if (c == NULL)
    snprintf(detail, sizeof(detail), "codec_find: %s", err.msg);
  return c;
}

/* Decode all of src and compare with want[0..n); also check the count. */
static int check_all(const wt_codec *c, const unsigned char *src, size_t nbytes, const double *want,
                     size_t n) {
  double *got;
  uint64_t nv;
  wt_error err;
  size_t i;
  if (c == NULL)
    return 0;
  if (wt_codec_count(c, nbytes, &nv, &err) != 0 || nv != n) {
    snprintf(detail, sizeof(detail), "%s: count %" PRIu64 ", want %zu", c->name, nv, n);
    return 0;
  }
  got = malloc(n * sizeof(double));
  if (wt_decode_range(c, src, nbytes, 0, n, got, &err) != 0) {
    snprintf(detail, sizeof(detail), "%s", err.msg);
    free(got);
    return 0;
  }
  for (i = 0; i < n; i++) {
    if (!same(got[i], want[i])) {
      snprintf(detail, sizeof(detail), "%s: value %zu is %.17g, want %.17g", c->name, i, got[i],
               want[i]);
      free(got);
      return 0;
    }
  }
  free(got);
  return 1;
}

/* Compare a few hand-computed elements of a decoded block. */
typedef struct spot {
  int e;
  double v;
} spot;
static int check_spots(const char *what, const double *want, const spot *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (!same(want[s[i].e], s[i].v)) {
      snprintf(detail, sizeof(detail), "%s: reference element %d is %.17g, hand value %.17g", what,
               s[i].e, want[s[i].e], s[i].v);
      return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Tables */

/* Names and sizes agree with dtype.c and ggml_type.c; refused types name
** themselves. */
static void test_tables(void) {
  int i, ok = 1;
  wt_error err;
  for (i = 0; i < ST_DTYPE_COUNT && ok; i++) {
    const wt_codec *c = codec(WT_FORMAT_SAFETENSORS, i, 0);
    const st_dtype_info *d = st_dtype_get(i);
    ok = c && strcmp(c->name, d->name) == 0 && c->swap == 0 &&
         (uint64_t)c->block_bytes * 8 * c->elem_values == (uint64_t)d->bits * c->block_values;
    if (!ok && c)
      snprintf(detail, sizeof(detail), "safetensors %d: %s vs %s", i, c->name, d->name);
  }
  for (i = 0; i < GGML_TYPE_TABLE_SIZE && ok; i++) {
    const ggml_type_info *t = ggml_type_get(i);
    const wt_codec *c = wt_codec_find(WT_FORMAT_GGUF, i, 0, &err);
    if (c)
      ok = strcmp(c->name, t->name) == 0 && c->block_values == t->block_size &&
           c->block_bytes == t->type_size && c->kind != WT_KIND_COMPLEX;
    else
      ok = strstr(err.msg, t->name) != NULL && strstr(err.msg, "cannot decode") != NULL;
    if (!ok)
      snprintf(detail, sizeof(detail), "ggml id %d (%s): %s", i, t->name, c ? c->name : err.msg);
  }
  report("tables agree with dtype.c and ggml_type.c", ok);
}

/* The types refused, and the message. */
static void test_refused(void) {
  static const struct {
    int64_t id;
    int be;
    const char *want;
  } cases[] = {
      {4, 0, "Q4_2"},        {5, 1, "Q4_3"},        {31, 0, "Q4_0_4_4"},   {36, 0, "IQ4_NL_4_4"},
      {38, 0, "IQ4_NL_8_8"}, {43, 0, "type id 43"}, {-1, 0, "type id -1"},
  };
  size_t i;
  int ok = 1;
  wt_error err;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]) && ok; i++) {
    err.msg[0] = 0;
    ok = wt_codec_find(WT_FORMAT_GGUF, cases[i].id, cases[i].be, &err) == NULL &&
         strstr(err.msg, cases[i].want) != NULL;
    if (!ok)
      snprintf(detail, sizeof(detail), "id %lld: \"%s\"", (long long)cases[i].id, err.msg);
  }
  if (ok) { /* these decode in a big-endian file */
    static const int be_ok[] = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11, 12, 13,
                                14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                26, 27, 28, 29, 30, 34, 35, 39, 40, 41, 42};
    for (i = 0; i < sizeof(be_ok) / sizeof(be_ok[0]) && ok; i++)
      ok = codec(WT_FORMAT_GGUF, be_ok[i], 1) != NULL;
  }
  report("refused types name themselves and say why", ok);
}

/* ------------------------------------------------------------------ */
/* Floats */

/* F16 edge encodings (1/5/10, bias 15). */
static void test_f16(void) {
  static const uint16_t h[] = {0x0000, 0x8000, 0x3C00, 0xC000, 0x3555, 0x7BFF, 0x0400,
                               0x0001, 0x03FF, 0x7C00, 0xFC00, 0x7E00, 0x7C01};
  static const double want[] = {0.0,
                                -0.0,
                                1.0,
                                -2.0,
                                0.333251953125,  /* 0x3555: 2^-2 * (1 + 341/1024) = 1365/4096 */
                                65504.0,         /* 0x7BFF: max, 2^15 * (1 + 1023/1024) */
                                6.103515625e-05, /* 0x0400: min normal 2^-14 */
                                5.9604644775390625e-08, /* 0x0001: min subnormal 2^-24 */
                                6.0975551605224609e-05, /* 0x03FF: 1023 * 2^-24 */
                                INFINITY,
                                -INFINITY,
                                NAN,
                                NAN};
  unsigned char b[sizeof(h)];
  size_t i;
  for (i = 0; i < sizeof(h) / 2; i++)
    put16(b + 2 * i, h[i]);
  report("F16 edge values",
         check_all(codec(WT_FORMAT_SAFETENSORS, 13, 0), b, sizeof(b), want, sizeof(h) / 2));
}

/* Every F16 pattern against the definition, via ldexp. */
static void test_f16_all(void) {
  int ok = 1;
  unsigned u;
  for (u = 0; u < 65536 && ok; u++) {
    unsigned e = (u >> 10) & 31, m = u & 1023;
    double v = e == 0   ? ldexp(m, -24)
               : e < 31 ? ldexp(1024 + m, (int)e - 25)
               : m == 0 ? INFINITY
                        : NAN;
    if (u & 0x8000)
      v = -v;
    ok = same(wt_f16_to_f32((uint16_t)u), v);
    if (!ok)
      snprintf(detail, sizeof(detail), "0x%04x: %.17g, want %.17g", u,
               (double)wt_f16_to_f32((uint16_t)u), v);
  }
  report("F16 all 65536 patterns", ok);
}

/* BF16 edge encodings (the top half of a float32). */
static void test_bf16(void) {
  static const uint16_t h[] = {0x3F80, 0xC0A0, 0x3E20, 0x7F80, 0xFF80,
                               0x7FC0, 0x0001, 0x0080, 0x7F7F, 0x8000};
  static const double want[] = {1.0,
                                -5.0,    /* 0xC0A0: -2^2 * 1.25 */
                                0.15625, /* 0x3E20: 2^-3 * 1.25 */
                                INFINITY,
                                -INFINITY,
                                NAN,
                                9.1835496157991212e-41, /* 0x0001: 2^-133 */
                                1.1754943508222875e-38, /* 0x0080: 2^-126 */
                                3.3895313892515355e+38, /* 0x7F7F: 2^127 * (1 + 127/128) */
                                -0.0};
  unsigned char b[sizeof(h)];
  size_t i;
  for (i = 0; i < sizeof(h) / 2; i++)
    put16(b + 2 * i, h[i]);
  report("BF16 edge values",
         check_all(codec(WT_FORMAT_GGUF, 30, 0), b, sizeof(b), want, sizeof(h) / 2));
}

/* F32 and F64 as stored. */
static void test_f32_f64(void) {
  static const unsigned char f32[] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0xC0, 0x7F,
                                      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xFF};
  static const double w32[] = {1.0, NAN, 1.4012984643248171e-45 /* 2^-149 */, -INFINITY};
  static const unsigned char f64[] = {
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F, /* 1.0 */
      0x18, 0x2D, 0x44, 0x54, 0xFB, 0x21, 0x09, 0x40, /* pi: 0x400921FB54442D18 */
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 2^-1074 */
      0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F, /* 0.1 (not a float) */
  };
  static const double w64[] = {1.0, 3.141592653589793, 4.9406564584124654e-324, 0.1};
  int ok = check_all(codec(WT_FORMAT_SAFETENSORS, 17, 0), f32, sizeof(f32), w32, 4) &&
           check_all(codec(WT_FORMAT_GGUF, 28, 0), f64, sizeof(f64), w64, 4);
  if (ok) { /* the float output rounds F64 */
    float f[4];
    wt_error err;
    ok = wt_decode_range_f32(codec(WT_FORMAT_SAFETENSORS, 19, 0), f64, sizeof(f64), 0, 4, f,
                             &err) == 0 &&
         f[3] == 0.1f && f[2] == 0.0f && f[1] == (float)3.141592653589793;
  }
  report("F32 and F64 (and F64 through the float path)", ok);
}

/* Reference for a sign-less minifloat code: E exponent bits, m mantissa
** bits, bias; no specials. */
static double mini(unsigned code, int m, int bias) {
  unsigned e = code >> m, f = code & ((1u << m) - 1);
  return e == 0 ? ldexp(f, 1 - bias - m) : ldexp((1u << m) + f, (int)e - bias - m);
}

/* Decode the 256 codes of an 8-bit format and compare with ref(). */
static int all_bytes(int64_t id, double (*ref)(unsigned)) {
  unsigned char b[256];
  double want[256];
  unsigned i;
  for (i = 0; i < 256; i++) {
    b[i] = (unsigned char)i;
    want[i] = ref(i);
  }
  return check_all(codec(WT_FORMAT_SAFETENSORS, id, 0), b, 256, want, 256);
}

static double ref_e4m3(unsigned c) { /* NaN only at S.1111.111 */
  double v = (c & 0x7f) == 0x7f ? NAN : mini(c & 0x7f, 3, 7);
  return c & 0x80 ? -v : v;
}
static double ref_e5m2(unsigned c) { /* E = 31: Inf or NaN */
  unsigned em = c & 0x7f;
  double v = em == 0x7c ? INFINITY : em > 0x7c ? NAN : mini(em, 2, 15);
  return c & 0x80 ? -v : v;
}
static double ref_e4m3fnuz(unsigned c) {
  double v = mini(c & 0x7f, 3, 8);
  return c == 0x80 ? NAN : c & 0x80 ? -v : v;
}
static double ref_e5m2fnuz(unsigned c) {
  double v = mini(c & 0x7f, 2, 16);
  return c == 0x80 ? NAN : c & 0x80 ? -v : v;
}
static double ref_e8m0(unsigned c) {
  return c == 255 ? NAN : ldexp(1, (int)c - 127);
}

/* The 8-bit floats: hand values, then all 256 codes by formula. */
static void test_f8(void) {
  /* E4M3FN: 0x38 = 0.0111.000 = 2^0; 0x01 = 2^-6 * 1/8 = 2^-9; 0x07 =
  ** 7 * 2^-9; 0x08 = 2^-6 (min normal); 0x7E = 2^8 * 1.75 = 448 (max);
  ** 0x78 = 2^8 = 256 (E = 15 is an ordinary exponent); 0xB4 = 1.0110.100
  ** = -2^-1 * 1.5 = -0.75; 0x7F and 0xFF NaN; 0x80 = -0. */
  static const unsigned char e4m3[] = {0x00, 0x80, 0x38, 0x01, 0x07, 0x08, 0x7E,
                                       0xFE, 0x78, 0xB4, 0x7F, 0xFF, 0x40};
  static const double w_e4m3[] = {0.0,  -0.0,  1.0,   0.001953125, 0.013671875, 0.015625, 448.0,
                                  -448, 256.0, -0.75, NAN,         NAN,         2.0};
  /* E5M2: 0x3C = 0.01111.00 = 1; 0x7B = 2^15 * 1.75 = 57344 (max); 0x7C
  ** Inf; 0xFC -Inf; 0x7D-0x7F NaN; 0x01 = 2^-14 / 4 = 2^-16; 0x04 = 2^-14. */
  static const unsigned char e5m2[] = {0x3C, 0x7B, 0x7C, 0xFC, 0x7D, 0x7E, 0x7F, 0x01, 0x04, 0x80};
  static const double w_e5m2[] = {1.0, 57344.0, INFINITY,          -INFINITY,       NAN,
                                  NAN, NAN,     1.52587890625e-05, 6.103515625e-05, -0.0};
  /* E4M3FNUZ (bias 8): 0x80 NaN; 0x7F = 2^7 * 1.875 = 240 (max, not
  ** NaN); 0x7E = 224; 0x40 = 2^0; 0x01 = 2^-7 / 8 = 2^-10; 0x08 = 2^-7;
  ** 0xFF = -240; 0xC0 = -1. */
  static const unsigned char fnuz43[] = {0x80, 0x00, 0x7F, 0x7E, 0x40, 0x01, 0x08, 0xFF, 0xC0};
  static const double w_fnuz43[] = {NAN,          0.0,       240.0,  224.0, 1.0,
                                    0.0009765625, 0.0078125, -240.0, -1.0};
  /* E5M2FNUZ (bias 16): 0x80 NaN; 0x7F = 2^15 * 1.75 = 57344; 0x7C =
  ** 2^15 (not Inf); 0xFC = -32768; 0x40 = 1; 0x01 = 2^-15 / 4 = 2^-17;
  ** 0x04 = 2^-15. */
  static const unsigned char fnuz52[] = {0x80, 0x7F, 0x7C, 0xFC, 0x40, 0x01, 0x04};
  static const double w_fnuz52[] = {NAN, 57344.0,           32768.0,         -32768.0,
                                    1.0, 7.62939453125e-06, 3.0517578125e-05};
  /* E8M0: 2^(x-127): 0x7F = 1, 0x00 = 2^-127, 0x80 = 2, 0xFE = 2^127,
  ** 0x7E = 0.5, 0xFF NaN. */
  static const unsigned char e8m0[] = {0x7F, 0x00, 0x80, 0xFE, 0x7E, 0xFF};
  static const double w_e8m0[] = {1.0, 5.8774717541114375e-39, 2.0, 1.7014118346046923e+38, 0.5,
                                  NAN};
  report("F8_E4M3 edge values",
         check_all(codec(WT_FORMAT_SAFETENSORS, 7, 0), e4m3, sizeof(e4m3), w_e4m3, sizeof(e4m3)));
  report("F8_E4M3 all 256 codes", all_bytes(7, ref_e4m3));
  report("F8_E5M2 edge values",
         check_all(codec(WT_FORMAT_SAFETENSORS, 6, 0), e5m2, sizeof(e5m2), w_e5m2, sizeof(e5m2)));
  report("F8_E5M2 all 256 codes", all_bytes(6, ref_e5m2));
  report("F8_E4M3FNUZ edge values (0x80 is the NaN)",
         check_all(codec(WT_FORMAT_SAFETENSORS, 9, 0), fnuz43, sizeof(fnuz43), w_fnuz43,
                   sizeof(fnuz43)));
  report("F8_E4M3FNUZ all 256 codes", all_bytes(9, ref_e4m3fnuz));
  report("F8_E5M2FNUZ edge values (0x80 is the NaN)",
         check_all(codec(WT_FORMAT_SAFETENSORS, 10, 0), fnuz52, sizeof(fnuz52), w_fnuz52,
                   sizeof(fnuz52)));
  report("F8_E5M2FNUZ all 256 codes", all_bytes(10, ref_e5m2fnuz));
  report("F8_E8M0 edge values (255 is NaN)",
         check_all(codec(WT_FORMAT_SAFETENSORS, 8, 0), e8m0, sizeof(e8m0), w_e8m0, sizeof(e8m0)));
  report("F8_E8M0 all 256 codes", all_bytes(8, ref_e8m0));
}

/* F6: four codes in three bytes, code k = bits 6k..6k+5 of the
** little-endian 24-bit word. */
static void test_f6(void) {
  /* E2M3 (bias 1): 0x08 = 0.01.000 = 1; 0x3F = 1.11.111 = -(2^2 * 1.875)
  ** = -7.5; 0x01 = subnormal 1/8; 0x20 = -0.  W = 0x08 | 0x3F << 6 | 0x01
  ** << 12 | 0x20 << 18 = 0x801FC8 -> bytes C8 1F 80.
  ** Then 0x1F = 7.5, 0x07 = 7/8, 0x10 = 0.10.000 = 2, 0x2C = 1.01.100 =
  ** -1.5: W = 0x1F | 0x07 << 6 | 0x10 << 12 | 0x2C << 18 = 0xB101DF. */
  static const unsigned char e2m3[] = {0xC8, 0x1F, 0x80, 0xDF, 0x01, 0xB1};
  static const double w_e2m3[] = {1.0, -7.5, 0.125, -0.0, 7.5, 0.875, 2.0, -1.5};
  /* E3M2 (bias 3): 0x0C = 0.011.00 = 1; 0x1F = 0.111.11 = 2^4 * 1.75 =
  ** 28; 0x01 = 2^-2 / 4 = 0.0625; 0x3F = -28.  W = 0x0C | 0x1F << 6 |
  ** 0x01 << 12 | 0x3F << 18 = 0xFC17CC -> bytes CC 17 FC. */
  static const unsigned char e3m2[] = {0xCC, 0x17, 0xFC};
  static const double w_e3m2[] = {1.0, 28.0, 0.0625, -28.0};
  unsigned char all[48];
  double w_all[64];
  unsigned i;
  int ok;
  report("F6_E2M3 values and packing",
         check_all(codec(WT_FORMAT_SAFETENSORS, 2, 0), e2m3, sizeof(e2m3), w_e2m3, 8));
  report("F6_E3M2 values and packing",
         check_all(codec(WT_FORMAT_SAFETENSORS, 3, 0), e3m2, sizeof(e3m2), w_e3m2, 4));
  /* all 64 codes of each: code 4g + k in group g */
  for (i = 0; i < 16; i++) {
    uint32_t w = 0;
    unsigned k;
    for (k = 0; k < 4; k++)
      w |= (uint32_t)(4 * i + k) << (6 * k);
    all[3 * i] = w & 255;
    all[3 * i + 1] = (w >> 8) & 255;
    all[3 * i + 2] = w >> 16;
  }
  for (i = 0; i < 64; i++)
    w_all[i] = (i & 32 ? -1 : 1) * mini(i & 31, 3, 1);
  ok = check_all(codec(WT_FORMAT_SAFETENSORS, 2, 0), all, 48, w_all, 64);
  for (i = 0; i < 64; i++)
    w_all[i] = (i & 32 ? -1 : 1) * mini(i & 31, 2, 3);
  ok = ok && check_all(codec(WT_FORMAT_SAFETENSORS, 3, 0), all, 48, w_all, 64);
  report("F6 all 64 codes of both formats", ok);
}

/* F4 (E2M1): two per byte, the first in the low nibble. */
static void test_f4(void) {
  /* 0x72: lo 2 = 0.01.0 = 1, hi 7 = 0.11.1 = 6; 0xF9: lo 9 = 1.00.1 =
  ** -0.5 (subnormal), hi F = -6; 0x08: lo 8 = -0, hi 0 = +0; 0x53: lo 3
  ** = 1.5, hi 5 = 3. */
  static const unsigned char b[] = {0x72, 0xF9, 0x08, 0x53};
  static const double want[] = {1.0, 6.0, -0.5, -6.0, -0.0, 0.0, 1.5, 3.0};
  report("F4 values and nibble order",
         check_all(codec(WT_FORMAT_SAFETENSORS, 1, 0), b, sizeof(b), want, 8));
}

/* Integers, BOOL and C64. */
static void test_ints(void) {
  static const unsigned char i8[] = {0x80, 0xFF, 0x7F, 0x00};
  static const double w_i8[] = {-128, -1, 127, 0}, w_u8[] = {128, 255, 127, 0};
  static const unsigned char i16[] = {0x00, 0x80, 0xFF, 0xFF, 0x34, 0x12};
  static const double w_i16[] = {-32768, -1, 4660}, w_u16[] = {32768, 65535, 4660};
  static const unsigned char i32[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x80};
  static const double w_i32[] = {-1, -2147483648.0}, w_u32[] = {4294967295.0, 2147483648.0};
  static const unsigned char i64[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
                                      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F,
                                      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00};
  /* -2^63; 2^63 - 1 (rounds to 2^63 as a double); 2^53 + 1 (rounds to 2^53) */
  static const double w_i64[] = {-9223372036854775808.0, 9223372036854775808.0, 9007199254740992.0};
  static const unsigned char bools[] = {0, 1, 2, 255};
  static const double w_bool[] = {0, 1, 1, 1};
  int64_t iv[3];
  wt_error err;
  int ok = check_all(codec(WT_FORMAT_SAFETENSORS, 5, 0), i8, 4, w_i8, 4) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 4, 0), i8, 4, w_u8, 4) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 11, 0), i16, 6, w_i16, 3) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 12, 0), i16, 6, w_u16, 3) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 15, 0), i32, 8, w_i32, 2) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 16, 0), i32, 8, w_u32, 2) &&
           check_all(codec(WT_FORMAT_GGUF, 27, 0), i64, 24, w_i64, 3) &&
           check_all(codec(WT_FORMAT_SAFETENSORS, 0, 0), bools, 4, w_bool, 4);
  report("integers and BOOL as doubles", ok);
  /* exact integers */
  ok = wt_decode_range_int(codec(WT_FORMAT_SAFETENSORS, 20, 0), i64, 24, 0, 3, iv, &err) == 0 &&
       iv[0] == INT64_MIN && iv[1] == INT64_MAX && iv[2] == 9007199254740993LL;
  ok = ok &&
       wt_decode_range_int(codec(WT_FORMAT_SAFETENSORS, 21, 0), i64, 24, 0, 3, iv, &err) == 0 &&
       (uint64_t)iv[0] == 9223372036854775808ULL && (uint64_t)iv[1] == 9223372036854775807ULL;
  ok = ok &&
       wt_decode_range_int(codec(WT_FORMAT_SAFETENSORS, 11, 0), i16, 6, 1, 2, iv, &err) == 0 &&
       iv[0] == -1 && iv[1] == 4660;
  ok = ok &&
       wt_decode_range_int(codec(WT_FORMAT_SAFETENSORS, 0, 0), bools, 4, 2, 2, iv, &err) == 0 &&
       iv[0] == 1 && iv[1] == 1;
  ok = ok &&
       wt_decode_range_int(codec(WT_FORMAT_SAFETENSORS, 17, 0), i32, 8, 0, 1, iv, &err) != 0 &&
       strstr(err.msg, "F32 is not an integer type") != NULL;
  report("integers exactly (wt_decode_range_int)", ok);
}

static void test_c64(void) {
  unsigned char b[16];
  static const double want[] = {1.0, -2.0, NAN, 0.5};
  double got[3];
  wt_error err;
  const wt_codec *c = codec(WT_FORMAT_SAFETENSORS, 18, 0);
  int ok;
  putf32(b, 1.0f);
  putf32(b + 4, -2.0f);
  putf32(b + 8, NAN);
  putf32(b + 12, 0.5f);
  ok = check_all(c, b, 16, want, 4) && c->elem_values == 2 && c->kind == WT_KIND_COMPLEX;
  /* start at an imaginary part */
  ok = ok && wt_decode_range(c, b, 16, 1, 3, got, &err) == 0 && got[0] == -2.0 && isnan(got[1]) &&
       got[2] == 0.5;
  report("C64: real then imaginary", ok);
}

/* ------------------------------------------------------------------ */
/* Legacy 32-element blocks */

/* qs[i] = i | (15 - i) << 4: element e < 16 has nibble e, element 16 + i
** has nibble 15 - i. */
static void ramp_nibbles(unsigned char *qs) {
  int i;
  for (i = 0; i < 16; i++)
    qs[i] = (unsigned char)(i | (15 - i) << 4);
}

static void test_q4_0(void) {
  /* d = 0.5 (fp16 0x3800); y = (q - 8) * 0.5: elements 0-15 -4.0 ... 3.5,
  ** elements 16-31 3.5 ... -4.0. */
  static const double want[32] = {-4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0,  0.5, 1.0,
                                  1.5,  2.0,  2.5,  3.0,  3.5,  3.5,  3.0,  2.5,  2.0,  1.5, 1.0,
                                  0.5,  0.0,  -0.5, -1.0, -1.5, -2.0, -2.5, -3.0, -3.5, -4.0};
  double w2[64];
  unsigned char b[36];
  int i;
  put16(b, 0x3800);
  ramp_nibbles(b + 2);
  report("Q4_0 block, d = 0.5", check_all(codec(WT_FORMAT_GGUF, 2, 0), b, 18, want, 32));
  /* d = +Inf: (8 - 8) * Inf = NaN at element 0 (qs[0] = 0x08), element
  ** 16 = (0 - 8) * Inf = -Inf, the others q = 9: +Inf.  A second block
  ** with d = NaN: all NaN. */
  put16(b, 0x7C00);
  b[2] = 0x08;
  memset(b + 3, 0x99, 15);
  put16(b + 18, 0x7E00);
  memset(b + 20, 0x00, 16);
  for (i = 0; i < 32; i++)
    w2[i] = INFINITY;
  w2[0] = NAN;
  w2[16] = -INFINITY;
  for (i = 32; i < 64; i++)
    w2[i] = NAN;
  report("Q4_0 Inf and NaN scales", check_all(codec(WT_FORMAT_GGUF, 2, 0), b, 36, w2, 64));
}

static void test_q4_1(void) {
  /* d = 0.25 (0x3400), m = -1 (0xBC00): y = q / 4 - 1, elements 0-15:
  ** -1 + e/4; 16 + i: 2.75 - i/4. */
  double want[32];
  unsigned char b[40];
  int i;
  put16(b, 0x3400);
  put16(b + 2, 0xBC00);
  ramp_nibbles(b + 4);
  for (i = 0; i < 16; i++) {
    want[i] = -1.0 + i * 0.25;
    want[16 + i] = 2.75 - i * 0.25;
  }
  report("Q4_1 block", check_all(codec(WT_FORMAT_GGUF, 3, 0), b, 20, want, 32));
  /* One rounding to float32: d = 65504 (0x7BFF), m = 2^-10 (0x1400).  q =
  ** 0 gives 2^-10; q = 1 gives 65504 + 2^-10, whose float32 is 65504 (the
  ** ulp there is 2^-5).  qs[i] = (i & 1) << 4: elements 0-15 have q = 0,
  ** element 16 + i has q = i & 1. */
  for (i = 0; i < 16; i++)
    b[4 + i] = (unsigned char)((i & 1) << 4);
  put16(b, 0x7BFF);
  put16(b + 2, 0x1400);
  for (i = 0; i < 16; i++) {
    want[i] = 0.0009765625;
    want[16 + i] = i & 1 ? 65504.0 : 0.0009765625;
  }
  report("Q4_1 rounds once to float32", check_all(codec(WT_FORMAT_GGUF, 3, 0), b, 20, want, 32));
}

static void test_q5(void) {
  /* Q5_0: d = 1, qs[i] = i | i << 4 (element e's nibble is e mod 16), qh
  ** = 0x0000FFFF (bytes FF FF 00 00: bit e is element e's fifth bit).
  ** Elements 0-15: q = e + 16, y = q - 16 = e; 16-31: q = e - 16, y = e
  ** - 32. */
  double want[32];
  unsigned char b[24];
  int i;
  put16(b, 0x3C00);
  put32(b + 2, 0x0000FFFF);
  for (i = 0; i < 16; i++)
    b[6 + i] = (unsigned char)(i | i << 4);
  for (i = 0; i < 32; i++)
    want[i] = i < 16 ? i : i - 32;
  report("Q5_0 block (qh bit e = element e)",
         check_all(codec(WT_FORMAT_GGUF, 6, 0), b, 22, want, 32));
  /* Q5_1: d = 0.5 (0x3800), m = 10 (0x4900 = 2^3 * 1.25), qh = 1 (only
  ** element 0), qs[i] = i | 0xF0.  Element 0: q = 0 + 16 = 16, y = 18;
  ** 1-15: y = e/2 + 10; 16-31: q = 15, y = 17.5. */
  put16(b, 0x3800);
  put16(b + 2, 0x4900);
  put32(b + 4, 1);
  for (i = 0; i < 16; i++)
    b[8 + i] = (unsigned char)(i | 0xF0);
  for (i = 0; i < 32; i++)
    want[i] = i == 0 ? 18.0 : i < 16 ? 10.0 + i * 0.5 : 17.5;
  report("Q5_1 block", check_all(codec(WT_FORMAT_GGUF, 7, 0), b, 24, want, 32));
}

static void test_q8(void) {
  /* Q8_0: d = 0.5; qs[e] = e - 16 as int8, except qs[0] = 0x80 (-128)
  ** and qs[31] = 0x7F (127): y = (e - 16) / 2, y[0] = -64, y[31] = 63.5. */
  double want[32];
  unsigned char b[36];
  int i;
  put16(b, 0x3800);
  for (i = 0; i < 32; i++) {
    b[2 + i] = (unsigned char)(i - 16);
    want[i] = (i - 16) * 0.5;
  }
  b[2] = 0x80;
  b[33] = 0x7F;
  want[0] = -64.0;
  want[31] = 63.5;
  report("Q8_0 block", check_all(codec(WT_FORMAT_GGUF, 8, 0), b, 34, want, 32));
  /* Q8_1: d = 0.25 at 0, s = NaN at 2 (plays no part), same qs at 4: y =
  ** (e - 16) / 4, y[0] = -32, y[31] = 31.75. */
  memmove(b + 4, b + 2, 32);
  put16(b, 0x3400);
  put16(b + 2, 0x7E00);
  for (i = 0; i < 32; i++)
    want[i] *= 0.5;
  report("Q8_1 block (s ignored)", check_all(codec(WT_FORMAT_GGUF, 9, 0), b, 36, want, 32));
}

static void test_iq4_nl(void) {
  /* d = 0.5: y = K[q] / 2 with K = -127, -104, -83, -65, -49, -35, -22,
  ** -10, 1, 13, 25, 38, 53, 69, 89, 113; ramp nibbles. */
  static const double want[32] = {-63.5, -52,  -41.5, -32.5, -24.5, -17.5, -11,  -5,
                                  0.5,   6.5,  12.5,  19,    26.5,  34.5,  44.5, 56.5,
                                  56.5,  44.5, 34.5,  26.5,  19,    12.5,  6.5,  0.5,
                                  -5,    -11,  -17.5, -24.5, -32.5, -41.5, -52,  -63.5};
  unsigned char b[18];
  put16(b, 0x3800);
  ramp_nibbles(b + 2);
  report("IQ4_NL block", check_all(codec(WT_FORMAT_GGUF, 20, 0), b, 18, want, 32));
}

/* ------------------------------------------------------------------ */
/* K-quants: per-element references from block_q2_K ... block_q8_K
** (src/ggml-common.h) and dequantize_row_q2_K ... dequantize_row_q8_K
** (src/ggml-quants.c) */

static double f16v(const unsigned char *p) {
  return wt_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}
static unsigned bits(unsigned x, int i, int n) {
  return (x >> i) & ((1u << n) - 1);
}
/* Round a double to float32 once, as ggml's float result is. */
static double r32(double x) {
  return (double)(float)x;
}

/* Q2_K: y = (d * lo(S)) * q - (dmin * hi(S)), S = scales[e / 16], q =
** bits(qs[32h + r], 2j, 2). */
static double ref_q2k(const unsigned char *b, int e) {
  int h = e / 128, j = (e % 128) / 32, r = e % 32;
  unsigned S = b[e / 16], q = bits(b[16 + 32 * h + r], 2 * j, 2);
  return r32(f16v(b + 80) * (S & 15) * q - f16v(b + 82) * (S >> 4));
}

static void fill_k(const unsigned char *b, double (*ref)(const unsigned char *, int), double *w) {
  int e;
  for (e = 0; e < 256; e++)
    w[e] = ref(b, e);
}

static void test_q2_k(void) {
  /* scales[sb] = (sb % 4 + 1) | (sb / 4) << 4; half 0: qs byte r holds
  ** (r + j) % 4 in plane j; half 1: 0x1B (planes 3, 2, 1, 0); d = 0.5,
  ** dmin = 0.25.
  ** e = 40: h0 j1 r8, sb 2: q = 9 % 4 = 1, y = 0.5*3*1 - 0.25*0 = 1.5.
  ** e = 100: j3 r4, sb 6: q = 7 % 4 = 3, y = 0.5*3*3 - 0.25*1 = 4.25.
  ** e = 255: h1 j3, sb 15: q = 0, y = 0 - 0.25*3 = -0.75.
  ** e = 130: h1 j0 r2, sb 8: q = 3, y = 0.5*1*3 - 0.25*2 = 1.0. */
  static const spot spots[] = {{40, 1.5}, {100, 4.25}, {255, -0.75}, {130, 1.0}, {0, 0.0}};
  unsigned char b[84];
  double want[256];
  int i, j;
  for (i = 0; i < 16; i++)
    b[i] = (unsigned char)((i % 4 + 1) | (i / 4) << 4);
  for (i = 0; i < 32; i++) {
    unsigned v = 0;
    for (j = 0; j < 4; j++)
      v |= (unsigned)((i + j) % 4) << (2 * j);
    b[16 + i] = (unsigned char)v;
    b[48 + i] = 0x1B;
  }
  put16(b + 80, 0x3800);
  put16(b + 82, 0x3400);
  fill_k(b, ref_q2k, want);
  report("Q2_K block", check_spots("Q2_K", want, spots, 5) &&
                           check_all(codec(WT_FORMAT_GGUF, 10, 0), b, 84, want, 256));
}

/* Q3_K: L = bits(s[i mod 8], 4 (i / 8), 4), H = bits(s[8 + i mod 4],
** 2 (i / 4), 2), scale = L + 16 H - 32; q = low - (high ? 0 : 4). */
static double ref_q3k(const unsigned char *b, int e) {
  int h = e / 128, j = (e % 128) / 32, r = e % 32, i = e / 16;
  const unsigned char *s = b + 96;
  int sc = (int)(bits(s[i % 8], 4 * (i / 8), 4) + 16 * bits(s[8 + i % 4], 2 * (i / 4), 2)) - 32;
  int low = (int)bits(b[32 + 32 * h + r], 2 * j, 2);
  int q = low - (bits(b[r], 4 * h + j, 1) ? 0 : 4);
  return f16v(b + 108) * sc * q;
}

static void test_q3_k(void) {
  /* Scales i - 8 for sub-block i (-8..7), i.e. L + 16 H = i + 24: i < 8
  ** has L = i + 8, H = 1; i >= 8 has L = i - 8, H = 2.  Packed by hand:
  ** s[k] = L_k | L_{k+8} << 4 = (k + 8) | k << 4 = 08 19 2A 3B 4C 5D 6E 7F;
  ** s[8 + m] = H_m | H_{m+4} << 2 | H_{m+8} << 4 | H_{m+12} << 6 = 1 + 4 +
  ** 32 + 128 = 0xA5.  d = 0.25.  qs: half 0 all 0xE4 (low = j), half 1
  ** all 0x1B (low = 3 - j).  hmask[r] = 0x55 for r < 16 (bits 0, 2, 4, 6:
  ** j even has its high bit), 0xAA for r >= 16.
  ** e = 0: j0, high 1, q 0 -> (0.25 * -8) * 0 = -0.
  ** e = 37: h0 j1 r5 sb2: high bit 1 of 0x55 = 0, q = 1 - 4 = -3, scale
  ** -6: y = 0.25 * -6 * -3 = 4.5.
  ** e = 200: h1 j2 r8 sb12: low 1, bit 6 of 0x55 = 1, q = 1, scale 4: 1.
  ** e = 230: h1 j3 r6 sb14: low 0, bit 7 of 0x55 = 0, q = -4, scale 6: -6.
  ** e = 255: h1 j3 r31 sb15: low 0, bit 7 of 0xAA = 1, q = 0: 0. */
  static const spot spots[] = {{0, -0.0}, {37, 4.5}, {200, 1.0}, {230, -6.0}, {255, 0.0}};
  static const unsigned char sc[12] = {0x08, 0x19, 0x2A, 0x3B, 0x4C, 0x5D,
                                       0x6E, 0x7F, 0xA5, 0xA5, 0xA5, 0xA5};
  unsigned char b[110];
  double want[256];
  int i;
  for (i = 0; i < 32; i++) {
    b[i] = i < 16 ? 0x55 : 0xAA;
    b[32 + i] = 0xE4;
    b[64 + i] = 0x1B;
  }
  memcpy(b + 96, sc, 12);
  put16(b + 108, 0x3400);
  fill_k(b, ref_q3k, want);
  report("Q3_K block (hand-packed 6-bit scales)",
         check_spots("Q3_K", want, spots, 5) &&
             check_all(codec(WT_FORMAT_GGUF, 11, 0), b, 110, want, 256));
}

/* The 12-byte scale/min field of Q4_K and Q5_K, as get_scale_min_k4 in
** src/ggml-quants.c unpacks it. */
static void ref_k4(const unsigned char *s, int j, unsigned *sc, unsigned *m) {
  if (j < 4) {
    *sc = bits(s[j], 0, 6);
    *m = bits(s[j + 4], 0, 6);
  } else {
    *sc = (s[j + 4] & 15) + 16 * bits(s[j - 4], 6, 2);
    *m = (s[j + 4] >> 4) + 16 * bits(s[j], 6, 2);
  }
}

/* Q4_K: q = lo(qs[32c + r]) for even sub-block t = e / 32, hi for odd;
** y = (d * sc_t) * q - (dmin * m_t). */
static double ref_q4k(const unsigned char *b, int e) {
  int t = e / 32, c = e / 64, r = e % 32;
  unsigned sc, m, x = b[16 + 32 * c + r], q = t % 2 ? x >> 4 : x & 15;
  ref_k4(b + 4, t, &sc, &m);
  return r32(f16v(b) * sc * q - f16v(b + 2) * m);
}

/* Q5_K: Q4_K's nibble plus 16 * bits(qh[r], t, 1). */
static double ref_q5k(const unsigned char *b, int e) {
  int t = e / 32, c = e / 64, r = e % 32;
  unsigned sc, m, x = b[48 + 32 * c + r],
                  q = (t % 2 ? x >> 4 : x & 15) + 16 * bits(b[16 + r], t, 1);
  ref_k4(b + 4, t, &sc, &m);
  return r32(f16v(b) * sc * q - f16v(b + 2) * m);
}

/* The hand-packed scales and mins of the Q4_K and Q5_K tests:
** sc = 1, 2, 3, 63, 17, 34, 51, 60; m = 0, 5, 10, 40, 1, 20, 48, 63.
** bytes 0-3: sc_j | top2(sc_{j+4}) << 6: 17 = 01|0001, 34 = 10|0010,
**   51 = 11|0011, 60 = 11|1100 -> 0x41 0x82 0xC3 0xFF;
** bytes 4-7: m_j | top2(m_{j+4}) << 6: 1 = 00|0001, 20 = 01|0100,
**   48 = 11|0000, 63 = 11|1111 -> 0x00 0x45 0xCA 0xE8;
** bytes 8-11: low4(sc_{j+4}) | low4(m_{j+4}) << 4 -> 0x11 0x42 0x03 0xFC. */
static const unsigned char k4_scales[12] = {0x41, 0x82, 0xC3, 0xFF, 0x00, 0x45,
                                            0xCA, 0xE8, 0x11, 0x42, 0x03, 0xFC};

static void test_q4_k(void) {
  /* d = 0.5, dmin = 0.125 (0x3000); qs[32c + r] = (r % 16) | (15 - r %
  ** 16) << 4: even sub-blocks q = r % 16, odd q = 15 - r % 16.
  ** e = 5: t0 q5: 0.5*1*5 - 0 = 2.5.
  ** e = 40: t1 r8 q7: 0.5*2*7 - 0.125*5 = 6.375.
  ** e = 100: t3 r4 q11: 0.5*63*11 - 0.125*40 = 341.5.
  ** e = 130: t4 r2 q2: 0.5*17*2 - 0.125*1 = 16.875.
  ** e = 170: t5 r10 q5: 0.5*34*5 - 0.125*20 = 82.5.
  ** e = 200: t6 r8 q8: 0.5*51*8 - 0.125*48 = 198.
  ** e = 255: t7 r31 q0: 0 - 0.125*63 = -7.875. */
  static const spot spots[] = {{5, 2.5},    {40, 6.375}, {100, 341.5}, {130, 16.875},
                               {170, 82.5}, {200, 198},  {255, -7.875}};
  unsigned char b[144];
  double want[256];
  int i;
  put16(b, 0x3800);
  put16(b + 2, 0x3000);
  memcpy(b + 4, k4_scales, 12);
  for (i = 0; i < 128; i++)
    b[16 + i] = (unsigned char)((i % 16) | (15 - i % 16) << 4);
  fill_k(b, ref_q4k, want);
  report("Q4_K block (hand-packed 6-bit scales and mins)",
         check_spots("Q4_K", want, spots, 7) &&
             check_all(codec(WT_FORMAT_GGUF, 12, 0), b, 144, want, 256));
}

static void test_q5_k(void) {
  /* As Q4_K, with qh[r] = 0x0F for odd r, 0xF0 for even r (fifth bit of
  ** sub-block t = bit t).
  ** e = 5: t0 r5 (odd, bit 0 set) q = 5 + 16 = 21: 0.5*1*21 = 10.5.
  ** e = 40: t1 r8 (even, bit 1 clear) q7: 6.375.
  ** e = 230: t7 r6 (even, bit 7 set), nibble 15 - 6 = 9, q = 25:
  **   0.5*60*25 - 0.125*63 = 742.125.
  ** e = 255: t7 r31 (odd, bit 7 clear) q0: -7.875. */
  static const spot spots[] = {{5, 10.5}, {40, 6.375}, {230, 742.125}, {255, -7.875}};
  unsigned char b[176];
  double want[256];
  int i;
  put16(b, 0x3800);
  put16(b + 2, 0x3000);
  memcpy(b + 4, k4_scales, 12);
  for (i = 0; i < 32; i++)
    b[16 + i] = i % 2 ? 0x0F : 0xF0;
  for (i = 0; i < 128; i++)
    b[48 + i] = (unsigned char)((i % 16) | (15 - i % 16) << 4);
  fill_k(b, ref_q5k, want);
  report("Q5_K block", check_spots("Q5_K", want, spots, 4) &&
                           check_all(codec(WT_FORMAT_GGUF, 13, 0), b, 176, want, 256));
}

/* Q6_K: low = nibble of ql[64h + r + 32 (j mod 2)] (low for j < 2),
** high = bits(qh[32h + r], 2j, 2), q = low + 16 high - 32,
** y = d * s8(scales[e / 16]) * q. */
static double ref_q6k(const unsigned char *b, int e) {
  int h = e / 128, j = (e % 128) / 32, r = e % 32;
  unsigned x = b[64 * h + r + 32 * (j % 2)], low = j < 2 ? x & 15 : x >> 4;
  int q = (int)(low + 16 * bits(b[128 + 32 * h + r], 2 * j, 2)) - 32;
  return f16v(b + 208) * (int8_t)b[192 + e / 16] * q;
}

static void test_q6_k(void) {
  /* ql byte 64h + k = (k % 16) | ((k / 4) % 16) << 4; qh[32h + r] holds
  ** (r + j) % 4 in bits 2j; scales = -128, then sb - 8 for sb = 1..14,
  ** then 127; d = 0.25.
  ** e = 0: low 0, high 0: q = -32, scale -128: 0.25*-128*-32 = 1024.
  ** e = 77: h0 j2 r13: high nibble of ql[13] = 3, high (13 + 2) % 4 = 3,
  **   q = 3 + 48 - 32 = 19, sb 4 scale -4: -19.
  ** e = 255: h1 j3 r31: ql[64 + 63] high nibble = 15, high (31 + 3) % 4
  **   = 2, q = 15, scale 127: 0.25*127*15 = 476.25. */
  static const spot spots[] = {{0, 1024}, {77, -19}, {255, 476.25}};
  unsigned char b[210];
  double want[256];
  int i, j;
  for (i = 0; i < 128; i++) {
    int k = i % 64;
    b[i] = (unsigned char)((k % 16) | ((k / 4) % 16) << 4);
  }
  for (i = 0; i < 64; i++) {
    unsigned v = 0;
    for (j = 0; j < 4; j++)
      v |= (unsigned)((i % 32 + j) % 4) << (2 * j);
    b[128 + i] = (unsigned char)v;
  }
  for (i = 0; i < 16; i++)
    b[192 + i] = (unsigned char)(i - 8);
  b[192] = 0x80;
  b[207] = 0x7F;
  put16(b + 208, 0x3400);
  fill_k(b, ref_q6k, want);
  report("Q6_K block", check_spots("Q6_K", want, spots, 3) &&
                           check_all(codec(WT_FORMAT_GGUF, 14, 0), b, 210, want, 256));
}

static void test_q8_k(void) {
  /* d = 0.1f (float32 0x3DCCCCCD = 13421773 * 2^-27), qs[e] = e - 128.
  ** y = d * q rounded once: e = 131 (q = 3): 40265319 * 2^-27 needs 26
  ** bits, rounds to 10066330 * 2^-25 = 0.3f = 0.30000001192092896 (the
  ** double product 0.30000000447034836 is not it).  bsums are ignored
  ** (filled with junk). */
  unsigned char b[292];
  double want[256];
  int e;
  putf32(b, 0.1f);
  for (e = 0; e < 256; e++) {
    b[4 + e] = (unsigned char)(e - 128);
    want[e] = (double)(0.1f * (float)(e - 128));
  }
  memset(b + 260, 0xAB, 32);
  report("Q8_K block (float32 scale, one rounding)",
         want[131] == 0.30000001192092896 &&
             check_all(codec(WT_FORMAT_GGUF, 15, 0), b, 292, want, 256));
}

static void test_iq4_xs(void) {
  /* d = 0.5; 6-bit scales ls = 32, 33, 31, 0, 63, 40, 24, 48, so dl = d
  ** (ls - 32) = 0, 0.5, -0.5, -16, 15.5, 4, -4, 8.  Low nibbles in
  ** scales_l: (0 | 1 << 4), (15 | 0 << 4), (15 | 8 << 4), (8 | 0 << 4) =
  ** 10 0F 8F 08; high 2 bits in scales_h bits 2b: 2, 2, 1, 0, 3, 2, 1, 3
  ** = 0xDB1A.  qs: ramp nibbles in every sub-block.
  ** e = 0: dl 0, K[0] = -127: 0 * -127 = -0.
  ** e = 32: 0.5 * -127 = -63.5.  e = 100: b3 e%32 = 4, K[4] = -49: -16 *
  ** -49 = 784.  e = 140: b4 q12 K = 53: 15.5 * 53 = 821.5.  e = 255: b7,
  ** q = 0: 8 * -127 = -1016. */
  static const int8_t K[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                               1,    13,   25,  38,  53,  69,  89,  113};
  static const double dl[8] = {0, 0.5, -0.5, -16, 15.5, 4, -4, 8};
  static const spot spots[] = {{0, -0.0}, {32, -63.5}, {100, 784}, {140, 821.5}, {255, -1016}};
  unsigned char b[136];
  double want[256];
  int i;
  put16(b, 0x3800);
  put16(b + 2, 0xDB1A);
  b[4] = 0x10;
  b[5] = 0x0F;
  b[6] = 0x8F;
  b[7] = 0x08;
  for (i = 0; i < 8; i++)
    ramp_nibbles(b + 8 + 16 * i);
  for (i = 0; i < 256; i++) {
    int e = i % 32, q = e < 16 ? e : 15 - (e - 16);
    want[i] = dl[i / 32] * K[q];
  }
  report("IQ4_XS block (hand-packed scales)",
         check_spots("IQ4_XS", want, spots, 5) &&
             check_all(codec(WT_FORMAT_GGUF, 23, 0), b, 136, want, 256));
}

/* ------------------------------------------------------------------ */
/* Ternary, 1-/2-bit and FP4 blocks */

static void test_tq1_0(void) {
  /* Digit n of byte x: floor(3 ((x 3^n) mod 256) / 256).
  ** x = 188 (digits 2,0,1,2,1 = 178 * 256 / 243 rounded up): n0: 564 >>
  ** 8 = 2; n1: 564 mod 256 = 52 -> 0; n2: 1692 mod 256 = 156 -> 1; n3:
  ** 5076 mod 256 = 212 -> 2; n4: 15228 mod 256 = 124 -> 1.
  ** x = 255: 255, 253, 247, 229, 175 -> all 2.  x = 128: always 128 -> 1.
  ** x = 0: all 0.  d = 2: value (t - 1) * 2.
  ** qs[0] = 188, qs[1] = 255, qs[2] = 128 (elements 32n + m), qs[32] =
  ** 188, qs[47] = 255 (elements 160 + 16n + m), qh[0] = 188, qh[3] = 255
  ** (elements 240 + 4n + m, n < 4); every other byte 0 -> -2. */
  unsigned char b[54];
  double want[256];
  int i, n;
  static const double d188[5] = {2, -2, 0, 2, 0};
  memset(b, 0, sizeof(b));
  b[0] = 188;
  b[1] = 255;
  b[2] = 128;
  b[32] = 188;
  b[47] = 255;
  b[48] = 188;
  b[51] = 255;
  put16(b + 52, 0x4000);
  for (i = 0; i < 256; i++)
    want[i] = -2;
  for (n = 0; n < 5; n++) {
    want[32 * n + 0] = d188[n];
    want[32 * n + 1] = 2;
    want[32 * n + 2] = 0;
    want[160 + 16 * n + 0] = d188[n];
    want[160 + 16 * n + 15] = 2;
  }
  for (n = 0; n < 4; n++) {
    want[240 + 4 * n + 0] = d188[n];
    want[240 + 4 * n + 3] = 2;
  }
  report("TQ1_0 block (base-3 digits)", check_all(codec(WT_FORMAT_GGUF, 34, 0), b, 54, want, 256));
}

static void test_tq2_0(void) {
  /* d = 0.5, y = (q - 1) / 2.  Half 0 bytes 0xE4 (q = j: -0.5, 0, 0.5,
  ** 1), except qs[5] = 0 (elements 5, 37, 69, 101: -0.5); half 1 bytes
  ** 0x1B (q = 3 - j: 1, 0.5, 0, -0.5). */
  static const double hv0[4] = {-0.5, 0, 0.5, 1}, hv1[4] = {1, 0.5, 0, -0.5};
  unsigned char b[66];
  double want[256];
  int e;
  memset(b, 0xE4, 32);
  memset(b + 32, 0x1B, 32);
  b[5] = 0;
  put16(b + 64, 0x3800);
  for (e = 0; e < 256; e++)
    want[e] = e < 128 ? hv0[e / 32] : hv1[(e - 128) / 32];
  for (e = 5; e < 128; e += 32)
    want[e] = -0.5;
  report("TQ2_0 block", check_all(codec(WT_FORMAT_GGUF, 35, 0), b, 66, want, 256));
}

static void test_mxfp4(void) {
  /* Block 1: E = 127, scale 2^-1: y = E2M1 value of the nibble, ramp
  ** nibbles (qs[i] = i | (15 - i) << 4); nibble 8 gives +0 (ggml's table
  ** holds 0 for it).  Block 2: E = 129 (scale 2): y = 4 * E2M1, same
  ** nibbles.  Block 3: E = 255 (2^127 as in ggml, not NaN): nibble 1 ->
  ** 2^127, 2 -> 2^128 = Inf, 0 -> 0, 9 -> -2^127; qs[0] = 0x21, qs[1] =
  ** 0x09, rest 0.  Block 4: E = 0 (2^-128, subnormal): nibble 1 ->
  ** 2^-128, 7 -> 12 * 2^-128; qs[0] = 0x71. */
  static const double e2m1[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, 0, -0.5, -1, -1.5, -2, -3, -4, -6};
  unsigned char b[68];
  double want[128];
  int i;
  memset(b, 0, sizeof(b));
  b[0] = 127;
  ramp_nibbles(b + 1);
  b[17] = 129;
  ramp_nibbles(b + 18);
  b[34] = 255;
  b[35] = 0x21;
  b[36] = 0x09;
  b[51] = 0;
  b[52] = 0x71;
  for (i = 0; i < 16; i++) {
    want[i] = e2m1[i];
    want[16 + i] = e2m1[15 - i];
    want[32 + i] = 4 * e2m1[i];
    want[48 + i] = 4 * e2m1[15 - i];
  }
  for (i = 64; i < 128; i++)
    want[i] = 0;
  want[64] = 1.7014118346046923e+38; /* 2^127 */
  want[80] = INFINITY;
  want[65] = -1.7014118346046923e+38;
  want[96] = 2.938735877055719e-39;   /* 2^-128 */
  want[112] = 3.5264830524668625e-38; /* 12 * 2^-128 = 3 * 2^-126 */
  report("MXFP4 blocks (E8M0 scale, E = 255 as ggml)",
         check_all(codec(WT_FORMAT_GGUF, 39, 0), b, 68, want, 128));
}

static void test_nvfp4(void) {
  /* Scales (ggml's UE4M3): 0x38 = 2^0 = 1; 0x7F -> 0; 0x01 = 2^-9
  ** (subnormal); 0xFF = bit 7 ignored, E 15 M 7 = 1.875 * 2^8 = 480.  All
  ** qs bytes 0x71: element 16s + i, i < 8, lo = 1 (2x E2M1 = 1), i >= 8,
  ** hi = 7 (12); y = kv * D / 2.  Sub-block 0: 0.5, 6; 1: 0, 0; 2: 2^-10,
  ** 6 * 2^-9; 3: 240, 2880.  Except qs[0] = 0x9A: element 0 lo 10 (-2)
  ** -> -1, element 8 hi 9 (-1) -> -0.5. */
  unsigned char b[36];
  double want[64];
  static const double lo[4] = {0.5, 0, 0.0009765625, 240}, hi[4] = {6, 0, 0.01171875, 2880};
  int s, i;
  b[0] = 0x38;
  b[1] = 0x7F;
  b[2] = 0x01;
  b[3] = 0xFF;
  memset(b + 4, 0x71, 32);
  b[4] = 0x9A;
  for (s = 0; s < 4; s++)
    for (i = 0; i < 16; i++)
      want[16 * s + i] = i < 8 ? lo[s] : hi[s];
  want[0] = -1;
  want[8] = -0.5;
  report("NVFP4 block (UE4M3 scales as ggml)",
         check_all(codec(WT_FORMAT_GGUF, 40, 0), b, 36, want, 64));
}

static void test_q1_q2(void) {
  /* Q1_0: d = 0.75 (0x3A00); bit e mod 8 of qs[e / 8]: +d if set, -d if
  ** not.  qs[0] = 0x01 (element 0), qs[1] = 0x80 (element 15), qs[15] =
  ** 0xFF (120-127). */
  unsigned char b[18];
  double want[128];
  int e;
  memset(b, 0, sizeof(b));
  put16(b, 0x3A00);
  b[2] = 0x01;
  b[3] = 0x80;
  b[17] = 0xFF;
  for (e = 0; e < 128; e++)
    want[e] = e == 0 || e == 15 || e >= 120 ? 0.75 : -0.75;
  report("Q1_0 block", check_all(codec(WT_FORMAT_GGUF, 41, 0), b, 18, want, 128));
  /* Q2_0: d = 0.5, q = bits(qs[e / 4], 2 (e mod 4), 2), y = (q - 1) / 2.
  ** qs[0] = 0xE4 (q 0, 1, 2, 3: -0.5, 0, 0.5, 1), qs[15] = 0x1B (1,
  ** 0.5, 0, -0.5), the others 0x55 (q = 1: 0). */
  put16(b, 0x3800);
  memset(b + 2, 0x55, 16);
  b[2] = 0xE4;
  b[17] = 0x1B;
  for (e = 0; e < 64; e++)
    want[e] = 0;
  want[0] = -0.5;
  want[2] = 0.5;
  want[3] = 1;
  want[60] = 1;
  want[61] = 0.5;
  want[63] = -0.5;
  report("Q2_0 block", check_all(codec(WT_FORMAT_GGUF, 42, 0), b, 18, want, 64));
}

/* ------------------------------------------------------------------ */
/* Big-endian GGUF */

static void test_big_endian(void) {
  unsigned char b[292];
  double want[256];
  int i, ok;
  /* F16 and BF16 values stored big-endian: 3C 00 = 1, C0 00 = -2. */
  static const unsigned char f16[] = {0x3C, 0x00, 0xC0, 0x00};
  static const double w16[] = {1, -2};
  static const unsigned char bf16[] = {0x3F, 0x80, 0xC0, 0xA0};
  static const double wbf[] = {1, -5};
  static const unsigned char i32[] = {0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02};
  static const double wi32[] = {-2147483648.0, 258};
  int64_t iv[2];
  wt_error err;
  ok = check_all(codec(WT_FORMAT_GGUF, 1, 1), f16, 4, w16, 2) &&
       check_all(codec(WT_FORMAT_GGUF, 30, 1), bf16, 4, wbf, 2) &&
       check_all(codec(WT_FORMAT_GGUF, 26, 1), i32, 8, wi32, 2) &&
       wt_decode_range_int(codec(WT_FORMAT_GGUF, 26, 1), i32, 8, 0, 2, iv, &err) == 0 &&
       iv[0] == INT32_MIN && iv[1] == 258;
  report("big-endian F16, BF16, I32", ok);
  /* Q4_0 with d = 0.5 stored 38 00 -> as the little-endian test. */
  b[0] = 0x38;
  b[1] = 0x00;
  ramp_nibbles(b + 2);
  for (i = 0; i < 16; i++) {
    want[i] = (i - 8) * 0.5;
    want[16 + i] = (7 - i) * 0.5;
  }
  ok = check_all(codec(WT_FORMAT_GGUF, 2, 1), b, 18, want, 32);
  /* Q4_K: d and dmin swapped (38 00, 30 00), scales and qs are bytes. */
  b[0] = 0x38;
  b[1] = 0x00;
  b[2] = 0x30;
  b[3] = 0x00;
  memcpy(b + 4, k4_scales, 12);
  for (i = 0; i < 128; i++)
    b[16 + i] = (unsigned char)((i % 16) | (15 - i % 16) << 4);
  {
    unsigned char le[144];
    memcpy(le, b, 144);
    put16(le, 0x3800);
    put16(le + 2, 0x3000);
    fill_k(le, ref_q4k, want);
  }
  ok = ok && check_all(codec(WT_FORMAT_GGUF, 12, 1), b, 144, want, 256);
  /* Q8_K: float32 d = 1.5 stored 3F C0 00 00; qs[e] = e - 128. */
  b[0] = 0x3F;
  b[1] = 0xC0;
  b[2] = 0;
  b[3] = 0;
  for (i = 0; i < 256; i++) {
    b[4 + i] = (unsigned char)(i - 128);
    want[i] = 1.5 * (i - 128);
  }
  ok = ok && check_all(codec(WT_FORMAT_GGUF, 15, 1), b, 292, want, 256);
  /* Q5_1 as in test_q5, every field swapped: d = 0.5 (38 00), m = 10 (49
  ** 00), qh = 1 (00 00 00 01); qs[i] = i | 0xF0.  Element 0: 18; 1-15:
  ** 10 + e/2; 16-31: 17.5. */
  b[0] = 0x38;
  b[1] = 0x00;
  b[2] = 0x49;
  b[3] = 0x00;
  b[4] = b[5] = b[6] = 0;
  b[7] = 1;
  for (i = 0; i < 16; i++)
    b[8 + i] = (unsigned char)(i | 0xF0);
  for (i = 0; i < 32; i++)
    want[i] = i == 0 ? 18.0 : i < 16 ? 10.0 + i * 0.5 : 17.5;
  ok = ok && check_all(codec(WT_FORMAT_GGUF, 7, 1), b, 24, want, 32);
  report("big-endian Q4_0, Q4_K, Q8_K, Q5_1", ok);
}

/* ------------------------------------------------------------------ */
/* Ranges */

/* decode_range of [start, start + n) equals that slice of a full decode. */
static int range_matches(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                         uint64_t start, size_t n) {
  uint64_t total;
  double *all, *part;
  wt_error err;
  int ok = 1;
  size_t i;
  if (c == NULL || wt_codec_count(c, nbytes, &total, &err) != 0)
    return 0;
  all = malloc(total * sizeof(double));
  part = malloc((n ? n : 1) * sizeof(double));
  if (wt_decode_range(c, src, nbytes, 0, total, all, &err) != 0 ||
      wt_decode_range(c, src, nbytes, start, n, part, &err) != 0) {
    snprintf(detail, sizeof(detail), "%s", err.msg);
    ok = 0;
  }
  for (i = 0; ok && i < n; i++) {
    ok = same(all[start + i], part[i]);
    if (!ok)
      snprintf(detail, sizeof(detail), "%s [%llu, +%zu): value %zu", c->name,
               (unsigned long long)start, n, i);
  }
  free(all);
  free(part);
  return ok;
}

/* Deterministic pseudo-random bytes. */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 24);
}
static void random_bytes(unsigned char *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    p[i] = (unsigned char)rnd();
}

/* Random blocks with finite fp16 scales at the given offsets. */
static void random_blocks(unsigned char *p, size_t nblocks, size_t bb, const int *offs, int noffs) {
  size_t i;
  int k;
  random_bytes(p, nblocks * bb);
  for (i = 0; i < nblocks; i++)
    for (k = 0; k < noffs; k++)
      put16(p + i * bb + offs[k], 0x2000 + (rnd() & 0x1fff)); /* 2^-7 .. < 2^0 */
}

static void test_ranges(void) {
  static const int q4k_offs[] = {0, 2};
  unsigned char *buf = malloc(1 << 20);
  const wt_codec *q4k = codec(WT_FORMAT_GGUF, 12, 0);
  double out[8];
  wt_error err;
  int ok;
  random_blocks(buf, 40, 144, q4k_offs, 2);
  /* inside a block, across block boundaries, and longer than a step */
  ok = range_matches(q4k, buf, 40 * 144, 250, 10) && range_matches(q4k, buf, 40 * 144, 3, 1) &&
       range_matches(q4k, buf, 40 * 144, 100, 5000) && range_matches(q4k, buf, 40 * 144, 0, 0) &&
       range_matches(q4k, buf, 40 * 144, 10239, 1);
  report("Q4_K ranges starting inside a block", ok);
  random_bytes(buf, 30000);
  ok = range_matches(codec(WT_FORMAT_SAFETENSORS, 1, 0), buf, 3001, 1, 5999) && /* F4, odd start */
       range_matches(codec(WT_FORMAT_SAFETENSORS, 2, 0), buf, 3000, 3, 3990) && /* F6 */
       range_matches(codec(WT_FORMAT_SAFETENSORS, 14, 0), buf, 30000, 1, 14998) && /* BF16 */
       range_matches(codec(WT_FORMAT_GGUF, 28, 1), buf, 24000, 7, 2990) &&    /* F64, swapped */
       range_matches(codec(WT_FORMAT_GGUF, 8, 1), buf, 34 * 300, 31, 9000) && /* Q8_0, swapped */
       range_matches(codec(WT_FORMAT_GGUF, 40, 0), buf, 36 * 100, 63, 3000);  /* NVFP4 */
  report("ranges of F4, F6, BF16, F64 (big-endian), Q8_0 (big-endian), NVFP4", ok);
  /* errors */
  ok = wt_decode_range(q4k, buf, 40 * 144, 10235, 6, out, &err) != 0 &&
       strstr(err.msg, "outside the tensor's 10240 values") != NULL &&
       wt_decode_range(q4k, buf, 145, 0, 1, out, &err) != 0 &&
       strstr(err.msg, "not a whole number of 144-byte blocks") != NULL &&
       wt_decode_range(q4k, buf, 40 * 144, UINT64_MAX, 2, out, &err) != 0;
  report("range errors", ok);
  free(buf);
}

/* ------------------------------------------------------------------ */
/* Codebook (IQ) types: per-element references from dequantize_row_iq2_xxs
** ... dequantize_row_iq1_m (src/ggml-quants.c), one element at a time, on
** hand-worked blocks whose spot values are worked out below from grid
** entries copied from the tables of src/ggml-common.h (iq2xxs_grid, ...),
** and on random blocks. */

/* Entries of ggml's grids used by the hand-worked blocks (byte j =
** element j, so read these right to left). */
#define G2XXS_1   0x080808080808082bULL /* iq2xxs_grid[1]: 43, 8, 8, 8, 8, 8, 8, 8 */
#define G2XXS_255 0x2b2b2b1908081908ULL /* [255]: 8, 25, 8, 8, 25, 43, 43, 43 */
#define G2XS_300  0x1908190808191908ULL /* iq2xs_grid[300]: 8, 25, 25, 8, 8, 25, 8, 25 */
#define G3XXS_255 0x3e341c04u           /* iq3xxs_grid[255]: 4, 28, 52, 62 */
#define G1S_1000  0x00000000ffff00ffULL /* iq1s_grid[1000]: -1, 0, -1, -1, 0, 0, 0, 0 */

static unsigned u16v(const unsigned char *p) {
  return p[0] | p[1] << 8;
}
static uint32_t u32v(const unsigned char *p) {
  return (uint32_t)u16v(p) | (uint32_t)u16v(p + 2) << 16;
}
/* Byte j of a grid entry; the sign rule: negative when bit j of m is set. */
static double gbyte(uint64_t g, int j) {
  return (double)((g >> (8 * j)) & 255);
}
static double sgn(unsigned m, int j, double v) {
  return (m >> j) & 1 ? -v : v;
}

/* IQ2_XXS: w = u32(6 + 8ib); db = d (0.5 + bits(w, 28, 4)) / 4; entry
** iq2xxs_grid[b[2 + 8ib + l]], mask ksigns[bits(w, 7l, 7)]. */
static double ref_iq2xxs(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  uint32_t w = u32v(b + 6 + 8 * ib);
  double db = f16v(b) * (0.5 + bits(w >> 16, 12, 4)) * 0.25;
  return sgn(wt_ksigns_iq2xs[(w >> (7 * l)) & 127], j,
             db * gbyte(wt_iq2xxs_grid[b[2 + 8 * ib + l]], j));
}

/* IQ2_XS: q = u16(2 + 2 (4ib + l)): entry bits(q, 0, 9), mask ksigns[bits(q,
** 9, 7)]; s = lo(b[66 + ib]) for l < 2, hi for l >= 2. */
static double ref_iq2xs(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  unsigned q = u16v(b + 2 + 2 * (4 * ib + l)), s = bits(b[66 + ib], l < 2 ? 0 : 4, 4);
  return sgn(wt_ksigns_iq2xs[bits(q, 9, 7)], j,
             f16v(b) * (0.5 + s) * 0.25 * gbyte(wt_iq2xs_grid[bits(q, 0, 9)], j));
}

/* IQ2_S: entry b[2 + 4ib + l] + 256 bits(b[66 + ib], 2l, 2); mask b[34 + 4ib
** + l]; s from b[74 + ib] as IQ2_XS. */
static double ref_iq2s(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  unsigned idx = b[2 + 4 * ib + l] + 256 * bits(b[66 + ib], 2 * l, 2);
  unsigned s = bits(b[74 + ib], l < 2 ? 0 : 4, 4);
  return sgn(b[34 + 4 * ib + l], j, f16v(b) * (0.5 + s) * 0.25 * gbyte(wt_iq2s_grid[idx], j));
}

/* IQ3_XXS: w = u32(66 + 4ib), db = d (0.5 + bits(w, 28, 4)) / 2; elements
** j < 4 from iq3xxs_grid[b[2 + 8ib + 2l]], j >= 4 from [b[3 + 8ib + 2l]]. */
static double ref_iq3xxs(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  uint32_t w = u32v(b + 66 + 4 * ib);
  uint32_t g = wt_iq3xxs_grid[b[2 + 8 * ib + 2 * l + (j >= 4)]];
  double db = f16v(b) * (0.5 + (w >> 28)) * 0.5;
  return sgn(wt_ksigns_iq2xs[(w >> (7 * l)) & 127], j, db * gbyte(g, j % 4));
}

/* IQ3_S: s = bits(b[106 + ib/2], 4 (ib mod 2), 4), db = d (1 + 2s); entry
** b[2 + 8ib + 2l + k] + 256 bits(b[66 + ib], 2l + k, 1), k = (j >= 4); mask
** b[74 + 4ib + l]. */
static double ref_iq3s(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8, k = j >= 4;
  unsigned s = bits(b[106 + ib / 2], 4 * (ib % 2), 4);
  unsigned idx = b[2 + 8 * ib + 2 * l + k] + 256 * bits(b[66 + ib], 2 * l + k, 1);
  return sgn(b[74 + 4 * ib + l], j, f16v(b) * (1 + 2 * s) * gbyte(wt_iq3s_grid[idx], j % 4));
}

/* A signed byte of an iq1s_grid entry. */
static double g1(unsigned idx, int j) {
  return (double)(int8_t)(uint8_t)(wt_iq1s_grid[idx] >> (8 * j));
}

/* IQ1_S: h = u16(34 + 2ib), dl = d (2 bits(h, 12, 3) + 1), delta -1/8 if
** bit 15; entry b[2 + 4ib + l] + 256 bits(h, 3l, 3). */
static double ref_iq1s(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  unsigned h = u16v(b + 34 + 2 * ib);
  double dl = f16v(b) * (2 * bits(h, 12, 3) + 1), delta = bits(h, 15, 1) ? -0.125 : 0.125;
  return dl * (g1(b[2 + 4 * ib + l] + 256 * bits(h, 3 * l, 3), j) + delta);
}

/* IQ1_M: S_i = u16(48 + 2i); d = the fp16 of the top nibbles of S0..S3
** (S0 lowest); W = S[ib/2], o = 6 (ib mod 2), dl = d (2 bits(W, o + 3
** (l/2), 3) + 1); N = bits(b[32 + 2ib + l/2], 4 (l mod 2), 4): entry b[4ib
** + l] + 256 bits(N, 0, 3), delta -1/8 if bit 3 of N. */
static double ref_iq1m(const unsigned char *b, int e) {
  int ib = e / 32, l = e % 32 / 8, j = e % 8;
  unsigned S[4], i, W, N;
  double d, dl;
  for (i = 0; i < 4; i++)
    S[i] = u16v(b + 48 + 2 * i);
  d = wt_f16_to_f32((uint16_t)(bits(S[0], 12, 4) | bits(S[1], 12, 4) << 4 | bits(S[2], 12, 4) << 8 |
                               bits(S[3], 12, 4) << 12));
  W = S[ib / 2];
  dl = d * (2 * bits(W, 6 * (ib % 2) + 3 * (l / 2), 3) + 1);
  N = bits(b[32 + 2 * ib + l / 2], 4 * (l % 2), 4);
  return dl * (g1(b[4 * ib + l] + 256 * bits(N, 0, 3), j) + (bits(N, 3, 1) ? -0.125 : 0.125));
}

/* One IQ type: the hand block's spots in the reference, the decoder
** against the reference on the hand block and on random blocks (finite d
** at the offsets doffs), and the big-endian codec on the same random
** blocks with the fields of swap[] (offset, width; from the block_iq*
** structs of src/ggml-common.h) reversed. */
typedef struct iq_case {
  const char *name;
  int id, bytes;
  double (*ref)(const unsigned char *, int);
  int doff;             /* fp16 d offset, or -1 (IQ1_M) */
  const int (*swap)[2]; /* fields reversed in a big-endian file, ends with width 0 */
} iq_case;

static int iq_check(const iq_case *t, const unsigned char *hand, const spot *spots, size_t nspots) {
  enum { NB = 24 };
  unsigned char *r = malloc((size_t)NB * t->bytes), *be = malloc((size_t)NB * t->bytes);
  double *want = malloc(NB * 256 * sizeof(double));
  int e, k, ok;
  size_t i;
  for (e = 0; e < 256; e++)
    want[e] = t->ref(hand, e);
  ok = check_spots(t->name, want, spots, nspots) &&
       check_all(codec(WT_FORMAT_GGUF, t->id, 0), hand, t->bytes, want, 256);
  if (t->doff >= 0)
    random_blocks(r, NB, t->bytes, &t->doff, 1);
  else
    random_bytes(r, (size_t)NB * t->bytes); /* IQ1_M: any d, NaN and Inf included */
  for (i = 0; i < NB; i++)
    for (e = 0; e < 256; e++)
      want[i * 256 + e] = t->ref(r + i * t->bytes, e);
  ok = ok && check_all(codec(WT_FORMAT_GGUF, t->id, 0), r, (size_t)NB * t->bytes, want, NB * 256);
  memcpy(be, r, (size_t)NB * t->bytes);
  for (i = 0; i < NB; i++)
    for (k = 0; t->swap[k][1]; k++) {
      unsigned char *p = be + i * t->bytes + t->swap[k][0], tmp[4];
      int w = t->swap[k][1], x;
      for (x = 0; x < w; x++)
        tmp[x] = p[w - 1 - x];
      memcpy(p, tmp, (size_t)w);
    }
  ok = ok && check_all(codec(WT_FORMAT_GGUF, t->id, 1), be, (size_t)NB * t->bytes, want, NB * 256);
  free(r);
  free(be);
  free(want);
  return ok;
}

/* Big-endian fields: d, then the integers the recipe reads. */
static const int sw_d[][2] = {{0, 2}, {0, 0}};
static const int sw_2xxs[][2] = {{0, 2},  {6, 4},  {14, 4}, {22, 4}, {30, 4},
                                 {38, 4}, {46, 4}, {54, 4}, {62, 4}, {0, 0}};
static const int sw_3xxs[][2] = {{0, 2},  {66, 4}, {70, 4}, {74, 4}, {78, 4},
                                 {82, 4}, {86, 4}, {90, 4}, {94, 4}, {0, 0}};
static const int sw_1s[][2] = {{0, 2},  {34, 2}, {36, 2}, {38, 2}, {40, 2},
                               {42, 2}, {44, 2}, {46, 2}, {48, 2}, {0, 0}};
static const int sw_1m[][2] = {{48, 2}, {50, 2}, {52, 2}, {54, 2}, {0, 0}};
static int sw_2xs[34][2]; /* d and the 32 uint16 qs, filled in test_iq */

static void test_iq2(void) {
  unsigned char b[82];
  /* IQ2_XXS, d = 0.5.  Sub-block 0: indices 1, 255, 0, 2; w = 1 | 3 << 7 |
  ** 0 << 14 | 127 << 21 | 3 << 28: masks ksigns[1] = 0x81, ksigns[3] =
  ** 0x03, 0, ksigns[127] = 0xFF; s = 3, db = 0.5 * 3.5 / 4 = 0.4375.
  ** e0: 43 db, bit 0 of 0x81: -18.8125.  e1: 8 db = 3.5.  e7: bit 7: -3.5.
  ** e8 (entry 255, j0 = 8, bit 0 of 0x03): -3.5.  e9: 25 db, bit 1:
  ** -10.9375.  e13: 43 db = 18.8125.  e16: entry 0: 3.5.  e24 (entry 2 =
  ** 0x0808080808081919, j0 = 25, all negative): -10.9375.  e26: -3.5.
  ** Other sub-blocks are zero: s = 0, db = 0.0625, entry 0: 0.5. */
  static const spot s2xxs[] = {{0, -18.8125}, {1, 3.5},      {7, -3.5}, {8, -3.5},
                               {9, -10.9375}, {13, 18.8125}, {16, 3.5}, {24, -10.9375},
                               {26, -3.5},    {100, 0.5},    {255, 0.5}};
  static const iq_case c2xxs = {"IQ2_XXS", 16, 66, ref_iq2xxs, 0, sw_2xxs};
  /* IQ2_XS, d = 0.5, scales[0] = 0x52 (s = 2 for groups 0-1: db = 0.3125;
  ** s = 5 for 2-3: db = 0.6875).  qs[0] = 300 | 1 << 9 (entry 300, mask
  ** 0x81): e0 = -8 db = -2.5, e1 = 25 db = 7.8125, e7 = -7.8125.  qs[1] =
  ** 0: e8 = 2.5.  qs[2] = 511 (all 43): e16 = 43 * 0.6875 = 29.5625.  qs[3]
  ** = 0: e24 = 5.5.  Elsewhere 8 * 0.0625 = 0.5. */
  static const spot s2xs[] = {{0, -2.5},     {1, 7.8125}, {7, -7.8125}, {8, 2.5},
                              {16, 29.5625}, {24, 5.5},   {32, 0.5},    {255, 0.5}};
  static const iq_case c2xs = {"IQ2_XS", 17, 74, ref_iq2xs, 0, sw_2xs};
  /* IQ2_S, d = 0.5, scales[0] = 0x01 (groups 0-1: db = 0.1875; 2-3:
  ** 0.0625).  qs[0] = 88, qh[0] bits 0-1 = 2: entry 600 = 25, 8, 25, 8,
  ** 43, 25, 8, 25; sign byte 0x05: e0 = -25 db = -4.6875, e2 = -4.6875, e4
  ** = 43 db = 8.0625.  qs[1] = 255, qh bits 2-3 = 3: entry 1023 (all 43),
  ** signs 0x80: e8 = 8.0625, e15 = -8.0625.  e16 (entry 0): 0.5. */
  static const spot s2s[] = {{0, -4.6875}, {2, -4.6875},  {4, 8.0625},
                             {8, 8.0625},  {15, -8.0625}, {16, 0.5}};
  static const iq_case c2s = {"IQ2_S", 22, 82, ref_iq2s, 0, sw_d};
  int ok;
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  b[2] = 1;
  b[3] = 255;
  b[5] = 2;
  put32(b + 6, 1u | 3u << 7 | 127u << 21 | 3u << 28);
  ok = (wt_iq2xxs_grid[1] == G2XXS_1 && wt_iq2xxs_grid[255] == G2XXS_255) &&
       iq_check(&c2xxs, b, s2xxs, sizeof(s2xxs) / sizeof(s2xxs[0]));
  report("IQ2_XXS block, random blocks, big-endian", ok);
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  put16(b + 2, 300 | 1 << 9);
  put16(b + 6, 511);
  b[66] = 0x52;
  ok = wt_iq2xs_grid[300] == G2XS_300 && iq_check(&c2xs, b, s2xs, sizeof(s2xs) / sizeof(s2xs[0]));
  report("IQ2_XS block, random blocks, big-endian", ok);
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  b[2] = 88;
  b[3] = 255;
  b[34] = 0x05;
  b[35] = 0x80;
  b[66] = 2 | 3 << 2;
  b[74] = 0x01;
  report("IQ2_S block, random blocks, big-endian",
         iq_check(&c2s, b, s2s, sizeof(s2s) / sizeof(s2s[0])));
}

static void test_iq3_iq1(void) {
  unsigned char b[110];
  /* IQ3_XXS, d = 0.5.  qs[0] = 255 (4, 28, 52, 62), qs[1] = 1 (20, 4, 4,
  ** 4); w[0] = 2 | 1 << 28: mask ksigns[2] = 0x82, db = 0.5 * 1.5 / 2 =
  ** 0.375.  e0 = 1.5, e1 = -10.5, e2 = 19.5, e3 = 23.25, e4 = 7.5, e5 =
  ** 1.5, e7 = -1.5.  e8 (entries 0): 1.5.  Other sub-blocks: db = 0.125,
  ** 4 db = 0.5. */
  static const spot s3xxs[] = {{0, 1.5}, {1, -10.5}, {2, 19.5}, {3, 23.25}, {4, 7.5},
                               {5, 1.5}, {7, -1.5},  {8, 1.5},  {255, 0.5}};
  static const iq_case c3xxs = {"IQ3_XXS", 18, 98, ref_iq3xxs, 0, sw_3xxs};
  /* IQ3_S, d = 0.5, scales[0] = 0x72 (ib 0: s = 2, db = 2.5; ib 1: s = 7,
  ** db = 7.5).  qs[0] = 44, qh[0] bit 0: entry 300 = 3, 5, 3, 7; qs[1] =
  ** 255, bit 1: entry 511 = 1, 1, 15, 15; signs[0] = 0x30.  e0 = 7.5, e1 =
  ** 12.5, e3 = 17.5, e4 = -2.5, e5 = -2.5, e6 = 37.5.  e8 (entry 0 = 1s):
  ** 2.5.  e32: 7.5.  e64 (ib 2, scales[1] = 0): 0.5. */
  static const spot s3s[] = {{0, 7.5},  {1, 12.5}, {3, 17.5}, {4, -2.5}, {5, -2.5},
                             {6, 37.5}, {8, 2.5},  {32, 7.5}, {64, 0.5}};
  static const iq_case c3s = {"IQ3_S", 21, 110, ref_iq3s, 0, sw_d};
  /* IQ1_S, d = 0.5.  qh[0] = 3 | 7 << 3 | 2 << 12 | 1 << 15: dl = 0.5 * 5 =
  ** 2.5, delta = -1/8.  Group 0: qs[0] = 232 + 256 * 3 = entry 1000 (-1, 0,
  ** -1, -1, 0, 0, 0, 0): e0 = 2.5 * -1.125 = -2.8125, e1 = -0.3125, e3 =
  ** -2.8125, e4 = -0.3125.  Group 1: qs[1] = 255 + 256 * 7 = 2047 (all
  ** +1): e8 = 2.5 * 0.875 = 2.1875.  Group 2: entry 0 (all -1): e16 =
  ** -2.8125.  Sub-block 1: h = 0, dl = 0.5, +1/8: e32 = 0.5 * -0.875 =
  ** -0.4375. */
  static const spot s1s[] = {{0, -2.8125}, {1, -0.3125},  {3, -2.8125}, {4, -0.3125},
                             {8, 2.1875},  {16, -2.8125}, {32, -0.4375}};
  static const iq_case c1s = {"IQ1_S", 19, 50, ref_iq1s, 0, sw_1s};
  /* IQ1_M, d = 0.5 = fp16 0x3800: nibbles 0, 0, 8, 3 in the tops of S0..S3.
  ** S0 = 2 | 1 << 3 | 7 << 6: ib 0 dl1 = 0.5 * 5 = 2.5, dl2 = 0.5 * 3 =
  ** 1.5; ib 1 dl1 = 0.5 * 15 = 7.5, dl2 = 0.5.  qh[0] = 0x7B: group 0 N =
  ** 0xB (index qs[0] + 768 = 1000, delta -1/8), group 1 N = 7 (qs[1] +
  ** 1792 = 2047, +1/8).  e0 = 2.5 * -1.125 = -2.8125, e1 = -0.3125, e8 =
  ** 2.5 * 1.125 = 2.8125; e16 (entry 0, +1/8): 1.5 * -0.875 = -1.3125; e32
  ** = 7.5 * -0.875 = -6.5625; e48 = -0.4375; e64 (S1 = 0): -0.4375. */
  static const spot s1m[] = {{0, -2.8125},  {1, -0.3125},  {8, 2.8125},  {16, -1.3125},
                             {32, -6.5625}, {48, -0.4375}, {64, -0.4375}};
  static const iq_case c1m = {"IQ1_M", 29, 56, ref_iq1m, -1, sw_1m};
  int ok;
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  b[2] = 255;
  b[3] = 1;
  put32(b + 66, 2u | 1u << 28);
  ok = wt_iq3xxs_grid[255] == G3XXS_255 &&
       iq_check(&c3xxs, b, s3xxs, sizeof(s3xxs) / sizeof(s3xxs[0]));
  report("IQ3_XXS block, random blocks, big-endian", ok);
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  b[2] = 44;
  b[3] = 255;
  b[66] = 0x03;
  b[74] = 0x30;
  b[106] = 0x72;
  report("IQ3_S block, random blocks, big-endian",
         iq_check(&c3s, b, s3s, sizeof(s3s) / sizeof(s3s[0])));
  memset(b, 0, sizeof(b));
  put16(b, 0x3800);
  b[2] = 232;
  b[3] = 255;
  put16(b + 34, 3 | 7 << 3 | 2 << 12 | 1 << 15);
  ok = wt_iq1s_grid[1000] == G1S_1000 && iq_check(&c1s, b, s1s, sizeof(s1s) / sizeof(s1s[0]));
  report("IQ1_S block, random blocks, big-endian", ok);
  memset(b, 0, sizeof(b));
  b[0] = 232;
  b[1] = 255;
  b[32] = 0x7B;
  put16(b + 48, 2 | 1 << 3 | 7 << 6);
  put16(b + 52, 0x8000);
  put16(b + 54, 0x3000);
  report("IQ1_M block, random blocks, big-endian",
         iq_check(&c1m, b, s1m, sizeof(s1m) / sizeof(s1m[0])));
}

/* The generated tables equal ggml's, as printed from src/ggml-common.h
** (commit d99724f2) into ../shared/reference/iq-grids/iq_grids.txt, a
** developer's copy outside the project (skipped when absent). */
static void test_iq_tables(void) {
  static const struct {
    const char *name;
    int width, count;
    const void *table;
  } t[] = {{"iq2xxs_grid", 8, 256, wt_iq2xxs_grid},   {"iq2xs_grid", 8, 512, wt_iq2xs_grid},
           {"iq2s_grid", 8, 1024, wt_iq2s_grid},      {"iq3xxs_grid", 4, 256, wt_iq3xxs_grid},
           {"iq3s_grid", 4, 512, wt_iq3s_grid},       {"iq1s_grid", 8, 2048, wt_iq1s_grid},
           {"ksigns_iq2xs", 1, 128, wt_ksigns_iq2xs}, {"kmask_iq2xs", 1, 8, wt_kmask_iq2xs}};
  FILE *f = fopen("../shared/reference/iq-grids/iq_grids.txt", "r");
  char line[256], name[64];
  int k = -1, n = 0, ok = 1, total = 0;
  if (f == NULL) {
    printf("skip IQ tables against ../shared/reference/iq-grids/iq_grids.txt (absent)\n");
    return;
  }
  while (ok && fgets(line, sizeof(line), f)) {
    char *p = line;
    if (line[0] == '#') {
      ok = k < 0 || n == t[k].count;
      if (sscanf(line, "# %63s", name) != 1 || ++k >= 8 || strcmp(name, t[k].name) != 0)
        ok = 0;
      n = 0;
      continue;
    }
    while (ok && (p = strstr(p, "0x")) != NULL) {
      uint64_t v = strtoull(p, &p, 16), have;
      if (n >= t[k].count) {
        ok = 0;
        break;
      }
      have = t[k].width == 8   ? ((const uint64_t *)t[k].table)[n]
             : t[k].width == 4 ? ((const uint32_t *)t[k].table)[n]
                               : ((const uint8_t *)t[k].table)[n];
      ok = have == v;
      if (!ok)
        snprintf(detail, sizeof(detail), "%s[%d] is %#" PRIx64 ", file says %#" PRIx64, t[k].name,
                 n, have, v);
      n++;
      total++;
    }
  }
  fclose(f);
  ok = ok && k == 7 && n == 8 && total == 256 + 512 + 1024 + 256 + 512 + 2048 + 128 + 8;
  report("IQ tables equal iq_grids.txt", ok);
}

static void test_iq(void) {
  int i;
  sw_2xs[0][0] = 0;
  sw_2xs[0][1] = 2;
  for (i = 0; i < 32; i++) {
    sw_2xs[1 + i][0] = 2 + 2 * i;
    sw_2xs[1 + i][1] = 2;
  }
  test_iq2();
  test_iq3_iq1();
  test_iq_tables();
}

/* ------------------------------------------------------------------ */
/* Histograms */

/* 200,000 random floats (several batches of the accumulator) with NaN and
** infinities, in 10 bins (interleaved counts) and 1,000 (direct), against
** a plain reference: the bin k with edge(k) <= x < edge(k + 1), found by a
** linear scan over wt_hist_edge(). */
static void test_histogram(void) {
  enum { N = 200000 };
  static const uint32_t nbins[] = {10, 1000};
  float *x = malloc(N * sizeof(float));
  uint64_t want[1000], nan = 0, inf = 0, below = 0, above = 0;
  wt_hist h;
  wt_error err;
  size_t i, b;
  int ok = 1;
  for (i = 0; i < N; i++) /* -10 .. 10 in steps of 1/1000, then of 1/256 (many on edges) */
    x[i] = i < N / 2 ? (float)((int)(rnd() % 20001) - 10000) / 1000.0f
                     : (float)((int)(rnd() % 5121) - 2560) / 256.0f;
  x[7] = NAN;
  x[8] = INFINITY;
  x[9] = -INFINITY;
  x[10] = -3.0f; /* exactly lo */
  x[11] = 7.0f;  /* exactly hi */
  for (b = 0; b < 2 && ok; b++) {
    uint32_t k, n = nbins[b];
    ok = wt_hist_init(&h, -3.0, 7.0, n, &err) == 0;
    if (!ok)
      break;
    memset(want, 0, sizeof(want));
    nan = inf = below = above = 0;
    for (i = 0; i < N; i++) {
      double v = x[i];
      if (isnan(v))
        nan++;
      else if (isinf(v))
        inf++;
      else if (v < -3.0)
        below++;
      else if (v > 7.0)
        above++;
      else
        for (k = 0; k < n; k++)
          if (v >= wt_hist_edge(&h, k) && (v < wt_hist_edge(&h, k + 1) || k == n - 1)) {
            want[k]++;
            break;
          }
    }
    wt_hist_add_f32(&h, x, N / 3);
    wt_hist_add_f32(&h, x + N / 3, N - N / 3);
    ok = h.total == N && h.nan == nan && h.inf == inf && h.below == below && h.above == above &&
         nan == 1 && inf == 2;
    for (k = 0; k < n && ok; k++)
      ok = h.count[k] == want[k];
    if (!ok)
      snprintf(detail, sizeof(detail),
               "%u bins: nan %" PRIu64 " inf %" PRIu64 " below %" PRIu64 " above %" PRIu64, n,
               h.nan, h.inf, h.below, h.above);
    wt_hist_free(&h);
  }
  report("histogram of 200,000 values in 10 and 1,000 bins", ok);
  ok = wt_hist_init(&h, 1.0, 1.0, 50, &err) == 0 && h.bins == 1;
  wt_hist_add_f32(&h, x + 10, 2);
  ok = ok && h.count[0] == 0 && h.below == 1 && h.above == 1;
  wt_hist_free(&h);
  ok = ok && wt_hist_init(&h, 2.0, 1.0, 5, &err) != 0 && wt_hist_init(&h, 0, 1, 0, &err) != 0 &&
       wt_hist_init(&h, 0, INFINITY, 5, &err) != 0;
  report("histogram with lo = hi; bad ranges and bins", ok);
  free(x);
}

/* ------------------------------------------------------------------ */
/* Statistics and comparison */

static int near(double a, double b, double rel) {
  return fabs(a - b) <= rel * fabs(b) || (isnan(a) && isnan(b));
}

static void test_stats(void) {
  /* 1, 2, 3, 4, NaN, Inf, -Inf, 0, -0: count 9, nan 1, inf 2, zero 2,
  ** finite n = 6 with sum 10, mean 5/3, sum of squares 30, m2 = 30 - 6
  ** (5/3)^2 = 40/3; min -Inf, max Inf. */
  static const float x[] = {1, 2, 3, 4, NAN, INFINITY, -INFINITY, 0, -0.0f};
  static const double xd[] = {1, 2, 3, 4, NAN, INFINITY, -INFINITY, 0, -0.0};
  wt_stats st, sd, a, b;
  wt_stats_summary sum;
  float *big;
  size_t i, n = 1000000;
  int ok;
  wt_stats_init(&st);
  wt_stats_add_f32(&st, x, 9);
  wt_stats_init(&sd);
  wt_stats_add_f64(&sd, xd, 9);
  wt_stats_summarize(&st, &sum);
  ok = st.count == 9 && st.n == 6 && st.nan_count == 1 && st.inf_count == 2 && st.zero_count == 2 &&
       st.min == -INFINITY && st.max == INFINITY && near(st.mean, 5.0 / 3, 1e-15) &&
       near(st.m2, 40.0 / 3, 1e-14) && st.sumsq == 30 && near(sum.std, sqrt(40.0 / 18), 1e-14) &&
       near(sum.std_unb, sqrt(40.0 / 15), 1e-14) && near(sum.l2, sqrt(30), 1e-15) &&
       sd.count == 9 && sd.n == 6 && sd.zero_count == 2 && near(sd.mean, st.mean, 1e-15) &&
       near(sd.m2, st.m2, 1e-14);
  report("stats: NaN, Inf and zeros counted, moments over finite values", ok);
  /* 10^6 values 10^6 + (i mod 1000): mean 10^6 + 499.5, population
  ** variance (1000^2 - 1) / 12 = 83333.25 (exact for a full period); the
  ** large offset would ruin a naive sum of squares in float. */
  big = malloc(n * sizeof(float));
  for (i = 0; i < n; i++)
    big[i] = (float)(1000000 + i % 1000);
  wt_stats_init(&st);
  wt_stats_add_f32(&st, big, n);
  wt_stats_init(&a);
  wt_stats_init(&b);
  wt_stats_add_f32(&a, big, 333333);
  wt_stats_add_f32(&b, big + 333333, n - 333333);
  wt_stats_merge(&a, &b);
  ok = st.n == n && near(st.mean, 1000499.5, 1e-14) && near(st.m2 / (double)n, 83333.25, 1e-12) &&
       st.min == 1000000 && st.max == 1000999 && a.n == n && near(a.mean, st.mean, 1e-14) &&
       near(a.m2, st.m2, 1e-12) && near(a.sumsq, st.sumsq, 1e-14) && a.min == st.min &&
       a.max == st.max;
  report("stats: 10^6 values with a large offset, and merge", ok);
  /* a constant stream has zero variance exactly */
  for (i = 0; i < 10000; i++)
    big[i] = 0.1f;
  wt_stats_init(&st);
  wt_stats_add_f32(&st, big, 10000);
  report("stats: constant stream", st.m2 == 0 && st.mean == (double)0.1f);
  free(big);
  /* F64 values whose squares (and differences) overflow a double:
  ** 1e200, -1e200, 3e200: mean 1e200, squared deviations 0 + 4e400 +
  ** 4e400, std sqrt(8e400 / 3) = 1.6329931618554521e200; -DBL_MAX,
  ** DBL_MAX: mean 0, std DBL_MAX (their difference overflows) */
  {
    static const double big3[] = {1e200, -1e200, 3e200}, max2[] = {-DBL_MAX, DBL_MAX};
    wt_stats_init(&st);
    wt_stats_add_f64(&st, big3, 3);
    wt_stats_summarize(&st, &sum);
    ok = near(sum.mean, 1e200, 1e-15) && near(sum.std, 1.6329931618554521e200, 1e-15);
    wt_stats_init(&st);
    wt_stats_add_f64(&st, max2, 2);
    wt_stats_summarize(&st, &sum);
    ok = ok && sum.mean == 0 && sum.std == DBL_MAX;
    report("stats: F64 values past 1e154", ok);
  }
}

static void test_stats_tensor(void) {
  static const int offs[] = {0};
  unsigned char *q = malloc(18 * 1000);
  double *v = malloc(32000 * sizeof(double));
  wt_stats a, b;
  wt_error err;
  const wt_codec *c = codec(WT_FORMAT_GGUF, 2, 0);
  int ok;
  random_blocks(q, 1000, 18, offs, 1);
  wt_stats_init(&a);
  wt_stats_init(&b);
  ok = wt_stats_tensor(c, q, 18000, 5, 31000, &a, &err) == 0 &&
       wt_decode_range(c, q, 18000, 5, 31000, v, &err) == 0;
  wt_stats_add_f64(&b, v, 31000);
  ok = ok && a.count == 31000 && a.n == b.n && a.zero_count == b.zero_count && a.min == b.min &&
       a.max == b.max && near(a.mean, b.mean, 1e-12) && near(a.m2, b.m2, 1e-12);
  report("wt_stats_tensor over Q4_0 = decode then add", ok);
  free(q);
  free(v);
}

static void test_compare(void) {
  /* a = 1, 2, 3; b = 1, 2, 5: max 2, sum |d| 2, sum d^2 4, dot 1 + 4 +
  ** 15 = 20, |a|^2 = 14, |b|^2 = 30: mean abs 2/3, rmse sqrt(4/3),
  ** cosine 20 / sqrt(420), rel_l2 2 / sqrt(14); 2 equal pairs. */
  static const float a[] = {1, 2, 3}, b[] = {1, 2, 5};
  static const float na[] = {NAN, 1, INFINITY, 2}, nb[] = {NAN, NAN, INFINITY, 2};
  static const double ad[] = {1, 2, 3}, bd[] = {1, 2, 5};
  wt_compare c, d;
  wt_compare_summary s;
  int ok;
  wt_compare_init(&c);
  wt_compare_add_f32(&c, a, b, 3);
  wt_compare_summarize(&c, &s);
  ok = c.count == 3 && c.n == 3 && c.n_equal == 2 && s.max_abs_diff == 2 &&
       near(s.mean_abs_diff, 2.0 / 3, 1e-15) && near(s.rmse, sqrt(4.0 / 3), 1e-15) &&
       near(s.cosine, 20 / sqrt(420), 1e-15) && near(s.rel_l2, 2 / sqrt(14), 1e-15);
  wt_compare_init(&d);
  wt_compare_add_f64(&d, ad, bd, 3);
  ok = ok && d.n == 3 && d.dot == 20 && d.norm_a == 14 && d.norm_b == 30 && d.sum_sq_diff == 4;
  report("compare: worked example", ok);
  /* NaN/NaN, 1/NaN, Inf/Inf are non-finite pairs (one NaN mismatch);
  ** 2/2 is the only finite pair. */
  wt_compare_init(&c);
  wt_compare_add_f32(&c, na, nb, 4);
  ok = c.count == 4 && c.nonfinite == 3 && c.nan_mismatch == 1 && c.n == 1 && c.n_equal == 1 &&
       c.sum_sq_diff == 0;
  report("compare: NaN and Inf pairs", ok);
  /* F64 values whose squares overflow a double: a = b = (1e200, 2e200):
  ** rel_l2 0, cosine 1; a = (1e300, 0), b = (0, 1e300): rel_l2 sqrt(2),
  ** cosine 0, mean |a - b| and rmse 1e300; a = (DBL_MAX, -DBL_MAX), b =
  ** (DBL_MAX, DBL_MAX): rel_l2 sqrt(0 + 4 M^2) / sqrt(2 M^2) = sqrt(2),
  ** cosine 0, max |a - b| 2 M: beyond a double, +Inf */
  {
    static const double e200[] = {1e200, 2e200}, x[] = {1e300, 0}, y[] = {0, 1e300};
    static const double mm[] = {DBL_MAX, -DBL_MAX}, mp[] = {DBL_MAX, DBL_MAX};
    wt_compare_init(&c);
    wt_compare_add_f64(&c, e200, e200, 2);
    wt_compare_summarize(&c, &s);
    ok = c.scaled && s.rel_l2 == 0 && near(s.cosine, 1, 1e-15) && s.rmse == 0;
    wt_compare_init(&c);
    wt_compare_add_f64(&c, x, y, 2);
    wt_compare_summarize(&c, &s);
    ok = ok && near(s.rel_l2, sqrt(2), 1e-15) && s.cosine == 0 &&
         near(s.mean_abs_diff, 1e300, 1e-15) && near(s.rmse, 1e300, 1e-15) &&
         s.max_abs_diff == 1e300;
    wt_compare_init(&c);
    wt_compare_add_f64(&c, mm, mp, 2);
    wt_compare_summarize(&c, &s);
    ok = ok && near(s.rel_l2, sqrt(2), 1e-15) && s.cosine == 0 && s.max_abs_diff == INFINITY;
    report("compare: F64 values past 1e154", ok);
    /* merge: (1, 2) vs (1, 2) merged with (1e300, 0) vs (0, 1e300) in
    ** scaled units equals adding all four pairs to one accumulator */
    wt_compare_init(&c);
    wt_compare_add_f64(&c, ad, bd, 2);
    wt_compare_init(&d);
    wt_compare_add_f64(&d, x, y, 2);
    wt_compare_merge(&c, &d);
    wt_compare_summarize(&c, &s);
    wt_compare_init(&d);
    wt_compare_add_f64(&d, ad, bd, 2);
    wt_compare_add_f64(&d, x, y, 2);
    {
      wt_compare_summary t;
      wt_compare_summarize(&d, &t);
      ok = c.count == 4 && c.n == 4 && c.scaled && near(s.rel_l2, t.rel_l2, 1e-15) &&
           s.cosine == t.cosine && near(s.rmse, t.rmse, 1e-15) && near(s.rel_l2, sqrt(2), 1e-15);
    }
    report("compare: merge, one side scaled", ok);
  }
}

static void test_compare_tensors(void) {
  /* The same numbers as BF16 and as F32 compare equal; against an F32
  ** copy with one value changed by 1: max 1, sum_sq 1. */
  size_t n = 5000, i;
  unsigned char *bf = malloc(2 * n), *f = malloc(4 * n);
  wt_compare c;
  wt_compare_summary s;
  wt_error err;
  int ok;
  for (i = 0; i < n; i++) {
    uint16_t h = (uint16_t)(0x3F80 + (i % 512) - 256);
    put16(bf + 2 * i, h);
    put32(f + 4 * i, (uint32_t)h << 16);
  }
  wt_compare_init(&c);
  ok = wt_compare_tensors(codec(WT_FORMAT_SAFETENSORS, 14, 0), bf, 2 * n,
                          codec(WT_FORMAT_SAFETENSORS, 17, 0), f, 4 * n, 0, n, &c, &err) == 0;
  wt_compare_summarize(&c, &s);
  ok = ok && c.n == n && c.n_equal == n && s.max_abs_diff == 0 && s.cosine == 1 && s.rel_l2 == 0;
  putf32(f + 4 * 4321, 1.0f + wt_bf16_to_f32((uint16_t)(0x3F80 + (4321 % 512) - 256)));
  wt_compare_init(&c);
  ok = ok &&
       wt_compare_tensors(codec(WT_FORMAT_SAFETENSORS, 14, 0), bf, 2 * n,
                          codec(WT_FORMAT_SAFETENSORS, 17, 0), f, 4 * n, 0, n, &c, &err) == 0 &&
       c.n_equal == n - 1 && c.max_abs_diff == 1 && c.sum_sq_diff == 1;
  /* a range past the end of the shorter tensor fails */
  ok =
      ok && wt_compare_tensors(codec(WT_FORMAT_SAFETENSORS, 14, 0), bf, 2 * n,
                               codec(WT_FORMAT_SAFETENSORS, 17, 0), f, 4 * 10, 0, n, &c, &err) != 0;
  report("wt_compare_tensors BF16 vs F32", ok);
  free(bf);
  free(f);
}

/* ------------------------------------------------------------------ */
/* Benchmark */

/* CPU time of this thread: other processes on a busy machine do not
** count. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of five runs of stats over the buffer, in MB/s of input bytes. */
static double bench_stats(const wt_codec *c, const unsigned char *p, size_t n, wt_stats *st) {
  double best = 1e30;
  int k;
  wt_error err;
  uint64_t nv;
  wt_codec_count(c, n, &nv, &err);
  for (k = 0; k < 5; k++) {
    double t = now();
    wt_stats_init(st);
    if (wt_stats_tensor(c, p, n, 0, nv, st, &err) != 0) {
      fprintf(stderr, "%s\n", err.msg);
      exit(1);
    }
    t = now() - t;
    best = t < best ? t : best;
  }
  return n / best / 1e6;
}

/* Best of five sums of the buffer as u64, in MB/s. */
static double bench_u64(const unsigned char *p, size_t n, volatile uint64_t *sink) {
  double best = 1e30;
  size_t i;
  int k;
  for (k = 0; k < 5; k++) {
    const uint64_t *u = (const uint64_t *)p;
    uint64_t s = 0;
    double t = now();
    for (i = 0; i < n / 8; i++)
      s += u[i];
    t = now() - t;
    *sink += s;
    best = t < best ? t : best;
  }
  return n / best / 1e6;
}

/* Best of five decodes of the whole buffer, WT_DECODE_CHUNK values at a
** time into one buffer (as tensor_values streams), in MB/s. */
static double bench_decode(const wt_codec *c, const unsigned char *p, size_t n) {
  static float out[WT_DECODE_CHUNK];
  double best = 1e30;
  uint64_t nv, i;
  wt_error err;
  int k;
  wt_codec_count(c, n, &nv, &err);
  for (k = 0; k < 5; k++) {
    double t = now();
    for (i = 0; i < nv; i += WT_DECODE_CHUNK)
      wt_decode_range_f32(c, p, n, i, nv - i < WT_DECODE_CHUNK ? nv - i : WT_DECODE_CHUNK, out,
                          &err);
    t = now() - t;
    best = t < best ? t : best;
  }
  return n / best / 1e6;
}

/* Stats over one type with each kernel set; prints one line each. */
static void bench_type(const char *name, const wt_codec *c, const unsigned char *p, size_t n,
                       double base, double bytes_per_value) {
  wt_stats st;
  int avx2;
  for (avx2 = 1; avx2 >= 0; avx2--) {
    double r;
    if (wt_cpu_set_avx2(avx2) != avx2)
      continue;
    r = bench_decode(c, p, n);
    printf("decode %-5s %-8s %6.0f MB/s  %.2fx  (%.0f Mvalues/s)\n", name,
           avx2 ? "avx2" : "portable", r, r / base, r / bytes_per_value);
    r = bench_stats(c, p, n, &st);
    printf("stats  %-5s %-8s %6.0f MB/s  %.2fx  (%.0f Mvalues/s)\n", name,
           avx2 ? "avx2" : "portable", r, r / base, r / bytes_per_value);
  }
}

static int bench(size_t mb) {
  size_t n = mb << 20, i, nq = n / 144;
  unsigned char *p = malloc(n);
  static const int q4k_offs[] = {0, 2};
  volatile uint64_t sink = 0;
  double base;
  random_bytes(p, n);
  for (i = 0; i < n / 2; i++) /* finite BF16/F16 values */
    p[2 * i + 1] &= 0x3F;
  base = bench_u64(p, n, &sink);
  printf("u64 sum %.0f MB/s over %zu MB (CPU time, best of 5)\n", base, mb);
  bench_type("BF16", codec(WT_FORMAT_SAFETENSORS, 14, 0), p, n, base, 2);
  bench_type("F16", codec(WT_FORMAT_SAFETENSORS, 13, 0), p, n, base, 2);
  for (i = 0; i < n / 4; i++) /* finite F32 values */
    p[4 * i + 3] &= 0x3F;
  bench_type("F32", codec(WT_FORMAT_SAFETENSORS, 17, 0), p, n, base, 4);
  random_blocks(p, nq, 144, q4k_offs, 2);
  bench_type("Q4_K", codec(WT_FORMAT_GGUF, 12, 0), p, nq * 144, base, 144.0 / 256);
  free(p);
  return sink == 42;
}

/* The AVX2 kernels and the portable ones give the same values on random
** blocks of every decodable type (F16 all patterns). */
static void test_kernels_agree(void) {
  size_t nbytes = 36 * 128 * 32, i; /* at least 65536 F16 values */
  unsigned char *p = malloc(nbytes);
  double *a = malloc(8 * nbytes * sizeof(double)), *b = malloc(8 * nbytes * sizeof(double));
  int64_t id;
  int ok = 1;
  wt_error err;
  random_bytes(p, nbytes);
  for (id = 0; id < GGML_TYPE_TABLE_SIZE && ok; id++) {
    const wt_codec *c = wt_codec_find(WT_FORMAT_GGUF, id, 0, &err);
    uint64_t nb, nv;
    if (c == NULL)
      continue;
    nb = nbytes / c->block_bytes * c->block_bytes;
    wt_codec_count(c, nb, &nv, &err);
    if (id == 1) /* F16: every pattern */
      for (i = 0; i < 65536; i++)
        put16(p + 2 * i, (unsigned)i);
    wt_cpu_set_avx2(1);
    wt_decode_range(c, p, nb, 0, nv, a, &err);
    wt_cpu_set_avx2(0);
    wt_decode_range(c, p, nb, 0, nv, b, &err);
    for (i = 0; i < nv && ok; i++) {
      ok = same(a[i], b[i]);
      if (!ok)
        snprintf(detail, sizeof(detail), "%s value %zu: %.17g vs %.17g", c->name, i, a[i], b[i]);
    }
  }
  report("AVX2 and portable kernels agree on random blocks", ok);
  free(p);
  free(a);
  free(b);
}

/* Every test, with the kernels chosen. */
static void run_all(void) {
  test_tables();
  test_refused();
  test_f16();
  test_f16_all();
  test_bf16();
  test_f32_f64();
  test_f8();
  test_f6();
  test_f4();
  test_ints();
  test_c64();
  test_q4_0();
  test_q4_1();
  test_q5();
  test_q8();
  test_iq4_nl();
  test_q2_k();
  test_q3_k();
  test_q4_k();
  test_q5_k();
  test_q6_k();
  test_q8_k();
  test_iq4_xs();
  test_tq1_0();
  test_tq2_0();
  test_mxfp4();
  test_nvfp4();
  test_q1_q2();
  test_big_endian();
  test_iq();
  test_ranges();
  test_histogram();
  test_stats();
  test_stats_tensor();
  test_compare();
  test_compare_tensors();
}

/* llama.cpp's q/k row permutation undone (decode/permute.h), on matrices
** whose converted row order is worked out by hand from the converter's
** reshape(n_head, 2, per_head / 2, cols).swapaxes(1, 2): row r of the GGUF
** is checkpoint row head * per_head + (r % 2) * per_head / 2 + (r % per_head) / 2. */
static void test_qk_permute(void) {
  /* 2 heads of 4 rows, 2 columns; checkpoint row k holds (10k, 10k + 1).
  ** Head 0: i = 0,1 and j = 0,1 give GGUF rows 0..3 = checkpoint rows
  ** 0, 2, 1, 3; head 1 likewise 4, 6, 5, 7. */
  static const float gguf2[16] = {0, 1, 20, 21, 10, 11, 30, 31, 40, 41, 60, 61, 50, 51, 70, 71};
  /* 1 head of 8 rows, 1 column: half = 4, GGUF rows 0..7 = checkpoint
  ** rows 0, 4, 1, 5, 2, 6, 3, 7. */
  static const float gguf1[8] = {0, 40, 10, 50, 20, 60, 30, 70};
  float out[16];
  wt_error e;
  int ok = 1, k;
  ok &= wt_qk_unpermute_f32(gguf2, out, 8, 2, 2, &e) == 0;
  for (k = 0; k < 16; k++)
    ok &= out[k] == (float)(10 * (k / 2) + k % 2);
  ok &= wt_qk_unpermute_f32(gguf1, out, 8, 1, 1, &e) == 0;
  for (k = 0; k < 8; k++)
    ok &= out[k] == (float)(10 * k);
  /* The heads must split the rows in even halves. */
  ok &= wt_qk_unpermute_f32(gguf1, out, 6, 1, 4, &e) == -1 && strstr(e.msg, "6 rows") != NULL;
  ok &= wt_qk_unpermute_f32(gguf1, out, 6, 1, 2, &e) == -1;
  ok &= wt_qk_unpermute_f32(gguf1, out, 8, 1, 0, &e) == -1;
  if (!ok)
    snprintf(detail, sizeof(detail), "un-permuted rows differ from the hand-worked ones");
  report("q/k un-permute: 2 heads of 4 rows, 1 head of 8", ok);
  ok = wt_qk_kind("blk.0.attn_q.weight", 19) == 'q' &&
       wt_qk_kind("blk.31.attn_k.bias", 18) == 'k' && wt_qk_kind("blk.0.attn_v.weight", 19) == 0 &&
       wt_qk_kind("blk..attn_q.weight", 18) == 0 && wt_qk_kind("blk.0.attn_q.weightx", 20) == 0 &&
       wt_qk_kind("blk.0.attn_q_norm.weight", 24) == 0 && wt_qk_arch_permutes("llama") &&
       !wt_qk_arch_permutes("qwen2") && !wt_qk_arch_permutes("gemma3") &&
       !wt_qk_arch_permutes(NULL);
  report("q/k: which names and architectures", ok);
  /* q: head_count; k: head_count_kv, or head_count without it; no other
  ** tensor, no architecture kept in the checkpoint's order */
  ok = wt_qk_heads("llama", "blk.2.attn_q.weight", 19, 32, 8) == 32 &&
       wt_qk_heads("llama", "blk.2.attn_k.weight", 19, 32, 8) == 8 &&
       wt_qk_heads("granite", "blk.2.attn_k.bias", 17, 32, 0) == 32 &&
       wt_qk_heads("llama", "blk.2.attn_v.weight", 19, 32, 8) == 0 &&
       wt_qk_heads("qwen2", "blk.2.attn_q.weight", 19, 32, 8) == 0 &&
       wt_qk_heads("gemma2", "blk.2.attn_k.weight", 19, 32, 8) == 0 &&
       wt_qk_heads(NULL, "blk.2.attn_q.weight", 19, 32, 8) == 0;
  report("q/k: the heads to un-permute by", ok);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--bench") == 0)
    return bench(argc > 2 ? (size_t)atoi(argv[2]) : 256);
  if (wt_cpu_set_avx2(1)) { /* both kernel sets */
    mode = " [avx2]";
    run_all();
    mode = "";
    wt_cpu_set_avx2(0);
  }
  run_all();
  test_kernels_agree();
  test_qk_permute();
  printf("decode: %d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
