/*
** fuzz_decode.c: libFuzzer target for the decoders (ext/decode), with
** differential oracles.
**
** The input picks a codec and a slice; the rest is tensor bytes:
**   byte 0      format: 0 safetensors, 1 GGUF little-endian, 2 GGUF
**               big-endian (other values: little-endian GGUF)
**   byte 1      type: safetensors dtype index (mod 22) or ggml id (mod 43,
**               so every id of the table, the refused ones included)
**   bytes 2-5   start of the slice (mod values + 1)
**   bytes 6-9   count of the slice (mod what is left + 1)
**   bytes 10-11 where the stream is cut in two for the merged statistics
**   byte 12     bit 0: keep a trailing partial block (an error expected);
**               bits 1-3 all set: repeat the bytes into a tensor of about
**               2.5 WT_DECODE_CHUNK steps (at most 8 KiB), so that short
**               inputs cross the steps' boundaries
**   13...       the tensor's bytes (at most 8 KiB are used)
** Checks, beside "no crash, no sanitizer report":
**   - a size that is not whole blocks is refused, whole blocks are
**     accepted with blocks * block_values values;
**   - wt_decode_range, _f32 and _int of the slice equal the same slice of
**     the whole decode (bit for bit, any NaN equal to any NaN); _f32 is the
**     double decode rounded to float; _int equals the double decode where
**     a double holds it exactly; a range past the end is refused;
**   - the AVX2 kernels and the portable ones give the same values;
**   - statistics of the whole equal those of the two halves merged, and
**     those made with the portable kernels: count, n, nan_count,
**     inf_count, zero_count, min and max exactly (and equal to counts
**     made here from the decoded values; -0 and +0 count as the same min
**     or max, since which one comes out depends on the kernel), mean, m2
**     and sumsq within 1e-6 of their scale or 1e-300 (subnormal squares
**     lose their precision);
**   - a tensor compared with itself: every finite pair equal, no
**     difference.
** Built by `make fuzz`.
*/
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "formats/dtype.h"
#include "formats/ggml_type.h"

#define MAX_TENSOR 8192

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Two doubles are the same value: same bits, or both NaN. */
static int same_d(double a, double b) {
  union {
    double d;
    uint64_t u;
  } x = {a}, y = {b};
  return (isnan(a) && isnan(b)) || x.u == y.u;
}

static int same_f(float a, float b) {
  union {
    float f;
    uint32_t u;
  } x = {a}, y = {b};
  return (isnan(a) && isnan(b)) || x.u == y.u;
}

