/*
** gen_llama3.c: the GGUF input of the benchmark, llama3-8b-q4_k_m.gguf,
** shaped like Meta-Llama-3-8B-Instruct-Q4_K_M.gguf as llama.cpp writes it,
** written once into the cache and reused while its size is right.
**
** Header (GGUF v3, little-endian, alignment 32): the 22 keys of the real
** file with their real types and values, among them tokenizer.ggml.tokens
** (128,256 strings), tokenizer.ggml.token_type (128,256 INT32) and
** tokenizer.ggml.merges (280,147 strings), about 7.9 MB in all.  The token
** and merge strings are deterministic pseudo-words with the real file's
** look and lengths: the 256 byte-level tokens (GPT-2's byte-to-unicode
** map, so '"' and '\' appear), words with the "Ġ" space marker, a few
** two-byte characters, and the 256 special tokens.
**
** Tensors: the 291 of the real file (token_embd, 32 blocks of 9, output_norm,
** output) with the real shapes in GGUF order (ne[0] first) and the types
** llama.cpp's Q4_K_M recipe gives them: Q4_K, except Q6_K for output and
** for attn_v and ffn_down in the layers where use_more_bits() holds; norms
** F32.  Offsets dense in info order, each aligned to 32.
**
** Data: the file is extended with ftruncate to its full apparent size
** (about 4.9 GB), so it is sparse and takes little disk.  Real bytes are
** written for the F32 norms and for token_embd.weight (295.5 MB of Q4_K
** blocks: f16 d in [2^-10, 2^-9), f16 dmin in [2^-11, 2^-10), 12 bytes of
** packed 6-bit scales and mins, 128 bytes of nibbles, all pseudo-random),
** which the tensor_stats case reads.  Every other tensor reads as zeros.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { N_VOCAB = 128256, N_SPECIAL = 256, N_MERGES = 280147, N_LAYERS = 32 };
enum { EMBD = 4096, FFN = 14336, KV = 1024 };
enum { GG_UINT32 = 4, GG_INT32 = 5, GG_FLOAT32 = 6, GG_STRING = 8, GG_ARRAY = 9 };
enum { T_F32 = 0, T_Q4_K = 12, T_Q6_K = 14 };
#define ALIGN 32

/* One planned tensor. */
typedef struct gtensor {
  char name[64];
  uint64_t ne0, ne1; /* ne1 == 0: a vector */
  int type;
  uint64_t offset, nbytes; /* offset relative to the data section */
} gtensor;

/* ---- keys ---- */

static void put_str(bench_buf *b, const char *s, size_t n) {
  bench_put_u64(b, n);
  bench_put(b, s, n);
}

static void kv_str(bench_buf *b, const char *k, const char *v) {
  put_str(b, k, strlen(k));
  bench_put_u32(b, GG_STRING);
  put_str(b, v, strlen(v));
}

static void kv_u32(bench_buf *b, const char *k, uint32_t v) {
  put_str(b, k, strlen(k));
  bench_put_u32(b, GG_UINT32);
  bench_put_u32(b, v);
}

static void kv_f32(bench_buf *b, const char *k, float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  put_str(b, k, strlen(k));
  bench_put_u32(b, GG_FLOAT32);
  bench_put_u32(b, u);
}

/* Start an array value of n elements of type t. */
static void kv_array(bench_buf *b, const char *k, uint32_t t, uint64_t n) {
  put_str(b, k, strlen(k));
  bench_put_u32(b, GG_ARRAY);
  bench_put_u32(b, t);
  bench_put_u64(b, n);
}

/* Append the UTF-8 encoding of code point c (< 0x800). */
static size_t utf8(char *out, unsigned c) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  out[0] = (char)(0xc0 | c >> 6);
  out[1] = (char)(0x80 | (c & 0x3f));
  return 2;
}

/* A pseudo-word: maybe the space marker "Ġ", then 1..max_len letters,
** now and then a two-byte character ("Ã©", byte-level é). */
static size_t word(char *out, uint64_t *seed, int marker_pct, int max_len) {
  uint64_t r = bench_rand(seed);
  size_t n = 0;
  int len = 1 + (int)(r % (uint64_t)max_len), i;
  if ((int)((r >> 8) % 100) < marker_pct)
    n += utf8(out + n, 0x120);
  for (i = 0; i < len; i++) {
    r = bench_rand(seed);
    if (r % 29 == 0) {
      n += utf8(out + n, 0xc3);
      n += utf8(out + n, 0xa9);
    } else {
      out[n++] = (char)((r >> 16) % 7 == 0 ? 'A' + (r >> 24) % 26 : 'a' + (r >> 24) % 26);
    }
  }
  return n;
}

