/*
** memory_plan.c: the memory planner behind gguf_memory() (memory_plan.h).
**
** It reproduces what llama.cpp allocates when it loads a GGUF on the CPU
** with mmap (ggml-org/llama.cpp as node-llama-cpp 3.22.1 bundles it, its
** bundle's commit de3ff815; checked against its log in
** tests/memory_oracle.test):
**
**   weights   the bytes of the tensors of each layer (blk.N.*), and of the
**             others (token_embd, output, output_norm, ...), that stay in
**             the mapped file; and a row for the rest of the span llama.cpp
**             maps, from the first byte of those tensors to the last
**             (llama_model_loader::get_mapping_range in
**             src/llama-model-loader.cpp, used by load_tensors in
**             src/llama-model.cpp): alignment padding and the tensors it
**             repacks that lie between them
**   repack    the copy of the weights llama.cpp repacks for the CPU
**             (CPU_REPACK, cpu_repack.c)
**   k_cache   per layer with attention: row_size(type_k, key_length *
**   v_cache   head_count_kv(il)) * cells * streams, likewise for V with
**             value_length; cells per stream = PAD(PAD(n_ctx, 256) / n_seq,
**             256) (src/llama-context.cpp, the llama_context constructor),
**             or the sliding window's cells on SWA layers; MLA (deepseek2)
**             keeps the latent in K and has no V cache
**   recurrent_state  mamba: r = (d_conv-1)(d_inner + 2 n_group d_state)
**             and s = d_state d_inner F32 values per sequence and layer
**   output    the logits buffer, n_vocab * n_seq F32
**   compute   the buffer ggml-alloc plans for llama.cpp's graph: exact
**             for the models compute_plan.c vouches for (llama dense or
**             MoE, mistral3, qwen2, qwen2moe, qwen3, qwen3moe, granite,
**             granitemoe, exaone, xverse, internlm2, arcee, smollm3,
**             starcoder2, orion, baichuan, gemma, gemma2, gemma3, phi3,
**             cohere2, deci, deepseek2, mamba; a split GGUF given its other
*parts), whose graph
**             llama_graph.c builds; otherwise (the other architectures,
**             ...) unknown (NULL), with a size it cannot be below
**             (at_least, see mp_compute)
**
** Sliding windows: gemma2 (every other layer, 4096 unless the file says),
** gemma3 (5 of 6 layers, when the file gives a window), cohere2 (3 of 4).
** An architecture the planner does not know gives the weights rows and
** NULL cache rows that say so.
**
** Flash attention "auto" (llama.cpp's default) is on: llama.cpp turns it
** on when the attention runs on the device of the KV cache, the CPU here
** (resolve_fused_ops in src/llama-context.cpp).  Settings that
** llama_init_from_model refuses are errors quoting its message: a
** quantized V cache without flash attention; with it, a quantized K or V
** whose block does not divide the head size; K and V types that differ for
** an MLA model; more than 256 sequences.  Layer: plan (uses formats and
** base only).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "formats/gguf_value.h"
#include "memory_plan.h"
#include "memory_plan_int.h"

#define MP_PAD        256   /* llama.cpp pads the context to this many cells */
#define MP_MAX_LAYERS 65536 /* more layers than any model: hostile metadata */
#define MP_NOTE_SIZE  64    /* a clause of a row's note (", sliding window N") */
#define MP_MAX_SEQ    256   /* LLAMA_MAX_SEQ */

enum { MP_ATTN = 1, MP_MAMBA };

/* What the planner knows of an architecture. */
typedef struct mp_arch {
  const char *name;
  int kind;             /* MP_ATTN or MP_MAMBA */
  uint32_t swa_pattern; /* layer il is SWA when il % p < p - 1; 0: no SWA */
  uint64_t swa_default; /* window when the file has none (0: no SWA then) */
  int swa_needs_window; /* 1: SWA only when the file sets a window > 0; 2: the key is required */
} mp_arch;

static const mp_arch mp_archs[] = {
    {"llama", MP_ATTN, 0, 0, 0},
    {"qwen2", MP_ATTN, 0, 0, 0},
    {"qwen2moe", MP_ATTN, 0, 0, 0},
    {"qwen3", MP_ATTN, 0, 0, 0},
    {"qwen3moe", MP_ATTN, 0, 0, 0},
    {"gemma", MP_ATTN, 0, 0, 0},
    {"gemma2", MP_ATTN, 2, 4096, 0},
    {"gemma3", MP_ATTN, 6, 0, 1},
    {"cohere2", MP_ATTN, 4, 0, 2},
    {"phi3", MP_ATTN, 0, 0, 0}, /* llama.cpp disables phi3's SWA */
    {"deci", MP_ATTN, 0, 0, 0},
    {"deepseek2", MP_ATTN, 0, 0, 0},
    {"mamba", MP_MAMBA, 0, 0, 0},
    /* Their llama.cpp model classes (src/models/NAME.cpp) read the same
    ** attention keys as llama, set no sliding window and get the plain
    ** llama_kv_cache (llama_model::create_memory): llama's rule. */
    {"mistral3", MP_ATTN, 0, 0, 0},
    {"granite", MP_ATTN, 0, 0, 0},
    {"granitemoe", MP_ATTN, 0, 0, 0},
    {"olmo", MP_ATTN, 0, 0, 0},
    {"olmoe", MP_ATTN, 0, 0, 0},
    {"starcoder2", MP_ATTN, 0, 0, 0},
    {"internlm2", MP_ATTN, 0, 0, 0},
    {"stablelm", MP_ATTN, 0, 0, 0},
    {"exaone", MP_ATTN, 0, 0, 0},
    {"command-r", MP_ATTN, 0, 0, 0},
    {"qwen", MP_ATTN, 0, 0, 0},
    {"baichuan", MP_ATTN, 0, 0, 0},
    {"xverse", MP_ATTN, 0, 0, 0},
    {"orion", MP_ATTN, 0, 0, 0},
    {"smollm3", MP_ATTN, 0, 0, 0},
    {"seed_oss", MP_ATTN, 0, 0, 0},
    {"ernie4_5", MP_ATTN, 0, 0, 0},
    {"phi2", MP_ATTN, 0, 0, 0},
    {"gpt2", MP_ATTN, 0, 0, 0},
    {"starcoder", MP_ATTN, 0, 0, 0},
    {"minicpm", MP_ATTN, 0, 0, 0},
    {"arcee", MP_ATTN, 0, 0, 0},
    {"apertus", MP_ATTN, 0, 0, 0},
};

