/*
** memory_fit.c: a memory plan's resident memory added up against budgets,
** the answer of gguf_fit() (memory_fit.h).  Layer: plan.
*/
#include "memory_fit.h"

#include <stdio.h>
#include <string.h>

#define FIT_MIB  1048576.0
#define FIT_NBUF 6 /* WT_BUF_* */

/* The parts added up, in their order (WT_FIT_NPARTS). */
static const char *const fit_parts[WT_FIT_NPARTS] = {
    "weights", "repack", "k_cache", "v_cache", "recurrent_state", "output", "compute"};

const char *wt_fit_memory_name(int memory) {
  return memory == WT_FIT_VRAM ? "vram" : "ram";
}

/* The memory row r is resident in. */
static int fit_memory(const wt_mem_row *r) {
  return strcmp(r->device, WT_DEV_CUDA) == 0 ? WT_FIT_VRAM : WT_FIT_RAM;
}

/* A new row of st. */
static wt_fit_row *fit_row(wt_mem_fit *st, const char *part, int memory) {
  wt_fit_row *f = &st->rows[st->n++];
  memset(f, 0, sizeof(*f));
  f->part = part;
  f->memory = memory;
  f->fits = -1;
  f->known = 1;
  f->at_least_ok = 1;
  return f;
}

/* The row of part j in memory m, or none (0) when the plan has no such row;
** adds its bytes to *total and *floor, and notes its first unknown row. */
static int fit_part(const wt_mem_plan *plan, int m, int j, wt_mem_fit *st, uint64_t *total,
                    uint64_t *floor, int *ok, const char **why, const char **why_part) {
  size_t i;
  wt_fit_row *f = NULL;
  for (i = 0; i < plan->n_rows; i++) {
    const wt_mem_row *r = &plan->rows[i];
    if (strcmp(r->part, fit_parts[j]) != 0 || r->mapped_only || fit_memory(r) != m)
      continue;
    if (f == NULL)
      f = fit_row(st, fit_parts[j], m);
    if (!r->known && f->known) {
      f->known = 0;
      snprintf(f->reason, WT_FIT_REASON, "%s", r->detail);
    }
    if (wt_add(f->at_least, r->known ? r->nbytes : r->at_least, &f->at_least) != 0)
      f->at_least_ok = 0;
    if (r->known && wt_add(f->nbytes, r->nbytes, &f->nbytes) != 0)
      *ok = 0;
  }
  if (f == NULL)
    return 0;
  if (!f->known && *why == NULL) {
    *why = f->reason;
    *why_part = fit_parts[j];
  }
  if (!f->at_least_ok || wt_add(*floor, f->at_least, floor) != 0)
    *ok = 0;
  if (f->known && wt_add(*total, f->nbytes, total) != 0)
    *ok = 0;
  return 1;
}

/* VRAM's cuda_pages: what the driver's pages add to the CUDA buffers.  A
** buffer of a page or more takes whole pages; smaller ones share pages
** (the driver packs small allocations); then one page more. */
static void fit_pages(const wt_mem_plan *plan, wt_mem_fit *st, uint64_t *total, uint64_t *floor,
                      int *ok) {
  uint64_t buf[FIT_NBUF] = {0}, pad = WT_CUDA_PAGE, small = 0;
  int known = 1, b;
  size_t i;
  wt_fit_row *f;
  for (i = 0; i < plan->n_rows; i++) {
    const wt_mem_row *r = &plan->rows[i];
    if (fit_memory(r) != WT_FIT_VRAM || r->buffer < 0 || r->buffer >= FIT_NBUF)
      continue;
    known &= r->known;
    if (wt_add(buf[r->buffer], r->nbytes, &buf[r->buffer]) != 0)
      *ok = 0;
  }
  for (b = 0; b < FIT_NBUF; b++)
    if (buf[b] >= WT_CUDA_PAGE)
      pad += (WT_CUDA_PAGE - buf[b] % WT_CUDA_PAGE) % WT_CUDA_PAGE;
    else
      small += buf[b]; /* below a page each: their sum fits 64 bits */
  pad += (WT_CUDA_PAGE - small % WT_CUDA_PAGE) % WT_CUDA_PAGE;
  f = fit_row(st, "cuda_pages", WT_FIT_VRAM);
  f->known = known;
  f->nbytes = known ? pad : 0;
  f->at_least = known ? pad : WT_CUDA_PAGE;
  snprintf(f->reason, WT_FIT_REASON, "%s",
           known ? "" : "unknown: a CUDA buffer is unknown, so are its pages");
  if (wt_add(*floor, f->at_least, floor) != 0 || (known && wt_add(*total, pad, total) != 0))
    *ok = 0;
}

