/*
** gen_model.c: write a small llama-shaped checkpoint and its GGUF
** conversion, for `make demo`, the cookbook in sql/ and its tests.
**
**   gen_model OUTDIR
**
** writes OUTDIR/tiny-llama.safetensors (Hugging Face names, BF16, the
** layout the safetensors crate writes: header padded to 8 bytes,
** `__metadata__ {"format":"pt"}`) and OUTDIR/tiny-llama.gguf (GGUF v3,
** llama.cpp names, what `convert_hf_to_gguf.py --outtype q8_0` writes:
** Q8_0 matrices, F32 norms, q/k rows permuted, ne[] reversed, the llama.*
** keys and a 260-token vocabulary).  The weights are deterministic
** pseudo-random numbers, the same in both files up to BF16 and Q8_0
** rounding.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's shape. */
enum { HIDDEN = 64, FFN = 128, LAYERS = 2, HEADS = 4, KV_HEADS = 2, VOCAB = 260, CTX = 2048 };
#define HEAD_DIM (HIDDEN / HEADS)

/* One tensor of the checkpoint, rows x cols (cols = 1 for a vector). */
typedef struct tensor {
  char hf[96], gg[64];
  int rows, cols;
  int permute_heads; /* llama.cpp permutes q (HEADS) and k (KV_HEADS) rows */
  float *w;
} tensor;

static tensor tensors[64];
static int n_tensors;

/* A growable output buffer. */
typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

/* Append n bytes. */
static void put(buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL) {
      perror("gen_model");
      exit(1);
    }
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

/* Append little-endian integers and GGUF strings. */
static void put_u32(buf *b, uint32_t v) {
  unsigned char x[4] = {v, v >> 8, v >> 16, v >> 24};
  put(b, x, 4);
}
static void put_u64(buf *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}
static void put_f32(buf *b, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  put_u32(b, u);
}
static void put_str(buf *b, const char *s) {
  put_u64(b, strlen(s));
  put(b, s, strlen(s));
}

/* Deterministic pseudo-random floats in [-0.5, 0.5) (xorshift64). */
static float next_weight(void) {
  static uint64_t s = 0x9e3779b97f4a7c15ULL;
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (float)((double)(s >> 40) / (double)(1ULL << 24) - 0.5);
}

/* float -> bfloat16 (round to nearest even) and -> IEEE half. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static uint16_t to_f16(float f) {
  uint32_t u, sign, mant;
  int exp;
  memcpy(&u, &f, 4);
  sign = (u >> 16) & 0x8000;
  exp = (int)((u >> 23) & 0xff) - 127 + 15;
  mant = u & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10)
      return (uint16_t)sign;
    mant |= 0x800000;
    return (uint16_t)(sign | ((mant >> (14 - exp)) + ((mant >> (13 - exp)) & 1)));
  }
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00);
  return (uint16_t)(sign | (uint32_t)(exp << 10) | ((mant + 0x1000) >> 13));
}

/* Declare one tensor with its two names; norms (cols == 1) are ones plus noise. */
static void add(const char *hf, const char *gg, int rows, int cols, int permute_heads) {
  tensor *t = &tensors[n_tensors++];
  int i;
  snprintf(t->hf, sizeof(t->hf), "%s", hf);
  snprintf(t->gg, sizeof(t->gg), "%s", gg);
  t->rows = rows;
  t->cols = cols;
  t->permute_heads = permute_heads;
  t->w = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
  for (i = 0; i < rows * cols; i++)
    t->w[i] = cols == 1 ? 1.0f + next_weight() / 8 : next_weight() / 4;
}

