/*
** model_page.c: the one-model page of weights_report(path) (report_job.h:
** the caller reads the model; this file chooses what to sample and draws
** it).
**
** The page shows: a header (format, architecture, parameters, bytes, bits
** per weight, files, tensors, context length, vocabulary); bytes and
** parameters per dtype and per layer, stacked by dtype; histograms with
** log-scale counts of a few representative tensors (the embedding, an
** attention and an MLP weight of the first, middle and last layer, the
** final norm) with min/max/mean/std and NaN/Inf counts, from at most
** WT_SAMPLE_VALUES values of each (sample.h); the metadata; and every
** tensor, in one collapsible table per layer.
** Layer: report.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "names.h"
#include "page.h"
#include "report_job.h"
#include "sample.h"
#include "svg.h"

#define WT_HIST_BINS      48   /* bins of a histogram */
#define WT_MAX_HISTOGRAMS 10   /* histograms of a report */
#define WT_MAX_BARS       1024 /* layer bars drawn */
#define WT_MAX_SERIES     9    /* dtypes coloured apart; the rest are "other" */
#define WT_META_SHOWN     300  /* bytes of a metadata value shown */

/* Bytes, parameters and tensors of one dtype. */
typedef struct wt_dtype_sum {
  const char *dtype;
  double bytes, params;
  int tensors;
} wt_dtype_sum;

/* Sum the model by dtype into d (room for m->n); largest bytes first.
** Returns the number of dtypes. */
static int wt_sum_dtypes(const wt_rmodel *m, wt_dtype_sum *d) {
  int i, j, n = 0;
  for (i = 0; i < m->n; i++) {
    const char *dt = m->t[i].dtype ? m->t[i].dtype : "unknown";
    for (j = 0; j < n && strcmp(d[j].dtype, dt) != 0; j++)
      ;
    if (j == n) {
      d[n].dtype = dt;
      d[n].bytes = d[n].params = 0;
      d[n++].tensors = 0;
    }
    d[j].bytes += (double)m->t[i].nbytes;
    d[j].params += (double)m->t[i].numel;
    d[j].tensors++;
  }
  for (i = 1; i < n; i++) /* insertion sort: there are few dtypes */
    for (j = i; j > 0 && d[j].bytes > d[j - 1].bytes; j--) {
      wt_dtype_sum x = d[j];
      d[j] = d[j - 1];
      d[j - 1] = x;
    }
  return n;
}

/* Order of layer groups: embedding, layers by number, output, other. */
static int wt_group_key(int layer) {
  return layer == WT_LAYER_EMBED    ? -1
         : layer >= 0               ? layer
         : layer == WT_LAYER_OUTPUT ? 1 << 30
                                    : (1 << 30) + 1;
}

/* The distinct layer groups of m, in page order, into g (room for m->n).
** Returns their number. */
static int wt_layer_groups(const wt_rmodel *m, int *g) {
  int i, n = 0;
  for (i = 0; i < m->n; i++)
    g[i] = wt_group_key(m->t[i].layer);
  qsort(g, (size_t)m->n, sizeof(int), wt_report_cmp_int);
  for (i = 0; i < m->n; i++)
    if (n == 0 || g[n - 1] != g[i])
      g[n++] = g[i];
  for (i = 0; i < n; i++) /* back from keys to layers */
    g[i] = g[i] == -1        ? WT_LAYER_EMBED
           : g[i] == 1 << 30 ? WT_LAYER_OUTPUT
           : g[i] > 1 << 30  ? WT_LAYER_OTHER
                             : g[i];
  return n;
}