/* The same number: equal (so -0 and +0 are) or both NaN.  The min and
** max of a stream holding both zeros may be either zero: which one
** depends on the kernel (SSE2 or AVX2 lanes). */
static int same_num(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

/* |a - b| within tol, or both the same non-finite value. */
static int near(double a, double b, double tol) {
  if (!isfinite(a) || !isfinite(b) || !isfinite(tol))
    return 1; /* overflowed sums: only the counts are checked */
  return fabs(a - b) <= tol;
}

/* Statistics of values [start, start + count), or abort. */
static void stats_of(const wt_codec *c, const uint8_t *src, uint64_t nbytes, uint64_t start,
                     uint64_t count, wt_stats *st) {
  wt_error err;
  wt_stats_init(st);
  if (wt_stats_tensor(c, src, nbytes, start, count, st, &err) != 0)
    abort();
}

/* The exact parts of two statistics are equal, the sums near. */
static void check_stats(const wt_stats *a, const wt_stats *b, double maxabs) {
  /* m2 and sumsq are kept times 2^-1200 once a value beyond 2^500 is
  ** seen (regressions/decode-stats-m2-overflow): both must be so, and
  ** finite. */
  double m = a->scaled ? maxabs * 0x1p-600 : maxabs, scale = m * m * (double)(a->n + 1);
  if (a->scaled != b->scaled || !isfinite(a->m2) || !isfinite(b->m2) || !isfinite(a->sumsq) ||
      !isfinite(b->sumsq))
    abort();
  if (a->count != b->count || a->n != b->n || a->nan_count != b->nan_count ||
      a->inf_count != b->inf_count || a->zero_count != b->zero_count)
    abort();
  if (!same_num(a->min, b->min) || !same_num(a->max, b->max))
    abort();
  if (!near(a->mean, b->mean, 1e-6 * maxabs + 1e-300) ||
      !near(a->m2, b->m2, 1e-6 * scale + 1e-300) ||
      !near(a->sumsq, b->sumsq, 1e-6 * scale + 1e-300))
    abort();
}

/* The statistics agree with counts made here from the decoded values. */
static void check_counts(const wt_stats *st, const double *v, uint64_t n, double *maxabs) {
  uint64_t i, nan = 0, inf = 0, zero = 0, fin = 0;
  double mn = NAN, mx = NAN;
  *maxabs = 0;
  for (i = 0; i < n; i++) {
    double x = v[i];
    if (isnan(x)) {
      nan++;
      continue;
    }
    if (isnan(mn) || x < mn)
      mn = x;
    if (isnan(mx) || x > mx)
      mx = x;
    if (isinf(x)) {
      inf++;
      continue;
    }
    fin++;
    zero += x == 0;
    if (fabs(x) > *maxabs)
      *maxabs = fabs(x);
  }
  if (st->count != n || st->nan_count != nan || st->inf_count != inf || st->zero_count != zero ||
      st->n != fin)
    abort();
  if (!same_num(st->min, mn) || !same_num(st->max, mx))
    abort();
}

/* The std and l2 of wt_stats_summarize() agree with a two-pass sum made
** here in long double (whose exponent range holds any double's square):
** n std^2 with the squared deviations within 1e-6 of their scale, l2^2
** with the squares within 1e-6 (or +Inf when l2 is beyond DBL_MAX). */
static void check_moments(const wt_stats *st, const double *v, uint64_t n, double maxabs) {
  long double sum = 0, mean, m2 = 0, sq = 0, tol;
  uint64_t i, k = 0;
  wt_stats_summary sm;
  for (i = 0; i < n; i++)
    if (isfinite(v[i])) {
      sum += v[i];
      k++;
    }
  if (k == 0)
    return;
  mean = sum / (long double)k;
  for (i = 0; i < n; i++)
    if (isfinite(v[i])) {
      m2 += (v[i] - mean) * (v[i] - mean);
      sq += (long double)v[i] * v[i];
    }
  wt_stats_summarize(st, &sm);
  tol = 1e-6L * maxabs * maxabs * (long double)(k + 1) + 1e-300L;
  if (!(fabsl((long double)sm.std * sm.std * (long double)k - m2) <= tol))
    abort();
  if (sqrtl(sq) > DBL_MAX ? !isinf(sm.l2)
                          : !(fabsl((long double)sm.l2 * sm.l2 - sq) <= 1e-6L * sq + 1e-300L))
    abort();
}

/* Decode the whole tensor both ways, with the kernels chosen now. */
static void decode_all(const wt_codec *c, const uint8_t *src, uint64_t nbytes, uint64_t total,
                       double *d, float *f) {
  wt_error err;
  if (wt_decode_range(c, src, nbytes, 0, total, d, &err) != 0 ||
      wt_decode_range_f32(c, src, nbytes, 0, total, f, &err) != 0)
    abort();
}

static void check_slice(const wt_codec *c, const uint8_t *src, uint64_t nbytes, uint64_t total,
                        uint64_t start, uint64_t count, const double *whole_d,
                        const float *whole_f) {
  double *d = malloc((count + 1) * sizeof *d);
  float *f = malloc((count + 1) * sizeof *f);
  int64_t *iv = malloc((count + 1) * sizeof *iv);
  wt_error err;
  uint64_t i;
  if (wt_decode_range(c, src, nbytes, start, count, d, &err) != 0 ||
      wt_decode_range_f32(c, src, nbytes, start, count, f, &err) != 0)
    abort();
  for (i = 0; i < count; i++)
    if (!same_d(d[i], whole_d[start + i]) || !same_f(f[i], whole_f[start + i]))
      abort();
  if (c->kind == WT_KIND_INT || c->kind == WT_KIND_UINT || c->kind == WT_KIND_BOOL) {
    if (wt_decode_range_int(c, src, nbytes, start, count, iv, &err) != 0)
      abort();
    for (i = 0; i < count; i++) {
      double x = c->kind == WT_KIND_UINT ? (double)(uint64_t)iv[i] : (double)iv[i];
      if (fabs(d[i]) <= 9007199254740992.0 && x != d[i])
        abort();
    }
  } else if (wt_decode_range_int(c, src, nbytes, start, count, iv, &err) == 0) {
    abort(); /* not an integer type */
  }
  /* One value past the end is refused. */
  if (wt_decode_range(c, src, nbytes, start, total - start + 1, d, &err) == 0)
    abort();
  free(d);
  free(f);
  free(iv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const wt_codec *c;
  const uint8_t *src;
  uint8_t *tiled = NULL;
  uint64_t nbytes, total = 0, start, count, cut, i;
  double *d, *d2, maxabs;
  float *f, *f2;
  wt_stats whole, lo, hi;
  wt_compare cmp;
  wt_error err;
  int fmt, avx;
  if (size < 13)
    return 0;
  fmt = data[0] == 0 ? WT_FORMAT_SAFETENSORS : WT_FORMAT_GGUF;
  c = wt_codec_find(
      fmt, fmt == WT_FORMAT_SAFETENSORS ? data[1] % ST_DTYPE_COUNT : data[1] % GGML_TYPE_TABLE_SIZE,
      data[0] == 2, &err);
  if (c == NULL)
    return 0;
  src = data + 13;
  nbytes = size - 13 > MAX_TENSOR ? MAX_TENSOR : size - 13;
  if ((data[12] & 14) == 14 && nbytes > 0) {
    uint64_t n = (5 * WT_DECODE_CHUNK / 2 / c->block_values + 1) * c->block_bytes + (data[12] & 1);
    if (n > MAX_TENSOR)
      n = MAX_TENSOR;
    tiled = malloc(n);
    for (i = 0; i < n; i++)
      tiled[i] = src[i % nbytes];
    src = tiled;
    nbytes = n;
  }
  if (!(data[12] & 1))
    nbytes -= nbytes % c->block_bytes;
  if (wt_codec_count(c, nbytes, &total, &err) != 0) {
    if (nbytes % c->block_bytes == 0)
      abort();
    free(tiled);
    return 0;
  }
  if (nbytes % c->block_bytes != 0 || total != nbytes / c->block_bytes * c->block_values)
    abort();
  start = le32(data + 2) % (total + 1);
  count = le32(data + 6) % (total - start + 1);
  cut = ((uint64_t)data[10] | (uint64_t)data[11] << 8) % (total + 1);

  d = malloc((total + 1) * sizeof *d);
  d2 = malloc((total + 1) * sizeof *d2);
  f = malloc((total + 1) * sizeof *f);
  f2 = malloc((total + 1) * sizeof *f2);

  /* Portable kernels, then AVX2 ones when the CPU has them: same values. */
  avx = wt_cpu_avx2();
  wt_cpu_set_avx2(0);
  decode_all(c, src, nbytes, total, d, f);
  for (i = 0; i < total; i++)
    if (!same_f((float)d[i], f[i]))
      abort(); /* _f32 is the double decode rounded */
  if (wt_cpu_set_avx2(1)) {
    decode_all(c, src, nbytes, total, d2, f2);
    for (i = 0; i < total; i++)
      if (!same_d(d[i], d2[i]) || !same_f(f[i], f2[i]))
        abort();
  }
  check_slice(c, src, nbytes, total, start, count, d, f);

  /* Statistics: whole = the two halves merged = counts made here. */
  stats_of(c, src, nbytes, 0, total, &whole);
  check_counts(&whole, d, total, &maxabs);
  check_moments(&whole, d, total, maxabs);
  stats_of(c, src, nbytes, 0, cut, &lo);
  stats_of(c, src, nbytes, cut, total - cut, &hi);
  wt_stats_merge(&lo, &hi);
  check_stats(&whole, &lo, maxabs);
  wt_cpu_set_avx2(0);
  stats_of(c, src, nbytes, 0, total, &lo);
  check_stats(&whole, &lo, maxabs);
  stats_of(c, src, nbytes, start, count, &lo);
  check_counts(&lo, d + start, count, &maxabs);

  /* Compared with itself: no difference. */
  wt_compare_init(&cmp);
  if (wt_compare_tensors(c, src, nbytes, c, src, nbytes, start, count, &cmp, &err) != 0)
    abort();
  if (cmp.count != count || cmp.n_equal != cmp.n || cmp.nan_mismatch != 0 ||
      cmp.max_abs_diff != 0 || cmp.n + cmp.nonfinite != count)
    abort();
  wt_cpu_set_avx2(avx);
  free(d);
  free(d2);
  free(f);
  free(f2);
  free(tiled);
  return 0;
}
