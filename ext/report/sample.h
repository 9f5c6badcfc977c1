/*
** sample.h: the report's bounded sampling and its statistics (pure C, no
** SQLite).
**
** A report must cost a bounded number of reads per tensor, whatever the
** model's size, so it never decodes a whole tensor: it reads at most
** WT_SAMPLE_VALUES values, in WT_SAMPLE_WINDOWS evenly spaced windows
** (the whole tensor when it is that small).  These helpers choose the
** windows and accumulate what the report draws from the sampled values:
** min/max/mean/std, NaN and Inf counts, histograms, and the differences
** of two tensors.
*/
#ifndef WT_SAMPLE_H
#define WT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define WT_SAMPLE_VALUES  65536 /* values read from one tensor, at most */
#define WT_SAMPLE_WINDOWS 16    /* evenly spaced windows they come from */

/* Choose up to max windows of values out of numel, with budget values in
** all: start[i], count[i].  Returns the number of windows (1 covering
** everything when numel <= budget; 0 when numel is 0). */
int wt_sample_windows(uint64_t numel, uint64_t budget, int max, uint64_t *start, uint64_t *count);

/* Statistics of sampled values.  NaN and infinities are counted apart and
** left out of min/max/mean/std. */
typedef struct wt_sample_stats {
  uint64_t count;  /* values seen */
  uint64_t finite; /* values in min/max/mean/std */
  uint64_t nan, inf;
  double min, max, mean, m2; /* m2: sum of squared deviations (Welford) */
  int scaled;                /* a value past 2^500 was seen: mean is kept times 2^-600, m2
                                times 2^-1200 (their squares would overflow a double) */
} wt_sample_stats;

/* Start, add one value, and read the mean and the population standard
** deviation (NaN without finite values). */
void wt_sample_stats_init(wt_sample_stats *s);
void wt_sample_stats_add(wt_sample_stats *s, double v);
double wt_sample_stats_mean(const wt_sample_stats *s);
double wt_sample_stats_std(const wt_sample_stats *s);

/* Count the finite values of v[0..n) in nbins equal bins over [lo, hi]
** (the last bin includes hi; a value outside is clamped).  bins[] is added
** to, not cleared. */
void wt_histogram(const double *v, size_t n, double lo, double hi, uint64_t *bins, int nbins);

/* The difference of two tensors' sampled values, pair by pair. */
typedef struct wt_diff {
  uint64_t count, nonfinite;
  double aa, bb, ab, dd; /* sums of a*a, b*b, a*b, (a-b)^2 over finite pairs */
  int scaled;            /* a value past 2^500 was seen: the sums are kept times 2^-1200 */
} wt_diff;

/* Add one pair (a NaN or infinity on either side counts as nonfinite). */
void wt_diff_add(wt_diff *d, double a, double b);

/* Add the pairs of from into into. */
void wt_diff_merge(wt_diff *into, const wt_diff *from);

/* |a - b| / |a| and the cosine of the finite pairs (NaN when undefined). */
double wt_diff_rel_l2(const wt_diff *d);
double wt_diff_cosine(const wt_diff *d);

#endif
