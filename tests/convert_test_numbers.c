/*
** convert_test_numbers.c: the number conversions of ext/convert/numbers.h
** (F16, BF16, Q8_0 blocks, the AVX2 kernels against the portable code,
** gemma's 1 + w), part of build/convert_test; where the expected values
** come from is said in convert_test.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/numbers.h"
#include "decode/decode.h"
#include "convert_test.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_F16C_TEST 1
#endif

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* ================================= F16, BF16 ============================== */

#ifdef HAVE_F16C_TEST
__attribute__((target("f16c"))) static uint16_t f16c(float f) {
  return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
#endif

void test_f16(void) {
  static const struct {
    uint32_t in;
    uint16_t out;
  } hand[] = {
      {0x3f800000, 0x3c00}, /* 1 */
      {0x477fe000, 0x7bff}, /* 65504, the largest */
      {0x477fefff, 0x7bff}, /* just below 65520 */
      {0x477ff000, 0x7c00}, /* 65520: the tie goes to the even infinity */
      {0x33800000, 0x0001}, /* 2^-24, the smallest subnormal */
      {0x33000000, 0x0000}, /* 2^-25: the tie goes to even zero */
      {0x33400000, 0x0001}, /* 1.5 * 2^-25 */
      {0xb3000001, 0x8001}, /* just over -2^-25 */
      {0x387fc000, 0x03ff}, /* the largest subnormal */
      {0x387fe000, 0x0400}, /* rounds up into the smallest normal */
      {0x3dcccccd, 0x2e66}, /* 0.1 */
      {0x7f800000, 0x7c00}, /* Inf */
      {0x7fc00000, 0x7e00}, /* quiet NaN */
      {0x7f800001, 0x7c01}, /* a NaN whose payload would vanish: numpy gives 0x7c01 */
      {0xffa00000, 0xfd00}, /* a signaling NaN keeps its top payload bits */
  };
  size_t i;
  for (i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
    uint16_t h = cv_f32_to_f16(f32_of(hand[i].in));
    CHECK(h == hand[i].out, "f16(%08x) = %04x, not %04x", hand[i].in, h, hand[i].out);
  }
#ifdef HAVE_F16C_TEST
  __builtin_cpu_init();
  if (__builtin_cpu_supports("f16c")) {
    uint64_t u, bad = 0, n = 0;
    for (u = 0; u <= 0xffffffffu; u += 97) {
      float f = f32_of((uint32_t)u);
      if (f != f)
        continue; /* NaNs: numpy's rule above, not the CPU's */
      n++;
      bad += cv_f32_to_f16(f) != f16c(f);
    }
    CHECK(bad == 0, "f16: %llu of %llu values differ from F16C", (unsigned long long)bad,
          (unsigned long long)n);
  } else {
    printf("convert_test: no F16C here: the sweep against the CPU is skipped\n");
  }
#endif
}

void test_bf16(void) {
  static const struct {
    uint32_t in;
    uint16_t out;
  } hand[] = {
      {0x3f800000, 0x3f80}, {0x3f808000, 0x3f80}, /* a tie, to even (down) */
      {0x3f818000, 0x3f82},                       /* a tie, to even (up) */
      {0x3f808001, 0x3f81}, {0x7f7fffff, 0x7f80}, /* the largest float rounds to Inf */
      {0x7f800001, 0x7fc0},                       /* a signaling NaN made quiet */
      {0xff800001, 0xffc0}, {0x7fc12345, 0x7fc1}, /* a quiet NaN keeps its top bits */
      {0x00000001, 0x0000}, {0x80000000, 0x8000},
  };
  size_t i;
  for (i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
    uint16_t h = cv_f32_to_bf16(f32_of(hand[i].in));
    CHECK(h == hand[i].out, "bf16(%08x) = %04x, not %04x", hand[i].in, h, hand[i].out);
  }
  { /* BF16 kept: fewer values than a vector, so the portable code */
    static const unsigned char in[8] = {0x81, 0x7f, 0x81, 0xff, 0x80, 0x3e, 0xc1, 0x7f};
    static const unsigned char want[8] = {0xc1, 0x7f, 0xc1, 0xff, 0x80, 0x3e, 0xc1, 0x7f};
    unsigned char out[8];
    cv_bf16_quiet(in, 4, out);
    CHECK(memcmp(out, want, 8) == 0, "BF16 kept: signaling NaNs made quiet, the rest as they are");
  }
}

/* ================================== Q8_0 ================================== */

/* Hex text into bytes. */
static void unhex(const char *s, unsigned char *out) {
  size_t i;
  for (i = 0; s[2 * i] && s[2 * i + 1]; i++) {
    unsigned v;
    sscanf(s + 2 * i, "%2x", &v);
    out[i] = (unsigned char)v;
  }
}

/* Q8_0 of the block of 32 float32 bit patterns in (hex words) against
** gguf-py's bytes want (hex). */
static void q8_case(const char *what, const char *in, const float *values, const char *want) {
  float x[CV_QK8_0];
  unsigned char got[CV_Q8_0_BYTES], exp[CV_Q8_0_BYTES];
  int j;
  for (j = 0; j < CV_QK8_0; j++) {
    if (in != NULL) {
      unsigned u;
      sscanf(in + 9 * j, "%8x", &u);
      x[j] = f32_of(u);
    } else {
      x[j] = values[j];
    }
  }
  unhex(want, exp);
  cv_q8_0_block(x, got);
  CHECK(memcmp(got, exp, sizeof(got)) == 0, "q8_0 %s: bytes differ from gguf-py's", what);
  cv_encode(CV_GGML_Q8_0, x, CV_QK8_0, got); /* the AVX2 kernel, where the CPU has it */
  CHECK(memcmp(got, exp, sizeof(got)) == 0, "q8_0 %s (cv_encode): bytes differ from gguf-py's",
        what);
}

void test_q8_0(void) {
  float tie[32] = {127, 2.5f, -2.5f, 0.5f, -0.5f, 1.5f, 3.5f, -126.5f}, zero[32] = {0};
  float nan1[32], inf1[32], big[32], tiny[32];
  int j;
  /* by hand: amax 127, d = 1 (F16 0x3c00), id = 1; halves go away from zero */
  unsigned char want_tie[34] = {
      0x00, 0x3c, 127, 3, (unsigned char)-3, 1, (unsigned char)-1, 2, 4, (unsigned char)-127};
  unsigned char got[34];
  cv_q8_0_block(tie, got);
  CHECK(memcmp(got, want_tie, 34) == 0, "q8_0: ties by hand");
  for (j = 0; j < 32; j++) {
    nan1[j] = inf1[j] = 1.0f;
    big[j] = 70000.0f;
    tiny[j] = 1e-30f;
  }
  nan1[5] = NAN;
  inf1[5] = INFINITY;
  tiny[3] = -3e-30f;
  q8_case("random 1",
          "bd46cd5b bdb0540e bd90c2a2 bdad88df 3a793562 bde315d0 3d6327b8 3e4def06 bcbad84a "
          "3dee5d3b 3db86cfb 3df9a937 3d0d7c22 3e0b2b77 bd7feef6 bd25452d 3df1a46f 3d020bc7 "
          "3e387fea 3df66c84 ba7fe857 3c9bb701 3db607aa 3d066dc5 be0fd681 3cf9912f 3e027279 "
          "bdad2a78 bca54882 3da03f65 3da08773 bde514ec",
          NULL, "7c16e1cad3ca01ba237ff24a394d1656d9e74b14724cff0c3815a71350cbf33131b9");
  q8_case("random 2",
          "41de4af2 c1534589 413d937c 4123321b 41269e56 40b1ec01 402cf393 41958c08 4087300a "
          "40c9c9d2 402fed58 c1821fa5 c0fa8a3c 3f78742f 3fbbd9f2 410dc6fb c03b8e30 c045e5f8 "
          "412f2557 4153b4ec bfd130de c0752479 c12521b2 c0b853ec 4108bb76 c18c6054 4158f64a "
          "3dd5b8b0 c13100e3 40b5a939 c12f0f0d 40c6cac1",
          NULL, "00337fc4362f30190c55131d0db6dc040729f3f2323cf9eed1e627b03e00cd1ace1c");
  q8_case("random 3",
          "3acbb091 bb5d303d bc7f5da9 3ade3683 3b9c82af bc746c6e 3bf38b75 bc62538e bc212ac6 "
          "3c54c796 baff8d17 bbb1061e bc5c45f6 3b60e5c1 bb4f2dbb 3c53e667 bc43ff85 3b60f819 "
          "bc23f8d1 ba3e0b64 bbdbd6e8 ba6f8853 ba9d92db bad989d5 bbacb479 3a250ce4 bc21db7d "
          "bc57e680 bc9800d1 3c24858c 3c856779 3b47bcf1",
          NULL, "ca080be9950c219a33a1bd59f3dba417ea59ae17bbfbd2faf8f5dc04bca681456f15");
  q8_case("linear",
          "c2c80000 c2bf294a c2b65295 c2ad7bdf c2a4a529 c29bce74 c292f7be c28a2108 c2814a53 "
          "c270e73a c25f39ce c24d8c63 c23bdef8 c22a318c c2188421 c206d6b6 c1ea5295 c1c6f7be "
          "c1a39ce7 c1804211 c139ce74 c0e6318c c0318c63 3fd294a5 40c21084 4127bdef 416e739d "
          "419a94a5 41bdef7c 41e14a53 42025295 42140000",
          NULL, "4d3a81878c92979da3a8aeb4b9bfc4cad0d5dbe0e6ecf1f7fc02080d13191e24292f");
  q8_case("zeros", NULL, zero,
          "00000000000000000000000000000000000000000000000000000000000000000000");
  q8_case("tiny (d is 0 in F16, id is not)", NULL, tiny,
          "00002a2a2a812a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a");
  q8_case("a NaN", NULL, nan1,
          "007e0000000000000000000000000000000000000000000000000000000000000000");
  q8_case("an Inf", NULL, inf1,
          "007c0000000000000000000000000000000000000000000000000000000000000000");
  q8_case("d over F16's range", NULL, big,
          "4e607f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f");
}

/* The vector kernels (cv_encode, cv_src_to_f32, cv_bf16_quiet) against
** the scalar rules, value by value, on values of every kind: random bits
** (NaNs of both kinds, infinities, subnormals included) and Gaussian
** weights. */
void test_kernels(void) {
  enum { N = 4096 + 13 };
  static float x[N], back[N];
  static unsigned char out[4 * N], half[2 * N], quiet[2 * N];
  uint32_t r = 12345;
  size_t i, bad = 0;
  for (i = 0; i < N; i++) {
    r = r * 1103515245u + 12345u;
    x[i] = i % 3 == 0 ? f32_of(r ^ (r << 13)) : (float)((int32_t)r) * 0x1p-38f;
    half[2 * i] = (unsigned char)(r >> 8);
    half[2 * i + 1] = (unsigned char)(r >> 16);
  }
  cv_encode(CV_GGML_F16, x, N, out);
  for (i = 0; i < N; i++)
    bad += (out[2 * i] | out[2 * i + 1] << 8) != cv_f32_to_f16(x[i]);
  CHECK(bad == 0, "cv_encode F16: %zu of %d values differ from cv_f32_to_f16", bad, N);
  cv_encode(CV_GGML_BF16, x, N, out);
  for (bad = 0, i = 0; i < N; i++)
    bad += (out[2 * i] | out[2 * i + 1] << 8) != cv_f32_to_bf16(x[i]);
  CHECK(bad == 0, "cv_encode BF16: %zu of %d values differ from cv_f32_to_bf16", bad, N);
  cv_src_to_f32(CV_SRC_F16, half, N, back);
  for (bad = 0, i = 0; i < N; i++) {
    float w = wt_f16_to_f32((uint16_t)(half[2 * i] | half[2 * i + 1] << 8));
    bad += memcmp(&w, &back[i], 4) != 0;
  }
  CHECK(bad == 0, "F16 to float32: %zu of %d values differ from the scalar rule", bad, N);
  cv_bf16_quiet(half, N, quiet);
  for (bad = 0, i = 0; i < N; i++) {
    uint16_t h = (uint16_t)(half[2 * i] | half[2 * i + 1] << 8);
    uint16_t want = cv_f32_to_bf16(f32_of((uint32_t)h << 16));
    bad += (quiet[2 * i] | quiet[2 * i + 1] << 8) != want;
  }
  CHECK(bad == 0, "BF16 kept: %zu of %d values differ from the float32 round trip", bad, N);
  cv_encode(CV_GGML_Q8_0, x, N / CV_QK8_0 * CV_QK8_0, out);
  for (bad = 0, i = 0; i + CV_QK8_0 <= N; i += CV_QK8_0) {
    unsigned char one[CV_Q8_0_BYTES];
    cv_q8_0_block(x + i, one);
    bad += memcmp(one, out + i / CV_QK8_0 * CV_Q8_0_BYTES, CV_Q8_0_BYTES) != 0;
  }
  CHECK(bad == 0, "cv_encode Q8_0: %zu blocks differ from cv_q8_0_block", bad);
}

/* gemma's 1 + w of an F16 checkpoint: rounded to F16 after the float32 sum. */
void test_plus_one(void) {
  float x[3] = {wt_f16_to_f32(0x0002), 0.5f, wt_f16_to_f32(0x1401)}, y[3];
  memcpy(y, x, sizeof(x));
  cv_plus_one(x, 3, 1);
  cv_plus_one(y, 3, 0);
  CHECK(x[0] == 1.0f && y[0] == 1.0f + 0x1p-23f, "plus_one: 1 + 2^-23 is 1 in F16, not in F32");
  CHECK(x[1] == 1.5f && y[1] == 1.5f, "plus_one: 1.5");
  /* 0x1401 = 2^-10 + 2^-20: 1 + it is exact in float32, rounds down in F16 */
  CHECK(x[2] == 1.0f + 0x1p-10f && y[2] == 1.0f + 0x1p-10f + 0x1p-20f,
        "plus_one: rounded to F16 after the float32 sum");
}
