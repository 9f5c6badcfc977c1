/*
** decode_stats.c: the streaming statistics accumulator (layer: decode):
** wt_stats_*() of decode.h.
**
** Each chunk of floats is summed in double by the kernels of
** decode_simd.c as a shifted one-pass sum: with K the running mean (or
** the chunk's first value), s = sum(x - K) and q = sum((x - K)^2) give the
** chunk's mean K + s/n and M2 = q - s^2/n; chunks are merged with Chan's
** formula.  A chunk whose sums come out NaN or infinite holds a NaN or an
** infinity, and is redone by the careful scalar path that counts and
** skips them.  Double-native values (F64, 32- and 64-bit integers) always
** take the careful path.
**
** Squares of doubles beyond 2^512 overflow, so once a value beyond 2^500
** is seen the statistics are "scaled": the deviations are summed times
** 2^-600 and m2 and sumsq kept times 2^-1200 (a power of two: exact but
** for the smallest deviations, far below the large values' precision);
** wt_stats_summarize() scales the roots back.  The std of values near
** 1e153 is thus right, not 0, and l2 overflows only when it exceeds
** DBL_MAX itself.
*/
#include "decode_internal.h"

#include <math.h>
#include <string.h>

#define STATS_BIG  0x1p500  /* beyond this a value's square may overflow */
#define STATS_DOWN 0x1p-600 /* scaled: deviations times this */
#define STATS_UP   0x1p600  /* and roots times this */

void wt_stats_init(wt_stats *st) {
  memset(st, 0, sizeof(*st));
  st->min = st->max = NAN;
}

/* Switch st to scaled sums (see the top comment). */
static void stats_scale(wt_stats *st) {
  if (st->scaled)
    return;
  st->m2 = st->m2 * STATS_DOWN * STATS_DOWN; /* 2^-1200 is no double */
  st->sumsq = st->sumsq * STATS_DOWN * STATS_DOWN;
  st->scaled = 1;
}

/* Fold nb finite values with mean mb and squared deviations m2b (in st's
** units) into the moments (Chan et al.); sumsq is the caller's. */
static void stats_fold(wt_stats *st, uint64_t nb, double mb, double m2b) {
  uint64_t n = st->n + nb;
  double f = st->scaled ? STATS_DOWN : 1, delta;
  if (nb == 0)
    return;
  delta = mb * f - st->mean * f; /* scaled: no overflow between +-DBL_MAX */
  if (st->n == 0) {
    st->mean = mb;
    st->m2 = m2b;
  } else {
    st->mean += delta * ((double)nb / (double)n) / f;
    st->m2 += m2b + delta * delta * ((double)st->n * (double)nb / (double)n);
  }
  st->n = n;
}

/* Fold a chunk of nb finite values given by its shifted sums in st's
** units: with f = 2^-600 when scaled (else 1), s = sum(f x - f k), q =
** sum((f x - f k)^2). */
static void stats_chunk(wt_stats *st, uint64_t nb, double k, double s, double q) {
  double f = st->scaled ? STATS_DOWN : 1, mbf = k * f + s / (double)nb;
  double m2b = q - s * s / (double)nb;
  if (m2b < 0)
    m2b = 0; /* rounding */
  st->sumsq += m2b + (double)nb * mbf * mbf;
  stats_fold(st, nb, mbf / f, m2b);
}

/* Merge a min/max pair (NaN meaning none yet). */
static void stats_minmax(wt_stats *st, double mn, double mx) {
  if (isnan(st->min) || mn < st->min)
    st->min = mn;
  if (isnan(st->max) || mx > st->max)
    st->max = mx;
}