/* ============================ Reading metadata ============================ */

/* The entry named "{arch}.suffix" (or exactly suffix when global), or NULL. */
const wt_meta *mp_find(mp_ctx *x, const char *suffix, int global) {
  size_t ns = strlen(suffix), i;
  for (i = 0; i < x->m->n_meta; i++) {
    const wt_meta *kv = &x->m->meta[i];
    if (global) {
      if (kv->key.n == ns && memcmp(kv->key.p, suffix, ns) == 0)
        return kv;
    } else if (kv->key.n == x->arch.n + 1 + ns && memcmp(kv->key.p, x->arch.p, x->arch.n) == 0 &&
               kv->key.p[x->arch.n] == '.' && memcmp(kv->key.p + x->arch.n + 1, suffix, ns) == 0) {
      return kv;
    }
  }
  return NULL;
}

/* The value of scalar entry kv (not an array or a string) into *v. */
int mp_scalar(mp_ctx *x, const wt_meta *kv, gguf_scalar *v) {
  gguf_cursor c;
  gguf_cursor_init(&c, x->m, x->data, kv);
  if (gguf_read_scalar(&c, kv->type, v) != 0)
    return wt_fail(x->err, "key '%.*s' runs past the end of the header", (int)kv->key.n, kv->key.p);
  return 0;
}

/* Read one unsigned integer of type t at cursor c into *v. */
static int mp_read_uint(mp_ctx *x, gguf_cursor *c, uint32_t t, const char *key, uint64_t *v) {
  gguf_scalar s;
  if (t == GGUF_TYPE_BOOL || t == GGUF_TYPE_STRING || t == GGUF_TYPE_FLOAT32 ||
      t == GGUF_TYPE_FLOAT64 || t == GGUF_TYPE_ARRAY)
    return wt_fail(x->err, "key '%.*s.%s' is a %s, not an integer", (int)x->arch.n, x->arch.p, key,
                   gguf_type_name(t) ? gguf_type_name(t) : "bad type");
  if (gguf_read_scalar(c, t, &s) != 0)
    return wt_fail(x->err, "key '%.*s.%s' runs past the end of the header", (int)x->arch.n,
                   x->arch.p, key);
  if (s.kind == GGUF_SCALAR_BIGUINT) {
    *v = s.u;
  } else if (s.i < 0) {
    return wt_fail(x->err, "key '%.*s.%s' is negative (%lld)", (int)x->arch.n, x->arch.p, key,
                   (long long)s.i);
  } else {
    *v = (uint64_t)s.i;
  }
  return 0;
}

/* The scalar integer "{arch}.key" into *v; when absent, *v = dflt, or an
** error naming the key when required.  *found says whether it was there. */
int mp_uint(mp_ctx *x, const char *key, int required, uint64_t dflt, uint64_t *v, int *found) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_cursor c;
  if (found)
    *found = kv != NULL;
  if (kv == NULL) {
    if (required)
      return wt_fail(x->err, "the memory planner needs key '%.*s.%s', which the file lacks",
                     (int)x->arch.n, x->arch.p, key);
    *v = dflt;
    return 0;
  }
  gguf_cursor_init(&c, x->m, x->data, kv);
  return mp_read_uint(x, &c, kv->type, key, v);
}

