/*
** histogram.c: equal-width histograms of decoded tensor values.  See
** histogram.h.  Layer: decode, pure C (malloc for the bins, bounded by
** WT_HIST_MAX_BINS).
**
** A value's bin is first estimated as (x/2 - lo/2) * (bins / (hi/2 -
** lo/2)), then moved until edge(k) <= x < edge(k + 1) with the edges as
** wt_hist_edge() gives them (one step at most, except in ranges so wide
** that the estimate underflows), so the bins and the edges shown agree
** exactly.  Counts go to four interleaved copies of the bins when there
** are few bins (runs of equal bins would otherwise wait on each other's
** increments), summed at the end of each call.
*/
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copies of the counts when there are at most this many bins. */
#define WT_HIST_LANES      4
#define WT_HIST_LANES_BINS 256

double wt_hist_edge(const wt_hist *h, uint32_t k) {
  if (k == 0)
    return h->lo;
  if (k >= h->bins)
    return h->hi;
  return h->lo + 2 * ((h->hi * 0.5 - h->lo * 0.5) * k / h->bins);
}

int wt_hist_init(wt_hist *h, double lo, double hi, uint32_t bins, wt_error *err) {
  uint32_t k;
  memset(h, 0, sizeof(*h));
  if (!isfinite(lo) || !isfinite(hi) || lo > hi)
    return wt_fail(err, "the range [%g, %g] is not two finite numbers with lo <= hi", lo, hi);
  if (bins < 1 || bins > WT_HIST_MAX_BINS)
    return wt_fail(err, "bins must be 1 to %d, not %u", WT_HIST_MAX_BINS, bins);
  h->lo = lo;
  h->hi = hi;
  h->bins = lo == hi ? 1 : bins;
  h->count = calloc(h->bins, sizeof(uint64_t));
  h->edge = malloc((h->bins + 1) * sizeof(double));
  if (h->count == NULL || h->edge == NULL) {
    wt_hist_free(h);
    return wt_fail(err, "out of memory for %u bins", bins);
  }
  for (k = 0; k <= h->bins; k++)
    h->edge[k] = wt_hist_edge(h, k);
  return 0;
}

void wt_hist_free(wt_hist *h) {
  free(h->count);
  free(h->edge);
  h->count = NULL;
  h->edge = NULL;
}

/* A value outside the bins: NaN, infinite, below or above. */
static void hist_outside(wt_hist *h, double x) {
  if (isnan(x))
    h->nan++;
  else if (isinf(x))
    h->inf++;
  else if (x < h->lo)
    h->below++;
  else
    h->above++;
}

/* The bin of x, lo <= x <= hi. */
static inline uint32_t hist_bin(const wt_hist *h, double x, double half_lo, double inv) {
  double t = (x * 0.5 - half_lo) * inv;
  uint32_t k = t < h->bins ? (uint32_t)t : h->bins - 1;
  while (k > 0 && x < h->edge[k])
    k--;
  while (k + 1 < h->bins && x >= h->edge[k + 1])
    k++;
  return k;
}

/* Add n values, floats (xf) or doubles (xd). */
static void hist_add(wt_hist *h, const float *xf, const double *xd, size_t n) {
  uint32_t lanes[WT_HIST_LANES][WT_HIST_LANES_BINS];
  double lo = h->lo, hi = h->hi, half_lo = lo * 0.5, span = hi * 0.5 - half_lo;
  double inv = span > 0 ? h->bins / span : 0;
  size_t i;
  uint32_t k;
  int use_lanes = h->bins <= WT_HIST_LANES_BINS;
  h->total += n;
  while (n > 0) {
    size_t m = n < 65536 ? n : 65536; /* a lane count never overflows */
    if (use_lanes)
      for (k = 0; k < WT_HIST_LANES; k++)
        memset(lanes[k], 0, h->bins * sizeof(uint32_t));
    for (i = 0; i < m; i++) {
      double x = xf ? (double)xf[i] : xd[i];
      if (!(x >= lo && x <= hi)) {
        hist_outside(h, x);
        continue;
      }
      k = hist_bin(h, x, half_lo, inv);
      if (use_lanes)
        lanes[i % WT_HIST_LANES][k]++;
      else
        h->count[k]++;
    }
    if (use_lanes)
      for (k = 0; k < h->bins; k++)
        h->count[k] += (uint64_t)lanes[0][k] + lanes[1][k] + lanes[2][k] + lanes[3][k];
    if (xf)
      xf += m;
    else
      xd += m;
    n -= m;
  }
}

void wt_hist_add_f32(wt_hist *h, const float *x, size_t n) {
  hist_add(h, x, NULL, n);
}

void wt_hist_add_f64(wt_hist *h, const double *x, size_t n) {
  hist_add(h, NULL, x, n);
}

/* Decode values [start, start + m) into buf: floats for the float-native
** codecs, doubles for the others. */
static int decode_chunk(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t m, float *f, double *d, wt_error *err) {
  if (c->f32)
    return wt_decode_range_f32(c, src, nbytes, start, m, f, err);
  return wt_decode_range(c, src, nbytes, start, m, d, err);
}

int wt_hist_range(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t count,
                  double *lo, double *hi, int *found, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  double mn = INFINITY, mx = -INFINITY;
  uint64_t start;
  size_t i;
  for (start = 0; start < count; start += WT_DECODE_CHUNK) {
    size_t m = count - start < WT_DECODE_CHUNK ? (size_t)(count - start) : WT_DECODE_CHUNK;
    if (decode_chunk(c, src, nbytes, start, m, buf.f, buf.d, err) != 0)
      return -1;
    if (c->f32) {
      float fmn = INFINITY, fmx = -INFINITY; /* infinities never win; NaN fails both */
      for (i = 0; i < m; i++) {
        float x = buf.f[i];
        fmn = x < fmn && x != -INFINITY ? x : fmn;
        fmx = x > fmx && x != INFINITY ? x : fmx;
      }
      mn = fmn < mn ? fmn : mn;
      mx = fmx > mx ? fmx : mx;
    } else {
      for (i = 0; i < m; i++) {
        double x = buf.d[i];
        mn = x < mn && x != -INFINITY ? x : mn;
        mx = x > mx && x != INFINITY ? x : mx;
      }
    }
  }
  *found = mn <= mx;
  *lo = *found ? mn : 0;
  *hi = *found ? mx : 0;
  return 0;
}

int wt_hist_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t count,
                   wt_hist *h, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  uint64_t start;
  for (start = 0; start < count; start += WT_DECODE_CHUNK) {
    size_t m = count - start < WT_DECODE_CHUNK ? (size_t)(count - start) : WT_DECODE_CHUNK;
    if (decode_chunk(c, src, nbytes, start, m, buf.f, buf.d, err) != 0)
      return -1;
    if (c->f32)
      wt_hist_add_f32(h, buf.f, m);
    else
      wt_hist_add_f64(h, buf.d, m);
  }
  return 0;
}
