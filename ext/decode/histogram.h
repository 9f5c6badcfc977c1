/*
** histogram.h: a histogram of a stream of values.  Pure C, no
** SQLite: the table tensor_histogram() (ext/sql/histogram_table.c) is
** built on it.  Layer: decode.
**
** bins equal-width bins over [lo, hi]: bin k covers [edge(k), edge(k+1)),
** the last bin also holds hi, with edge(k) = lo + 2 ((hi/2 - lo/2) k /
** bins) in double (the halves keep any finite range finite; edge(bins) =
** hi).  A value goes to the bin whose edges, as
** wt_hist_edge() computes them, enclose it, so a value exactly on an edge
** is counted in the bin that starts there.  When lo == hi there is one
** bin, [lo, lo], whatever bins says.  NaN values are counted in nan,
** infinities in inf (never in a bin), finite values below lo in below and
** above hi in above; so count = sum of the bins + nan + inf + below +
** above.
**
** The default range of a tensor is its finite minimum .. maximum,
** found by wt_hist_range() in a first pass (infinities and NaN left out;
** BF16 and F16 use the one-pass pattern counts below instead);
** wt_hist_tensor() then decodes the tensor once more to fill the bins.
** Decoding is decode.h's (every decodable type, floats or doubles).
*/
#ifndef WT_HISTOGRAM_H
#define WT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"

/* The most bins a histogram may have (bounds its memory: 16 bytes a bin,
** and 32 more for up to 4,096 bins). */
#define WT_HIST_MAX_BINS 100000

typedef struct wt_hist {
  double lo, hi;
  uint32_t bins;    /* 1 when lo == hi */
  uint64_t *count;  /* bins counts */
  double *edge;     /* bins + 1 edges */
  uint32_t *lanes;  /* 8 copies of the counts (histogram.c), or NULL */
  uint64_t pending; /* values counted in lanes and not yet in count */
  double eps;       /* how far inside a bin an estimate must be to skip the edges (histogram.c) */
  double epsf;      /* the same for an estimate computed in float */
  float af, bf;     /* that estimate: x af - bf */
  uint64_t total;   /* every value seen */
  uint64_t nan, inf, below, above;
} wt_hist;

/* Set up h for bins bins over [lo, hi] (finite, lo <= hi, 1 <= bins <=
** WT_HIST_MAX_BINS; checked), allocating its arrays with malloc.  Returns
** 0, or -1 with an error. */
int wt_hist_init(wt_hist *h, double lo, double hi, uint32_t bins, wt_error *err);
void wt_hist_free(wt_hist *h);

/* edge(k) for k = 0 .. bins. */
double wt_hist_edge(const wt_hist *h, uint32_t k);

/* Add n values (for tests only: the module adds decoded tensor bytes with
** wt_hist_tensor). */
void wt_hist_add_f32(wt_hist *h, const float *x, size_t n);

/* Fold the finite values [first, first + count) of the blocks src[0..nbytes)
** decoded with codec c into the running minimum *lo and maximum *hi (start
** them at +INFINITY and -INFINITY; *lo > *hi afterwards when no value was
** finite).  A tensor is streamed in any number of calls. */
int wt_hist_range(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t first,
                  uint64_t count, double *lo, double *hi, wt_error *err);

/* Add the values [first, first + count) of the blocks src[0..nbytes) to h;
** a tensor is streamed in any number of calls. */
int wt_hist_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t first,
                   uint64_t count, wt_hist *h, wt_error *err);

/* A 16-bit type (BF16, F16) has 65,536 bit patterns: a tensor of one is
** histogrammed in one pass that counts each pattern (no decoding, no
** bins), then each pattern seen is decoded once and goes to the bin
** hist_slow's edges give it, with its count: the same bins, nan, inf,
** below and above as decoding every value, and its finite min .. max
** from the same counts.  For codecs where wt_hist16_usable() says so. */
/* The number of 16-bit patterns: one count each. */
#define WT_HIST16_PATTERNS 65536

typedef struct wt_hist16 {
  uint32_t *lane;   /* 65,536 counts since the last flush */
  uint64_t *count;  /* 65,536 counts */
  uint64_t pending; /* values in lane */
} wt_hist16;

/* Whether codec c's values are 16-bit patterns in host order that the
** pattern pass can count (BF16 and F16 in a little-endian file, unscaled). */
int wt_hist16_usable(const wt_codec *c);

/* Allocate the counts (768 KB): 0, or -1 with an error.  Free with
** wt_hist16_free. */
int wt_hist16_init(wt_hist16 *p, wt_error *err);
void wt_hist16_free(wt_hist16 *p);

/* Count the n 16-bit values at src. */
void wt_hist16_count(wt_hist16 *p, const unsigned char *src, size_t n);

/* Fold the finite minimum and maximum of the values counted into *lo and
** *hi (start them at +INFINITY and -INFINITY). */
void wt_hist16_range(wt_hist16 *p, const wt_codec *c, double *lo, double *hi);

/* Add every value counted to h (set up with wt_hist_init). */
void wt_hist16_fill(wt_hist16 *p, const wt_codec *c, wt_hist *h);

#endif
