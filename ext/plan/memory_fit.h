/*
** memory_fit.h: does a memory plan (memory_plan.h) fit?  The answer
** gguf_fit() shows: per memory (host RAM; VRAM when layers or work go to a
** GPU) the memory the process keeps resident, added up per part, then a
** total that fits that memory's budget (1), does not (0) or cannot be said
** (-1), with the reason; for host RAM also the span of the file mapped,
** shown apart.  Pure C, no SQLite.
**
** Resident memory.  Host RAM: the repacked weights, the mapped weights
** that are read (not the rows that are mapped only: padding and the pages
** of tensors repacked or offloaded, read once at load and then reclaimable
** page cache), and every cache, output and compute buffer in host memory
** (CPU, CUDA_Host).  VRAM: the CUDA buffers (CUDA0) in the 2 MiB pages the
** CUDA driver allocates: a buffer of a page or more rounded up to whole
** pages, the smaller ones packed together, and one page more (part
** cuda_pages; docs/reference.md has the records this is measured on).
**
** A part is unknown when any of its rows is (nbytes is then what is known
** and at_least what the part cannot be below); a total is unknown when any
** of its parts is, and then fits only 0 when what the known parts take and
** the unknown ones cannot be below already passes the budget.
*/
#ifndef WT_MEMORY_FIT_H
#define WT_MEMORY_FIT_H

#include <stdint.h>

#include "memory_plan.h"

/* The plan's parts added up, in gguf_fit()'s order: weights, repack,
** k_cache, v_cache, recurrent_state, output, compute. */
#define WT_FIT_NPARTS 7

#define WT_FIT_REASON (WT_MEM_DETAIL + 96)
#define WT_CUDA_PAGE  ((uint64_t)2 << 20) /* the driver's allocation granularity */

/* The memories. */
enum { WT_FIT_RAM = 0, WT_FIT_VRAM = 1, WT_FIT_NMEM = 2 };

/* One row of the answer: a part, cuda_pages, a memory's total or the
** mapped span. */
typedef struct wt_fit_row {
  const char *part; /* static: a plan part, "cuda_pages", "total" or "mapped" */
  int memory;       /* WT_FIT_RAM or WT_FIT_VRAM */
  uint64_t nbytes;
  uint64_t at_least;          /* nbytes when known, else what it cannot be below */
  int at_least_ok;            /* 0: at_least unknown (it overflows) */
  int known;                  /* 0: nbytes unknown */
  int fits;                   /* 1, 0, or -1: not said (part rows, or unknown) */
  char reason[WT_FIT_REASON]; /* "" : none */
} wt_fit_row;

/* The budgets: per memory, whether one is given and its bytes. */
typedef struct wt_fit_budget {
  int has[WT_FIT_NMEM];
  uint64_t bytes[WT_FIT_NMEM];
} wt_fit_budget;

#define WT_FIT_MAX_ROWS (WT_FIT_NMEM * (WT_FIT_NPARTS + 3))

typedef struct wt_mem_fit {
  int n;
  wt_fit_row rows[WT_FIT_MAX_ROWS];
  int fits; /* every memory the plan uses: 1 all fit, 0 one does not, -1 cannot say */
  char reason[WT_FIT_REASON]; /* why, for fits */
} wt_mem_fit;

/* Fill *fit: the plan's resident memory per memory against the budgets.  A
** memory is listed when the plan uses it or a budget is given for it; a
** used memory without a budget cannot be said to fit. */
void wt_mem_fit_add_up(const wt_mem_plan *plan, const wt_fit_budget *budget, wt_mem_fit *fit);

/* "ram" or "vram". */
const char *wt_fit_memory_name(int memory);

#endif
