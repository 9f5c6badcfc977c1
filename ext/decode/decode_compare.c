/*
** decode_compare.c: the streaming comparison accumulator (layer: decode):
** wt_compare_*() of decode.h, for tensor_compare().
**
** Chunks of float pairs are summed in double by the kernels of
** decode_simd.c (sum |a - b|, sum (a - b)^2, a.b, |a|^2, |b|^2, max
** |a - b|, equal pairs); a chunk whose sums come out NaN or infinite is
** redone by the careful scalar path, which counts pairs with a NaN or an
** infinity apart and leaves them out.  Double-native values always take
** the careful path, which also switches to scaled sums at the first value
** beyond 2^500 (decode.h; a float never is).
*/
#include "decode_internal.h"

#include <math.h>
#include <string.h>

#define COMPARE_BIG  0x1p500  /* beyond this a value's square may overflow */
#define COMPARE_DOWN 0x1p-600 /* scaled: values times this */
#define COMPARE_UP   0x1p600  /* and sums and roots of squares back */

void wt_compare_init(wt_compare *cmp) {
  memset(cmp, 0, sizeof(*cmp));
}

/* Switch cmp to scaled sums (decode.h). */
static void compare_scale(wt_compare *cmp) {
  if (cmp->scaled)
    return;
  cmp->sum_abs_diff *= COMPARE_DOWN;
  cmp->sum_sq_diff = cmp->sum_sq_diff * COMPARE_DOWN * COMPARE_DOWN; /* 2^-1200 is no double */
  cmp->dot = cmp->dot * COMPARE_DOWN * COMPARE_DOWN;
  cmp->norm_a = cmp->norm_a * COMPARE_DOWN * COMPARE_DOWN;
  cmp->norm_b = cmp->norm_b * COMPARE_DOWN * COMPARE_DOWN;
  cmp->scaled = 1;
}

/* The careful path: pairs with a NaN or an infinity are counted only. */
static void compare_slow(wt_compare *cmp, const float *af, const float *bf, const double *ad,
                         const double *bd, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    double a = af ? af[i] : ad[i], b = bf ? bf[i] : bd[i], d;
    cmp->count++;
    if (!isfinite(a) || !isfinite(b)) {
      cmp->nonfinite++;
      cmp->nan_mismatch += isnan(a) != isnan(b);
      continue;
    }
    d = fabs(a - b); /* +Inf when the difference is beyond DBL_MAX */
    cmp->n++;
    cmp->n_equal += a == b;
    cmp->max_abs_diff = d > cmp->max_abs_diff ? d : cmp->max_abs_diff;
    if (!cmp->scaled && (fabs(a) > COMPARE_BIG || fabs(b) > COMPARE_BIG))
      compare_scale(cmp);
    if (cmp->scaled) {
      a *= COMPARE_DOWN;
      b *= COMPARE_DOWN;
      d = fabs(a - b);
    }
    cmp->sum_abs_diff += d;
    cmp->sum_sq_diff += d * d;
    cmp->dot += a * b;
    cmp->norm_a += a * a;
    cmp->norm_b += b * b;
  }
}

/* The fast path for one chunk of floats; returns 0 (nothing added) if a
** value is NaN or infinite. */
static int compare_fast(wt_compare *cmp, const float *restrict a, const float *restrict b,
                        size_t n) {
  wt_csums r;
  memset(&r, 0, sizeof(r));
  wt_csums_add(a, b, n, &r);
  /* a NaN or infinity makes the squares (non-negative) NaN or infinite */
  if (!isfinite(r.t[1] + r.t[3] + r.t[4]))
    return 0;
  cmp->count += n;
  cmp->n += n;
  cmp->n_equal += r.eq;
  cmp->sum_abs_diff += r.t[0];
  cmp->sum_sq_diff += r.t[1];
  cmp->dot += r.t[2];
  cmp->norm_a += r.t[3];
  cmp->norm_b += r.t[4];
  cmp->max_abs_diff = r.t[5] > cmp->max_abs_diff ? r.t[5] : cmp->max_abs_diff;
  return 1;
}

void wt_compare_add_f32(wt_compare *cmp, const float *a, const float *b, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    if (cmp->scaled || !compare_fast(cmp, a, b, m))
      compare_slow(cmp, a, b, NULL, NULL, m);
    a += m;
    b += m;
    n -= m;
  }
}

void wt_compare_add_f64(wt_compare *cmp, const double *a, const double *b, size_t n) {
  compare_slow(cmp, NULL, NULL, a, b, n);
}

void wt_compare_merge(wt_compare *a, const wt_compare *b) {
  wt_compare bs;
  if (b->scaled || a->scaled) { /* both in scaled units */
    bs = *b;
    compare_scale(&bs);
    compare_scale(a);
    b = &bs;
  }
  a->count += b->count;
  a->n += b->n;
  a->nonfinite += b->nonfinite;
  a->nan_mismatch += b->nan_mismatch;
  a->n_equal += b->n_equal;
  a->max_abs_diff = b->max_abs_diff > a->max_abs_diff ? b->max_abs_diff : a->max_abs_diff;
  a->sum_abs_diff += b->sum_abs_diff;
  a->sum_sq_diff += b->sum_sq_diff;
  a->dot += b->dot;
  a->norm_a += b->norm_a;
  a->norm_b += b->norm_b;
}

void wt_compare_summarize(const wt_compare *cmp, wt_compare_summary *out) {
  double n = (double)cmp->n, den = wt_sqrt(cmp->norm_a) * wt_sqrt(cmp->norm_b);
  double f = cmp->scaled ? COMPARE_UP : 1;
  out->max_abs_diff = cmp->max_abs_diff;
  out->mean_abs_diff = cmp->n ? cmp->sum_abs_diff / n * f : NAN;
  out->rmse = cmp->n ? wt_sqrt(cmp->sum_sq_diff / n) * f : NAN;
  out->cosine = den > 0 ? cmp->dot / den : NAN;
  out->rel_l2 = cmp->norm_a > 0 ? wt_sqrt(cmp->sum_sq_diff) / wt_sqrt(cmp->norm_a) : NAN;
  if (out->cosine > 1)
    out->cosine = 1; /* rounding of identical streams */
  else if (out->cosine < -1)
    out->cosine = -1;
}

int wt_compare_tensors(const wt_codec *ca, const unsigned char *srca, uint64_t nbytesa,
                       const wt_codec *cb, const unsigned char *srcb, uint64_t nbytesb,
                       uint64_t start, uint64_t count, wt_compare *cmp, wt_error *err) {
  int wide = ca->f64 != NULL || cb->f64 != NULL;
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } a, b;
  if (wt_range_check(ca, nbytesa, start, count, err) != 0 ||
      wt_range_check(cb, nbytesb, start, count, err) != 0)
    return -1;
  while (count > 0) {
    size_t m = count < WT_DECODE_CHUNK ? (size_t)count : WT_DECODE_CHUNK;
    wt_sink sa = {wide ? a.d : NULL, wide ? NULL : a.f};
    wt_sink sb = {wide ? b.d : NULL, wide ? NULL : b.f};
    wt_range_decode(ca, srca, start, m, sa);
    wt_range_decode(cb, srcb, start, m, sb);
    if (wide)
      wt_compare_add_f64(cmp, a.d, b.d, m);
    else
      wt_compare_add_f32(cmp, a.f, b.f, m);
    start += m;
    count -= m;
  }
  return 0;
}