/* The tensors of a llama checkpoint, in the order Hugging Face lists them. */
static void build_model(void) {
  char hf[96], gg[64];
  int l, k;
  static const struct {
    const char *hf, *gg;
    int rows, cols, permute;
  } layer[] = {
      {"input_layernorm", "attn_norm", HIDDEN, 1, 0},
      {"self_attn.q_proj", "attn_q", HIDDEN, HIDDEN, HEADS},
      {"self_attn.k_proj", "attn_k", KV_HEADS * HEAD_DIM, HIDDEN, KV_HEADS},
      {"self_attn.v_proj", "attn_v", KV_HEADS * HEAD_DIM, HIDDEN, 0},
      {"self_attn.o_proj", "attn_output", HIDDEN, HIDDEN, 0},
      {"post_attention_layernorm", "ffn_norm", HIDDEN, 1, 0},
      {"mlp.gate_proj", "ffn_gate", FFN, HIDDEN, 0},
      {"mlp.up_proj", "ffn_up", FFN, HIDDEN, 0},
      {"mlp.down_proj", "ffn_down", HIDDEN, FFN, 0},
  };
  add("model.embed_tokens.weight", "token_embd.weight", VOCAB, HIDDEN, 0);
  for (l = 0; l < LAYERS; l++) {
    for (k = 0; k < (int)(sizeof(layer) / sizeof(layer[0])); k++) {
      snprintf(hf, sizeof(hf), "model.layers.%d.%s.weight", l, layer[k].hf);
      snprintf(gg, sizeof(gg), "blk.%d.%s.weight", l, layer[k].gg);
      add(hf, gg, layer[k].rows, layer[k].cols, layer[k].permute);
    }
  }
  add("model.norm.weight", "output_norm.weight", HIDDEN, 1, 0);
  add("lm_head.weight", "output.weight", VOCAB, HIDDEN, 0);
}

/* Write b to path. */
static void write_file(const char *dir, const char *name, const buf *b) {
  char path[4096];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (f == NULL || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* The safetensors file: header in offset order, BF16 data. */
static void write_safetensors(const char *dir) {
  buf h = {0}, out = {0};
  char entry[512];
  uint64_t off = 0, n;
  int i, j;
  put(&h, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    uint64_t bytes = (uint64_t)t->rows * (uint64_t)t->cols * 2;
    int len =
        t->cols == 1
            ? snprintf(entry, sizeof(entry),
                       ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%d],\"data_offsets\":[%llu,%llu]}",
                       t->hf, t->rows, (unsigned long long)off, (unsigned long long)(off + bytes))
            : snprintf(
                  entry, sizeof(entry),
                  ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%d,%d],\"data_offsets\":[%llu,%llu]}",
                  t->hf, t->rows, t->cols, (unsigned long long)off,
                  (unsigned long long)(off + bytes));
    put(&h, entry, (size_t)len);
    off += bytes;
  }
  put(&h, "}", 1);
  while (h.n % 8 != 0)
    put(&h, " ", 1);
  n = h.n;
  put_u64(&out, n);
  put(&out, h.p, h.n);
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    for (j = 0; j < t->rows * t->cols; j++) {
      uint16_t v = to_bf16(t->w[j]);
      unsigned char x[2] = {v & 0xff, v >> 8};
      put(&out, x, 2);
    }
  }
  write_file(dir, "tiny-llama.safetensors", &out);
  free(h.p);
  free(out.p);
}

/* Row r of the GGUF tensor comes from which row of the checkpoint:
** llama.cpp reshapes q/k to (heads, 2, head_dim/2, cols) and swaps axes
** 1 and 2, so that rotary pairs are interleaved. */
static int source_row(const tensor *t, int r) {
  int per_head, half, head, within, i, j;
  if (t->permute_heads == 0)
    return r;
  per_head = t->rows / t->permute_heads;
  half = per_head / 2;
  head = r / per_head;
  within = r % per_head; /* = i * 2 + j in the permuted order */
  i = within / 2;
  j = within % 2;
  return head * per_head + j * half + i;
}

/* Append one row of 32-element Q8_0 blocks: f16 scale, 32 int8. */
static void put_q8_0_row(buf *b, const float *x, int n) {
  int k, i;
  for (k = 0; k < n; k += 32) {
    float amax = 0, d;
    uint16_t dh;
    for (i = 0; i < 32; i++)
      amax = fabsf(x[k + i]) > amax ? fabsf(x[k + i]) : amax;
    d = amax / 127.0f;
    dh = to_f16(d);
    put(b, (unsigned char[]){dh & 0xff, dh >> 8}, 2);
    for (i = 0; i < 32; i++) {
      int q = d != 0 ? (int)lroundf(x[k + i] / d) : 0;
      signed char c = (signed char)(q > 127 ? 127 : q < -127 ? -127 : q);
      put(b, &c, 1);
    }
  }
}

