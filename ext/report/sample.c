/*
** sample.c: windows, statistics and differences of sampled values
** (sample.h), right for F64 values of any size (scaled sums past 2^500).
*/
#include <math.h>
#include <string.h>

#include "sample.h"

/* Past this magnitude a value's square may overflow a double: the sums
** switch to scaled units (powers of two, so exact but for underflow of
** what is negligible beside such a value). */
#define WT_BIG     0x1p500
#define WT_SCALE   0x1p-600
#define WT_UNSCALE 0x1p600

/* x times 2^-1200 (no double holds that factor). */
static double wt_scale2(double x) {
  return x * WT_SCALE * WT_SCALE;
}

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
  if (!s->scaled && fabs(v) > WT_BIG) {
    s->mean *= WT_SCALE;
    s->m2 = wt_scale2(s->m2);
    s->scaled = 1;
  }
  if (s->scaled)
    v *= WT_SCALE;
  delta = v - s->mean;
  s->mean += delta / (double)s->finite;
  s->m2 += delta * (v - s->mean);
}

double wt_sample_stats_mean(const wt_sample_stats *s) {
  if (!s->finite)
    return NAN;
  return s->scaled ? s->mean * WT_UNSCALE : s->mean;
}

double wt_sample_stats_std(const wt_sample_stats *s) {
  double sd;
  if (!s->finite)
    return NAN;
  sd = sqrt(s->m2 / (double)s->finite);
  return s->scaled ? sd * WT_UNSCALE : sd;
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

/* Put d's sums in scaled units. */
static void wt_diff_scale(wt_diff *d) {
  d->aa = wt_scale2(d->aa);
  d->bb = wt_scale2(d->bb);
  d->ab = wt_scale2(d->ab);
  d->dd = wt_scale2(d->dd);
  d->scaled = 1;
}

void wt_diff_add(wt_diff *d, double a, double b) {
  d->count++;
  if (!isfinite(a) || !isfinite(b)) {
    d->nonfinite++;
    return;
  }
  if (!d->scaled && (fabs(a) > WT_BIG || fabs(b) > WT_BIG))
    wt_diff_scale(d);
  if (d->scaled) {
    a *= WT_SCALE;
    b *= WT_SCALE;
  }
  d->aa += a * a;
  d->bb += b * b;
  d->ab += a * b;
  d->dd += (a - b) * (a - b);
}

void wt_diff_merge(wt_diff *into, const wt_diff *from) {
  wt_diff f = *from;
  if (f.scaled && !into->scaled)
    wt_diff_scale(into);
  if (into->scaled && !f.scaled)
    wt_diff_scale(&f);
  into->count += f.count;
  into->nonfinite += f.nonfinite;
  into->aa += f.aa;
  into->bb += f.bb;
  into->ab += f.ab;
  into->dd += f.dd;
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