/* "{arch}.key" for every layer, as llama.cpp's get_key_or_arr reads it: a
** scalar for all layers, or an integer array of exactly n_layer elements.
** Absent: every layer gets dflt[il] (dflt NULL: an error). */
int mp_per_layer(mp_ctx *x, const char *key, const uint64_t *dflt, uint64_t *out) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_cursor c;
  uint64_t il, v;
  if (kv == NULL) {
    if (dflt == NULL)
      return wt_fail(x->err, "the memory planner needs key '%.*s.%s', which the file lacks",
                     (int)x->arch.n, x->arch.p, key);
    memcpy(out, dflt, (size_t)x->n_layer * sizeof(*out));
    return 0;
  }
  gguf_cursor_init(&c, x->m, x->data, kv);
  if (kv->type != GGUF_TYPE_ARRAY) {
    if (mp_read_uint(x, &c, kv->type, key, &v) != 0)
      return -1;
    for (il = 0; il < x->n_layer; il++)
      out[il] = v;
    return 0;
  }
  if (kv->count != x->n_layer)
    return wt_fail(x->err, "key '%.*s.%s' is an array of %llu elements; block_count is %llu",
                   (int)x->arch.n, x->arch.p, key, (unsigned long long)kv->count,
                   (unsigned long long)x->n_layer);
  for (il = 0; il < x->n_layer; il++)
    if (mp_read_uint(x, &c, kv->elem_type, key, &out[il]) != 0)
      return -1;
  return 0;
}

/* ================================== Rows ================================== */

/* Append a row; detail is printf-style. */
static int mp_row(mp_ctx *x, int64_t layer, const char *part, int known, uint64_t nbytes,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int mp_row(mp_ctx *x, int64_t layer, const char *part, int known, uint64_t nbytes,
                  const char *fmt, ...) {
  wt_mem_plan *p = x->plan;
  wt_mem_row *r;
  va_list ap;
  if (p->n_rows == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    wt_mem_row *rows = realloc(p->rows, cap * sizeof(*rows));
    if (rows == NULL)
      return wt_fail(x->err, "out of memory");
    p->rows = rows;
    p->cap = cap;
  }
  r = &p->rows[p->n_rows++];
  r->layer = layer;
  r->part = part;
  r->known = known;
  r->nbytes = known ? nbytes : 0;
  r->at_least = 0;
  va_start(ap, fmt);
  vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
  va_end(ap);
  return 0;
}

/* Bytes of n values of ggml type t (a row of a cache), checked. */
static int mp_row_size(mp_ctx *x, int64_t t, uint64_t n, uint64_t *out) {
  const ggml_type_info *ti = ggml_type_get(t);
  if (ti == NULL || ti->block_size == 0 || ti->removed)
    return wt_fail(x->err, "cache type %lld is not a ggml type llama.cpp can use", (long long)t);
  if (n % ti->block_size != 0)
    return wt_fail(x->err, "a cache row of %llu values is not a whole number of %s blocks (%u)",
                   (unsigned long long)n, ti->name, ti->block_size);
  if (wt_mul(n / ti->block_size, ti->type_size, out) != 0)
    return wt_fail(x->err, "a cache row of %llu values overflows", (unsigned long long)n);
  return 0;
}

/* Multiply a, b, c into *out; an error naming what when it overflows. */
static int mp_mul3(mp_ctx *x, uint64_t a, uint64_t b, uint64_t c, const char *what, uint64_t *out) {
  uint64_t ab;
  *out = 0;
  if (wt_mul(a, b, &ab) != 0 || wt_mul(ab, c, out) != 0)
    return wt_fail(x->err, "the size of %s overflows 64 bits", what);
  return 0;
}

/* The layer of a tensor named "blk.N....", or -1. */
static int64_t mp_tensor_layer(const wt_tensor *t) {
  const char *p = t->name.p;
  size_t n = t->name.n, i = 4;
  int64_t v = 0;
  if (n < 6 || memcmp(p, "blk.", 4) != 0 || p[4] < '0' || p[4] > '9')
    return -1;
  while (i < n && p[i] >= '0' && p[i] <= '9' && v < MP_MAX_LAYERS)
    v = v * 10 + (p[i++] - '0');
  return i < n && p[i] == '.' && v < MP_MAX_LAYERS ? v : -1;
}

/* Add up the bytes of the tensors that stay mapped per layer (blk.N.*,
** N < n_layer) and outside the layers, in one pass: x->w[il] and x->nw[il],
** index n_layer for the rest; likewise the repacked ones, and the span of
** the file the mapped ones lie in. */
static int mp_sum_weights(mp_ctx *x) {
  size_t i;
  char q[WT_QUOTE_SIZE];
  size_t n = (size_t)(x->n_layer + 1);
  x->w = calloc(n * 5, sizeof(*x->w));
  if (x->w == NULL)
    return wt_fail(x->err, "out of memory");
  x->nw = x->w + n;
  x->rp = x->w + 2 * n;
  x->nrp = x->w + 3 * n;
  x->rp_type = (int64_t *)(x->w + 4 * n);
  x->map_first = UINT64_MAX;
  x->map_last = 0;
  for (i = 0; i < x->m->n_tensors; i++) {
    const wt_tensor *t = &x->m->tensors[i];
    int64_t tl = mp_tensor_layer(t);
    uint64_t k = tl >= 0 && (uint64_t)tl < x->n_layer ? (uint64_t)tl : x->n_layer;
    int rp;
    if (!t->nbytes_known)
      return wt_fail(x->err, "tensor %s has a type no table knows, so its size is unknown",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n));
    if (t->offset > UINT64_MAX - t->nbytes)
      return wt_fail(x->err, "tensor %s ends past 2^64 bytes",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n));
    rp = wt_cpu_repacks(t, x->cpu);
    if (rp <= 0) {
      if (wt_add(x->w[k], t->nbytes, &x->w[k]) != 0)
        return wt_fail(x->err, "the weights overflow 64 bits");
      x->nw[k]++;
      if (t->offset < x->map_first)
        x->map_first = t->offset;
      if (t->offset + t->nbytes > x->map_last)
        x->map_last = t->offset + t->nbytes;
    }
    if (rp == 0)
      continue;
    if (x->nrp[k]++ == 0)
      x->rp_type[k] = t->type_id;
    else if (x->rp_type[k] != t->type_id && x->rp_type[k] != -2)
      x->rp_type[k] = -1;
    if (rp < 0) {
      x->rp_type[k] = -2;
      x->map_unknown = 1;
    } else if (wt_cpu_repack_size(t) == 0 ||
               wt_add(x->rp[k], wt_cpu_repack_size(t), &x->rp[k]) != 0)
      return wt_fail(x->err, "the repacked weights overflow 64 bits");
  }
  return 0;
}

