/*
** gen_model.c: write a small llama-shaped checkpoint, its GGUF conversion
** and a few relatives, for `make demo`, the cookbook in sql/ and its tests.
**
**   gen_model OUTDIR
**
** writes into OUTDIR:
**
**   tiny-llama.safetensors  the checkpoint: Hugging Face names, BF16, the
**       layout the safetensors crate writes (header padded to 8 bytes,
**       `__metadata__ {"format":"pt"}`), 21 tensors, 107,328 values.
**   tiny-llama.gguf  its conversion (GGUF v3, llama.cpp names, what
**       `convert_hf_to_gguf.py --outtype q8_0` writes: Q8_0 matrices, F32
**       norms, q/k rows permuted, ne[] reversed, the llama.* keys and a
**       260-token vocabulary).
**   tiny-llama-finetuned.safetensors  a "fine-tune" of the checkpoint:
**       model.layers.1.self_attn.v_proj.weight times 0.5 and
**       model.layers.1.mlp.down_proj.weight times 2 (exact in BF16, so
**       tensor_compare's rel_l2 is exactly 0.5 and 1), the 5 norms saved
**       as F32 (the same values: BF16 widened), every other tensor the
**       same bytes.
**   sharded/  the fine-tune in two shards,
**       model-0000{1,2}-of-00002.safetensors (10 and 11 tensors) with
**       model.safetensors.index.json (huggingface_hub's layout).
**   tiny-llama-diverged.safetensors  the checkpoint with 3 NaN (flat
**       indices 0, 1000, 8191), 2 +Inf (1, 2) and 1 -Inf (3) in
**       model.layers.1.mlp.up_proj.weight, as a diverged run saves them.
**   tiny-qwen2.gguf  a second GGUF: the same weights as F16 (no row
**       permutation) under architecture "qwen2" (qwen2.* keys, context
**       32768, file type 1) with a GPT-2-style vocabulary that differs from
**       tiny-llama.gguf's in 4 known tokens: ids 0-2 are <|endoftext|>,
**       <|im_start|>, <|im_end|> (not <unk>, <s>, </s>) and id 259 is
**       "\xc4\xa0hello" (not "\xe2\x96\x81hello"); eos 0, no bos key.
**   tiny-llama-truncated.gguf  tiny-llama.gguf cut 100 bytes into its
**       data section, as an interrupted download leaves it (does not parse).
**   tokenizer.model, tokenizer_config.json  the checkpoint's tokenizer: a
**       SentencePiece model (protobuf, byte fallback) of tiny-llama.gguf's
**       260 tokens, and bos/eos, add_bos_token and a chat template, so that
**       gguf_convert() converts the checkpoint (sql/convert_demo.sql).
**   config.json (also in sharded/)  the checkpoint's transformers config:
**       LlamaForCausalLM with the dimensions above (hidden 64, 2 layers,
**       4 heads, 2 KV heads, context 2048), as a Llama checkpoint has it.
**
** The weights are deterministic pseudo-random numbers, the same in every
** file up to BF16, F16 and Q8_0 rounding and the changes above.
*/
#include <errno.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Write b to dir/name. */
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

/* The checkpoints written as safetensors. */
enum { ST_ORIGINAL, ST_FINETUNED, ST_DIVERGED };

/* The fine-tune's factor for tensor t: 0.5 and 2 on two tensors of layer 1. */
static float finetune_scale(const tensor *t) {
  if (strcmp(t->hf, "model.layers.1.self_attn.v_proj.weight") == 0)
    return 0.5f;
  if (strcmp(t->hf, "model.layers.1.mlp.down_proj.weight") == 0)
    return 2.0f;
  return 1.0f;
}

/* Whether the variant stores t as F32 (the fine-tune's norms) or BF16. */
static int st_is_f32(const tensor *t, int variant) {
  return variant == ST_FINETUNED && t->cols == 1;
}

