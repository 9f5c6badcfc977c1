/*
** histogram.c: equal-width histograms of decoded tensor values.  See
** histogram.h.  Layer: decode, pure C (malloc for the bins, bounded by
** WT_HIST_MAX_BINS).
**
** Bins.  A value's bin is estimated as t = (x/2 - lo/2) * (bins / (hi/2 -
** lo/2)) and k = floor(t); when t lies within eps of a bin's edge (eps
** bounds the rounding of t and of the edges, set in wt_hist_init), the
** edges as wt_hist_edge() gives them decide, so the bins and the edges
** shown agree exactly.  NaN, infinities, values outside [lo, hi] (and the
** odd range too narrow or too wide for the estimate) take a slow path
** that counts them one by one.  With AVX2 the estimates of 8 floats are
** computed at once in float (a coarser epsf, from the actual rounding of
** the estimate's constants).
**
** Counting.  A peaked distribution sends long runs of values to the same
** bin, and increments of one memory word wait on each other; so with up
** to WT_HIST_LANE_BINS bins, value i is counted in copy i mod 8 of the
** bins (32-bit counts), and the copies are summed into count when a call
** ends (or, inside wt_hist_tensor, at the end of the tensor).  The
** minimum and maximum pass of wt_hist_range is vectorized too.
*/
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if WT_AVX2
#include <immintrin.h>
#endif

/* Copies of the counts, used when there are at most WT_HIST_LANE_BINS bins
** (8 x 4096 x 4 bytes = 128 KB at most). */
#define WT_HIST_LANES     8
#define WT_HIST_LANE_BINS 4096

/* Values counted in the copies before they are summed (no 32-bit count
** can overflow). */
#define WT_HIST_FLUSH ((uint64_t)1 << 31)

/* ================================== Bins ================================== */

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
  if (h->bins <= WT_HIST_LANE_BINS)
    h->lanes = calloc((size_t)WT_HIST_LANES * h->bins, sizeof(uint32_t));
  if (h->count == NULL || h->edge == NULL || (h->bins <= WT_HIST_LANE_BINS && h->lanes == NULL)) {
    wt_hist_free(h);
    return wt_fail(err, "out of memory for %u bins", bins);
  }
  for (k = 0; k <= h->bins; k++)
    h->edge[k] = wt_hist_edge(h, k);
  /* The estimate of a value's position and the edges each err by a few
  ** units in the last place of |lo| + |hi|, in bins: 8 2^-52 R at most,
  ** R = bins (|lo| + |hi|) / (hi - lo); eps is 8 times that. */
  h->eps = lo == hi ? 1 : 64 * 0x1p-52 * h->bins * ((fabs(lo) + fabs(hi)) / (hi - lo));
  if (!(h->eps < 0.25))
    h->eps = 1; /* no fast path */
  /* The same for the estimate in float (AVX2), t = fl(x af - bf) with af,
  ** bf the float roundings of a = bins / (hi - lo) and b = lo a: off by at
  ** most max(|lo|, |hi|) |af - a| + |bf - b| + bins 2^-24 (one rounding of
  ** t, |t| < bins); epsf is twice that, plus the edges' own error. */
  {
    double half_lo = lo * 0.5, span = hi * 0.5 - half_lo, inv = span > 0 ? h->bins / span : 0;
    double a = 0.5 * inv, b = half_lo * inv, m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    h->af = (float)a;
    h->bf = (float)b;
    h->epsf =
        lo == hi ? 1 : 2 * (m * fabs(h->af - a) + fabs(h->bf - b) + h->bins * 0x1p-24) + h->eps;
    if (!(h->epsf < 0.25) || !isfinite(h->af) || !isfinite(h->bf))
      h->epsf = 1;
  }
  return 0;
}

void wt_hist_free(wt_hist *h) {
  free(h->count);
  free(h->edge);
  free(h->lanes);
  h->count = NULL;
  h->edge = NULL;
  h->lanes = NULL;
}

/* ============================ Counting values ============================= */

/* Sum the copies into count and clear them. */
static void hist_flush(wt_hist *h) {
  uint32_t k, j;
  if (h->lanes == NULL || h->pending == 0)
    return;
  for (j = 0; j < WT_HIST_LANES; j++)
    for (k = 0; k < h->bins; k++) {
      h->count[k] += h->lanes[j * h->bins + k];
      h->lanes[j * h->bins + k] = 0;
    }
  h->pending = 0;
}