/* Append a string KV and a u32 KV. */
static void kv_str(buf *b, const char *k, const char *v) {
  put_str(b, k);
  put_u32(b, 8);
  put_str(b, v);
}
static void kv_u32(buf *b, const char *k, uint32_t v) {
  put_str(b, k);
  put_u32(b, 4);
  put_u32(b, v);
}

/* The vocabulary: 3 specials, 256 byte tokens, one word. */
static void token_text(int i, char *out, size_t n) {
  static const char *special[] = {"<unk>", "<s>", "</s>"};
  if (i < 3)
    snprintf(out, n, "%s", special[i]);
  else if (i < 259)
    snprintf(out, n, "<0x%02X>", i - 3);
  else
    snprintf(out, n, "\xe2\x96\x81hello");
}

/* The GGUF file: KVs, tensor infos, data aligned to 32. */
static void write_gguf(const char *dir) {
  buf b = {0};
  char tok[32];
  uint64_t off = 0;
  int i, r;
  put(&b, "GGUF", 4);
  put_u32(&b, 3);
  put_u64(&b, (uint64_t)n_tensors);
  put_u64(&b, 16);
  kv_str(&b, "general.architecture", "llama");
  kv_str(&b, "general.name", "Tiny Llama (sqlite-weights demo)");
  kv_u32(&b, "llama.context_length", CTX);
  kv_u32(&b, "llama.embedding_length", HIDDEN);
  kv_u32(&b, "llama.block_count", LAYERS);
  kv_u32(&b, "llama.feed_forward_length", FFN);
  kv_u32(&b, "llama.rope.dimension_count", HEAD_DIM);
  kv_u32(&b, "llama.attention.head_count", HEADS);
  kv_u32(&b, "llama.attention.head_count_kv", KV_HEADS);
  put_str(&b, "llama.attention.layer_norm_rms_epsilon");
  put_u32(&b, 6);
  put_f32(&b, 1e-5f);
  kv_u32(&b, "general.file_type", 7); /* MOSTLY_Q8_0 */
  kv_str(&b, "tokenizer.ggml.model", "llama");
  put_str(&b, "tokenizer.ggml.tokens");
  put_u32(&b, 9);
  put_u32(&b, 8);
  put_u64(&b, VOCAB);
  for (i = 0; i < VOCAB; i++) {
    token_text(i, tok, sizeof(tok));
    put_str(&b, tok);
  }
  put_str(&b, "tokenizer.ggml.token_type");
  put_u32(&b, 9);
  put_u32(&b, 5);
  put_u64(&b, VOCAB);
  for (i = 0; i < VOCAB; i++)
    put_u32(&b, i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
  kv_u32(&b, "tokenizer.ggml.bos_token_id", 1);
  kv_u32(&b, "tokenizer.ggml.eos_token_id", 2);
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    int q8 = t->cols > 1;
    uint64_t bytes = q8 ? (uint64_t)t->rows * (uint64_t)(t->cols / 32) * 34 : (uint64_t)t->rows * 4;
    put_str(&b, t->gg);
    put_u32(&b, q8 ? 2 : 1);
    put_u64(&b, q8 ? (uint64_t)t->cols : (uint64_t)t->rows);
    if (q8)
      put_u64(&b, (uint64_t)t->rows);
    put_u32(&b, q8 ? 8 : 0); /* GGML_TYPE_Q8_0 or F32 */
    put_u64(&b, off);
    off += (bytes + 31) / 32 * 32;
  }
  while (b.n % 32 != 0)
    put(&b, "", 1);
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    for (r = 0; r < t->rows; r++) {
      const float *row = t->w + (size_t)source_row(t, r) * (size_t)t->cols;
      if (t->cols > 1)
        put_q8_0_row(&b, row, t->cols);
      else
        put_f32(&b, row[0]);
    }
    while (b.n % 32 != 0)
      put(&b, "", 1);
  }
  write_file(dir, "tiny-llama.gguf", &b);
  free(b.p);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_model OUTDIR\n");
    return 2;
  }
  build_model();
  write_safetensors(argv[1]);
  write_gguf(argv[1]);
  return 0;
}
