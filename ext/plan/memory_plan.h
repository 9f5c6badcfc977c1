/*
** memory_plan.h: how much memory llama.cpp allocates to run a GGUF model,
** worked out from the header alone (the SQL table gguf_memory() shows it).
**
** Input: a parsed GGUF model (base/model.h), the bytes its metadata values
** live in, and the context settings (n_ctx, cache types, sequences,
** n_ubatch, flash attention, the CPU).  Output: rows (layer, part, nbytes,
** detail): per layer its weights, the copy of them llama.cpp repacks for
** the CPU and its K/V cache (or recurrent state), then the weights outside
** the layers, the output (logits) buffer and the compute buffer (exact
** for the models compute_plan.c vouches for, whose graph llama_graph.h
** builds; otherwise unknown with a size it cannot be below).  Settings llama.cpp refuses are errors
** with its reason.  The formulas follow llama.cpp (docs/reference.md,
** gguf_memory); every size is overflow-checked, and metadata that llama.cpp
** would refuse (a per-layer array of the wrong length or type, dimensions
** whose product does not fit) is an error.  Pure C, no SQLite.
*/
#ifndef WT_MEMORY_PLAN_H
#define WT_MEMORY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "cpu_repack.h"

/* Flash attention: llama.cpp's "auto" turns it on for a model on the CPU;
** beside a GPU, when every layer's attention runs on the layer's device. */
enum { WT_FA_OFF = 0, WT_FA_ON = 1, WT_FA_AUTO = 2 };

/* The GPU a plan offloads layers to: none (the CPU alone), or one CUDA
** device (llama.cpp's CUDA build, node-llama-cpp 3.22.1's). */
enum { WT_GPU_NONE = 0, WT_GPU_CUDA = 1 };

#define WT_CUDA_CC_DEFAULT 900 /* compute capability 9.0 (H100, H200), ggml's way */

/* The names of the buffer types llama.cpp logs, a plan row's device. */
#define WT_DEV_MAPPED "CPU_Mapped" /* the model file, mapped */
#define WT_DEV_REPACK "CPU_REPACK" /* the CPU's repacked weights */
#define WT_DEV_AMX    "AMX"        /* the weights AMX's kernels read */
#define WT_DEV_CPU    "CPU"        /* host memory */
#define WT_DEV_CUDA   "CUDA0"      /* the GPU's memory */
#define WT_DEV_HOST   "CUDA_Host"  /* pinned host memory, the GPU's host buffer type */

typedef struct wt_mem_settings {
  uint64_t n_ctx;       /* tokens over all sequences; 0 = the model's context_length */
  int64_t type_k;       /* ggml type id of the K cache (1 = F16) */
  int64_t type_v;       /* ggml type id of the V cache */
  uint64_t n_seq;       /* sequences (streams), >= 1 */
  uint64_t n_ubatch;    /* micro-batch, >= 1 */
  int flash_attn;       /* WT_FA_OFF, WT_FA_ON or WT_FA_AUTO */
  int cpu;              /* WT_CPU_* (cpu_repack.h): whose repack rules apply */
  int gpu;              /* WT_GPU_NONE or WT_GPU_CUDA */
  int64_t n_gpu_layers; /* layers offloaded, the output layer counting as one; -1: all */
  int cuda_cc;          /* the GPU's compute capability (ggml's 100 major + 10 minor) */
  int op_offload;       /* 1 (llama.cpp's default): CPU weights' large products run on the GPU */
  int swa_full;         /* 1: the sliding-window cache as large as the full one (llama.cpp's
                           library default; 0, llama-server's and node-llama-cpp's, the default here) */
  /* Part 1 of a split GGUF: the other parts, parsed, in order (NULL: none
  ** given).  Only their tensor names are read, to know every layer's
  ** tensors; without them a split model's compute buffer is unknown. */
  const wt_model *const *parts;
  size_t n_parts;
  int with_parts_weights; /* 1: part 1's plan adds the weights rows of the other parts (the
                             whole model's memory in one plan: gguf_fit, and any GPU plan) */
} wt_mem_settings;

/* An architecture the planner knows, and how far: its compute buffer
** modelled (the graph built as llama.cpp builds it, so exact for the
** shapes the graph covers; else a lower bound), and its graph's buffers
** on a CUDA GPU checked against llama.cpp's own CUDA figures.  The one
** list README.md, docs/reference.md and tests/llama_oracle_test.py read
** (through gguf_memory_architectures()). */
typedef struct wt_plan_arch {
  const char *name;
  int compute_modelled;
  int cuda_measured;
} wt_plan_arch;

/* The i-th architecture the planner knows: 0 with *a set, -1 past the
** end. */
int wt_plan_arch_at(size_t i, wt_plan_arch *a);

/* llama.cpp's defaults: context_length, f16, 1 sequence, 512, FA auto;
** this machine's CPU. */
void wt_mem_settings_default(wt_mem_settings *s);

#define WT_MEM_DETAIL 160

/* Which of llama.cpp's buffers a row is part of (a device's buffers of one
** kind are one allocation each: the model's, each KV cache's, ...). */
enum { WT_BUF_MODEL = 0, WT_BUF_KV, WT_BUF_KV_SWA, WT_BUF_STATE, WT_BUF_OUTPUT, WT_BUF_COMPUTE };

typedef struct wt_mem_row {
  int64_t layer;      /* -1: not a layer row (SQL NULL) */
  const char *device; /* static: the buffer type llama.cpp names it by (WT_DEV_*) */
  int buffer;         /* WT_BUF_* */
  int mapped_only;    /* 1: bytes of the mapped file that are read once or never (padding, the
                         pages of tensors repacked or offloaded): not resident memory */
  const char *part;   /* "weights", "repack", "k_cache", "v_cache", "recurrent_state", "output",
                         "compute" */
  uint64_t nbytes;
  int known;                  /* 0: nbytes is unknown (SQL NULL), detail says why */
  uint64_t at_least;          /* unknown rows: bytes llama.cpp's figure cannot be below */
  char detail[WT_MEM_DETAIL]; /* NUL-terminated */
} wt_mem_row;

typedef struct wt_mem_plan {
  wt_mem_row *rows; /* malloc'd */
  size_t n_rows, cap;
  uint64_t n_layer;     /* the model's layers */
  uint64_t n_ctx_train; /* its context_length */
} wt_mem_plan;

/* Plan the memory of model m (a GGUF) whose metadata values are read from
** data (the header bytes, as gguf_value.h's cursor reads them).  Returns 0
** with *out filled (free it with wt_mem_plan_free), -1 with err set, or 1
** with the reason in err when the file is not a model llama.cpp runs on
** its own (a vision projector, an adapter, an importance matrix, a
** vocabulary without tensors): nothing to plan. */
int wt_memory_plan(const wt_model *m, const unsigned char *data, const wt_mem_settings *s,
                   wt_mem_plan *out, wt_error *err);

void wt_mem_plan_free(wt_mem_plan *p);

#endif