/* Token i of the vocabulary. */
static size_t token(char *out, int i, uint64_t *seed) {
  static const char *named[] = {"<|begin_of_text|>",
                                "<|end_of_text|>",
                                "<|reserved_special_token_0|>",
                                "<|reserved_special_token_1|>",
                                "<|reserved_special_token_2|>",
                                "<|reserved_special_token_3|>",
                                "<|start_header_id|>",
                                "<|end_header_id|>",
                                "<|reserved_special_token_4|>",
                                "<|eot_id|>"};
  if (i < 256) { /* GPT-2 bytes_to_unicode, in its order */
    unsigned c = i < 94    ? 33 + i
                 : i < 106 ? 161 + (i - 94)
                 : i < 188 ? 174 + (i - 106)
                           : 256 + (i - 188);
    return utf8(out, c);
  }
  if (i < N_VOCAB - N_SPECIAL)
    return word(out, seed, 55, 11);
  i -= N_VOCAB - N_SPECIAL;
  if (i < 10)
    return (size_t)sprintf(out, "%s", named[i]);
  return (size_t)sprintf(out, "<|reserved_special_token_%d|>", i - 5);
}

/* Llama 3's chat template. */
static const char chat_template[] =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
    "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | "
    "trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% "
    "endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";

/* The keys, in the real file's order. */
static void put_keys(bench_buf *b) {
  char s[128];
  uint64_t seed = 0x70c0001;
  int i;
  size_t n;
  kv_str(b, "general.architecture", "llama");
  kv_str(b, "general.name", "Meta-Llama-3-8B-Instruct");
  kv_u32(b, "llama.block_count", N_LAYERS);
  kv_u32(b, "llama.context_length", 8192);
  kv_u32(b, "llama.embedding_length", EMBD);
  kv_u32(b, "llama.feed_forward_length", FFN);
  kv_u32(b, "llama.attention.head_count", 32);
  kv_u32(b, "llama.attention.head_count_kv", 8);
  kv_f32(b, "llama.rope.freq_base", 500000.0f);
  kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
  kv_u32(b, "general.file_type", 15); /* LLAMA_FTYPE_MOSTLY_Q4_K_M */
  kv_u32(b, "llama.vocab_size", N_VOCAB);
  kv_u32(b, "llama.rope.dimension_count", 128);
  kv_str(b, "tokenizer.ggml.model", "gpt2");
  kv_str(b, "tokenizer.ggml.pre", "llama-bpe");
  kv_array(b, "tokenizer.ggml.tokens", GG_STRING, N_VOCAB);
  for (i = 0; i < N_VOCAB; i++) {
    n = token(s, i, &seed);
    put_str(b, s, n);
  }
  kv_array(b, "tokenizer.ggml.token_type", GG_INT32, N_VOCAB);
  for (i = 0; i < N_VOCAB; i++)
    bench_put_u32(b, i < N_VOCAB - N_SPECIAL ? 1 : 3); /* normal, control */
  kv_array(b, "tokenizer.ggml.merges", GG_STRING, N_MERGES);
  for (i = 0; i < N_MERGES; i++) {
    n = word(s, &seed, 45, 8);
    s[n++] = ' ';
    n += word(s + n, &seed, 0, 7);
    put_str(b, s, n);
  }
  kv_u32(b, "tokenizer.ggml.bos_token_id", 128000);
  kv_u32(b, "tokenizer.ggml.eos_token_id", 128009);
  kv_str(b, "tokenizer.chat_template", chat_template);
  kv_u32(b, "general.quantization_version", 2);
}

/* ---- tensors ---- */

/* llama.cpp's use_more_bits(): layers that get Q6_K for attn_v, ffn_down. */
static int more_bits(int i) {
  return i < N_LAYERS / 8 || i >= 7 * N_LAYERS / 8 || (i - N_LAYERS / 8) % 3 == 2;
}

/* Bytes of a tensor of type t. */
static uint64_t tensor_bytes(int t, uint64_t ne0, uint64_t ne1) {
  uint64_t rows = ne1 ? ne1 : 1;
  if (t == T_F32)
    return ne0 * rows * 4;
  return ne0 / 256 * (t == T_Q4_K ? 144 : 210) * rows;
}

/* Add one tensor at the next aligned offset. */
static void add(gtensor *g, int *n, uint64_t *off, const char *name, uint64_t ne0, uint64_t ne1,
                int type) {
  gtensor *t = &g[(*n)++];
  snprintf(t->name, sizeof(t->name), "%s", name);
  t->ne0 = ne0;
  t->ne1 = ne1;
  t->type = type;
  t->offset = *off;
  t->nbytes = tensor_bytes(type, ne0, ne1);
  *off = (*off + t->nbytes + ALIGN - 1) / ALIGN * ALIGN;
}