/* The weights row of the rest of the mapped span: the file's bytes between
** the tensors that stay mapped (their padding, repacked tensors among
** them), which llama.cpp maps with them.  No row when there are none. */
static int mp_map_gap(mp_ctx *x) {
  uint64_t kept = 0, k, n_gap = 0;
  size_t i;
  if (x->map_unknown)
    return mp_row(x, -1, "weights", 0, 0,
                  "unknown: the span llama.cpp maps depends on which tensors it repacks, and its "
                  "rules for this CPU are not known");
  if (x->map_first >= x->map_last)
    return 0;
  /* (tensors that overlap in a hostile file can add up past the span) */
  for (k = 0; k <= x->n_layer; k++)
    if (wt_add(kept, x->w[k], &kept) != 0)
      return 0;
  if (x->map_last - x->map_first <= kept)
    return 0;
  for (i = 0; i < x->m->n_tensors; i++) {
    const wt_tensor *t = &x->m->tensors[i];
    if (wt_cpu_repacks(t, x->cpu) > 0 && t->offset < x->map_last &&
        t->offset + t->nbytes > x->map_first)
      n_gap++;
  }
  return mp_row(x, -1, "weights", 1, x->map_last - x->map_first - kept,
                "the rest of the mapped span (bytes %llu to %llu of the file): padding and %llu "
                "repacked tensors",
                (unsigned long long)x->map_first, (unsigned long long)x->map_last,
                (unsigned long long)n_gap);
}

/* The repack row of layer k (index n_layer: outside the layers), when
** llama.cpp repacks some of its tensors for the CPU. */
static int mp_repack(mp_ctx *x, int64_t il, uint64_t k) {
  const ggml_type_info *ti = ggml_type_get(x->rp_type[k]);
  if (x->nrp[k] == 0)
    return 0;
  if (x->rp_type[k] == -2)
    return mp_row(x, il, "repack", 0, 0,
                  "unknown: llama.cpp's repack rules for this CPU are not known (cpu 'avx2' or "
                  "'none' plans for x86)");
  return mp_row(x, il, "repack", 1, x->rp[k], "%llu tensors %s repacked for %s (CPU_REPACK)",
                (unsigned long long)x->nrp[k], ti != NULL ? ti->name : "of several types",
                wt_cpu_name(x->cpu));
}

/* The weights row of layer il, or of the tensors outside the layers (-1),
** and its repack row. */
static int mp_weights(mp_ctx *x, int64_t il) {
  uint64_t k = il >= 0 ? (uint64_t)il : x->n_layer;
  if (il >= 0 ? mp_row(x, il, "weights", 1, x->w[k], "%llu tensors blk.%lld.* mapped",
                       (unsigned long long)x->nw[k], (long long)il)
              : mp_row(x, -1, "weights", 1, x->w[k],
                       "%llu tensors outside the layers (token_embd, output, ...) mapped",
                       (unsigned long long)x->nw[k]))
    return -1;
  return mp_repack(x, il, k);
}

/* ================================= Caches ================================= */

/* v rounded up to a multiple of p. */
static uint64_t mp_pad(uint64_t v, uint64_t p) {
  return (v + p - 1) / p * p;
}

/* ggml's name of type t ("q8_0", "f16", "q4_K"), into buf. */
static const char *mp_type_name(int64_t t, char *buf, size_t n) {
  const ggml_type_info *ti = ggml_type_get(t);
  size_t i, len = ti != NULL ? strlen(ti->name) : 0;
  if (len == 0 || len >= n)
    return "?";
  for (i = 0; i < len; i++)
    buf[i] = (char)(ti->name[i] >= 'A' && ti->name[i] <= 'Z' ? ti->name[i] + 32 : ti->name[i]);
  buf[len] = 0;
  if (len >= 2 && buf[len - 2] == '_' && buf[len - 1] == 'k')
    buf[len - 1] = 'K';
  return buf;
}

/* llama_init_from_model's check with flash attention on: a quantized
** cache type (ggml_is_quantized) must have a block that divides the head
** size of its kind ('K' or 'V'). */
static int mp_fa_block(mp_ctx *x, char kind, int64_t type, uint64_t head) {
  const ggml_type_info *ti = ggml_type_get(type);
  char name[32];
  if (ti == NULL || ti->block_size <= 1 || head % ti->block_size == 0)
    return 0;
  mp_type_name(type, name, sizeof(name));
  return wt_fail(x->err,
                 "%c cache type %s with flash attention on: llama.cpp refuses it: \"%c cache type "
                 "%s with block size %u does not divide n_embd_head_%c=%llu\"",
                 kind, name, kind, name, ti->block_size, kind == 'K' ? 'k' : 'v',
                 (unsigned long long)head);
}

