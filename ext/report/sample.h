/*
** sample.h: the report's bounded sampling and its histograms (pure C, no
** SQLite).
**
** A report must cost a bounded number of reads per tensor, whatever the
** model's size, so it never decodes a whole tensor: it reads at most
** WT_SAMPLE_VALUES values, in WT_SAMPLE_WINDOWS evenly spaced windows
** (the whole tensor when it is that small).  These helpers choose the
** windows and bin the sampled values for drawing.  The statistics and the
** differences of the sampled values are decode's accumulators (wt_stats,
** wt_compare in decode/decode.h, those of tensor_stats() and
** tensor_compare()), run by sql/report_model.c and sql/report_diff.c.
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

/* The smallest and largest finite values of v[0..n) in *lo and *hi (left
** as they are when there is none); returns how many are finite. */
size_t wt_sample_range(const double *v, size_t n, double *lo, double *hi);

/* Count the finite values of v[0..n) in nbins equal bins over [lo, hi]
** (the last bin includes hi; a value outside is clamped).  bins[] is added
** to, not cleared. */
void wt_histogram(const double *v, size_t n, double lo, double hi, uint64_t *bins, int nbins);

#endif
