/*
** sample.c: the windows, range and histogram of sampled values (sample.h).
*/
#include <math.h>

#include "sample.h"

int wt_sample_windows(uint64_t numel, uint64_t budget, int max, uint64_t *start, uint64_t *count) {
  uint64_t per, gap;
  int i, n;
  if (numel == 0 || max <= 0 || budget == 0)
    return 0;
  if (numel <= budget) {
    start[0] = 0;
    count[0] = numel;
    return 1;
  }
  n = max;
  per = budget / (uint64_t)n;
  if (per == 0) {
    per = 1;
    n = (int)budget;
  }
  /* n windows of per values: the first at 0, the last ending at numel. */
  gap = n > 1 ? (numel - per) / (uint64_t)(n - 1) : 0;
  for (i = 0; i < n; i++) {
    start[i] = gap * (uint64_t)i;
    count[i] = per;
  }
  return n;
}

size_t wt_sample_range(const double *v, size_t n, double *lo, double *hi) {
  size_t i, finite = 0;
  for (i = 0; i < n; i++) {
    if (!isfinite(v[i]))
      continue;
    if (finite == 0 || v[i] < *lo)
      *lo = v[i];
    if (finite == 0 || v[i] > *hi)
      *hi = v[i];
    finite++;
  }
  return finite;
}

void wt_histogram(const double *v, size_t n, double lo, double hi, uint64_t *bins, int nbins) {
  size_t i;
  /* halves, so that a range wider than the largest double (-1e308 to
  ** 1e308) still has a finite width */
  double width = (hi / 2 - lo / 2) / nbins;
  for (i = 0; i < n; i++) {
    double x;
    int b = 0;
    if (!isfinite(v[i]))
      continue;
    x = width > 0 ? floor((v[i] / 2 - lo / 2) / width) : 0; /* compared before the cast */
    if (x >= nbins)
      b = nbins - 1;
    else if (x > 0)
      b = (int)x;
    bins[b]++;
  }
}
