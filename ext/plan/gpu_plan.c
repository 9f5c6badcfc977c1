/*
** gpu_plan.c: the compute buffers of a model whose last layers llama.cpp
** offloads to a CUDA GPU (memory_plan_int.h's mp_gpu_compute).
**
** compute_plan.c fills the graph's parameters as for the CPU; this file
** adds what the GPU's scheduler needs (graph_sched.h): each weight's type
** as the file gives it (a CPU weight that the GPU multiplies is copied
** into the GPU's compute buffer whole, padded as CUDA pads it), which
** layers and whether the output layer are offloaded
** (llama_model_base::load_tensors: the last n_gpu_layers, the output layer
** counting as one), the RoPE factors of the architectures that read them,
** and flash attention "auto", which llama.cpp turns off when an
** attention would run elsewhere than its layer (a head width the CUDA
** kernels do not take, say).  Layer: plan.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "llama_graph.h"
#include "memory_plan_int.h"

#define GP_NAME 96 /* "blk.N.name" */

/* Architectures whose every buffer with layers on a CUDA GPU was checked
** against llama.cpp de3ff815's CUDA build (node-llama-cpp 3.22.1's) on an
** H200, at offload depths from none to all (tests/gpu_records_test.py;
** tests/gpu/ takes more).  The others' figures come from the same rules
** and graphs, checked on the CPU only. */
static const char *const gp_measured_archs[] = {"llama", "qwen2", "gemma2", "deepseek2", "mamba"};

int mp_cuda_measured(const char *arch) {
  size_t i;
  for (i = 0; i < sizeof(gp_measured_archs) / sizeof(gp_measured_archs[0]); i++)
    if (strcmp(gp_measured_archs[i], arch) == 0)
      return 1;
  return 0;
}

/* Architectures whose graph reads RoPE factors (llama_model::
** get_rope_factors: rope_freqs, or phi3's long and short ones). */
static const char *const gp_rope_archs[] = {"llama",  "mistral3", "granite", "granitemoe",
                                            "exaone", "arcee",    "deci",    "phi3"};

/* The model's tensors by name: every part's, sorted. */
typedef struct gp_index {
  const wt_tensor **t;
  size_t n;
} gp_index;

static int gp_cmp_name(const wt_str *a, const char *b, size_t nb) {
  size_t n = a->n < nb ? a->n : nb;
  int c = memcmp(a->p, b, n);
  return c != 0 ? c : a->n < nb ? -1 : a->n > nb ? 1 : 0;
}

static int gp_cmp(const void *a, const void *b) {
  const wt_tensor *x = *(const wt_tensor *const *)a, *y = *(const wt_tensor *const *)b;
  return gp_cmp_name(&x->name, y->name.p, y->name.n);
}

/* The type of the tensor named name, or -1. */
static int gp_find(const gp_index *ix, const char *name) {
  size_t lo = 0, hi = ix->n, nb = strlen(name);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = gp_cmp_name(&ix->t[mid]->name, name, nb);
    if (c == 0)
      return (int)ix->t[mid]->type_id;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* wt_lg_type_fn over the index: "blk.IL.NAME" or "NAME"; a tied output is
** the token embeddings (llama.cpp duplicates them as the output). */
static int gp_type(const void *ud, int64_t il, const char *name) {
  const gp_index *ix = ud;
  char full[GP_NAME];
  int t;
  if (il >= 0)
    snprintf(full, sizeof(full), "blk.%lld.%s", (long long)il, name);
  else
    snprintf(full, sizeof(full), "%s", name);
  t = gp_find(ix, full);
  if (t < 0 && strcmp(full, "output.weight") == 0)
    t = gp_find(ix, "token_embd.weight");
  return t;
}

static int gp_index_build(gp_index *ix, const wt_model *m, const wt_mem_settings *s) {
  size_t n = m->n_tensors, i, k = 0;
  for (i = 0; s->parts != NULL && i < s->n_parts; i++)
    n += s->parts[i]->n_tensors;
  ix->t = malloc((n + 1) * sizeof(*ix->t));
  if (ix->t == NULL)
    return -1;
  for (i = 0; i < m->n_tensors; i++)
    ix->t[k++] = &m->tensors[i];
  for (i = 0; s->parts != NULL && i < s->n_parts; i++) {
    size_t j;
    for (j = 0; j < s->parts[i]->n_tensors; j++)
      ix->t[k++] = &s->parts[i]->tensors[j];
  }
  ix->n = k;
  qsort(ix->t, ix->n, sizeof(*ix->t), gp_cmp);
  return 0;
}

/* Whether the architecture reads RoPE factors. */
static int gp_rope_arch(const mp_ctx *x) {
  size_t i;
  for (i = 0; i < sizeof(gp_rope_archs) / sizeof(gp_rope_archs[0]); i++)
    if (strlen(gp_rope_archs[i]) == x->arch.n &&
        memcmp(gp_rope_archs[i], x->arch.p, x->arch.n) == 0)
      return 1;
  return 0;
}

int mp_gpu_compute(mp_ctx *x, const wt_mem_settings *s, wt_lg_params *p, uint64_t n_rot) {
  gp_index ix;
  const ggml_type_info *tv = ggml_type_get(s->type_v);
  char v[32];
  int rc, fa = 0;
  if (gp_index_build(&ix, x->m, s) != 0)
    return wt_fail(x->err, "out of memory");
  p->weight_type = gp_type;
  p->ud = &ix;
  p->n_rot_factors = gp_rope_arch(x) ? n_rot / 2 : 0;
  p->gpu.on = 1;
  p->gpu.cc = s->cuda_cc;
  p->gpu.first_layer = x->gpu_first;
  p->gpu.output = x->gpu_output;
  p->gpu.full = x->gpu_full;
  p->gpu.op_offload = s->op_offload;
  /* the cache is made before flash attention "auto" is resolved, as for
  ** flash attention: V is transposed only when it is off as asked */
  p->flash_attn = x->fa_asked == WT_FA_AUTO ? 2 : x->fa_asked == WT_FA_ON;
  p->v_trans = x->fa_asked == WT_FA_OFF;
  rc = wt_llama_compute_gpu(p, &x->compute, &x->compute_host, &fa);
  free(ix.t);
  if (rc < 0)
    return wt_fail(x->err, "out of memory planning the compute graph");
  if (rc != 0)
    return 1;
  x->flash_attn = fa;
  if (!fa && tv != NULL && tv->block_size > 1)
    return wt_fail(x->err,
                   "V cache type %s with flash attention 'auto', which llama.cpp turns off for "
                   "this offload (an attention would not run on its layer's device): llama.cpp "
                   "refuses it: \"quantized V cache was requested, but this requires Flash "
                   "Attention\"",
                   mp_type_name(s->type_v, v, sizeof(v)));
  return 0;
}