/* Memory m's total against its budget. */
static void fit_total(wt_mem_fit *st, int m, const wt_fit_budget *b, uint64_t total, uint64_t floor,
                      int known, int ok, const char *why, const char *why_part) {
  wt_fit_row *f = fit_row(st, "total", m);
  uint64_t budget = b->bytes[m];
  f->known = known && ok;
  f->nbytes = total;
  f->at_least = floor;
  f->at_least_ok = ok;
  if (!b->has[m]) {
    snprintf(f->reason, WT_FIT_REASON, "cannot say: no '%s' budget given", wt_fit_memory_name(m));
  } else if (!known && ok && floor > budget) {
    f->fits = 0;
    snprintf(f->reason, WT_FIT_REASON,
             "does not fit: needs at least %.2f MiB, more than the budget of %.2f MiB (%s %.*s)",
             floor / FIT_MIB, budget / FIT_MIB, why_part, WT_MEM_DETAIL, why);
  } else if (!known) {
    snprintf(f->reason, WT_FIT_REASON, "cannot say: %s %.*s", why_part, WT_MEM_DETAIL, why);
  } else if (!ok) {
    snprintf(f->reason, WT_FIT_REASON, "cannot say: the total overflows 64 bits");
  } else if (total <= budget) {
    f->fits = 1;
    snprintf(f->reason, WT_FIT_REASON, "fits: needs %.2f MiB of the budget of %.2f MiB",
             total / FIT_MIB, budget / FIT_MIB);
  } else {
    f->fits = 0;
    snprintf(f->reason, WT_FIT_REASON,
             "does not fit: needs %.2f MiB, %.2f MiB more than the budget of %.2f MiB",
             total / FIT_MIB, (total - budget) / FIT_MIB, budget / FIT_MIB);
  }
}

/* Host RAM's mapped row: the span of the file mapped, every CPU_Mapped row. */
static void fit_mapped(const wt_mem_plan *plan, wt_mem_fit *st, uint64_t counted) {
  wt_fit_row *f = fit_row(st, "mapped", WT_FIT_RAM);
  size_t i;
  for (i = 0; i < plan->n_rows; i++) {
    const wt_mem_row *r = &plan->rows[i];
    if (strcmp(r->device, WT_DEV_MAPPED) != 0)
      continue;
    f->known &= r->known;
    if (wt_add(f->nbytes, r->nbytes, &f->nbytes) != 0)
      f->at_least_ok = 0;
  }
  f->at_least = f->nbytes;
  snprintf(f->reason, WT_FIT_REASON,
           "the model file as llama.cpp maps it (not added up): %.2f MiB of it counted above, "
           "the tensors it reads",
           counted / FIT_MIB);
}

void wt_mem_fit_add_up(const wt_mem_plan *plan, const wt_fit_budget *b, wt_mem_fit *st) {
  int m, j, used[WT_FIT_NMEM] = {0}, all = 1, any_no = 0;
  size_t i;
  memset(st, 0, sizeof(*st));
  for (i = 0; i < plan->n_rows; i++)
    used[fit_memory(&plan->rows[i])] = 1;
  for (m = 0; m < WT_FIT_NMEM; m++) {
    uint64_t total = 0, floor = 0, weights = 0;
    int ok = 1, first = st->n, k;
    const char *why = NULL, *why_part = NULL;
    wt_fit_row *t;
    if (!used[m] && !b->has[m])
      continue;
    for (j = 0; j < WT_FIT_NPARTS; j++)
      fit_part(plan, m, j, st, &total, &floor, &ok, &why, &why_part);
    if (m == WT_FIT_VRAM && used[m])
      fit_pages(plan, st, &total, &floor, &ok);
    for (k = first; k < st->n; k++)
      if (strcmp(st->rows[k].part, "weights") == 0)
        weights = st->rows[k].nbytes;
    fit_total(st, m, b, total, floor, why == NULL, ok, why, why_part);
    t = &st->rows[st->n - 1];
    if (used[m]) {
      all = all && t->fits == 1;
      any_no = any_no || t->fits == 0;
      if (t->fits != 1 && (st->reason[0] == 0 || t->fits == 0))
        snprintf(st->reason, WT_FIT_REASON, "%s: %.*s", wt_fit_memory_name(m), WT_MEM_DETAIL + 64,
                 t->reason);
    }
    if (m == WT_FIT_RAM)
      fit_mapped(plan, st, weights);
  }
  st->fits = any_no ? 0 : all ? 1 : -1;
  if (st->fits == 1) { /* "fits: ram 5125.13 of 16384.00 MiB, vram ..." */
    size_t at = (size_t)snprintf(st->reason, WT_FIT_REASON, "fits:");
    int k;
    for (k = 0; k < st->n && at < WT_FIT_REASON; k++)
      if (strcmp(st->rows[k].part, "total") == 0)
        at +=
            (size_t)snprintf(st->reason + at, WT_FIT_REASON - at, "%s %s %.2f of %.2f MiB",
                             at > 5 ? "," : "", wt_fit_memory_name(st->rows[k].memory),
                             st->rows[k].nbytes / FIT_MIB, b->bytes[st->rows[k].memory] / FIT_MIB);
  }
}
