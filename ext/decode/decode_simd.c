/*
** decode_simd.c: the summing kernels of statistics and comparison
** (layer: decode), behind wt_sums_add() and wt_csums_add()
** (decode_internal.h).
**
** Each kernel sums in double, in independent lanes: SSE2 on x86-64, AVX2
** with FMA when the CPU has it (wt_cpu_avx2(), chosen at run time), and
** elsewhere plain lanes that the compiler may vectorize; the values that
** do not fill a step are added one at a time.  The kernels do not look
** for NaN or infinities: the callers test the sums and redo a chunk the
** careful way.
*/
#include "decode_internal.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if WT_AVX2
#include <immintrin.h>
#endif

/* Lanes of the portable statistics loops. */
#define WT_LANES 8

/* Add x[0..n) to r, one value at a time. */
static void sums_scalar(const float *x, size_t n, double k, wt_sums *r) {
  size_t i;
  for (i = 0; i < n; i++) {
    double d = (double)x[i] - k;
    r->s += d;
    r->q += d * d;
    r->mn = x[i] < r->mn ? x[i] : r->mn;
    r->mx = x[i] > r->mx ? x[i] : r->mx;
    r->zeros += x[i] == 0.0f;
  }
}

#if defined(__SSE2__)
/* Add the first multiple of 8 values of x[0..n) to r, 8 a step: 4 double
** lanes for s and q, 4 float lanes for min, max and zeros.  Returns how
** many values it took. */
static size_t sums_vector(const float *restrict x, size_t n, double k, wt_sums *r) {
  __m128d kv = _mm_set1_pd(k), s = _mm_setzero_pd(), q = s, t = s, u = s;
  __m128 mn = _mm_set1_ps(r->mn), mx = _mm_set1_ps(r->mx), zero = _mm_setzero_ps();
  __m128i z = _mm_setzero_si128();
  double ds[2], dq[2];
  float fmn[4], fmx[4];
  int32_t iz[4];
  size_t i;
  int j;
  for (i = 0; i + 8 <= n; i += 8) {
    __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
    __m128d d0 = _mm_sub_pd(_mm_cvtps_pd(a), kv),
            d1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), kv);
    __m128d d2 = _mm_sub_pd(_mm_cvtps_pd(b), kv),
            d3 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(b, b)), kv);
    s = _mm_add_pd(s, _mm_add_pd(d0, d1));
    t = _mm_add_pd(t, _mm_add_pd(d2, d3));
    q = _mm_add_pd(q, _mm_add_pd(_mm_mul_pd(d0, d0), _mm_mul_pd(d1, d1)));
    u = _mm_add_pd(u, _mm_add_pd(_mm_mul_pd(d2, d2), _mm_mul_pd(d3, d3)));
    mn = _mm_min_ps(mn, _mm_min_ps(a, b));
    mx = _mm_max_ps(mx, _mm_max_ps(a, b));
    z = _mm_sub_epi32(z, _mm_castps_si128(_mm_cmpeq_ps(a, zero)));
    z = _mm_sub_epi32(z, _mm_castps_si128(_mm_cmpeq_ps(b, zero)));
  }
  _mm_storeu_pd(ds, _mm_add_pd(s, t));
  _mm_storeu_pd(dq, _mm_add_pd(q, u));
  _mm_storeu_ps(fmn, mn);
  _mm_storeu_ps(fmx, mx);
  _mm_storeu_si128((__m128i *)iz, z);
  r->s += ds[0] + ds[1];
  r->q += dq[0] + dq[1];
  for (j = 0; j < 4; j++) {
    r->mn = fmn[j] < r->mn ? fmn[j] : r->mn;
    r->mx = fmx[j] > r->mx ? fmx[j] : r->mx;
    r->zeros += (uint32_t)iz[j];
  }
  return i;
}
#else
/* Portable version: WT_LANES independent lanes the compiler may
** vectorize. */
static size_t sums_vector(const float *restrict x, size_t n, double k, wt_sums *r) {
  double s[WT_LANES] = {0}, q[WT_LANES] = {0};
  float mn[WT_LANES], mx[WT_LANES];
  uint32_t z[WT_LANES] = {0};
  size_t i, j;
  for (j = 0; j < WT_LANES; j++) {
    mn[j] = r->mn;
    mx[j] = r->mx;
  }
  for (i = 0; i + WT_LANES <= n; i += WT_LANES) {
    for (j = 0; j < WT_LANES; j++) {
      float v = x[i + j];
      double d = (double)v - k;
      s[j] += d;
      q[j] += d * d;
      mn[j] = v < mn[j] ? v : mn[j];
      mx[j] = v > mx[j] ? v : mx[j];
      z[j] += v == 0.0f;
    }
  }
  for (j = 0; j < WT_LANES; j++) {
    r->s += s[j];
    r->q += q[j];
    r->mn = mn[j] < r->mn ? mn[j] : r->mn;
    r->mx = mx[j] > r->mx ? mx[j] : r->mx;
    r->zeros += z[j];
  }
  return i;
}
#endif

