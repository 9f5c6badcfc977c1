/*
** convert_test.c: unit tests of the converter's pure parts (ext/convert/:
** numbers, config_values, kv_list, general, hparams, plan), linked
** without SQLite.
**
**   build/convert_test
**
** The expected values are not this code's output:
**  - F16: every 97th float32 bit pattern against the CPU's own conversion
**    (F16C vcvtps2ph, round to nearest even: IEEE 754's rounding, which
**    numpy's astype(float16) implements in software), and hand values;
**  - BF16, Q8_0's ties: worked by hand from ggml's and gguf-py's rules;
**  - Q8_0 blocks, the model-id components, the size labels and titles:
**    what llama.cpp de3ff815's gguf-py (numpy 1.24.2) returned for them,
**    with /tmp/llama.cpp/gguf-py on sys.path:
**      quants.quantize(block.reshape(1, 32), GGMLQuantizationType.Q8_0)
**      Metadata.get_model_id_components(id, total_params)
**      size_label(n, n, 0, 0), Metadata.id_to_title(s)
**    (the three blocks of random normal values are ones where computing
**    in float64 gives other q than gguf-py's float32).
** Prints "convert_test: N passed, M failed"; exits 1 on any failure.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/config_values.h"
#include "convert/general.h"
#include "convert/hparams.h"
#include "convert/kv_list.h"
#include "convert/numbers.h"
#include "convert/plan.h"
#include "decode/decode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_F16C_TEST 1
#endif

static int passed, failed;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      passed++;                                                                                    \
    } else {                                                                                       \
      failed++;                                                                                    \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

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

static void test_f16(void) {
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

static void test_bf16(void) {
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

static void test_q8_0(void) {
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
static void test_kernels(void) {
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
static void test_plus_one(void) {
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

/* ================================ naming ================================== */