/* The careful path: counts NaN and infinities and leaves them out. */
static void stats_slow(wt_stats *st, const float *xf, const double *xd, size_t n) {
  double k = NAN, s = 0, q = 0, mn = NAN, mx = NAN, f;
  uint64_t nf = 0;
  size_t i;
  for (i = 0; xd && !st->scaled && i < n; i++)
    if (fabs(xd[i]) > STATS_BIG && !isinf(xd[i]))
      stats_scale(st);
  f = st->scaled ? STATS_DOWN : 1;
  for (i = 0; i < n; i++) {
    double x = xf ? xf[i] : xd[i];
    st->count++;
    if (isnan(x)) {
      st->nan_count++;
      continue;
    }
    if (x == 0)
      st->zero_count++;
    if (isnan(mn) || x < mn)
      mn = x;
    if (isnan(mx) || x > mx)
      mx = x;
    if (isinf(x)) {
      st->inf_count++;
      continue;
    }
    if (nf == 0)
      k = st->n ? st->mean : x;
    s += x * f - k * f;
    q += (x * f - k * f) * (x * f - k * f);
    nf++;
  }
  if (!isnan(mn))
    stats_minmax(st, mn, mx);
  if (nf)
    stats_chunk(st, nf, k, s, q);
}

/* The fast path for one chunk of floats; returns 0 if it holds NaN or
** infinities (nothing accumulated then). */
static int stats_fast(wt_stats *st, const float *restrict x, size_t n) {
  double k = st->n ? st->mean : x[0];
  wt_sums r = {0, 0, x[0], x[0], 0};
  if (isnan(k) || isinf(k) || st->scaled)
    return 0;
  wt_sums_add(x, n, k, &r);
  if (!isfinite(r.s) || !isfinite(r.q))
    return 0;
  st->count += n;
  st->zero_count += r.zeros;
  stats_minmax(st, r.mn, r.mx);
  stats_chunk(st, n, k, r.s, r.q);
  return 1;
}

void wt_stats_add_f32(wt_stats *st, const float *x, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    if (!stats_fast(st, x, m))
      stats_slow(st, x, NULL, m);
    x += m;
    n -= m;
  }
}

void wt_stats_add_f64(wt_stats *st, const double *x, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    stats_slow(st, NULL, x, m);
    x += m;
    n -= m;
  }
}

void wt_stats_merge(wt_stats *a, const wt_stats *b) {
  wt_stats bs;
  if (b->scaled || a->scaled) { /* both in scaled units */
    bs = *b;
    stats_scale(&bs);
    stats_scale(a);
    b = &bs;
  }
  a->count += b->count;
  a->nan_count += b->nan_count;
  a->inf_count += b->inf_count;
  a->zero_count += b->zero_count;
  if (!isnan(b->min))
    stats_minmax(a, b->min, b->max);
  a->sumsq += b->sumsq;
  stats_fold(a, b->n, b->mean, b->m2);
}

void wt_stats_summarize(const wt_stats *st, wt_stats_summary *out) {
  double n = (double)st->n, f = st->scaled ? STATS_UP : 1;
  out->mean = st->n ? st->mean : NAN;
  out->std = st->n ? wt_sqrt(st->m2 > 0 ? st->m2 / n : 0) * f : NAN;
  out->std_unb = st->n > 1 ? wt_sqrt(st->m2 > 0 ? st->m2 / (n - 1) : 0) * f : NAN;
  out->l2 = wt_sqrt(st->sumsq) * f;
  out->rms = st->n ? wt_sqrt(st->sumsq / n) * f : NAN;
}

int wt_stats_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t start,
                    uint64_t count, wt_stats *st, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  size_t m = WT_DECODE_CHUNK - (size_t)(start % c->block_values); /* then whole blocks */
  if (wt_range_check(c, nbytes, start, count, err) != 0)
    return -1;
  while (count > 0) {
    wt_sink s = {c->f32 ? NULL : buf.d, c->f32 ? buf.f : NULL};
    if (m > count)
      m = (size_t)count;
    wt_range_decode(c, src, start, m, s);
    if (c->f32)
      wt_stats_add_f32(st, buf.f, m);
    else
      wt_stats_add_f64(st, buf.d, m);
    start += m;
    count -= m;
    m = WT_DECODE_CHUNK;
  }
  return 0;
}
