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
**             cohere2, deci, deepseek2, mamba; a split GGUF given its
**             other parts), whose graph llama_graph.c builds;
**             otherwise (the other architectures, ...) unknown (NULL),
**             with a size it cannot be below
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
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "formats/gguf_value.h"
#include "memory_plan.h"
#include "memory_plan_int.h"

/* The architectures the planner knows (memory_plan_int.h's mp_arch). */
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
  int kq, k;
  if (!x->known_compute) {
    for (k = 0; k < (x->gpu ? 2 : 1); k++) {
      if (mp_row(x, -1, "compute", 0, 0, "unknown for this architecture") != 0)
        return -1;
      if (x->gpu)
        mp_row_dev(x, k ? WT_DEV_HOST : WT_DEV_CUDA);
    }
    return 0;
  }
  if (x->exact_compute && x->gpu) { /* the GPU's buffer, then the CPU's */
    const char *fa = x->fa_asked != WT_FA_AUTO ? "" : x->flash_attn ? " (auto)" : " (auto: off)";
    for (k = 0; k < 2; k++) {
      if (mp_row(x, -1, "compute", 1, k ? x->compute_host : x->compute,
                 "ggml's scheduler's split of llama.cpp's %.*s graph, the %s's part, %llu tokens, "
                 "flash attention %s%s",
                 (int)x->arch.n, x->arch.p, k ? "CPU" : "GPU", (unsigned long long)x->n_tokens,
                 x->flash_attn ? "on" : "off", fa) != 0)
        return -1;
      mp_row_dev(x, k ? WT_DEV_HOST : WT_DEV_CUDA);
    }
    return 0;
  }
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
  /* With a GPU, a bound per buffer: the logits in the output layer's
  ** device's buffer (CUDA0, or the CPU backend's CUDA_Host), each layer's
  ** scores in its device's (the KV cache is no weight: op_offload leaves
  ** the products with it where they are, ggml-backend.cpp). */
  for (k = 0; k < (x->gpu ? 2 : 1); k++) {
    uint64_t f = !x->gpu || x->gpu_output == !k ? floor : 0;
    uint64_t scores = x->gpu ? x->kq_dev[k] : x->kq;
    kq = scores > f;
    if (kq)
      f = scores;
    if (mp_row(x, -1, "compute", 0, 0,
               "unknown: llama.cpp plans it from its graph; at least %llu bytes (%s), %llu tokens, "
               "flash attention %s%s",
               (unsigned long long)f,
               kq  ? "one layer's attention scores"
               : f ? "logits and input"
                   : "nothing proven",
               (unsigned long long)x->n_tokens, x->flash_attn ? "on" : "off",
               !x->gpu ? ""
               : k     ? ", the CPU's part"
                       : ", the GPU's part") != 0)
      return -1;
    x->plan->rows[x->plan->n_rows - 1].at_least = f;
    if (x->gpu)
      mp_row_dev(x, k ? WT_DEV_HOST : WT_DEV_CUDA);
  }
  return 0;
}

/* The weights rows of the tensors of a later part of a split GGUF
** (gguf-split writes the metadata into the first part only), whose layer
** count is x->n_layer or, planned alone, what its tensors show. */
static int mp_part_weights(mp_ctx *x) {
  uint64_t il;
  size_t i;
  int rc = -1;
  for (i = 0; i < x->m->n_tensors; i++) {
    int64_t tl = mp_tensor_layer(&x->m->tensors[i]);
    if (tl >= 0 && (uint64_t)tl >= x->n_layer)
      x->n_layer = (uint64_t)tl + 1;
  }
  if (mp_sum_weights(x) != 0)
    goto done;
  for (il = 0; il <= x->n_layer; il++)
    if ((x->nw[il] != 0 || x->nrp[il] != 0 || x->nax[il] != 0 || x->ncw[il] != 0) &&
        mp_weights(x, il < x->n_layer ? (int64_t)il : -1) != 0)
      goto done;
  rc = mp_map_gap(x);
done:
  free(x->w);
  x->w = NULL;
  return rc;
}

/* A later part planned alone. */
static int mp_split_part(mp_ctx *x) {
  if (mp_part_weights(x) == 0)
    return 0;
  wt_mem_plan_free(x->plan);
  return -1;
}

/* Part 1 of a split GGUF planned with its other parts: their weights rows,
** on the devices part 1's settings give their layers. */
static int mp_other_parts(const mp_ctx *x, const wt_mem_settings *s) {
  size_t k;
  for (k = 0; s->with_parts_weights && s->parts != NULL && k < s->n_parts; k++) {
    mp_ctx y = *x;
    y.m = s->parts[k];
    y.data = NULL; /* (only tensor names and shapes are read) */
    y.w = NULL;
    if (mp_part_weights(&y) != 0)
      return -1;
  }
  return 0;
}