/* The K and V cache rows of an attention model; cells per stream. */
static int mp_attention(mp_ctx *x, const mp_arch *a, const wt_mem_settings *s, uint64_t cells) {
  uint64_t n_embd, *head, *head_kv, hk, hv, n_swa, swa_cells, il, v_max = 0;
  uint64_t kmla = 0, vmla = 0;
  const ggml_type_info *tk = ggml_type_get(s->type_k), *tv = ggml_type_get(s->type_v);
  int found_swa, mla, rc = -1;
  if (mp_uint(x, "embedding_length", 1, 0, &n_embd, NULL) != 0)
    return -1;
  head = calloc((size_t)x->n_layer * 2, sizeof(*head));
  if (head == NULL)
    return wt_fail(x->err, "out of memory");
  head_kv = head + x->n_layer;
  if (mp_per_layer(x, "attention.head_count", NULL, head) != 0 ||
      mp_per_layer(x, "attention.head_count_kv", head, head_kv) != 0)
    goto done;
  if (head[0] == 0) {
    wt_fail(x->err, "key '%.*s.attention.head_count' is 0 for layer 0", (int)x->arch.n, x->arch.p);
    goto done;
  }
  if (mp_uint(x, "attention.key_length", 0, n_embd / head[0], &hk, NULL) != 0 ||
      mp_uint(x, "attention.value_length", 0, n_embd / head[0], &hv, NULL) != 0 ||
      mp_uint(x, "attention.sliding_window", a->swa_needs_window == 2, a->swa_default, &n_swa,
              &found_swa) != 0 ||
      mp_uint(x, "attention.key_length_mla", 0, 0, &kmla, NULL) != 0 ||
      mp_uint(x, "attention.value_length_mla", 0, 0, &vmla, NULL) != 0)
    goto done;
  /* llama.cpp's is_mla(): the decompression head sizes are given. */
  mla = kmla != 0 && vmla != 0;
  if (s->flash_attn &&
      (mp_fa_block(x, 'K', s->type_k, hk) != 0 || mp_fa_block(x, 'V', s->type_v, hv) != 0))
    goto done;
  if (a->swa_pattern == 0 || (a->swa_needs_window && (!found_swa || n_swa == 0)))
    n_swa = 0;
  if (wt_add(n_swa, s->n_ubatch, &swa_cells) != 0 || swa_cells > UINT64_MAX - MP_PAD) {
    wt_fail(x->err, "the sliding window %llu overflows", (unsigned long long)n_swa);
    goto done;
  }
  swa_cells = mp_pad(swa_cells, MP_PAD);
  if (swa_cells > cells)
    swa_cells = cells;
  x->n_embd = n_embd;
  x->known_compute = 1;
  /* Without flash attention V is stored transposed, every layer as wide as
  ** the widest, even one without KV heads (head_count_kv 0: no K). */
  for (il = 0; il < x->n_layer; il++) {
    uint64_t w;
    if (wt_mul(hv, head_kv[il], &w) != 0) {
      wt_fail(x->err, "value_length * head_count_kv overflows 64 bits");
      goto done;
    }
    if (w > v_max)
      v_max = w;
  }
  for (il = 0; il < x->n_layer; il++) {
    int swa = n_swa != 0 && il % a->swa_pattern < a->swa_pattern - 1;
    uint64_t c = swa ? swa_cells : cells, nk, nv, rk = 0, rv = 0, kb = 0, vb = 0, kq = 0;
    char where[MP_NOTE_SIZE];
    if (mp_weights(x, (int64_t)il) != 0)
      goto done;
    if (wt_mul(hk, head_kv[il], &nk) != 0) {
      wt_fail(x->err, "key_length * head_count_kv overflows 64 bits");
      goto done;
    }
    nv = s->flash_attn ? hv * head_kv[il] : v_max;
    if (mp_row_size(x, s->type_k, nk, &rk) != 0 || mp_row_size(x, s->type_v, nv, &rv) != 0 ||
        mp_mul3(x, rk, c, s->n_seq, "the K cache", &kb) != 0 ||
        mp_mul3(x, rv, c, s->n_seq, "the V cache", &vb) != 0)
      goto done;
    /* Without flash attention a layer with KV heads computes its scores
    ** kq = mul_mat(k, q), F32, c cells x n_tokens x n_head (build_attn_mha,
    ** src/llama-graph.cpp); the compute buffer holds the largest at once. */
    if (!s->flash_attn && head_kv[il] != 0 &&
        (mp_mul3(x, c, x->n_tokens, head[il], "the attention scores", &kq) != 0 ||
         mp_mul3(x, kq, 4, 1, "the attention scores", &kq) != 0))
      goto done;
    if (kq > x->kq)
      x->kq = kq;
    if (swa)
      snprintf(where, sizeof(where), ", sliding window %llu", (unsigned long long)n_swa);
    else
      where[0] = 0;
    if (mp_row(x, (int64_t)il, "k_cache", 1, kb, "%s, %llu cells x %llu streams, %llu values%s%s",
               tk->name, (unsigned long long)c, (unsigned long long)s->n_seq,
               (unsigned long long)nk, where, mla ? ", MLA latent + rope" : "") != 0)
      goto done;
    /* (rc stays -1 until the last layer is done: an error on any layer
    ** is the plan's error, not a plan cut short.) */
    if (mla ? mp_row(x, (int64_t)il, "v_cache", 1, 0,
                     "none, %llu cells x %llu streams: MLA reads V from the K cache%s",
                     (unsigned long long)c, (unsigned long long)s->n_seq, where)
            : mp_row(x, (int64_t)il, "v_cache", 1, vb,
                     "%s, %llu cells x %llu streams, %llu values%s", tv->name,
                     (unsigned long long)c, (unsigned long long)s->n_seq, (unsigned long long)nv,
                     where))
      goto done;
  }
  {
    mp_attn_shape shape;
    shape.head = head;
    shape.head_kv = head_kv;
    shape.hk = hk;
    shape.hv = hv;
    shape.n_embd = n_embd;
    shape.cells = cells;
    shape.n_swa = n_swa;
    shape.swa_pattern = a->swa_pattern;
    shape.swa_cells = swa_cells;
    shape.kmla = mla ? kmla : 0;
    shape.vmla = mla ? vmla : 0;
    if (mp_exact_compute(x, s, &shape) != 0)
      goto done;
  }
  rc = 0;
done:
  free(head);
  return rc;
}

