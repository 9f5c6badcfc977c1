/*
** memory_fit.c: a memory plan added up against a budget, the answer of
** gguf_fit() (memory_fit.h).  Layer: plan.
*/
#include "memory_fit.h"

#include <stdio.h>
#include <string.h>

#define FIT_MIB 1048576.0

/* The parts added up, in their order (WT_FIT_NPARTS). */
static const char *const fit_parts[WT_FIT_NPARTS] = {
    "weights", "repack", "k_cache", "v_cache", "recurrent_state", "output", "compute"};

void wt_mem_fit_add_up(const wt_mem_plan *plan, uint64_t budget, wt_mem_fit *st) {
  size_t i, j;
  int total_known = 1, overflow = 0, floor_ok = 1;
  uint64_t total = 0, floor = 0; /* floor: the known bytes and what the unknown cannot be below */
  const char *why = NULL, *why_part = NULL;
  memset(st, 0, sizeof(*st));
  for (j = 0; j < WT_FIT_NPARTS; j++) {
    int seen = 0, known = 1, sum_ok = 1;
    uint64_t sum = 0, least = 0;
    const char *detail = NULL;
    for (i = 0; i < plan->n_rows; i++) {
      const wt_mem_row *r = &plan->rows[i];
      if (strcmp(r->part, fit_parts[j]) != 0)
        continue;
      seen = 1;
      if (!r->known) {
        if (known)
          detail = r->detail;
        known = 0;
      }
      if (wt_add(least, r->known ? r->nbytes : r->at_least, &least) != 0)
        sum_ok = 0;
      if (r->known && wt_add(sum, r->nbytes, &sum) != 0)
        overflow = 1;
    }
    if (!seen)
      continue;
    st->rows[st->n].part = fit_parts[j];
    st->rows[st->n].nbytes = sum;
    st->rows[st->n].at_least = least;
    st->rows[st->n].at_least_ok = sum_ok;
    st->rows[st->n].known = known;
    st->rows[st->n].fits = -1;
    snprintf(st->rows[st->n].reason, WT_FIT_REASON, "%s", known ? "" : detail);
    st->n++;
    if (!known && total_known) {
      why = detail;
      why_part = fit_parts[j];
    }
    total_known = total_known && known;
    if (!sum_ok || wt_add(floor, least, &floor) != 0)
      floor_ok = 0;
    if (known && wt_add(total, sum, &total) != 0)
      overflow = 1;
  }
  st->rows[st->n].part = "total";
  st->rows[st->n].fits = -1;
  st->rows[st->n].known = total_known && !overflow;
  st->rows[st->n].nbytes = total;
  st->rows[st->n].at_least = floor;
  st->rows[st->n].at_least_ok = floor_ok;
  if (!total_known && floor_ok && floor > budget) {
    st->rows[st->n].fits = 0;
    snprintf(st->rows[st->n].reason, WT_FIT_REASON,
             "does not fit: needs at least %.2f MiB, more than the budget of %.2f MiB (%s %s)",
             floor / FIT_MIB, budget / FIT_MIB, why_part, why);
  } else if (!total_known)
    snprintf(st->rows[st->n].reason, WT_FIT_REASON, "cannot say: %s %s", why_part, why);
  else if (overflow)
    snprintf(st->rows[st->n].reason, WT_FIT_REASON, "cannot say: the total overflows 64 bits");
  else if (total <= budget) {
    st->rows[st->n].fits = 1;
    snprintf(st->rows[st->n].reason, WT_FIT_REASON,
             "fits: needs %.2f MiB of the budget of %.2f MiB", total / FIT_MIB, budget / FIT_MIB);
  } else {
    st->rows[st->n].fits = 0;
    snprintf(st->rows[st->n].reason, WT_FIT_REASON,
             "does not fit: needs %.2f MiB, %.2f MiB more than the budget of %.2f MiB",
             total / FIT_MIB, (total - budget) / FIT_MIB, budget / FIT_MIB);
  }
  st->n++;
}
