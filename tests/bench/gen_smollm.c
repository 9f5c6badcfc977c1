/*
** gen_smollm.c: the safetensors inputs of the benchmark, written once into
** the cache and reused while their sizes are right.
**
** gen_smollm(): smollm2-135m.safetensors, shaped like SmolLM2-135M as
** Hugging Face ships it: 272 BF16 tensors with the real names and shapes
** (hidden 576, intermediate 1536, 30 layers, 9 heads of 64, 3 KV heads,
** vocabulary 49152, tied embeddings so no lm_head), `__metadata__
** {"format":"pt"}`, tensors sorted by name and laid out in that order, a
** compact JSON header padded with spaces to a multiple of 8, as the
** safetensors crate writes it.  The data is a cheap deterministic pattern
** of plausible BF16 weights (magnitudes 2^-8 to 2^-5, norms in [1, 2)),
** every byte written.
**
** gen_many(): the folder many/ of 1,000 small safetensors files of 20 F16
** tensors each (LoRA-adapter-like names, [8,64] and [64,8]), built in
** many.partial/ and renamed when complete.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { HIDDEN = 576, FFN = 1536, LAYERS = 30, KV_DIM = 3 * 64, VOCAB = 49152 };
enum { MANY_FILES = 1000, MANY_LAYERS = 10, LORA_RANK = 8, LORA_DIM = 64 };

/* A tensor being planned: name and shape. */
typedef struct plan {
  char name[96];
  int ndim;
  uint64_t dims[2];
} plan;

/* qsort by name. */
static int cmp_plan(const void *a, const void *b) {
  return strcmp(((const plan *)a)->name, ((const plan *)b)->name);
}

/* Build the header for tensors p[0..n) of elem_size bytes per element (in
** name order), fill out[] with their positions, return the file size. */
static uint64_t layout(plan *p, int n, const char *dtype, int elem_size, bench_buf *header,
                       bench_tensor *out) {
  char entry[320];
  uint64_t off = 0, hlen;
  int i, len;
  qsort(p, (size_t)n, sizeof(plan), cmp_plan);
  bench_put(header, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
  for (i = 0; i < n; i++) {
    uint64_t bytes = p[i].dims[0] * (p[i].ndim == 2 ? p[i].dims[1] : 1) * (uint64_t)elem_size;
    char shape[48];
    if (p[i].ndim == 2)
      snprintf(shape, sizeof(shape), "%llu,%llu", (unsigned long long)p[i].dims[0],
               (unsigned long long)p[i].dims[1]);
    else
      snprintf(shape, sizeof(shape), "%llu", (unsigned long long)p[i].dims[0]);
    len = snprintf(entry, sizeof(entry),
                   ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%s],\"data_offsets\":[%llu,%llu]}",
                   p[i].name, dtype, shape, (unsigned long long)off,
                   (unsigned long long)(off + bytes));
    bench_put(header, entry, (size_t)len);
    snprintf(out[i].name, sizeof(out[i].name), "%s", p[i].name);
    out[i].offset = off; /* relative for now */
    out[i].nbytes = bytes;
    off += bytes;
  }
  bench_put(header, "}", 1);
  while (header->n % 8 != 0)
    bench_put(header, " ", 1);
  hlen = header->n;
  for (i = 0; i < n; i++)
    out[i].offset += 8 + hlen;
  return 8 + hlen + off;
}

/* Write the length prefix and the header. */
static void write_header(bench_out *o, const bench_buf *header) {
  unsigned char len[8];
  int k;
  for (k = 0; k < 8; k++)
    len[k] = (unsigned char)((uint64_t)header->n >> (8 * k));
  bench_out_write(o, len, 8);
  bench_out_write(o, header->p, header->n);
}

/* Write n pseudo-random 16-bit values: sign, exponent from exp0 up to
** exp0 + n_exp - 1 (shifted by exp_shift), random mantissa bits. */
static void write_halfs(bench_out *o, uint64_t n, uint64_t *seed, unsigned exp0, unsigned n_exp,
                        int exp_shift, uint16_t mant_mask) {
  static uint16_t chunk[1 << 16];
  uint64_t done = 0;
  while (done < n) {
    size_t k, m = n - done < (1 << 16) ? (size_t)(n - done) : (size_t)1 << 16;
    for (k = 0; k < m; k++) {
      uint64_t r = bench_rand(seed);
      unsigned sign = n_exp > 1 ? (unsigned)(r >> 63) : 0;
      unsigned e = exp0 + (unsigned)((r >> 32) % n_exp);
      chunk[k] = (uint16_t)(sign << 15 | e << exp_shift | ((unsigned)r & mant_mask));
    }
    bench_out_write(o, chunk, m * 2); /* little-endian host assumed */
    done += m;
  }
}

/* Add one planned tensor. */
static void add(plan *p, int *n, const char *name, uint64_t d0, uint64_t d1) {
  snprintf(p[*n].name, sizeof(p[*n].name), "%s", name);
  p[*n].dims[0] = d0;
  p[*n].dims[1] = d1;
  p[*n].ndim = d1 ? 2 : 1;
  (*n)++;
}