/* The recurrent state rows of a mamba model: r (conv) and s (ssm), F32. */
static int mp_mamba(mp_ctx *x, const wt_mem_settings *s) {
  uint64_t d_conv, d_inner, d_state, n_group, r = 0, sv = 0, t = 0, il, cells = s->n_seq;
  if (mp_uint(x, "ssm.conv_kernel", 1, 0, &d_conv, NULL) != 0 ||
      mp_uint(x, "ssm.inner_size", 1, 0, &d_inner, NULL) != 0 ||
      mp_uint(x, "ssm.state_size", 1, 0, &d_state, NULL) != 0 ||
      mp_uint(x, "ssm.group_count", 0, 0, &n_group, NULL) != 0)
    return -1;
  if (d_conv == 0)
    return wt_fail(x->err, "key '%.*s.ssm.conv_kernel' is 0", (int)x->arch.n, x->arch.p);
  if (mp_mul3(x, 2, n_group, d_state, "the conv state", &t) != 0 || wt_add(t, d_inner, &t) != 0 ||
      mp_mul3(x, d_conv - 1, t, 4, "the conv state", &r) != 0 ||
      mp_mul3(x, r, cells, 1, "the conv state", &r) != 0 ||
      mp_mul3(x, d_state, d_inner, 4, "the ssm state", &sv) != 0 ||
      mp_mul3(x, sv, cells, 1, "the ssm state", &sv) != 0)
    return wt_fail(x->err, "the recurrent state overflows 64 bits");
  if (mp_uint(x, "embedding_length", 1, 0, &x->n_embd, NULL) != 0 ||
      (n_group == 0 && mp_exact_compute_mamba(x, s, d_conv, d_inner, d_state, x->n_embd) != 0))
    return -1;
  x->known_compute = 1;
  for (il = 0; il < x->n_layer; il++)
    if (mp_weights(x, (int64_t)il) != 0 ||
        mp_row(x, (int64_t)il, "recurrent_state", 1, r, "r (conv) F32, %llu cells",
               (unsigned long long)cells) != 0 ||
        mp_row(x, (int64_t)il, "recurrent_state", 1, sv, "s (ssm) F32, %llu cells",
               (unsigned long long)cells) != 0)
      return -1;
  return 0;
}

/* n_vocab: "{arch}.vocab_size", else the number of tokens. */
int mp_vocab(mp_ctx *x, uint64_t *n_vocab) {
  const wt_meta *kv;
  int found;
  if (mp_uint(x, "vocab_size", 0, 0, n_vocab, &found) != 0)
    return -1;
  if (found)
    return 0;
  kv = mp_find(x, "tokenizer.ggml.tokens", 1);
  if (kv == NULL || kv->type != GGUF_TYPE_ARRAY)
    return wt_fail(x->err, "the memory planner needs '%.*s.vocab_size' or 'tokenizer.ggml.tokens'",
                   (int)x->arch.n, x->arch.p);
  *n_vocab = kv->count;
  return 0;
}

/* ============================= Compute buffer ============================= */

