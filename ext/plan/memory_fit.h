/*
** memory_fit.h: does a memory plan (memory_plan.h) fit in a budget?  The
** answer gguf_fit() shows: the plan's rows added up per part, then a total
** that fits (1), does not (0) or cannot be said (-1), with the reason.
** Pure C, no SQLite.
**
** A part is unknown when any of its rows is (nbytes is then what is known
** and at_least what the part cannot be below); the total is unknown when
** any part is, and then fits only 0 when what the known parts take and the
** unknown ones cannot be below already passes the budget.
*/
#ifndef WT_MEMORY_FIT_H
#define WT_MEMORY_FIT_H

#include <stdint.h>

#include "memory_plan.h"

/* The parts added up, in gguf_fit()'s order: weights, repack, k_cache,
** v_cache, recurrent_state, output, compute. */
#define WT_FIT_NPARTS 7

#define WT_FIT_REASON (WT_MEM_DETAIL + 96)

/* One row of the answer: a part present in the plan, or the total. */
typedef struct wt_fit_row {
  const char *part; /* static: a plan part, or "total" */
  uint64_t nbytes;
  uint64_t at_least;          /* nbytes when known, else what it cannot be below */
  int at_least_ok;            /* 0: at_least unknown (it overflows) */
  int known;                  /* 0: nbytes unknown */
  int fits;                   /* 1, 0, or -1: not said (part rows, or unknown) */
  char reason[WT_FIT_REASON]; /* "" : none */
} wt_fit_row;

typedef struct wt_mem_fit {
  int n; /* the parts present, then the total */
  wt_fit_row rows[WT_FIT_NPARTS + 1];
} wt_mem_fit;

/* Fill *fit: plan added up per part, then the total against budget bytes. */
void wt_mem_fit_add_up(const wt_mem_plan *plan, uint64_t budget, wt_mem_fit *fit);

#endif