/* The 291 tensors; returns the size of the data section. */
static uint64_t plan_tensors(gtensor *g, int *n) {
  char name[64];
  uint64_t off = 0;
  int l;
  *n = 0;
  add(g, n, &off, "token_embd.weight", EMBD, N_VOCAB, T_Q4_K);
  for (l = 0; l < N_LAYERS; l++) {
    int hi = more_bits(l) ? T_Q6_K : T_Q4_K;
#define BLK(suffix, ne0, ne1, type)                                                                \
  snprintf(name, sizeof(name), "blk.%d.%s.weight", l, suffix);                                     \
  add(g, n, &off, name, ne0, ne1, type)
    BLK("attn_norm", EMBD, 0, T_F32);
    BLK("ffn_down", FFN, EMBD, hi);
    BLK("ffn_gate", EMBD, FFN, T_Q4_K);
    BLK("ffn_up", EMBD, FFN, T_Q4_K);
    BLK("ffn_norm", EMBD, 0, T_F32);
    BLK("attn_k", EMBD, KV, T_Q4_K);
    BLK("attn_output", EMBD, EMBD, T_Q4_K);
    BLK("attn_q", EMBD, EMBD, T_Q4_K);
    BLK("attn_v", EMBD, KV, hi);
#undef BLK
  }
  add(g, n, &off, "output_norm.weight", EMBD, 0, T_F32);
  add(g, n, &off, "output.weight", EMBD, N_VOCAB, T_Q6_K);
  return off;
}

static void put_tensor_infos(bench_buf *b, const gtensor *g, int n) {
  int i;
  for (i = 0; i < n; i++) {
    put_str(b, g[i].name, strlen(g[i].name));
    bench_put_u32(b, g[i].ne1 ? 2 : 1);
    bench_put_u64(b, g[i].ne0);
    if (g[i].ne1)
      bench_put_u64(b, g[i].ne1);
    bench_put_u32(b, (uint32_t)g[i].type);
    bench_put_u64(b, g[i].offset);
  }
}

/* Write a tensor's real bytes: norms as F32 in [0.25, 1), Q4_K blocks. */
static void write_tensor(bench_out *o, const gtensor *t, uint64_t at, uint64_t *seed) {
  static unsigned char chunk[144 * 8192];
  uint64_t done = 0;
  while (done < t->nbytes) {
    size_t m = t->nbytes - done < sizeof(chunk) ? (size_t)(t->nbytes - done) : sizeof(chunk), k;
    for (k = 0; k + 8 <= m; k += 8) {
      uint64_t r = bench_rand(seed);
      memcpy(chunk + k, &r, 8);
    }
    if (t->type == T_F32) {
      for (k = 0; k < m; k += 4) {
        float f = 0.25f + (float)chunk[k] / 340.0f;
        memcpy(chunk + k, &f, 4);
      }
    } else { /* Q4_K: overwrite d and dmin of each 144-byte block */
      for (k = 0; k < m; k += 144) {
        chunk[k + 1] = (unsigned char)(0x14 | (chunk[k + 1] & 3)); /* d: 2^-10 * (1 + m/1024) */
        chunk[k + 3] = (unsigned char)(0x10 | (chunk[k + 3] & 3)); /* dmin: 2^-11 * ... */
      }
    }
    bench_out_pwrite(o, chunk, m, at + done);
    done += m;
  }
}

void gen_llama3(bench_inputs *in, int verbose) {
  static gtensor g[300];
  bench_buf b = {0};
  bench_out o;
  uint64_t data_size, data_offset, seed = 0x70c0002;
  int n, i;
  data_size = plan_tensors(g, &n);
  bench_put(&b, "GGUF", 4);
  bench_put_u32(&b, 3);
  bench_put_u64(&b, (uint64_t)n);
  bench_put_u64(&b, 22);
  put_keys(&b);
  put_tensor_infos(&b, g, n);
  while (b.n % ALIGN != 0)
    bench_put(&b, "", 1);
  data_offset = b.n;
  snprintf(in->gguf_path, sizeof(in->gguf_path), "%s/llama3-8b-q4_k_m.gguf", in->cache);
  in->gguf_header = data_offset;
  in->gguf_size = data_offset + data_size;
  in->gguf_n_tensors = n;
  in->gguf_n_keys = 22;
  snprintf(in->gguf_q4k.name, sizeof(in->gguf_q4k.name), "%s", g[0].name);
  in->gguf_q4k.offset = data_offset + g[0].offset;
  in->gguf_q4k.nbytes = g[0].nbytes;
  if (bench_file_size(in->gguf_path) == (int64_t)in->gguf_size) {
    free(b.p);
    return;
  }
  if (verbose)
    fprintf(stderr, "bench: writing %s (%.1f MB header, %.2f GB sparse)\n", in->gguf_path,
            (double)data_offset / 1e6, (double)in->gguf_size / 1e9);
  bench_out_open(&o, in->gguf_path);
  bench_out_write(&o, b.p, b.n);
  for (i = 0; i < n; i++)
    if (g[i].type == T_F32 || i == 0)
      write_tensor(&o, &g[i], data_offset + g[i].offset, &seed);
  bench_out_close(&o, in->gguf_size);
  free(b.p);
}