/* The compute row.  llama.cpp reserves the buffer ggml-alloc plans for its
** worst-case graph of n_tokens tokens, all of them outputs (graph_reserve
** in the llama_context constructor, src/llama-context.cpp, with
** n_outputs = min(n_tokens, n_batch)); its size depends on every node of
** the architecture's graph and on the order ggml-alloc frees and reuses
** them (ggml/src/ggml-alloc.c).  When mp_exact_compute built that graph
** the row is its size.  Otherwise the row is unknown (NULL) and says what
** the buffer cannot be below: the larger of two sets of tensors alive at
** once.  The logits (n_vocab x
** n_tokens F32, a graph output, never freed) beside their input, the
** normed hidden state (n_embd x n_tokens F32), which ggml-alloc frees only
** after the logits are allocated; and without flash attention one layer's
** attention scores (mp_attention).  n_tokens is at most what llama.cpp
** reserves (it rounds it up to a multiple of the sequences). */
static int mp_compute(mp_ctx *x, uint64_t n_vocab) {
  uint64_t logits, hidden, floor;
  int kq;
  if (!x->known_compute)
    return mp_row(x, -1, "compute", 0, 0, "unknown for this architecture");
  if (x->exact_compute)
    return mp_row(x, -1, "compute", 1, x->compute,
                  "ggml-alloc's layout of llama.cpp's %.*s graph on the CPU, %llu tokens, flash "
                  "attention %s",
                  (int)x->arch.n, x->arch.p, (unsigned long long)x->n_tokens,
                  x->flash_attn ? "on" : "off");
  if (mp_mul3(x, n_vocab, x->n_tokens, 4, "the logits", &logits) != 0 ||
      mp_mul3(x, x->n_embd, x->n_tokens, 4, "the hidden state", &hidden) != 0 ||
      wt_add(logits, hidden, &floor) != 0)
    return wt_fail(x->err, "the compute buffer overflows 64 bits");
  kq = x->kq > floor;
  if (kq)
    floor = x->kq;
  if (mp_row(x, -1, "compute", 0, 0,
             "unknown: llama.cpp plans it from its graph; at least %llu bytes (%s), %llu tokens, "
             "flash attention %s",
             (unsigned long long)floor, kq ? "one layer's attention scores" : "logits and input",
             (unsigned long long)x->n_tokens, x->flash_attn ? "on" : "off") != 0)
    return -1;
  x->plan->rows[x->plan->n_rows - 1].at_least = floor;
  return 0;
}

/* A later part of a split GGUF (gguf-split writes the metadata into the
** first part only): the weights rows of the tensors it holds. */
static int mp_split_part(mp_ctx *x) {
  uint64_t il;
  size_t i;
  for (i = 0; i < x->m->n_tensors; i++) {
    int64_t tl = mp_tensor_layer(&x->m->tensors[i]);
    if (tl >= 0 && (uint64_t)tl >= x->n_layer)
      x->n_layer = (uint64_t)tl + 1;
  }
  if (mp_sum_weights(x) != 0)
    goto fail;
  for (il = 0; il < x->n_layer; il++)
    if ((x->nw[il] != 0 || x->nrp[il] != 0) && mp_weights(x, (int64_t)il) != 0)
      goto fail;
  if ((x->nw[x->n_layer] != 0 || x->nrp[x->n_layer] != 0) && mp_weights(x, -1) != 0)
    goto fail;
  if (mp_map_gap(x) != 0)
    goto fail;
  free(x->w);
  return 0;
fail:
  free(x->w);
  wt_mem_plan_free(x->plan);
  return -1;
}

/* ================================ The plan ================================ */

void wt_mem_settings_default(wt_mem_settings *s) {
  memset(s, 0, sizeof(*s));
  s->type_k = s->type_v = 1; /* F16 */
  s->n_seq = 1;
  s->n_ubatch = 512;
  s->flash_attn = WT_FA_AUTO;
  s->cpu = WT_CPU_HOST;
}

/* The settings llama_init_from_model (src/llama-context.cpp) refuses, with
** its message; and flash attention "auto" resolved as it is on the CPU. */
static int mp_refused(mp_ctx *x, wt_mem_settings *s) {
  const ggml_type_info *tv = ggml_type_get(s->type_v);
  uint64_t kmla, vmla;
  char k[32], v[32];
  mp_type_name(s->type_k, k, sizeof(k));
  mp_type_name(s->type_v, v, sizeof(v));
  if (mp_uint(x, "attention.key_length_mla", 0, 0, &kmla, NULL) != 0 ||
      mp_uint(x, "attention.value_length_mla", 0, 0, &vmla, NULL) != 0)
    return -1;
  if (kmla != 0 && vmla != 0 && s->type_k != s->type_v)
    return wt_fail(x->err,
                   "K cache type %s and V cache type %s: llama.cpp refuses them for this MLA "
                   "model: \"model does not support different K (%s) and V (%s) cache types\"",
                   k, v, k, v);
  if (tv != NULL && tv->block_size > 1 && s->flash_attn == WT_FA_OFF)
    return wt_fail(x->err,
                   "V cache type %s with flash attention off: llama.cpp refuses it: \"quantized V "
                   "cache requires flash_attn to be enabled\"",
                   v);
  if (s->flash_attn == WT_FA_AUTO)
    s->flash_attn = WT_FA_ON;
  if (s->n_seq > MP_MAX_SEQ)
    return wt_fail(x->err, "n_seq %llu: llama.cpp refuses it: \"n_seq_max must be <= %d\"",
                   (unsigned long long)s->n_seq, MP_MAX_SEQ);
  return 0;
}

/* The architecture named in general.architecture. */
static int mp_arch_name(mp_ctx *x) {
  const wt_meta *kv = mp_find(x, "general.architecture", 1);
  gguf_cursor c;
  gguf_scalar v;
  if (kv == NULL || kv->type != GGUF_TYPE_STRING)
    return wt_fail(x->err, "the memory planner needs the string key 'general.architecture'");
  gguf_cursor_init(&c, x->m, x->data, kv);
  if (gguf_read_scalar(&c, GGUF_TYPE_STRING, &v) != 0)
    return wt_fail(x->err, "key 'general.architecture' runs past the end of the header");
  x->arch = v.s;
  return 0;
}

