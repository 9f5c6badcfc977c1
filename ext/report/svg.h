/*
** svg.h: the charts of the report, as inline SVG (pure C, no SQLite).
**
** Each function appends one <svg> element to an HTML buffer.  Labels are
** untrusted text and are escaped (html.h).  The charts:
**   wt_svg_hbars      horizontal bars, one per label (bytes per dtype)
**   wt_svg_stacked    stacked horizontal bars (bytes per layer by dtype)
**   wt_svg_histogram  a histogram with log-scale counts
**   wt_svg_heatmap    a grid of coloured cells with a colour legend
** Every drawn bar or cell carries a class (bar, layer-bar, hist-bar, cell)
** and a <title> with its exact value, which is what the tests count.
*/
#ifndef WT_SVG_H
#define WT_SVG_H

#include "html.h"

/* How a chart prints a value. */
typedef void (*wt_svg_format)(wt_html *b, double v);

/* The colour of category i (a dtype), as "#rrggbb". */
const char *wt_svg_category(int i);

/* Horizontal bars: labels[i] with values[i], printed with fmt. */
void wt_svg_hbars(wt_html *b, const char *const *labels, const double *values, int n,
                  wt_svg_format fmt, const char *colour);

/* Stacked horizontal bars: one row per rows[r], one segment per series[s]
** of value m[r * n_series + s], coloured wt_svg_category(s); a legend. */
void wt_svg_stacked(wt_html *b, const char *const *rows, int n_rows, const char *const *series,
                    int n_series, const double *m, wt_svg_format fmt);

/* A histogram of bins[0..nbins) over [lo, hi], bar heights log(1 + count). */
void wt_svg_histogram(wt_html *b, const uint64_t *bins, int nbins, double lo, double hi);

/* One tick of a colour legend: where (0..1) and its label. */
typedef struct wt_svg_tick {
  double at;
  const char *label;
} wt_svg_tick;

/* A heatmap: rows x cols cells; v[r * n_cols + c] is printed with fmt and
** coloured by position(v) in 0..1 (NaN: a grey "no pair" cell); cls names
** the chart for the tests; a legend with ticks below. */
void wt_svg_heatmap(wt_html *b, const char *cls, const char *const *rows, int n_rows,
                    const char *const *cols, int n_cols, const double *v,
                    double (*position)(double), wt_svg_format fmt, const wt_svg_tick *ticks,
                    int n_ticks);

#endif