/* A file that is not a model llama.cpp runs on its own, as
** weights_models() tells them apart (paths/model_kind.c): 1 with the reason
** in x->err, or 0. */
static int mp_not_a_model(mp_ctx *x) {
  const wt_meta *kv = mp_find(x, "general.type", 1);
  gguf_scalar v;
  wt_str type = {"", 0};
  if (kv != NULL && kv->type == GGUF_TYPE_STRING && mp_scalar(x, kv, &v) == 0)
    type = v.s;
  if ((type.n == 6 && memcmp(type.p, "mmproj", 6) == 0) ||
      (x->arch.n == 4 && memcmp(x->arch.p, "clip", 4) == 0))
    return wt_fail(x->err, "a vision projector (mmproj), which llama.cpp loads beside a model, "
                           "not as one"),
           1;
  if ((type.n == 7 && memcmp(type.p, "adapter", 7) == 0) ||
      (x->arch.n == 13 && memcmp(x->arch.p, "controlvector", 13) == 0))
    return wt_fail(x->err, "an adapter, which llama.cpp applies to a model, not a model"), 1;
  if (type.n == 7 && memcmp(type.p, "imatrix", 7) == 0)
    return wt_fail(x->err, "an importance matrix, not a model"), 1;
  if (x->m->n_tensors == 0 && mp_find(x, "tokenizer.ggml.model", 1) != NULL)
    return wt_fail(x->err, "a vocabulary-only GGUF (no tensors): llama.cpp loads no model "
                           "from it"),
           1;
  return 0;
}

/* ================================ The plan ================================ */

void wt_mem_settings_default(wt_mem_settings *s) {
  memset(s, 0, sizeof(*s));
  s->type_k = s->type_v = 1; /* F16 */
  s->n_seq = 1;
  s->n_ubatch = 512;
  s->flash_attn = WT_FA_AUTO;
  s->cpu = WT_CPU_HOST;
  s->gpu = WT_GPU_NONE;
  s->n_gpu_layers = -1;
  s->cuda_cc = WT_CUDA_CC_DEFAULT;
  s->op_offload = 1;
}

/* Which layers llama.cpp offloads (llama_model_base::load_tensors): the
** last n_gpu_layers of the n_layer + 1, the output layer counting as one;
** -1 all of them. */
static void mp_offload(mp_ctx *x, const wt_mem_settings *s) {
  uint64_t all = x->n_layer + 1, ngl;
  x->gpu = s->gpu == WT_GPU_CUDA;
  if (!x->gpu)
    return;
  ngl = s->n_gpu_layers < 0 ? all : (uint64_t)s->n_gpu_layers;
  x->gpu_first = ngl >= all ? 0 : all - ngl; /* i_gpu_start */
  x->gpu_output = ngl >= 1;
  x->gpu_full = ngl > x->n_layer;
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
  static const char *const parts[] = {"k_cache", "v_cache"};
  char q[WT_QUOTE_SIZE];
  uint64_t il;
  int k, dev;
  for (il = 0; il < x->n_layer; il++)
    if (mp_weights(x, (int64_t)il) != 0)
      return -1;
  wt_quote(q, sizeof(q), x->arch.p, x->arch.n);
  /* a row per device that holds layers (their caches would be there) */
  for (k = 0; k < 2; k++)
    for (dev = 0; dev < 2; dev++) {
      int on_gpu = x->gpu && x->gpu_first < x->n_layer, on_cpu = !x->gpu || x->gpu_first > 0;
      if (!(dev ? on_cpu : on_gpu))
        continue;
      if (mp_row(x, -1, parts[k], 0, 0, "unknown: the planner does not know architecture %s", q) !=
          0)
        return -1;
      mp_row_dev(x, dev ? WT_DEV_CPU : WT_DEV_CUDA);
    }
  return 0;
}

int wt_plan_arch_at(size_t i, wt_plan_arch *a) {
  if (i >= sizeof(mp_archs) / sizeof(mp_archs[0]))
    return -1;
  a->name = mp_archs[i].name;
  a->compute_modelled = mp_compute_modelled(a->name);
  a->cuda_measured = mp_cuda_measured(a->name);
  return 0;
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
  if (mp_find(&x, "general.architecture", 1) == NULL && mp_find(&x, "split.no", 1) != NULL) {
    if (s->gpu != WT_GPU_NONE) /* which layers it offloads depends on the model's layer count */
      return wt_fail(err, "a later part of a split GGUF, planned alone: with a GPU its layers' "
                          "devices depend on the model's layer count, which part 1 holds (plan "
                          "part 1, which plans every part)");
    return mp_split_part(&x);
  }
  if (mp_arch_name(&x) != 0)
    goto fail;
  if (mp_not_a_model(&x) != 0)
    return 1;
  if (mp_uint(&x, "block_count", 1, 0, &x.n_layer, NULL) != 0 ||
      mp_uint(&x, "context_length", 1, 0, &n_ctx, NULL) != 0)
    goto fail;
  out->n_layer = x.n_layer;
  out->n_ctx_train = n_ctx;
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
  x.fa_asked = set.flash_attn;
  if (mp_refused(&x, &set) != 0)
    goto fail;
  mp_offload(&x, s);
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
             (unsigned long long)n_vocab, (unsigned long long)set.n_seq) != 0)
    goto fail;
  /* the output buffer is in the output layer's device's host memory */
  mp_row_dev(&x, x.gpu_output ? WT_DEV_HOST : WT_DEV_CPU);
  if (mp_compute(&x, n_vocab) != 0 || mp_other_parts(&x, &set) != 0)
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