/* 1 when a and b are both NULL or equal strings. */
static int same(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void test_model_ids(void) {
  static const struct {
    uint64_t total;
    const char *id, *full, *org, *basename, *finetune, *version, *size;
  } rows[] = {
      {0ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", NULL, NULL, "135M"},
      {0ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL, "Meta-Llama-3.1",
       "Instruct", NULL, "8B"},
      {0ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", NULL, NULL, "0.6B"},
      {0ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "it", NULL, "2B"},
      {0ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3-mini", "instruct",
       NULL, "4K"},
      {0ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral", "Instruct",
       "v0.3", "7B"},
      {0ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", NULL, NULL, "7.1B"},
      {0ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1", "8x7B"},
      {0ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF", NULL,
       NULL},
      {0ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "Instruct-AWQ", NULL, "1.5B"},
      {0ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama", "Chat",
       "v1.0", "1.1B"},
      {0ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {0ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", NULL, NULL,
       "135M"},
      {0ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {0ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "chat-hf", NULL, "7B"},
      {0ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", NULL, NULL, "30B-A3B"},
      {0ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", NULL, NULL, "130M-128K"},
      {0ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL, "v01", NULL},
      {0ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", NULL, NULL, "1.5B"},
      {0ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL, "small"},
      {125248ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", "135m", NULL, NULL},
      {125248ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "8b-Instruct", NULL, NULL},
      {125248ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {125248ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "2b-it", NULL, NULL},
      {125248ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3", "4k-instruct",
       NULL, "mini"},
      {125248ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "7b-Instruct", "v0.3", NULL},
      {125248ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", "7.1b", NULL, NULL},
      {125248ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1", "8x7B"},
      {125248ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF", NULL,
       NULL},
      {125248ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "1.5b-Instruct-AWQ", NULL, NULL},
      {125248ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "1.1b-Chat", "v1.0", NULL},
      {125248ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {125248ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", "135m",
       NULL, NULL},
      {125248ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {125248ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "7b-chat-hf", NULL,
       NULL},
      {125248ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {125248ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "130m", NULL, "128K"},
      {125248ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL, "v01",
       NULL},
      {125248ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", "1.5b", NULL, NULL},
      {125248ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
      {134515008ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", NULL, NULL, "135M"},
      {134515008ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "8b-Instruct", NULL, NULL},
      {134515008ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {134515008ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "2b-it", NULL, NULL},
      {134515008ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3",
       "4k-instruct", NULL, "mini"},
      {134515008ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "7b-Instruct", "v0.3", NULL},
      {134515008ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", "7.1b", NULL, NULL},
      {134515008ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1",
       "8x7B"},
      {134515008ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF",
       NULL, NULL},
      {134515008ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "1.5b-Instruct-AWQ", NULL, NULL},
      {134515008ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "1.1b-Chat", "v1.0", NULL},
      {134515008ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {134515008ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", NULL,
       NULL, "135M"},
      {134515008ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {134515008ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "7b-chat-hf",
       NULL, NULL},
      {134515008ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {134515008ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "128k", NULL, "130M"},
      {134515008ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL,
       "v01", NULL},
      {134515008ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", "1.5b", NULL, NULL},
      {134515008ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
      {7241732096ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", "135m", NULL, NULL},
      {7241732096ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "Instruct", NULL, "8B"},
      {7241732096ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {7241732096ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "it", NULL, "2B"},
      {7241732096ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3",
       "4k-instruct", NULL, "mini"},
      {7241732096ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "Instruct", "v0.3", "7B"},
      {7241732096ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", NULL, NULL, "7.1B"},
      {7241732096ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1",
       "8x7B"},
      {7241732096ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF",
       NULL, NULL},
      {7241732096ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "Instruct-AWQ", NULL, "1.5B"},
      {7241732096ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "Chat", "v1.0", "1.1B"},
      {7241732096ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {7241732096ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2",
       "135m", NULL, NULL},
      {7241732096ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {7241732096ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "chat-hf", NULL,
       "7B"},
      {7241732096ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {7241732096ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "130m-128k", NULL, NULL},
      {7241732096ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL,
       "v01", NULL},
      {7241732096ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", NULL, NULL, "1.5B"},
      {7241732096ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
  };
  size_t i;
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    cv_model_id m;
    if (cv_model_id_parse(rows[i].id, rows[i].total, &m) != 0) {
      CHECK(0, "model id %s: out of memory", rows[i].id);
      continue;
    }
    CHECK(same(m.full, rows[i].full) && same(m.org, rows[i].org) &&
              same(m.basename, rows[i].basename) && same(m.finetune, rows[i].finetune) &&
              same(m.version, rows[i].version) && same(m.size_label, rows[i].size),
          "model id %s (%llu params): %s|%s|%s|%s|%s|%s", rows[i].id,
          (unsigned long long)rows[i].total, m.full, m.org, m.basename, m.finetune, m.version,
          m.size_label);
    cv_model_id_free(&m);
  }
}

static void test_labels(void) {
  static const struct {
    uint64_t n;
    const char *label;
  } sizes[] = {{125248, "125K"},         {96000, "96K"},          {999, "1.0K"},
               {1000, "1.0K"},           {1001, "1.0K"},          {134515008, "135M"},
               {1235814400, "1.2B"},     {7241732096, "7.2B"},    {70553706496, "71B"},
               {1000000000000, "1000B"}, {1500000000001, "1.5T"}, {46702792704, "47B"}};
  static const struct {
    const char *in, *out;
  } titles[] = {{"llama", "Llama"},   {"smollm2-135m", "Smollm2 135m"},
                {"gpt2xl", "Gpt2Xl"}, {"Meta-Llama", "Meta Llama"},
                {"v0.3", "v0.3"},     {"mistral v0.3 instruct", "Mistral v0.3 Instruct"},
                {"a-b--c", "A B C"},  {"3b", "3b"}};
  char label[32];
  size_t i;
  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    cv_size_label(sizes[i].n, label, sizeof(label));
    CHECK(strcmp(label, sizes[i].label) == 0, "size_label(%llu) = %s, not %s",
          (unsigned long long)sizes[i].n, label, sizes[i].label);
  }
  for (i = 0; i < sizeof(titles) / sizeof(titles[0]); i++) {
    char *t = cv_id_to_title(titles[i].in);
    CHECK(t != NULL && strcmp(t, titles[i].out) == 0, "id_to_title(%s) = %s, not %s", titles[i].in,
          t, titles[i].out);
    free(t);
  }
}

/* ============================ config and metadata ========================= */

/* Parse config text into c (flattened). */
static int config(const char *text, wt_config *c) {
  wt_error e;
  if (wt_config_parse(text, strlen(text), 1, c, &e) != 0) {
    CHECK(0, "config does not parse: %s", e.msg);
    return -1;
  }
  return 0;
}

/* The keys of l, comma-separated. */
static void keys_of(const cv_kv_list *l, char *out, size_t cap) {
  size_t i;
  out[0] = 0;
  for (i = 0; i < l->n; i++)
    snprintf(out + strlen(out), cap - strlen(out), "%s%.*s", i ? "," : "", (int)l->e[i].key_len,
             l->bytes.p + l->e[i].key_off);
}

/* The UINT32 or FLOAT32 of key in l, as a double; NAN when absent. */
static double kv_number(const cv_kv_list *l, const char *key) {
  const cv_kv_entry *e = cv_kv_find(l, key);
  uint32_t u;
  float f;
  if (e == NULL || e->val_len != 4)
    return NAN;
  memcpy(&u, l->bytes.p + e->val_off, 4);
  memcpy(&f, &u, 4);
  return e->type == GGUF_TYPE_FLOAT32 ? (double)f : (double)u;
}

static void test_hparams(void) {
  static const char llama[] =
      "{\"architectures\":[\"LlamaForCausalLM\"],\"num_hidden_layers\":2,"
      "\"max_position_embeddings\":2048,\"hidden_size\":64,\"intermediate_size\":128,"
      "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"rope_theta\":500000,"
      "\"rms_norm_eps\":1e-05,\"vocab_size\":400,\"head_dim\":16,\"head_dim\":32,"
      "\"rope_scaling\":{\"type\":\"linear\",\"factor\":2}}";
  /* LlamaModel: Model.set_gguf_parameters' keys, file_type, then its own */
  static const char llama_keys[] =
      "llama.block_count,llama.context_length,llama.embedding_length,"
      "llama.feed_forward_length,llama.attention.head_count,llama.attention.head_count_kv,"
      "llama.rope.freq_base,llama.attention.layer_norm_rms_epsilon,llama.attention.key_length,"
      "llama.attention.value_length,general.file_type,llama.vocab_size,"
      "llama.rope.dimension_count,llama.rope.scaling.type,llama.rope.scaling.factor";
  static const char gemma[] =
      "{\"max_position_embeddings\":8192,\"hidden_size\":64,\"num_hidden_layers\":2,"
      "\"intermediate_size\":128,\"num_attention_heads\":4,\"rms_norm_eps\":1e-06,"
      "\"head_dim\":16}";
  static const char gemma_keys[] =
      "gemma.context_length,gemma.embedding_length,gemma.block_count,gemma.feed_forward_length,"
      "gemma.attention.head_count,gemma.attention.head_count_kv,"
      "gemma.attention.layer_norm_rms_epsilon,gemma.attention.key_length,"
      "gemma.attention.value_length,general.file_type";
  wt_config c;
  cv_kv_list l;
  cv_hp h;
  wt_error e;
  char keys[2048];
  memset(&l, 0, sizeof(l));
  if (config(llama, &c) == 0) {
    h = (cv_hp){&c, "llama", 7, &l};
    CHECK(cv_hparams_llama(&h, &e) == 0, "llama hparams: %s", e.msg);
    keys_of(&l, keys, sizeof(keys));
    CHECK(strcmp(keys, llama_keys) == 0, "llama keys: %s", keys);
    CHECK(kv_number(&l, "llama.attention.key_length") == 32, "the last head_dim wins");
    CHECK(kv_number(&l, "llama.rope.freq_base") == 500000.0, "an int rope_theta as FLOAT32");
    CHECK(kv_number(&l, "llama.attention.layer_norm_rms_epsilon") == (double)1e-05f,
          "1e-05 rounded to float32");
    CHECK(kv_number(&l, "general.file_type") == 7, "file_type");
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config(gemma, &c) == 0) {
    h = (cv_hp){&c, "gemma", 1, &l};
    CHECK(cv_hparams_gemma(&h, &e) == 0, "gemma hparams: %s", e.msg);
    keys_of(&l, keys, sizeof(keys));
    CHECK(strcmp(keys, gemma_keys) == 0, "gemma keys: %s", keys);
    CHECK(kv_number(&l, "gemma.attention.head_count_kv") == 4,
          "gemma: no num_key_value_heads is num_attention_heads");
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  /* what the converter refuses: struct.pack of 4.0 as an int, a key it indexes */
  if (config("{\"num_hidden_layers\":2,\"num_attention_heads\":4.0,\"hidden_size\":64,"
             "\"vocab_size\":10}",
             &c) == 0) {
    h = (cv_hp){&c, "llama", 1, &l};
    CHECK(cv_hparams_llama(&h, &e) != 0 && strstr(e.msg, "num_attention_heads is '4.0'") != NULL,
          "a float head count: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config("{\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4}", &c) == 0) {
    h = (cv_hp){&c, "llama", 1, &l};
    CHECK(cv_hparams_llama(&h, &e) != 0 && strstr(e.msg, "no vocab_size") != NULL,
          "no vocab_size: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config("{\"n_layers\":null,\"num_hidden_layers\":2}", &c) == 0) {
    h = (cv_hp){&c, "qwen2", 1, &l};
    CHECK(cv_hparams_qwen2(&h, &e) != 0 && strstr(e.msg, "n_layers is 'null'") != NULL,
          "find_hparam takes the first key present, null or not: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
}

static void test_kv_list(void) {
  cv_kv_list l;
  wt_error e;
  memset(&l, 0, sizeof(l));
  CHECK(cv_kv_u32(&l, "a", 1, &e) == 0 && cv_kv_str(&l, "b", "", &e) == 0 && l.n == 1,
        "an empty string is not added");
  CHECK(cv_kv_u32(&l, "a", 2, &e) != 0 && strstr(e.msg, "given twice") != NULL,
        "c392e50 refuses a key given twice");
  CHECK(cv_kv_u32(&l, "c", 1ULL << 32, &e) != 0 && strstr(e.msg, "does not fit") != NULL,
        "2^32 is no UINT32");
  CHECK(cv_kv_f32(&l, "c", 1e39, &e) != 0, "1e39 is no FLOAT32");
  l.replace = 1;
  CHECK(cv_kv_u32(&l, "x", 1, &e) == 0 && cv_kv_u32(&l, "a", 9, &e) == 0 && l.n == 2 &&
            kv_number(&l, "a") == 9 && l.e[0].key_len == 1 && l.bytes.p[l.e[0].key_off] == 'a',
        "de3ff815 replaces the value where the key stands");
  cv_kv_list_free(&l);
}

/* ================================== plan ================================== */

/* A checkpoint tensor for the plan (no file behind it). */
typedef struct fake {
  const char *name, *dtype;
  int ndim;
  uint64_t dims[2];
} fake;

/* Plan the fakes f[0..n) for hf architecture arch at ftype: 0, or -1 with
** e set (and *p empty). */
static int plan_of(const char *arch, const cv_dims *d, int ftype, const fake *f, size_t n,
                   cv_plan *p, wt_error *e) {
  static wt_tensor t[16];
  static cv_in in[16];
  size_t i, bad;
  for (i = 0; i < n; i++) {
    memset(&t[i], 0, sizeof(t[i]));
    t[i].name = (wt_str){f[i].name, strlen(f[i].name)};
    t[i].dtype = (wt_str){f[i].dtype, strlen(f[i].dtype)};
    t[i].ndim = f[i].ndim;
    t[i].dims = f[i].dims;
    in[i] = (cv_in){NULL, &t[i]};
  }
  return cv_plan_build(cv_arch_find(arch), d, ftype, in, n, NULL, 0, p, &bad, e);
}

static void test_plan(void) {
  static const fake llama[] = {
      {"model.embed_tokens.weight", "BF16", 2, {10, 64}},
      {"model.layers.0.input_layernorm.weight", "BF16", 1, {64}},
      {"model.layers.0.mlp.down_proj.weight", "F16", 2, {64, 80}},
      {"model.layers.0.self_attn.k_proj.weight", "F32", 2, {32, 64}},
      {"model.layers.0.self_attn.q_proj.weight", "BF16", 2, {64, 64}},
      {"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", 1, {8}},
      {"model.norm.weight", "BF16", 1, {64}},
  };
  static const struct {
    const char *name;
    uint32_t type;
    uint64_t ne0, ne1, heads;
  } want[] = {{"token_embd.weight", CV_GGML_Q8_0, 64, 10, 0},
              {"blk.0.attn_norm.weight", CV_GGML_F32, 64, 0, 0},
              {"blk.0.ffn_down.weight", CV_GGML_F16, 80, 64, 0}, /* 80 is no multiple of 32 */
              {"blk.0.attn_k.weight", CV_GGML_Q8_0, 64, 32, 2},
              {"blk.0.attn_q.weight", CV_GGML_Q8_0, 64, 64, 4},
              {"output_norm.weight", CV_GGML_F32, 64, 0, 0}};
  static const fake gemma[] = {{"lm_head.weight", "BF16", 2, {10, 64}},
                               {"model.norm.weight", "F16", 1, {64}}};
  static const struct {
    fake f;
    const char *msg;
  } bad[] = {
      {{"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", 2, {64, 64}}, "is F8_E4M3"},
      {{"model.layers.0.self_attn.q_proj.weight", "I32", 2, {64, 64}}, "is I32"},
      {{"model.layers.0.self_attn.q_proj.weight", "BF16", 2, {48, 64}},
       "has shape [48,64], but config.json gives [64,64]"},
      {{"model.layers.1.input_layernorm.weight", "BF16", 1, {64}},
       "of layer 1, but config.json has 1"},
      {{"model.layers.0.mlp.gate.weight", "BF16", 2, {80, 64}}, "has no GGUF name"},
      {{"model.norm.weight_scale", "F32", 1, {64}}, "has no GGUF name"},
  };
  cv_dims d = {1, 64, 4, 2, 16, 80, 10};
  cv_plan p;
  wt_error e;
  size_t i;
  if (plan_of("LlamaForCausalLM", &d, CV_FTYPE_Q8_0, llama, 7, &p, &e) != 0) {
    CHECK(0, "llama plan: %s", e.msg);
  } else {
    CHECK(p.n == 6, "llama plan: %zu tensors, not 6", p.n);
    for (i = 0; i < p.n && i < 6; i++)
      CHECK(strcmp(p.t[i].name, want[i].name) == 0 && p.t[i].type == want[i].type &&
                p.t[i].ne[0] == want[i].ne0 && p.t[i].ne[1] == want[i].ne1 &&
                p.t[i].heads == want[i].heads,
            "llama plan #%zu: %s type %u ne %llu,%llu heads %llu", i, p.t[i].name, p.t[i].type,
            (unsigned long long)p.t[i].ne[0], (unsigned long long)p.t[i].ne[1],
            (unsigned long long)p.t[i].heads);
    CHECK(p.total_params == 640 + 64 + 5120 + 2048 + 4096 + 64, "llama plan: parameters %llu",
          (unsigned long long)p.total_params);
    cv_plan_free(&p);
  }
  if (plan_of("GemmaForCausalLM", &d, CV_FTYPE_F16, gemma, 2, &p, &e) != 0) {
    CHECK(0, "gemma plan: %s", e.msg);
  } else {
    CHECK(p.n == 1 && strcmp(p.t[0].name, "output_norm.weight") == 0 && p.t[0].plus_one &&
              p.t[0].type == CV_GGML_F32,
          "gemma plan: lm_head dropped, the norm shifted and F32");
    cv_plan_free(&p);
  }
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK(plan_of("LlamaForCausalLM", &d, CV_FTYPE_F16, &bad[i].f, 1, &p, &e) != 0 &&
              strstr(e.msg, bad[i].msg) != NULL,
          "refused %s: %s", bad[i].f.name, e.msg);
}

int main(void) {
  test_f16();
  test_bf16();
  test_q8_0();
  test_kernels();
  test_plus_one();
  test_model_ids();
  test_labels();
  test_hparams();
  test_kv_list();
  test_plan();
  printf("convert_test: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