/* Count one in bin k, for the value at position i of its batch. */
static inline void hist_inc(wt_hist *h, uint32_t k, size_t i) {
  if (h->lanes)
    h->lanes[(i % WT_HIST_LANES) * h->bins + k]++;
  else
    h->count[k]++;
}

/* The slow path of one value: NaN, infinite, outside [lo, hi], or one
** whose estimated bin is off: found from the edges, counted straight into
** count. */
static void hist_slow(wt_hist *h, double x, double half_lo, double inv, uint64_t w) {
  uint32_t k;
  double t;
  if (!(x >= h->lo && x <= h->hi)) {
    if (isnan(x))
      h->nan += w;
    else if (isinf(x))
      h->inf += w;
    else if (x < h->lo)
      h->below += w;
    else
      h->above += w;
    return;
  }
  t = (x * 0.5 - half_lo) * inv;
  k = t >= 0 && t < h->bins ? (uint32_t)t : t >= h->bins ? h->bins - 1 : 0;
  while (k > 0 && x < h->edge[k])
    k--;
  while (k + 1 < h->bins && x >= h->edge[k + 1])
    k++;
  h->count[k] += w;
}

/* Count one value x whose estimate is t: bin floor(t) when edge(k) <= x <
** edge(k + 1), which is nearly always, else the slow path. */
static inline void hist_one(wt_hist *h, double x, double t, double half_lo, double inv, size_t i) {
  uint32_t k;
  if (!(t >= 0 && t < h->bins)) {
    hist_slow(h, x, half_lo, inv, 1);
    return;
  }
  k = (uint32_t)t;
  if (x < h->edge[k] || x >= h->edge[k + 1])
    hist_slow(h, x, half_lo, inv, 1);
  else
    hist_inc(h, k, i);
}

#if WT_AVX2
/* Floats with AVX2 and FMA, 8 a step: the estimates t in float lanes (off
** by less than h->epsf).  A step whose 8 estimates lie inside [0, bins)
** takes floor(t), except a value whose t is within epsf of an edge: that
** one (inside [lo, hi], checked in double) is moved by one bin where the
** edges say so (one bin is enough, since epsf < 1/4).  Any other step
** goes value by value.  Returns how many values it took. */
__attribute__((target("avx2,fma"))) static size_t hist_avx2(wt_hist *h, const float *restrict x,
                                                            size_t m, double half_lo, double inv) {
  const __m256 a = _mm256_set1_ps(h->af), b = _mm256_set1_ps(h->bf);
  const __m256 zero = _mm256_setzero_ps(), nb = _mm256_set1_ps((float)h->bins);
  const __m256 lo_eps = _mm256_set1_ps((float)h->epsf), hi_eps = _mm256_set1_ps(1 - (float)h->epsf);
  const double *edge = h->edge, lo = h->lo, hi = h->hi;
  const int32_t last = (int32_t)h->bins - 1;
  const int32_t nbins = (int32_t)h->bins;
  /* value j goes to copy j of the counts: its bin plus j bins (32-bit
  ** counts), or straight to the 64-bit counts without copies */
  const __m256i off = h->lanes ? _mm256_set_epi32(7 * nbins, 6 * nbins, 5 * nbins, 4 * nbins,
                                                  3 * nbins, 2 * nbins, nbins, 0)
                               : _mm256_setzero_si256();
  uint32_t *lanes = h->lanes;
  int32_t k[8];
  size_t i;
  int j;
  for (i = 0; i + 8 <= m; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i), t = _mm256_fmsub_ps(v, a, b), f = _mm256_floor_ps(t);
    __m256 r = _mm256_sub_ps(t, f);
    __m256 in = _mm256_and_ps(_mm256_cmp_ps(t, zero, _CMP_GE_OQ), _mm256_cmp_ps(t, nb, _CMP_LT_OQ));
    __m256 nr =
        _mm256_or_ps(_mm256_cmp_ps(r, lo_eps, _CMP_LT_OQ), _mm256_cmp_ps(r, hi_eps, _CMP_GT_OQ));
    int ok = _mm256_movemask_ps(in) == 255, near = _mm256_movemask_ps(nr);
    _mm256_storeu_si256((__m256i *)k, _mm256_add_epi32(_mm256_cvttps_epi32(f), off));
    while (ok && near != 0) { /* a value on or next to an edge: the edges decide */
      int jj = __builtin_ctz((unsigned)near);
      double xv = x[i + jj];
      int32_t o = lanes ? jj * nbins : 0, q = k[jj] - o;
      near &= near - 1;
      if (xv < lo || xv > hi) {
        ok = 0;
        break;
      }
      q -= (q > 0) & (xv < edge[q]); /* one bin down or up: epsf < 1/4 */
      q += (q < last) & (xv >= edge[q + 1]);
      k[jj] = q + o;
    }
    if (!ok) { /* NaN, infinite or outside: value by value */
      for (j = 0; j < 8; j++) {
        double xv = x[i + j];
        hist_one(h, xv, (xv * 0.5 - half_lo) * inv, half_lo, inv, (size_t)j);
      }
      continue;
    }
    if (lanes) {
      lanes[k[0]]++;
      lanes[k[1]]++;
      lanes[k[2]]++;
      lanes[k[3]]++;
      lanes[k[4]]++;
      lanes[k[5]]++;
      lanes[k[6]]++;
      lanes[k[7]]++;
    } else {
      for (j = 0; j < 8; j++)
        h->count[k[j]]++;
    }
  }
  return i;
}
#endif