#if WT_AVX2
/* sums_vector with AVX2 and FMA: 16 values a step, in 4 double lanes for
** s and q, 8 float lanes for min, max and zeros; one dependent add per
** accumulator and step. */
__attribute__((target("avx2,fma"))) static size_t sums_avx2(const float *restrict x, size_t n,
                                                            double k, wt_sums *r) {
  __m256d kv = _mm256_set1_pd(k), s = _mm256_setzero_pd(), q = s, u = s;
  __m256 mn = _mm256_set1_ps(r->mn), mx = _mm256_set1_ps(r->mx), zero = _mm256_setzero_ps();
  __m256i z = _mm256_setzero_si256();
  double ds[4], dq[4];
  float fmn[8], fmx[8];
  int32_t iz[8];
  size_t i;
  int j;
  for (i = 0; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), kv);
    __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), kv);
    __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), kv);
    __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), kv);
    s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(d0, d1), _mm256_add_pd(d2, d3)));
    q = _mm256_add_pd(q, _mm256_fmadd_pd(d0, d0, _mm256_mul_pd(d1, d1)));
    u = _mm256_add_pd(u, _mm256_fmadd_pd(d2, d2, _mm256_mul_pd(d3, d3)));
    mn = _mm256_min_ps(mn, _mm256_min_ps(a, b));
    mx = _mm256_max_ps(mx, _mm256_max_ps(a, b));
    z = _mm256_sub_epi32(z, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
    z = _mm256_sub_epi32(z, _mm256_castps_si256(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
  }
  _mm256_storeu_pd(ds, s);
  _mm256_storeu_pd(dq, _mm256_add_pd(q, u));
  _mm256_storeu_ps(fmn, mn);
  _mm256_storeu_ps(fmx, mx);
  _mm256_storeu_si256((__m256i *)iz, z);
  r->s += (ds[0] + ds[1]) + (ds[2] + ds[3]);
  r->q += (dq[0] + dq[1]) + (dq[2] + dq[3]);
  for (j = 0; j < 8; j++) {
    r->mn = fmn[j] < r->mn ? fmn[j] : r->mn;
    r->mx = fmx[j] > r->mx ? fmx[j] : r->mx;
    r->zeros += (uint32_t)iz[j];
  }
  return i;
}
#endif

void wt_sums_add(const float *restrict x, size_t n, double k, wt_sums *r) {
  size_t i;
#if WT_AVX2
  i = wt_cpu_avx2() ? sums_avx2(x, n, k, r) : sums_vector(x, n, k, r);
#else
  i = sums_vector(x, n, k, r);
#endif
  sums_scalar(x + i, n - i, k, r);
}

/* Add the pairs one at a time. */
static void csums_scalar(const float *a, const float *b, size_t n, wt_csums *r) {
  size_t i;
  for (i = 0; i < n; i++) {
    double x = a[i], y = b[i], d = x - y, ad = fabs(d);
    r->t[0] += ad;
    r->t[1] += d * d;
    r->t[2] += x * y;
    r->t[3] += x * x;
    r->t[4] += y * y;
    r->t[5] = ad > r->t[5] ? ad : r->t[5];
    r->eq += x == y;
  }
}

#if defined(__SSE2__)
/* Add the first multiple of 4 pairs, 4 a step in double lanes.  Returns
** how many pairs it took. */
static size_t csums_vector(const float *restrict a, const float *restrict b, size_t n,
                           wt_csums *r) {
  __m128d acc[6], abs = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  __m128i eq = _mm_setzero_si128();
  double v[2];
  int32_t ie[4];
  size_t i;
  int j;
  for (j = 0; j < 6; j++)
    acc[j] = _mm_setzero_pd();
  for (i = 0; i + 4 <= n; i += 4) {
    __m128 va = _mm_loadu_ps(a + i), vb = _mm_loadu_ps(b + i);
    __m128d a0 = _mm_cvtps_pd(va), a1 = _mm_cvtps_pd(_mm_movehl_ps(va, va));
    __m128d b0 = _mm_cvtps_pd(vb), b1 = _mm_cvtps_pd(_mm_movehl_ps(vb, vb));
    __m128d d0 = _mm_sub_pd(a0, b0), d1 = _mm_sub_pd(a1, b1);
    __m128d e0 = _mm_and_pd(d0, abs), e1 = _mm_and_pd(d1, abs);
    acc[0] = _mm_add_pd(acc[0], _mm_add_pd(e0, e1));
    acc[1] = _mm_add_pd(acc[1], _mm_add_pd(_mm_mul_pd(d0, d0), _mm_mul_pd(d1, d1)));
    acc[2] = _mm_add_pd(acc[2], _mm_add_pd(_mm_mul_pd(a0, b0), _mm_mul_pd(a1, b1)));
    acc[3] = _mm_add_pd(acc[3], _mm_add_pd(_mm_mul_pd(a0, a0), _mm_mul_pd(a1, a1)));
    acc[4] = _mm_add_pd(acc[4], _mm_add_pd(_mm_mul_pd(b0, b0), _mm_mul_pd(b1, b1)));
    acc[5] = _mm_max_pd(acc[5], _mm_max_pd(e0, e1));
    eq = _mm_sub_epi32(eq, _mm_castps_si128(_mm_cmpeq_ps(va, vb)));
  }
  for (j = 0; j < 5; j++) {
    _mm_storeu_pd(v, acc[j]);
    r->t[j] += v[0] + v[1];
  }
  _mm_storeu_pd(v, acc[5]);
  v[0] = v[0] > v[1] ? v[0] : v[1];
  r->t[5] = v[0] > r->t[5] ? v[0] : r->t[5];
  _mm_storeu_si128((__m128i *)ie, eq);
  r->eq += (uint64_t)ie[0] + (uint32_t)ie[1] + (uint32_t)ie[2] + (uint32_t)ie[3];
  return i;
}
#else
/* Portable version: nothing vectorized by hand. */
static size_t csums_vector(const float *restrict a, const float *restrict b, size_t n,
                           wt_csums *r) {
  (void)a;
  (void)b;
  (void)n;
  (void)r;
  return 0;
}
#endif

#if WT_AVX2
/* csums_vector with AVX2 and FMA: 4 pairs a step in 4 double lanes. */
__attribute__((target("avx2,fma"))) static size_t
csums_avx2(const float *restrict a, const float *restrict b, size_t n, wt_csums *r) {
  __m256d acc[6], abs = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  __m128i eq = _mm_setzero_si128();
  double v[4];
  int32_t ie[4];
  size_t i;
  int j;
  for (j = 0; j < 6; j++)
    acc[j] = _mm256_setzero_pd();
  for (i = 0; i + 4 <= n; i += 4) {
    __m128 va = _mm_loadu_ps(a + i), vb = _mm_loadu_ps(b + i);
    __m256d x = _mm256_cvtps_pd(va), y = _mm256_cvtps_pd(vb), d = _mm256_sub_pd(x, y);
    __m256d e = _mm256_and_pd(d, abs);
    acc[0] = _mm256_add_pd(acc[0], e);
    acc[1] = _mm256_fmadd_pd(d, d, acc[1]);
    acc[2] = _mm256_fmadd_pd(x, y, acc[2]);
    acc[3] = _mm256_fmadd_pd(x, x, acc[3]);
    acc[4] = _mm256_fmadd_pd(y, y, acc[4]);
    acc[5] = _mm256_max_pd(acc[5], e);
    eq = _mm_sub_epi32(eq, _mm_castps_si128(_mm_cmpeq_ps(va, vb)));
  }
  for (j = 0; j < 5; j++) {
    _mm256_storeu_pd(v, acc[j]);
    r->t[j] += (v[0] + v[1]) + (v[2] + v[3]);
  }
  _mm256_storeu_pd(v, acc[5]);
  for (j = 0; j < 4; j++)
    r->t[5] = v[j] > r->t[5] ? v[j] : r->t[5];
  _mm_storeu_si128((__m128i *)ie, eq);
  r->eq += (uint64_t)(uint32_t)ie[0] + (uint32_t)ie[1] + (uint32_t)ie[2] + (uint32_t)ie[3];
  return i;
}
#endif

void wt_csums_add(const float *restrict a, const float *restrict b, size_t n, wt_csums *r) {
  size_t i;
#if WT_AVX2
  i = wt_cpu_avx2() ? csums_avx2(a, b, n, r) : csums_vector(a, b, n, r);
#else
  i = csums_vector(a, b, n, r);
#endif
  csums_scalar(a + i, b + i, n - i, r);
}
