/*
** decode_internal.h: what the files of ext/decode share and nobody
** else uses (layer: decode).  The public API is decode.h.
**
** decode_range.c checks and decodes ranges (wt_range_check,
** wt_range_decode); decode_stats.c and decode_compare.c stream through
** them; decode_simd.c holds the summing kernels (SSE2, AVX2 chosen at run
** time, portable lanes) behind wt_sums_add() and wt_csums_add().
*/
#ifndef WT_DECODE_INTERNAL_H
#define WT_DECODE_INTERNAL_H

#include "decode.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#else
#include <math.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WT_HOST_BE 1
#else
#define WT_HOST_BE 0
#endif

/* Square root of x >= 0.  With SSE2 the instruction itself, so that the
** module links without libm; elsewhere libm's sqrt (link with -lm). */
#if defined(__SSE2__)
static inline double wt_sqrt(double x) {
  return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
}
#else
#define wt_sqrt sqrt
#endif

/* The output of a range decode: doubles or floats. */
typedef struct wt_sink {
  double *d;
  float *f;
} wt_sink;

/* Check that [start, start + count) lies inside the tensor. */
int wt_range_check(const wt_codec *c, uint64_t nbytes, uint64_t start, uint64_t count,
                   wt_error *err);

/* Decode a checked range into the sink, step by step. */
void wt_range_decode(const wt_codec *c, const unsigned char *src, uint64_t start, size_t count,
                     wt_sink out);

/* Sums over a run of floats: s = sum(x - k), q = sum((x - k)^2), the
** min, max and count of zeros.  NaN and infinities make s or q non-finite
** (min and max are then meaningless). */
typedef struct wt_sums {
  double s, q;
  float mn, mx;
  uint64_t zeros;
} wt_sums;

/* Add x[0..n) to r, with the fastest kernel the CPU has. */
void wt_sums_add(const float *restrict x, size_t n, double k, wt_sums *r);

/* Sums over a run of float pairs, in the order of wt_compare's fields
** from sum_abs_diff: t[0] sum |d|, t[1] sum d^2, t[2] dot, t[3] |a|^2,
** t[4] |b|^2, t[5] max |d|; eq counts equal pairs. */
typedef struct wt_csums {
  double t[6];
  uint64_t eq;
} wt_csums;

/* Add the pairs (a[i], b[i]) for i < n to r, with the fastest kernel the
** CPU has. */
void wt_csums_add(const float *restrict a, const float *restrict b, size_t n, wt_csums *r);

#endif