/* Add n values, floats (xf) or doubles (xd; the other NULL), leaving the
** copies unsummed. */
static void hist_add(wt_hist *h, const float *xf, const double *xd, size_t n) {
  double half_lo = h->lo * 0.5, span = h->hi * 0.5 - half_lo;
  double inv = span > 0 ? h->bins / span : 0;
  size_t i = 0;
  if (!(inv < 1e300)) /* a range so narrow that the estimate overflows */
    inv = 0;
  if (h->pending + n > WT_HIST_FLUSH)
    hist_flush(h);
  h->pending += n;
  h->total += n;
#if WT_AVX2
  if (xf && h->epsf < 0.25 && wt_cpu_avx2())
    i = hist_avx2(h, xf, n, half_lo, inv);
#endif
  for (; i < n; i++) {
    double x = xf ? (double)xf[i] : xd[i];
    hist_one(h, x, (x * 0.5 - half_lo) * inv, half_lo, inv, i);
  }
}

void wt_hist_add_f32(wt_hist *h, const float *x, size_t n) {
  hist_add(h, x, NULL, n);
  hist_flush(h);
}

/* ============================= Tensor ranges ============================== */

/* Decode values [start, start + m) into buf: floats for the float-native
** codecs, doubles for the others. */
static int decode_chunk(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t m, float *f, double *d, wt_error *err) {
  if (c->f32)
    return wt_decode_range_f32(c, src, nbytes, start, m, f, err);
  return wt_decode_range(c, src, nbytes, start, m, d, err);
}

#if WT_AVX2
/* minmax_f32 with AVX2, 8 a step: a value that is not finite (x - x is
** not 0) is replaced by +Inf for the minimum and -Inf for the maximum.
** Returns how many values it took. */
__attribute__((target("avx2"))) static size_t minmax_avx2(const float *restrict x, size_t n,
                                                          float *mn, float *mx) {
  __m256 a = _mm256_set1_ps(*mn), b = _mm256_set1_ps(*mx), zero = _mm256_setzero_ps();
  __m256 pinf = _mm256_set1_ps(INFINITY), ninf = _mm256_set1_ps(-INFINITY);
  float fa[8], fb[8];
  size_t i;
  int j;
  for (i = 0; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 fin = _mm256_cmp_ps(_mm256_sub_ps(v, v), zero, _CMP_EQ_OQ);
    a = _mm256_min_ps(a, _mm256_blendv_ps(pinf, v, fin));
    b = _mm256_max_ps(b, _mm256_blendv_ps(ninf, v, fin));
  }
  _mm256_storeu_ps(fa, a);
  _mm256_storeu_ps(fb, b);
  for (j = 0; j < 8; j++) {
    *mn = fa[j] < *mn ? fa[j] : *mn;
    *mx = fb[j] > *mx ? fb[j] : *mx;
  }
  return i;
}
#endif

/* The finite minimum and maximum of n floats, into *mn, *mx. */
static void minmax_f32(const float *restrict x, size_t n, float *mn, float *mx) {
  float a = *mn, b = *mx;
  size_t i = 0;
#if WT_AVX2
  if (wt_cpu_avx2())
    i = minmax_avx2(x, n, &a, &b);
#endif
  for (; i < n; i++) {
    float v = x[i];
    if (v - v == 0) { /* finite */
      a = v < a ? v : a;
      b = v > b ? v : b;
    }
  }
  *mn = a;
  *mx = b;
}

