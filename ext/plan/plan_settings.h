/*
** plan_settings.h: the settings of gguf_memory() and gguf_fit() as one
** JSON object (plan_settings.c), in place of their growing list of
** positional arguments:
**
**   {"n_ctx": 32768, "n_gpu_layers": 20, "gpu": "cuda", "type_k": "q8_0"}
**   {"vram": 12884901888, "ram": 17179869184, "n_ctx": 32768}
**
** Keys (each at most once; any other key is an error naming it): n_ctx,
** n_seq, n_ubatch (integers >= 1), type_k, type_v (ggml type names),
** flash_attn ("auto", "on", "off", true, false, 1, 0), cpu (cpu_repack.h's
** names), gpu ("cuda" or "none"), n_gpu_layers (an integer >= -1; -1 or
** more than the layers: all), cuda_cc (the GPU's compute capability as
** "8.9" or 8.9, from 7.5), op_offload, swa_full (true, false); for gguf_fit also the
** budgets ram and vram (bytes >= 0; null is an error, not 0).  A layer
** count or a VRAM budget means gpu "cuda" unless gpu says otherwise.  JSON
** null stands for the default of any other key.  Pure C (cJSON), no
** SQLite.
*/
#ifndef WT_PLAN_SETTINGS_H
#define WT_PLAN_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "memory_plan.h"

#define WT_SETTINGS_ERR 192

/* What gguf_fit() is asked beside the settings. */
typedef struct wt_fit_ask {
  int has_ram, has_vram; /* which budgets were given */
  uint64_t ram, vram;
  int has_ctx;    /* n_ctx was given (else gguf_fit looks for the largest that fits) */
  int has_layers; /* n_gpu_layers was given (else it looks for the most) */
} wt_fit_ask;

/* Parse the JSON object text[0..n) into *s (from wt_mem_settings_default)
** and, when ask is not NULL, the budgets into *ask (when NULL, budgets are
** an error).  0, or -1 with a message in err. */
int wt_settings_parse(const char *text, size_t n, wt_mem_settings *s, wt_fit_ask *ask, char *err,
                      size_t err_size);

/* The ggml type named name ("f16", "Q8_0", any case), or -1. */
int64_t wt_settings_type(const char *name);

/* Whether text[0..n) looks like a JSON object (its first non-space byte
** is '{'). */
int wt_settings_is_json(const char *text, size_t n);

#endif