/* The BF16 bits of value j of t in the variant. */
static uint16_t st_bf16(const tensor *t, int j, int variant) {
  if (variant == ST_FINETUNED)
    return to_bf16(t->w[j] * finetune_scale(t)); /* a power of two: exact */
  if (variant == ST_DIVERGED && strcmp(t->hf, "model.layers.1.mlp.up_proj.weight") == 0) {
    if (j == 0 || j == 1000 || j == 8191)
      return 0x7fc0; /* NaN */
    if (j == 1 || j == 2)
      return 0x7f80; /* +Inf */
    if (j == 3)
      return 0xff80; /* -Inf */
  }
  return to_bf16(t->w[j]);
}

/* Bytes of t's data in the variant. */
static uint64_t st_bytes(const tensor *t, int variant) {
  return (uint64_t)t->rows * (uint64_t)t->cols * (st_is_f32(t, variant) ? 4 : 2);
}

/* A safetensors file of tensors [first, last) in the variant: header in
** offset order, then the data. */
static void write_safetensors(const char *dir, const char *name, int variant, int first, int last) {
  buf h = {0}, out = {0};
  char entry[512], shape[32];
  uint64_t off = 0, n;
  int i, j;
  put(&h, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
  for (i = first; i < last; i++) {
    const tensor *t = &tensors[i];
    uint64_t bytes = st_bytes(t, variant);
    int len;
    if (t->cols == 1)
      snprintf(shape, sizeof(shape), "[%d]", t->rows);
    else
      snprintf(shape, sizeof(shape), "[%d,%d]", t->rows, t->cols);
    len = snprintf(entry, sizeof(entry),
                   ",\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%llu,%llu]}", t->hf,
                   st_is_f32(t, variant) ? "F32" : "BF16", shape, (unsigned long long)off,
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
  for (i = first; i < last; i++) {
    const tensor *t = &tensors[i];
    for (j = 0; j < t->rows * t->cols; j++) {
      uint16_t v = st_bf16(t, j, variant);
      if (st_is_f32(t, variant)) {
        put_u32(&out, (uint32_t)v << 16); /* the BF16 value, widened */
      } else {
        unsigned char x[2] = {v & 0xff, v >> 8};
        put(&out, x, 2);
      }
    }
  }
  write_file(dir, name, &out);
  free(h.p);
  free(out.p);
}

/* Compare two tensor names (for the index's sorted weight_map). */
static int by_hf_name(const void *a, const void *b) {
  return strcmp(tensors[*(const int *)a].hf, tensors[*(const int *)b].hf);
}

/* The fine-tune in two shards (tensors [0, split) and [split, n)) and the
** index that maps each tensor to its shard, keys sorted as
** huggingface_hub writes them. */
static void write_sharded(const char *dir, const char *sub, int split) {
  static const char *shard[2] = {"model-00001-of-00002.safetensors",
                                 "model-00002-of-00002.safetensors"};
  char path[4096], entry[256];
  buf ix = {0};
  uint64_t total = 0;
  int order[64], i;
  snprintf(path, sizeof(path), "%s/%s", dir, sub);
  if (mkdir(path, 0777) != 0 && errno != EEXIST) {
    perror(path);
    exit(1);
  }
  write_safetensors(path, shard[0], ST_FINETUNED, 0, split);
  write_safetensors(path, shard[1], ST_FINETUNED, split, n_tensors);
  for (i = 0; i < n_tensors; i++) {
    total += st_bytes(&tensors[i], ST_FINETUNED);
    order[i] = i;
  }
  qsort(order, (size_t)n_tensors, sizeof(order[0]), by_hf_name);
  snprintf(entry, sizeof(entry), "{\n  \"metadata\": {\n    \"total_size\": %llu\n  },\n",
           (unsigned long long)total);
  put(&ix, entry, strlen(entry));
  put(&ix, "  \"weight_map\": {\n", 18);
  for (i = 0; i < n_tensors; i++) {
    int len = snprintf(entry, sizeof(entry), "    \"%s\": \"%s\"%s\n", tensors[order[i]].hf,
                       shard[order[i] >= split], i + 1 < n_tensors ? "," : "");
    put(&ix, entry, (size_t)len);
  }
  put(&ix, "  }\n}\n", 6);
  write_file(path, "model.safetensors.index.json", &ix);
  free(ix.p);
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

/* One GGUF conversion of the checkpoint. */
typedef struct gguf_kind {
  const char *arch, *name, *tokenizer;
  uint32_t ctx, file_type;
  int f16;   /* matrices F16 (else Q8_0) */
  int qwen2; /* no row permutation, the GPT-2-style vocabulary, eos 0 and no bos */
} gguf_kind;

/* The vocabulary: 3 specials, 256 byte tokens, one word. */
static void token_text(const gguf_kind *g, int i, char *out, size_t n) {
  static const char *special[2][3] = {{"<unk>", "<s>", "</s>"},
                                      {"<|endoftext|>", "<|im_start|>", "<|im_end|>"}};
  if (i < 3)
    snprintf(out, n, "%s", special[g->qwen2][i]);
  else if (i < 259)
    snprintf(out, n, "<0x%02X>", i - 3);
  else
    snprintf(out, n, g->qwen2 ? "\xc4\xa0hello" : "\xe2\x96\x81hello");
}

/* Append the key g->arch + "." + key with a u32 value. */
static void kv_arch_u32(buf *b, const gguf_kind *g, const char *key, uint32_t v) {
  char k[128];
  snprintf(k, sizeof(k), "%s.%s", g->arch, key);
  kv_u32(b, k, v);
}

/* The GGUF file: KVs, tensor infos, data aligned to 32; cut to the data
** section's start plus cut bytes when cut >= 0. */
static void write_gguf(const char *dir, const char *file, const gguf_kind *g, long cut) {
  buf b = {0};
  char tok[32], key[128];
  uint64_t off = 0;
  size_t data_start;
  int i, r, j;
  put(&b, "GGUF", 4);
  put_u32(&b, 3);
  put_u64(&b, (uint64_t)n_tensors);
  put_u64(&b, g->qwen2 ? 15 : 16);
  kv_str(&b, "general.architecture", g->arch);
  kv_str(&b, "general.name", g->name);
  kv_arch_u32(&b, g, "context_length", g->ctx);
  kv_arch_u32(&b, g, "embedding_length", HIDDEN);
  kv_arch_u32(&b, g, "block_count", LAYERS);
  kv_arch_u32(&b, g, "feed_forward_length", FFN);
  kv_arch_u32(&b, g, "rope.dimension_count", HEAD_DIM);
  kv_arch_u32(&b, g, "attention.head_count", HEADS);
  kv_arch_u32(&b, g, "attention.head_count_kv", KV_HEADS);
  snprintf(key, sizeof(key), "%s.attention.layer_norm_rms_epsilon", g->arch);
  put_str(&b, key);
  put_u32(&b, 6);
  put_f32(&b, 1e-5f);
  kv_u32(&b, "general.file_type", g->file_type);
  kv_str(&b, "tokenizer.ggml.model", g->tokenizer);
  put_str(&b, "tokenizer.ggml.tokens");
  put_u32(&b, 9);
  put_u32(&b, 8);
  put_u64(&b, VOCAB);
  for (i = 0; i < VOCAB; i++) {
    token_text(g, i, tok, sizeof(tok));
    put_str(&b, tok);
  }
  put_str(&b, "tokenizer.ggml.token_type");
  put_u32(&b, 9);
  put_u32(&b, 5);
  put_u64(&b, VOCAB);
  for (i = 0; i < VOCAB; i++)
    put_u32(&b, i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
  if (!g->qwen2)
    kv_u32(&b, "tokenizer.ggml.bos_token_id", 1);
  kv_u32(&b, "tokenizer.ggml.eos_token_id", g->qwen2 ? 0 : 2);
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    int mat = t->cols > 1;
    uint64_t bytes = !mat     ? (uint64_t)t->rows * 4
                     : g->f16 ? (uint64_t)t->rows * (uint64_t)t->cols * 2
                              : (uint64_t)t->rows * (uint64_t)(t->cols / 32) * 34;
    put_str(&b, t->gg);
    put_u32(&b, mat ? 2 : 1);
    put_u64(&b, mat ? (uint64_t)t->cols : (uint64_t)t->rows);
    if (mat)
      put_u64(&b, (uint64_t)t->rows);
    put_u32(&b, !mat ? 0 : g->f16 ? 1 : 8); /* GGML_TYPE_F32, F16 or Q8_0 */
    put_u64(&b, off);
    off += (bytes + 31) / 32 * 32;
  }
  while (b.n % 32 != 0)
    put(&b, "", 1);
  data_start = b.n;
  for (i = 0; i < n_tensors; i++) {
    const tensor *t = &tensors[i];
    for (r = 0; r < t->rows; r++) {
      const float *row = t->w + (size_t)(g->qwen2 ? r : source_row(t, r)) * (size_t)t->cols;
      if (t->cols == 1)
        put_f32(&b, row[0]);
      else if (g->f16)
        for (j = 0; j < t->cols; j++) {
          uint16_t h = to_f16(row[j]);
          put(&b, (unsigned char[]){h & 0xff, h >> 8}, 2);
        }
      else
        put_q8_0_row(&b, row, t->cols);
    }
    while (b.n % 32 != 0)
      put(&b, "", 1);
  }
  if (cut >= 0)
    b.n = data_start + (size_t)cut;
  write_file(dir, file, &b);
  free(b.p);
}

/* A protobuf varint, and a field: its key (number, wire type), then a
** varint (wire 0), 4 bytes (wire 5) or a length and bytes (wire 2). */
static void pb_varint(buf *b, uint64_t v) {
  do {
    unsigned char c = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v)
      c |= 0x80;
    put(b, &c, 1);
  } while (v);
}
static void pb_field(buf *b, int num, int wire, uint64_t v, const void *p) {
  pb_varint(b, (uint64_t)num << 3 | (uint64_t)wire);
  if (wire == 2)
    pb_varint(b, v);
  if (wire == 0)
    pb_varint(b, v);
  else
    put(b, p, wire == 5 ? 4 : (size_t)v);
}

/* tokenizer.model: sentencepiece's ModelProto (sentencepiece_model.proto)
** of tiny-llama.gguf's tokens: pieces (text, score, type: 2 unknown, 3
** control, 6 byte, 1 normal), a BPE trainer_spec with byte_fallback and
** unk/bos/eos ids 0/1/2, an identity normalizer_spec.  And
** tokenizer_config.json. */
static void write_tokenizer(const char *dir) {
  static const gguf_kind spm = {"llama", "", "llama", 0, 0, 0, 0};
  static const char config[] =
      "{\n  \"tokenizer_class\": \"LlamaTokenizer\",\n  \"bos_token\": \"<s>\",\n"
      "  \"eos_token\": \"</s>\",\n  \"unk_token\": \"<unk>\",\n  \"add_bos_token\": true,\n"
      "  \"add_eos_token\": false,\n"
      "  \"chat_template\": \"{% for m in messages %}{{ m['content'] }}</s>{% endfor %}\"\n}\n";
  buf b = {0}, piece = {0}, spec = {0}, cfg = {0};
  char tok[32];
  int i;
  for (i = 0; i < VOCAB; i++) {
    float score = i < 259 ? 0.0f : -1.0f;
    uint32_t bits;
    memcpy(&bits, &score, 4);
    token_text(&spm, i, tok, sizeof(tok));
    piece.n = 0;
    pb_field(&piece, 1, 2, strlen(tok), tok);
    pb_field(&piece, 2, 5, 0, (unsigned char[]){bits, bits >> 8, bits >> 16, bits >> 24});
    pb_field(&piece, 3, 0, i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1, NULL);
    pb_field(&b, 1, 2, piece.n, piece.p);
  }
  pb_field(&spec, 3, 0, 2, NULL);     /* model_type BPE */
  pb_field(&spec, 4, 0, VOCAB, NULL); /* vocab_size */
  pb_field(&spec, 35, 0, 1, NULL);    /* byte_fallback */
  pb_field(&spec, 40, 0, 0, NULL);    /* unk_id, bos_id, eos_id */
  pb_field(&spec, 41, 0, 1, NULL);
  pb_field(&spec, 42, 0, 2, NULL);
  pb_field(&b, 2, 2, spec.n, spec.p);
  spec.n = 0;
  pb_field(&spec, 1, 2, 8, "identity");
  pb_field(&b, 3, 2, spec.n, spec.p);
  write_file(dir, "tokenizer.model", &b);
  put(&cfg, config, sizeof(config) - 1);
  write_file(dir, "tokenizer_config.json", &cfg);
  free(b.p);
  free(piece.p);
  free(spec.p);
  free(cfg.p);
}

/* config.json of the checkpoints: what transformers writes for a
** LlamaForCausalLM of this shape. */
static void write_config(const char *dir, const char *sub) {
  char text[2048], path[4096];
  buf b = {0};
  int n =
      snprintf(text, sizeof(text),
               "{\n"
               "  \"architectures\": [\n    \"LlamaForCausalLM\"\n  ],\n"
               "  \"attention_bias\": false,\n"
               "  \"attention_dropout\": 0.0,\n"
               "  \"bos_token_id\": 1,\n"
               "  \"eos_token_id\": 2,\n"
               "  \"head_dim\": %d,\n"
               "  \"hidden_act\": \"silu\",\n"
               "  \"hidden_size\": %d,\n"
               "  \"initializer_range\": 0.02,\n"
               "  \"intermediate_size\": %d,\n"
               "  \"max_position_embeddings\": %d,\n"
               "  \"mlp_bias\": false,\n"
               "  \"model_type\": \"llama\",\n"
               "  \"num_attention_heads\": %d,\n"
               "  \"num_hidden_layers\": %d,\n"
               "  \"num_key_value_heads\": %d,\n"
               "  \"pretraining_tp\": 1,\n"
               "  \"rms_norm_eps\": 1e-05,\n"
               "  \"rope_scaling\": {\n    \"factor\": 1.0,\n    \"rope_type\": \"linear\"\n  },\n"
               "  \"rope_theta\": 10000.0,\n"
               "  \"tie_word_embeddings\": false,\n"
               "  \"torch_dtype\": \"bfloat16\",\n"
               "  \"transformers_version\": \"4.46.0\",\n"
               "  \"use_cache\": true,\n"
               "  \"vocab_size\": %d\n"
               "}\n",
               HEAD_DIM, HIDDEN, FFN, CTX, HEADS, LAYERS, KV_HEADS, VOCAB);
  put(&b, text, (size_t)n);
  snprintf(path, sizeof(path), "%s/%s", dir, sub);
  write_file(path, "config.json", &b);
  free(b.p);
}

int main(int argc, char **argv) {
  static const gguf_kind llama = {"llama", "Tiny Llama (sqlite-weights demo)", "llama", CTX, 7, 0,
                                  0};
  static const gguf_kind qwen2 = {"qwen2", "Tiny Qwen2 (sqlite-weights demo)", "gpt2", 32768, 1, 1,
                                  1};
  const char *dir;
  if (argc != 2) {
    fprintf(stderr, "usage: gen_model OUTDIR\n");
    return 2;
  }
  dir = argv[1];
  build_model();
  write_safetensors(dir, "tiny-llama.safetensors", ST_ORIGINAL, 0, n_tensors);
  write_gguf(dir, "tiny-llama.gguf", &llama, -1);
  write_safetensors(dir, "tiny-llama-finetuned.safetensors", ST_FINETUNED, 0, n_tensors);
  write_sharded(dir, "sharded", 10);
  write_safetensors(dir, "tiny-llama-diverged.safetensors", ST_DIVERGED, 0, n_tensors);
  write_gguf(dir, "tiny-qwen2.gguf", &qwen2, -1);
  write_gguf(dir, "tiny-llama-truncated.gguf", &llama, 100);
  write_config(dir, ".");
  write_config(dir, "sharded");
  write_tokenizer(dir);
  return 0;
}
