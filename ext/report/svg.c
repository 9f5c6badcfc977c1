/*
** svg.c: bars, stacked bars, histograms and heatmaps as inline SVG
** (svg.h).  Pure C, no SQLite.  Sizes are in CSS pixels; the fonts and
** colours of the text come from the page's style sheet.
*/
#include <math.h>
#include <string.h>

#include "svg.h"

/* Tableau-10: distinct colours for dtypes. */
const char *wt_svg_category(int i) {
  static const char *const c[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return c[(i < 0 ? -i : i) % 10];
}

/* The viridis colour at t in 0..1, as rgb components. */
static void wt_viridis(double t, int *r, int *g, int *bl) {
  static const int stops[][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  double x;
  int i;
  if (!(t >= 0))
    t = 0;
  if (t > 1)
    t = 1;
  x = t * 4;
  i = x >= 4 ? 3 : (int)x;
  x -= i;
  *r = (int)lround(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * x);
  *g = (int)lround(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * x);
  *bl = (int)lround(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * x);
}

/* The largest of v[0..n), or 0. */
static double wt_max(const double *v, int n) {
  double m = 0;
  int i;
  for (i = 0; i < n; i++)
    if (v[i] > m)
      m = v[i];
  return m;
}

void wt_svg_hbars(wt_html *b, const char *const *labels, const double *values, int n,
                  wt_svg_format fmt, const char *colour) {
  const int label_w = 90, bar_w = 250, row = 24, width = label_w + bar_w + 90;
  double max = wt_max(values, n);
  int i;
  wt_html_printf(b, "<svg class=\"hbars\" width=\"%d\" height=\"%d\" role=\"img\">", width,
                 n * row + 4);
  for (i = 0; i < n; i++) {
    double w = max > 0 ? values[i] / max * bar_w : 0;
    int y = i * row + 2;
    wt_html_printf(b, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
                   y + 15);
    wt_html_str(b, labels[i]);
    wt_html_printf(b,
                   "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                   "rx=\"2\" fill=\"%s\" data-value=\"%.17g\"><title>",
                   label_w, y + 2, w < 1 && values[i] > 0 ? 1.0 : w, row - 6, colour, values[i]);
    wt_html_str(b, labels[i]);
    wt_html_lit(b, ": ");
    fmt(b, values[i]);
    wt_html_printf(b, "</title></rect><text class=\"value\" x=\"%.1f\" y=\"%d\">", label_w + w + 6,
                   y + 15);
    fmt(b, values[i]);
    wt_html_lit(b, "</text>");
  }
  wt_html_lit(b, "</svg>");
}

void wt_svg_stacked(wt_html *b, const char *const *rows, int n_rows, const char *const *series,
                    int n_series, const double *m, wt_svg_format fmt) {
  const int label_w = 90, bar_w = 330, legend_h = 26, width = label_w + bar_w + 80;
  const int row = n_rows > 60 ? 12 : 20;
  double max = 0;
  int r, s, x = label_w;
  for (r = 0; r < n_rows; r++) {
    double t = 0;
    for (s = 0; s < n_series; s++)
      t += m[r * n_series + s];
    if (t > max)
      max = t;
  }
  wt_html_printf(b, "<svg class=\"stacked\" width=\"%d\" height=\"%d\" role=\"img\">", width,
                 legend_h + n_rows * row + 4);
  for (s = 0; s < n_series; s++) { /* the legend */
    wt_html_printf(b,
                   "<rect x=\"%d\" y=\"4\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>"
                   "<text class=\"label\" x=\"%d\" y=\"15\">",
                   x, wt_svg_category(s), x + 16);
    wt_html_str(b, series[s]);
    wt_html_lit(b, "</text>");
    x += 28 + 8 * (int)strlen(series[s]);
  }
  for (r = 0; r < n_rows; r++) {
    int y = legend_h + r * row;
    double at = label_w, total = 0;
    wt_html_printf(b,
                   "<g class=\"layer-bar\"><text class=\"label\" x=\"%d\" y=\"%d\" "
                   "text-anchor=\"end\">",
                   label_w - 8, y + row - 6);
    wt_html_str(b, rows[r]);
    wt_html_lit(b, "</text>");
    for (s = 0; s < n_series; s++) {
      double v = m[r * n_series + s], w = max > 0 ? v / max * bar_w : 0;
      if (v <= 0)
        continue;
      wt_html_printf(b,
                     "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                     "data-value=\"%.17g\"><title>",
                     at, y + 2, w, row - 4, wt_svg_category(s), v);
      wt_html_str(b, rows[r]);
      wt_html_lit(b, ", ");
      wt_html_str(b, series[s]);
      wt_html_lit(b, ": ");
      fmt(b, v);
      wt_html_lit(b, "</title></rect>");
      at += w;
      total += v;
    }
    wt_html_printf(b, "<text class=\"value\" x=\"%.1f\" y=\"%d\">", at + 6, y + row - 6);
    fmt(b, total);
    wt_html_lit(b, "</text></g>");
  }
  wt_html_lit(b, "</svg>");
}

void wt_svg_histogram(wt_html *b, const uint64_t *bins, int nbins, double lo, double hi) {
  const int left = 34, plot_w = 280, top = 6, plot_h = 100, width = left + plot_w + 12;
  double max = 0, bw = (double)plot_w / nbins;
  int i, k;
  for (i = 0; i < nbins; i++)
    if (bins[i] > max)
      max = (double)bins[i];
  wt_html_printf(b, "<svg class=\"histogram\" width=\"%d\" height=\"%d\" role=\"img\">", width,
                 top + plot_h + 22);
  /* log-scale grid lines at 1, 10, 100, ... */
  for (k = 0; max > 0 && pow(10, k) <= max; k++) {
    double y = top + plot_h - log10(1 + pow(10, k)) / log10(1 + max) * plot_h;
    wt_html_printf(b,
                   "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>",
                   left, left + plot_w, y, y, left - 4, y + 3, k);
  }
  for (i = 0; i < nbins; i++) {
    double h = bins[i] ? log10(1 + (double)bins[i]) / log10(1 + max) * plot_h : 0;
    double from = lo + (hi - lo) * i / nbins, to = lo + (hi - lo) * (i + 1) / nbins;
    if (bins[i] == 0)
      continue;
    wt_html_printf(b,
                   "<rect class=\"hist-bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">"
                   "<title>[%.4g, %.4g): %llu</title></rect>",
                   left + i * bw, top + plot_h - h, bw > 1.5 ? bw - 0.5 : bw, h, from, to,
                   (unsigned long long)bins[i]);
  }
  wt_html_printf(b, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", left,
                 left + plot_w, top + plot_h, top + plot_h);
  wt_html_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%d\">", left, top + plot_h + 14);
  wt_html_num(b, lo);
  wt_html_printf(b, "</text><text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
                 left + plot_w, top + plot_h + 14);
  wt_html_num(b, hi);
  wt_html_lit(b, "</text>");
  if (lo < 0 && hi > 0) {
    double x0 = left + (0 - lo) / (hi - lo) * plot_w;
    wt_html_printf(b,
                   "<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                   "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">0</text>",
                   x0, x0, top, top + plot_h + 3, x0, top + plot_h + 14);
  }
  wt_html_lit(b, "</svg>");
}

void wt_svg_heatmap(wt_html *b, const char *cls, const char *const *rows, int n_rows,
                    const char *const *cols, int n_cols, const double *v,
                    double (*position)(double), wt_svg_format fmt, const wt_svg_tick *ticks,
                    int n_ticks) {
  const int label_w = 64, top = 22, cw = 54, ch = n_rows > 40 ? 14 : 26;
  const int grid_h = n_rows * ch, legend_w = 300, width = label_w + n_cols * cw + 10;
  int r, c, i;
  wt_html_printf(b, "<svg class=\"heatmap %s\" width=\"%d\" height=\"%d\" role=\"img\">", cls,
                 width > label_w + legend_w + 20 ? width : label_w + legend_w + 20,
                 top + grid_h + 56);
  for (c = 0; c < n_cols; c++) {
    wt_html_printf(b, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                   label_w + c * cw + cw / 2, top - 7);
    wt_html_str(b, cols[c]);
    wt_html_lit(b, "</text>");
  }
  for (r = 0; r < n_rows; r++) {
    int y = top + r * ch;
    wt_html_printf(b, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
                   y + ch / 2 + 4);
    wt_html_str(b, rows[r]);
    wt_html_lit(b, "</text>");
    for (c = 0; c < n_cols; c++) {
      double x = v[r * n_cols + c];
      int red = 230, green = 230, blue = 230, light = 1;
      if (!isnan(x)) {
        double t = position(x);
        wt_viridis(t, &red, &green, &blue);
        light = t > 0.55;
      }
      wt_html_printf(b,
                     "<g class=\"cell\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                     "fill=\"#%02x%02x%02x\"/><title>",
                     label_w + c * cw, y, cw - 2, ch - 2, red, green, blue);
      wt_html_str(b, rows[r]);
      wt_html_lit(b, ", ");
      wt_html_str(b, cols[c]);
      wt_html_lit(b, ": ");
      if (isnan(x))
        wt_html_lit(b, "no pair");
      else
        fmt(b, x);
      wt_html_printf(b, "</title>");
      if (ch >= 20) {
        wt_html_printf(b, "<text class=\"cell-value%s\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                       light ? "" : " on-dark", label_w + c * cw + cw / 2 - 1, y + ch / 2 + 3);
        if (isnan(x))
          wt_html_lit(b, "\xe2\x80\x94"); /* an em dash */
        else
          fmt(b, x);
        wt_html_lit(b, "</text>");
      }
      wt_html_lit(b, "</g>");
    }
  }
  /* the legend: a gradient of the scale with its ticks */
  {
    int ly = top + grid_h + 14;
    wt_html_printf(b, "<defs><linearGradient id=\"grad-%s\">", cls);
    for (i = 0; i <= 8; i++) {
      int red, green, blue;
      wt_viridis(i / 8.0, &red, &green, &blue);
      wt_html_printf(b, "<stop offset=\"%d%%\" stop-color=\"#%02x%02x%02x\"/>", i * 100 / 8, red,
                     green, blue);
    }
    wt_html_printf(b,
                   "</linearGradient></defs><rect class=\"legend\" x=\"%d\" y=\"%d\" "
                   "width=\"%d\" height=\"12\" fill=\"url(#grad-%s)\"/>",
                   label_w, ly, legend_w, cls);
    for (i = 0; i < n_ticks; i++) {
      double x = label_w + ticks[i].at * legend_w;
      wt_html_printf(b,
                     "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                     x, x, ly + 12, ly + 16, x, ly + 28);
      wt_html_str(b, ticks[i].label);
      wt_html_lit(b, "</text>");
    }
  }
  wt_html_lit(b, "</svg>");
}