/* The 272 tensors of SmolLM2-135M. */
static int plan_smollm(plan *p) {
  static const struct {
    const char *name;
    uint64_t d0, d1;
  } layer[] = {
      {"input_layernorm", HIDDEN, 0},          {"mlp.down_proj", HIDDEN, FFN},
      {"mlp.gate_proj", FFN, HIDDEN},          {"mlp.up_proj", FFN, HIDDEN},
      {"post_attention_layernorm", HIDDEN, 0}, {"self_attn.k_proj", KV_DIM, HIDDEN},
      {"self_attn.o_proj", HIDDEN, HIDDEN},    {"self_attn.q_proj", HIDDEN, HIDDEN},
      {"self_attn.v_proj", KV_DIM, HIDDEN},
  };
  char name[96];
  int n = 0, l, k;
  add(p, &n, "model.embed_tokens.weight", VOCAB, HIDDEN);
  for (l = 0; l < LAYERS; l++) {
    for (k = 0; k < (int)(sizeof(layer) / sizeof(layer[0])); k++) {
      snprintf(name, sizeof(name), "model.layers.%d.%s.weight", l, layer[k].name);
      add(p, &n, name, layer[k].d0, layer[k].d1);
    }
  }
  add(p, &n, "model.norm.weight", HIDDEN, 0);
  return n;
}

void gen_smollm(bench_inputs *in, int verbose) {
  plan p[300];
  bench_buf header = {0};
  bench_out o;
  uint64_t seed = 0x5eed0001, size;
  int n = plan_smollm(p), i;
  in->st_tensors = calloc((size_t)n, sizeof(bench_tensor));
  if (in->st_tensors == NULL)
    bench_die("out of memory");
  size = layout(p, n, "BF16", 2, &header, in->st_tensors);
  snprintf(in->st_path, sizeof(in->st_path), "%s/smollm2-135m.safetensors", in->cache);
  in->st_n = n;
  in->st_header = 8 + header.n;
  in->st_size = size;
  for (i = 0; i < n; i++)
    if (strcmp(in->st_tensors[i].name, "model.embed_tokens.weight") == 0)
      in->st_embed = &in->st_tensors[i];
  if (bench_file_size(in->st_path) == (int64_t)size) {
    free(header.p);
    return;
  }
  if (verbose)
    fprintf(stderr, "bench: writing %s (%.1f MB)\n", in->st_path, (double)size / 1e6);
  bench_out_open(&o, in->st_path);
  write_header(&o, &header);
  for (i = 0; i < n; i++) {
    if (p[i].ndim == 1) /* norms: [1, 2) */
      write_halfs(&o, p[i].dims[0], &seed, 127, 1, 7, 0x7f);
    else /* weights: +-[2^-8, 2^-5) */
      write_halfs(&o, p[i].dims[0] * p[i].dims[1], &seed, 119, 3, 7, 0x7f);
  }
  bench_out_close(&o, 0);
  free(header.p);
}

/* The 20 tensors of one small file. */
static int plan_lora(plan *p) {
  char name[96];
  int n = 0, l;
  for (l = 0; l < MANY_LAYERS; l++) {
    snprintf(name, sizeof(name), "base_model.model.model.layers.%d.self_attn.q_proj.lora_A.weight",
             l);
    add(p, &n, name, LORA_RANK, LORA_DIM);
    snprintf(name, sizeof(name), "base_model.model.model.layers.%d.self_attn.q_proj.lora_B.weight",
             l);
    add(p, &n, name, LORA_DIM, LORA_RANK);
  }
  return n;
}

/* Write one small file (F16 values +-[2^-7, 2^-4)). */
static void write_lora(const char *path, plan *p, int n, const bench_buf *header, uint64_t seed) {
  bench_out o;
  int i;
  bench_out_open(&o, path);
  write_header(&o, header);
  for (i = 0; i < n; i++)
    write_halfs(&o, p[i].dims[0] * p[i].dims[1], &seed, 8, 3, 10, 0x3ff);
  bench_out_close(&o, 0);
}

/* Remove a folder of files (no subfolders), if it exists. */
static void remove_folder(const char *dir) {
  char path[4600];
  DIR *d = opendir(dir);
  struct dirent *e;
  if (d == NULL)
    return;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (remove(path) != 0)
      bench_die_sys(path);
  }
  closedir(d);
  if (remove(dir) != 0)
    bench_die_sys(dir);
}

void gen_many(bench_inputs *in, int verbose) {
  plan p[MANY_LAYERS * 2];
  bench_tensor t[MANY_LAYERS * 2];
  bench_buf header = {0};
  char staging[4300], path[4400];
  uint64_t size;
  int n = plan_lora(p), i, ok = 1;
  size = layout(p, n, "F16", 2, &header, t);
  snprintf(in->many_dir, sizeof(in->many_dir), "%s/many", in->cache);
  in->many_n = MANY_FILES;
  in->many_tensors = MANY_FILES * n;
  in->many_files = calloc(MANY_FILES, sizeof(char *));
  if (in->many_files == NULL)
    bench_die("out of memory");
  in->many_bytes = (uint64_t)MANY_FILES * (size - 8 - header.n);
  for (i = 0; i < MANY_FILES; i++) {
    snprintf(path, sizeof(path), "%s/adapter-%04d.safetensors", in->many_dir, i);
    in->many_files[i] = strdup(path);
    if (in->many_files[i] == NULL)
      bench_die("out of memory");
    if (bench_file_size(path) != (int64_t)size)
      ok = 0;
  }
  if (ok) {
    free(header.p);
    return;
  }
  if (verbose)
    fprintf(stderr, "bench: writing %d files into %s\n", MANY_FILES, in->many_dir);
  snprintf(staging, sizeof(staging), "%s.partial", in->many_dir);
  remove_folder(staging); /* left by an interrupted run */
  bench_mkdirs(staging);
  for (i = 0; i < MANY_FILES; i++) {
    snprintf(path, sizeof(path), "%s/adapter-%04d.safetensors", staging, i);
    write_lora(path, p, n, &header, 0x10000 + (uint64_t)i);
  }
  remove_folder(in->many_dir);
  if (rename(staging, in->many_dir) != 0)
    bench_die_sys(in->many_dir);
  free(header.p);
}
