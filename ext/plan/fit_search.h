/*
** fit_search.h: gguf_fit()'s question when a setting is left open
** (fit_search.c): the most layers on the GPU, or the largest context, that
** fit the budgets; plans made with memory_plan.h and added up with
** memory_fit.h.  Pure C, no SQLite.
**
**   layers   a GPU and no n_gpu_layers: n_layer + 1 (every layer, the output
**            layer counting as one) down to 0, the first that fits every
**            budget; none fitting, the most not ruled out (fits unknown),
**            else 0
**   context  else, no n_ctx: the largest multiple of 256 up to the model's
**            context_length that fits (contexts take memory as they grow),
**            or 256 when even that does not
**   none     the setting as given
*/
#ifndef WT_FIT_SEARCH_H
#define WT_FIT_SEARCH_H

#include "memory_fit.h"
#include "memory_plan.h"

enum { WT_SEARCH_NONE = 0, WT_SEARCH_LAYERS, WT_SEARCH_CONTEXT };

typedef struct wt_fit_answer {
  int searched;         /* WT_SEARCH_* */
  uint64_t n_ctx;       /* the answer's context (the model's when not given) */
  int64_t n_gpu_layers; /* the answer's layers on the GPU (the count, not -1); -1: no GPU */
  int plans;            /* how many settings were planned */
  uint64_t n_layer;     /* the model's layers, and its context_length */
  uint64_t n_ctx_train;
  wt_mem_fit fit; /* the answer's memory against the budgets */
} wt_fit_answer;

/* Answer for model m (metadata values in data) at settings s, looking for
** the layers when want_layers, else for the context when want_ctx: 0 with
** *out set; 1 when the file is not a model llama.cpp runs (the reason in
** err); -1 with err set. */
int wt_fit_search(const wt_model *m, const unsigned char *data, const wt_mem_settings *s,
                  int want_layers, int want_ctx, const wt_fit_budget *budget, wt_fit_answer *out,
                  wt_error *err);

#endif