/* Index of layer in groups g[0..n). */
static int wt_group_index(const int *g, int n, int layer) {
  int key = wt_group_key(layer), lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (wt_group_key(g[mid]) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void wt_fmt_bytes(wt_html *b, double v) {
  wt_html_bytes(b, v);
}

static void wt_fmt_count(wt_html *b, double v) {
  wt_html_num(b, v);
}

/* The header tiles of a model. */
static void wt_model_tiles(wt_html *b, const wt_rmodel *m) {
  int64_t params = 0, bytes = 0;
  char bpw[32];
  int i;
  for (i = 0; i < m->n; i++) {
    params += m->t[i].numel;
    bytes += m->t[i].nbytes;
  }
  snprintf(bpw, sizeof(bpw), "%.2f", params ? 8.0 * (double)bytes / (double)params : 0.0);
  wt_page_tiles_begin(b);
  wt_page_tile_text(b, "format", "format", m->format);
  wt_page_tile_text(b, "architecture", "architecture", m->arch);
  wt_page_tile_int(b, "parameters", "parameters", params);
  wt_page_tile_bytes(b, "tensor_bytes", "tensor bytes", bytes);
  wt_page_tile_text(b, "bits_per_weight", "bits per weight", params ? bpw : NULL);
  wt_page_tile_int(b, "files", "files", m->n_files);
  wt_page_tile_bytes(b, "file_bytes", "file bytes", m->file_bytes);
  wt_page_tile_int(b, "tensors", "tensors", m->n);
  if (m->ctx_len)
    wt_page_tile_int(b, "context_length", "context length", m->ctx_len);
  else
    wt_page_tile_text(b, "context_length", "context length", NULL);
  if (m->vocab)
    wt_page_tile_int(b, "vocabulary", "vocabulary", m->vocab);
  else
    wt_page_tile_text(b, "vocabulary", "vocabulary", NULL);
  wt_page_tiles_end(b);
}

/* The dtype bars and the per-layer stacked bars. */
static int wt_model_bars(wt_report *r, const wt_rmodel *m) {
  wt_html *b = &r->out;
  wt_dtype_sum *d = malloc((size_t)(m->n + 1) * sizeof(*d));
  int *g = malloc((size_t)(m->n + 1) * sizeof(int));
  const char **labels = malloc((size_t)(m->n + 1) * sizeof(char *) * 2);
  double *vals = malloc((size_t)(m->n + 1) * sizeof(double) * (WT_MAX_SERIES + 2));
  char(*glabel)[WT_LABEL_SIZE] = malloc((size_t)(m->n + 1) * WT_LABEL_SIZE);
  int nd, ng, ns, i, j, k, rc = 0;
  if (d == NULL || g == NULL || labels == NULL || vals == NULL || glabel == NULL) {
    rc = wt_report_fail(r, "out of memory");
    goto done;
  }
  nd = wt_sum_dtypes(m, d);
  wt_html_lit(b,
              "<section id=\"dtypes\"><h2>Bytes and parameters per dtype</h2><div class=\"row\">");
  for (i = 0; i < nd; i++) {
    labels[i] = d[i].dtype;
    vals[i] = d[i].bytes;
  }
  wt_html_lit(b, "<div><h3 class=\"note\">bytes</h3>");
  wt_svg_hbars(b, labels, vals, nd, wt_fmt_bytes, "#4e79a7");
  for (i = 0; i < nd; i++)
    vals[i] = d[i].params;
  wt_html_lit(b, "</div><div><h3 class=\"note\">parameters</h3>");
  wt_svg_hbars(b, labels, vals, nd, wt_fmt_count, "#59a14f");
  wt_html_lit(b, "</div></div></section>\n");

  /* bytes per layer group, one segment per dtype */
  ng = wt_layer_groups(m, g);
  ns = nd > WT_MAX_SERIES + 1 ? WT_MAX_SERIES + 1 : nd;
  if (ng > WT_MAX_BARS)
    ng = WT_MAX_BARS;
  for (i = 0; i < ns; i++)
    labels[i] = i == WT_MAX_SERIES && nd > ns ? "other dtypes" : d[i].dtype;
  for (i = 0; i < ng; i++) {
    wt_report_layer_label(g[i], glabel[i], WT_LABEL_SIZE);
    labels[ns + i] = glabel[i];
  }
  wt_html_lit(b, "<section id=\"layers\"><h2>Bytes and parameters per layer, by dtype</h2>"
                 "<div class=\"row\">");
  for (k = 0; k < 2; k++) { /* bytes, then parameters */
    memset(vals, 0, (size_t)ng * (size_t)ns * sizeof(double));
    for (i = 0; i < m->n; i++) {
      const char *dt = m->t[i].dtype ? m->t[i].dtype : "unknown";
      int gi = wt_group_index(g, ng, m->t[i].layer);
      if (gi >= ng || g[gi] != m->t[i].layer)
        continue; /* a layer past the bars drawn */
      for (j = 0; j < nd && strcmp(d[j].dtype, dt) != 0; j++)
        ;
      vals[gi * ns + (j < ns ? j : ns - 1)] += (double)(k ? m->t[i].numel : m->t[i].nbytes);
    }
    wt_html_printf(b, "<div><h3 class=\"note\">%s</h3>", k ? "parameters" : "bytes");
    wt_svg_stacked(b, labels + ns, ng, labels, ns, vals, k ? wt_fmt_count : wt_fmt_bytes);
    wt_html_lit(b, "</div>");
  }
  wt_html_lit(b, "</div>");
  if (ng == WT_MAX_BARS)
    wt_html_printf(b, "<p class=\"note\">The first %d layer groups are drawn.</p>", WT_MAX_BARS);
  wt_html_lit(b, "</section>\n");
done:
  free(d);
  free(g);
  free(labels);
  free(vals);
  free(glabel);
  return rc;
}

/* Add tensor i to the chosen list c (n of them) unless there or absent. */
static void wt_choose(int *c, int *n, int i) {
  int j;
  if (i < 0 || *n >= WT_MAX_HISTOGRAMS)
    return;
  for (j = 0; j < *n; j++)
    if (c[j] == i)
      return;
  c[(*n)++] = i;
}

/* The first tensor of layer with one of the kinds k0, k1, k2 (in that
** preference), or -1. */
static int wt_find(const wt_rmodel *m, int layer, int k0, int k1, int k2) {
  const int kinds[3] = {k0, k1, k2};
  int k, i;
  for (k = 0; k < 3; k++)
    for (i = 0; i < m->n; i++)
      if (m->t[i].layer == layer && m->t[i].kind == kinds[k] && m->t[i].numel > 0)
        return i;
  return -1;
}

/* Choose the representative tensors of m into c; returns how many. */
static int wt_choose_tensors(const wt_rmodel *m, int *c) {
  int n = 0, i, first = -1, last = -1, nl = 0, *layers, k, pick[3];
  for (i = 0; i < m->n; i++)
    if (m->t[i].layer == WT_LAYER_EMBED && m->t[i].numel > 0) {
      wt_choose(c, &n, i);
      break;
    }
  layers = malloc((size_t)(m->n + 1) * sizeof(int));
  if (layers != NULL) {
    for (i = 0; i < m->n; i++)
      if (m->t[i].layer >= 0)
        layers[nl++] = m->t[i].layer;
    qsort(layers, (size_t)nl, sizeof(int), wt_report_cmp_int);
    if (nl > 0) {
      first = layers[0];
      last = layers[nl - 1];
      pick[0] = first;
      pick[1] = layers[nl / 2];
      pick[2] = last;
      for (k = 0; k < 3; k++) {
        if (k == 1 && (pick[1] == first || pick[1] == last))
          continue;
        wt_choose(c, &n, wt_find(m, pick[k], WT_KIND_Q, WT_KIND_K, WT_KIND_O));
        wt_choose(c, &n, wt_find(m, pick[k], WT_KIND_GATE, WT_KIND_UP, WT_KIND_DOWN));
      }
    }
    free(layers);
  }
  for (i = 0; i < m->n; i++)
    if (m->t[i].layer == WT_LAYER_OUTPUT && strstr(m->t[i].name, "norm") && m->t[i].numel > 0) {
      wt_choose(c, &n, i);
      break;
    }
  if (n == 0 && m->n > 0) { /* names of no known scheme: first, middle, last */
    wt_choose(c, &n, 0);
    wt_choose(c, &n, m->n / 2);
    wt_choose(c, &n, m->n - 1);
  }
  return n;
}

/* One histogram card: sample t's values, draw them, list the statistics. */
static int wt_model_histogram(wt_report *r, const wt_rmodel *m, const wt_rtensor *t, double *v) {
  wt_html *b = &r->out;
  uint64_t start[WT_SAMPLE_WINDOWS], count[WT_SAMPLE_WINDOWS], bins[WT_HIST_BINS] = {0};
  int nw = wt_sample_windows((uint64_t)t->numel, WT_SAMPLE_VALUES, WT_SAMPLE_WINDOWS, start, count);
  int64_t n = 0, got;
  wt_stats st;
  wt_stats_summary sm;
  double lo = 0, hi = 1;
  int i;
  wt_html_lit(b, "<div class=\"hist\"><h3>");
  wt_html_str(b, t->name);
  wt_html_lit(b, "</h3><p class=\"meta\">");
  wt_html_str(b, t->dtype ? t->dtype : "unknown");
  wt_html_lit(b, " ");
  wt_html_str(b, t->shape);
  for (i = 0; i < nw; i++) {
    got = r->values(r, m->path, t->name, (int64_t)start[i], (int64_t)count[i], v + n);
    if (got < 0) { /* a type that cannot be decoded: say so, go on */
      wt_html_lit(b, "</p><p class=\"note\">values not shown: ");
      wt_html_str(b, r->err);
      wt_html_lit(b, "</p></div>");
      free(r->err);
      r->err = NULL;
      return 0;
    }
    n += got;
  }
  wt_stats_init(&st); /* tensor_stats()'s accumulator */
  wt_stats_add_f64(&st, v, (size_t)n);
  wt_stats_summarize(&st, &sm);
  wt_html_printf(b, " &middot; sampled %lld of %lld values", (long long)n, (long long)t->numel);
  if (nw > 1)
    wt_html_printf(b, " in %d windows", nw);
  wt_html_lit(b, "</p>");
  wt_sample_range(v, (size_t)n, &lo, &hi);
  if (hi <= lo) {
    double pad = fabs(lo) > 0 ? fabs(lo) / 2 : 0.5;
    lo -= pad;
    hi += pad;
  }
  wt_histogram(v, (size_t)n, lo, hi, bins, WT_HIST_BINS);
  wt_svg_histogram(b, bins, WT_HIST_BINS, lo, hi);
  wt_html_printf(b,
                 "<table class=\"stats\" data-tensor-sampled=\"%lld\"><tr>"
                 "<td>min</td><td class=\"n\" data-stat=\"min\">%.6g</td>"
                 "<td>mean</td><td class=\"n\" data-stat=\"mean\">%.6g</td>"
                 "<td>NaN</td><td class=\"n\" data-stat=\"nan\">%llu</td></tr><tr>"
                 "<td>max</td><td class=\"n\" data-stat=\"max\">%.6g</td>"
                 "<td>std</td><td class=\"n\" data-stat=\"std\">%.6g</td>"
                 "<td>Inf</td><td class=\"n\" data-stat=\"inf\">%llu</td></tr></table></div>",
                 (long long)n, st.min, sm.mean, (unsigned long long)st.nan_count, st.max, sm.std,
                 (unsigned long long)st.inf_count);
  return 0;
}

/* The histograms section. */
static int wt_model_histograms(wt_report *r, const wt_rmodel *m) {
  int c[WT_MAX_HISTOGRAMS], n = wt_choose_tensors(m, c), i, rc = 0;
  double *v = malloc(WT_SAMPLE_VALUES * sizeof(double));
  if (v == NULL)
    return wt_report_fail(r, "out of memory");
  wt_html_printf(&r->out,
                 "<section id=\"histograms\"><h2>Weight histograms</h2><p class=\"note\">"
                 "Counts on a log scale. Sampled: at most %d values of each tensor, read with "
                 "tensor_values(path, name, start, count) in %d evenly spaced windows (the whole "
                 "tensor when it is smaller), so the report reads a bounded number of bytes per "
                 "tensor whatever the model's size; the statistics are those of the sample. NaN "
                 "and Inf are counted apart.</p><div class=\"hists\">",
                 WT_SAMPLE_VALUES, WT_SAMPLE_WINDOWS);
  for (i = 0; i < n && rc == 0; i++)
    rc = wt_model_histogram(r, m, &m->t[c[i]], v);
  wt_html_lit(&r->out, "</div></section>\n");
  free(v);
  return rc;
}

/* Write a metadata value, cut to WT_META_SHOWN bytes on a character boundary. */
static void wt_meta_value(wt_html *b, const char *s) {
  size_t n = strlen(s);
  if (n <= WT_META_SHOWN) {
    wt_html_text(b, s, n);
    return;
  }
  n = WT_META_SHOWN;
  while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
    n--;
  wt_html_text(b, s, n);
  wt_html_printf(b, "&hellip; <span class=\"note\">(%zu bytes)</span>", strlen(s));
}

/* The metadata section: every key with its type and value (arrays: their
** length), as the caller read it (gguf_metadata() or
** safetensors_metadata()). */
static int wt_model_metadata(wt_report *r, const wt_rmodel *m) {
  wt_html *b = &r->out;
  int i;
  if (strcmp(m->format, "gguf") != 0 && strcmp(m->format, "safetensors") != 0)
    return 0;
  wt_html_lit(b, "<section id=\"metadata\"><h2>Metadata</h2><table><tr><th>key</th><th>type</th>"
                 "<th>value</th></tr>");
  for (i = 0; i < m->n_meta; i++) {
    const wt_rmeta *e = &m->meta[i];
    wt_html_lit(b, "<tr><td class=\"name\">");
    wt_html_str(b, e->key);
    wt_html_lit(b, "</td><td>");
    wt_html_str(b, e->type);
    wt_html_lit(b, "</td><td class=\"meta-value\">");
    if (e->value == NULL && e->blob_bytes > 0)
      wt_html_printf(b, "(%lld bytes, not UTF-8)", (long long)e->blob_bytes);
    else if (e->value != NULL)
      wt_meta_value(b, e->value);
    wt_html_lit(b, "</td></tr>");
  }
  if (m->n_meta == 0)
    wt_html_lit(b, "<tr><td colspan=\"3\">none</td></tr>");
  wt_html_lit(b, "</table></section>\n");
  return 0;
}

static int wt_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The tensor table: one <details> per layer group, in file order inside
** (the tensors sorted by group, then index: one pass, whatever the number
** of groups). */
static int wt_model_tensor_table(wt_report *r, const wt_rmodel *m) {
  wt_html *b = &r->out;
  uint64_t *order = malloc((size_t)(m->n + 1) * sizeof(uint64_t));
  int i, j;
  if (order == NULL)
    return wt_report_fail(r, "out of memory");
  for (i = 0; i < m->n; i++)
    order[i] = (uint64_t)(wt_group_key(m->t[i].layer) + 1) << 32 | (uint64_t)i;
  qsort(order, (size_t)m->n, sizeof(uint64_t), wt_cmp_u64);
  wt_html_lit(b, "<section id=\"tensors\"><h2>Every tensor</h2>");
  for (i = 0; i < m->n; i = j) {
    int layer = m->t[(uint32_t)order[i]].layer;
    char label[WT_LABEL_SIZE];
    double bytes = 0;
    for (j = i; j < m->n && m->t[(uint32_t)order[j]].layer == layer; j++)
      bytes += (double)m->t[(uint32_t)order[j]].nbytes;
    wt_report_layer_label(layer, label, sizeof(label));
    wt_html_printf(b, "<details class=\"group\"><summary>%s<span class=\"n\">%d tensors &middot; ",
                   label, j - i);
    wt_html_bytes(b, bytes);
    wt_html_lit(b, "</span></summary><table><tr><th>name</th><th>dtype</th><th>shape</th>"
                   "<th class=\"n\">bytes</th></tr>");
    for (j = i; j < m->n && m->t[(uint32_t)order[j]].layer == layer; j++) {
      const wt_rtensor *t = &m->t[(uint32_t)order[j]];
      wt_html_lit(b, "<tr class=\"tensor\"><td class=\"name\">");
      wt_html_str(b, t->name);
      wt_html_lit(b, "</td><td>");
      wt_html_str(b, t->dtype ? t->dtype : "unknown");
      wt_html_lit(b, "</td><td>");
      wt_html_str(b, t->shape);
      wt_html_printf(b, "</td><td class=\"n\">%lld</td></tr>", (long long)t->nbytes);
    }
    wt_html_lit(b, "</table></details>");
  }
  wt_html_lit(b, "</section>\n");
  free(order);
  return 0;
}

int wt_report_one(wt_report *r, const wt_rmodel *m) {
  const char *slash = strrchr(m->path, '/');
  wt_page_begin(&r->out, m->name ? m->name : slash && slash[1] ? slash + 1 : m->path, m->path);
  wt_model_tiles(&r->out, m);
  if (wt_model_bars(r, m) || wt_model_histograms(r, m) || wt_model_metadata(r, m) ||
      wt_model_tensor_table(r, m))
    return -1;
  wt_page_end(&r->out, r->version);
  return 0;
}