int wt_hist_range(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t first,
                  uint64_t count, double *lo, double *hi, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  double mn = *lo, mx = *hi;
  uint64_t start;
  size_t i;
  for (start = 0; start < count; start += WT_DECODE_CHUNK) {
    size_t m = count - start < WT_DECODE_CHUNK ? (size_t)(count - start) : WT_DECODE_CHUNK;
    if (decode_chunk(c, src, nbytes, first + start, m, buf.f, buf.d, err) != 0)
      return -1;
    if (c->f32) {
      float fmn = INFINITY, fmx = -INFINITY;
      minmax_f32(buf.f, m, &fmn, &fmx);
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
  *lo = mn;
  *hi = mx;
  return 0;
}

int wt_hist_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t first,
                   uint64_t count, wt_hist *h, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  uint64_t start;
  for (start = 0; start < count; start += WT_DECODE_CHUNK) {
    size_t m = count - start < WT_DECODE_CHUNK ? (size_t)(count - start) : WT_DECODE_CHUNK;
    if (decode_chunk(c, src, nbytes, first + start, m, buf.f, buf.d, err) != 0)
      return -1;
    hist_add(h, c->f32 ? buf.f : NULL, c->f32 ? NULL : buf.d, m);
  }
  hist_flush(h);
  return 0;
}

/* ======================= 16-bit pattern histograms ======================== */

int wt_hist16_usable(const wt_codec *c) {
  static const uint16_t one = 1;
  return c->block_values == 1 && c->block_bytes == 2 && c->elem_values == 1 && c->swap == NULL &&
         !c->scaled && c->f32 != NULL && *(const unsigned char *)&one == 1;
}

int wt_hist16_init(wt_hist16 *p, wt_error *err) {
  p->pending = 0;
  p->lane = calloc(WT_HIST16_PATTERNS, sizeof(uint32_t));
  p->count = calloc(WT_HIST16_PATTERNS, sizeof(uint64_t));
  if (p->lane == NULL || p->count == NULL) {
    wt_hist16_free(p);
    return wt_fail(err, "out of memory for the 65,536 counts of a 16-bit histogram");
  }
  return 0;
}

void wt_hist16_free(wt_hist16 *p) {
  free(p->lane);
  free(p->count);
  p->lane = NULL;
  p->count = NULL;
}

/* Sum the 32-bit counts into the 64-bit ones and clear them. */
static void hist16_flush(wt_hist16 *p) {
  uint32_t k;
  for (k = 0; k < WT_HIST16_PATTERNS; k++) {
    p->count[k] += p->lane[k];
    p->lane[k] = 0;
  }
  p->pending = 0;
}

void wt_hist16_count(wt_hist16 *p, const unsigned char *src, size_t n) {
  uint32_t *lane = p->lane;
  size_t i;
  if (p->pending + n > WT_HIST_FLUSH)
    hist16_flush(p);
  p->pending += n;
  for (i = 0; i < n; i++) {
    uint16_t b;
    memcpy(&b, src + 2 * i, 2);
    lane[b]++;
  }
}

/* The value of bit pattern b, decoded by c (host order: usable). */
static float hist16_value(const wt_codec *c, uint32_t b) {
  uint16_t u = (uint16_t)b;
  unsigned char bytes[2];
  float v;
  memcpy(bytes, &u, 2);
  c->f32(bytes, 1, &v);
  return v;
}

void wt_hist16_range(wt_hist16 *p, const wt_codec *c, double *lo, double *hi) {
  float mn = INFINITY, mx = -INFINITY;
  uint32_t b;
  hist16_flush(p);
  for (b = 0; b < WT_HIST16_PATTERNS; b++) {
    float v;
    if (p->count[b] == 0)
      continue;
    v = hist16_value(c, b);
    if (v - v == 0) { /* finite */
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
  }
  *lo = mn < *lo ? mn : *lo;
  *hi = mx > *hi ? mx : *hi;
}

void wt_hist16_fill(wt_hist16 *p, const wt_codec *c, wt_hist *h) {
  double half_lo = h->lo * 0.5, span = h->hi * 0.5 - half_lo;
  double inv = span > 0 ? h->bins / span : 0;
  uint32_t b;
  if (!(inv < 1e300))
    inv = 0;
  hist16_flush(p);
  for (b = 0; b < WT_HIST16_PATTERNS; b++) {
    if (p->count[b] == 0)
      continue;
    h->total += p->count[b];
    hist_slow(h, hist16_value(c, b), half_lo, inv, p->count[b]);
  }
}
