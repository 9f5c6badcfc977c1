/*
** sample.c: windows, statistics and differences of sampled values
** (sample.h).
*/
#include <math.h>
#include <string.h>

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

void wt_sample_stats_init(wt_sample_stats *s) {
  memset(s, 0, sizeof(*s));
  s->min = INFINITY;
  s->max = -INFINITY;
}

void wt_sample_stats_add(wt_sample_stats *s, double v) {
  double delta;
  s->count++;
  if (isnan(v)) {
    s->nan++;
    return;
  }
  if (isinf(v)) {
    s->inf++;
    return;
  }
  s->finite++;
  if (v < s->min)
    s->min = v;
  if (v > s->max)
    s->max = v;
  delta = v - s->mean;
  s->mean += delta / (double)s->finite;
  s->m2 += delta * (v - s->mean);
}

double wt_sample_stats_std(const wt_sample_stats *s) {
  return s->finite ? sqrt(s->m2 / (double)s->finite) : NAN;
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

void wt_diff_add(wt_diff *d, double a, double b) {
  d->count++;
  if (!isfinite(a) || !isfinite(b)) {
    d->nonfinite++;
    return;
  }
  d->aa += a * a;
  d->bb += b * b;
  d->ab += a * b;
  d->dd += (a - b) * (a - b);
}

double wt_diff_rel_l2(const wt_diff *d) {
  return d->aa > 0 ? sqrt(d->dd) / sqrt(d->aa) : NAN;
}

double wt_diff_cosine(const wt_diff *d) {
  double c;
  if (!(d->aa > 0 && d->bb > 0))
    return NAN;
  c = d->ab / (sqrt(d->aa) * sqrt(d->bb));
  return c > 1 ? 1 : c < -1 ? -1 : c; /* rounding of identical streams */
}