/* The rows of an architecture the planner does not know: its weights, and
** caches and compute unknown (NULL), saying so rather than guessing. */
static int mp_unknown(mp_ctx *x) {
  char q[WT_QUOTE_SIZE];
  uint64_t il;
  for (il = 0; il < x->n_layer; il++)
    if (mp_weights(x, (int64_t)il) != 0)
      return -1;
  wt_quote(q, sizeof(q), x->arch.p, x->arch.n);
  if (mp_row(x, -1, "k_cache", 0, 0, "unknown: the planner does not know architecture %s", q) != 0)
    return -1;
  return mp_row(x, -1, "v_cache", 0, 0, "unknown: the planner does not know architecture %s", q);
}

/* The architecture's entry in mp_archs, or NULL. */
static const mp_arch *mp_arch_find(wt_str name) {
  size_t i;
  for (i = 0; i < sizeof(mp_archs) / sizeof(mp_archs[0]); i++)
    if (strlen(mp_archs[i].name) == name.n && memcmp(mp_archs[i].name, name.p, name.n) == 0)
      return &mp_archs[i];
  return NULL;
}

int wt_memory_plan(const wt_model *m, const unsigned char *data, const wt_mem_settings *s,
                   wt_mem_plan *out, wt_error *err) {
  mp_ctx x;
  wt_mem_settings set = *s;
  const mp_arch *a;
  uint64_t n_ctx, cells, n_vocab = 0, outb = 0;
  memset(&x, 0, sizeof(x));
  x.m = m;
  x.data = data;
  x.plan = out;
  x.err = err;
  x.cpu = s->cpu == WT_CPU_HOST ? wt_cpu_host() : s->cpu;
  memset(out, 0, sizeof(*out));
  if (m->format != WT_FORMAT_GGUF)
    return wt_fail(err, "the memory planner reads GGUF files only");
  if (s->n_seq == 0 || s->n_ubatch == 0)
    return wt_fail(err, "n_seq and n_ubatch must be at least 1");
  if (mp_find(&x, "general.architecture", 1) == NULL && mp_find(&x, "split.no", 1) != NULL)
    return mp_split_part(&x);
  if (mp_arch_name(&x) != 0 || mp_uint(&x, "block_count", 1, 0, &x.n_layer, NULL) != 0 ||
      mp_uint(&x, "context_length", 1, 0, &n_ctx, NULL) != 0)
    goto fail;
  if (x.n_layer == 0) { /* nothing to plan; layer 0's head count would be read past the end */
    wt_fail(err, "key '%.*s.block_count' is 0: a model without layers", (int)x.arch.n, x.arch.p);
    goto fail;
  }
  if (x.n_layer > MP_MAX_LAYERS) {
    wt_fail(err, "block_count %llu is more layers than the planner accepts (%d)",
            (unsigned long long)x.n_layer, MP_MAX_LAYERS);
    goto fail;
  }
  if (s->n_ctx != 0)
    n_ctx = s->n_ctx;
  if (n_ctx == 0 || n_ctx > (uint64_t)1 << 40) {
    wt_fail(err, "a context of %llu tokens is out of range (1 to 2^40)", (unsigned long long)n_ctx);
    goto fail;
  }
  if (mp_refused(&x, &set) != 0)
    goto fail;
  /* llama.cpp: n_ubatch <= n_batch <= n_ctx as asked, before its padding */
  if (set.n_ubatch > n_ctx)
    set.n_ubatch = n_ctx;
  x.n_tokens = set.n_ubatch;
  x.flash_attn = set.flash_attn == WT_FA_ON;
  /* n_ctx padded to 256, each stream PAD(n_ctx / n_seq, 256) cells (and
  ** n_ctx then n_ctx_seq * n_seq): never fewer than 256 cells a stream */
  cells = mp_pad(mp_pad(n_ctx, MP_PAD) / set.n_seq, MP_PAD);
  a = mp_arch_find(x.arch);
  if (mp_sum_weights(&x) != 0)
    goto fail;
  if (a == NULL            ? mp_unknown(&x)
      : a->kind == MP_ATTN ? mp_attention(&x, a, &set, cells)
                           : mp_mamba(&x, &set))
    goto fail;
  if (mp_weights(&x, -1) != 0 || mp_map_gap(&x) != 0 || mp_vocab(&x, &n_vocab) != 0 ||
      mp_mul3(&x, n_vocab, set.n_seq, 4, "the output buffer", &outb) != 0 ||
      mp_row(&x, -1, "output", 1, outb, "logits: %llu tokens x %llu sequences, F32",
             (unsigned long long)n_vocab, (unsigned long long)set.n_seq) != 0 ||
      mp_compute(&x, n_vocab) != 0)
    goto fail;
  free(x.w);
  return 0;
fail:
  free(x.w);
  wt_mem_plan_free(out);
  return -1;
}

void wt_mem_plan_free(wt_mem_plan *p) {
  free(p->rows);
  memset(p, 0, sizeof(*p));
}
