/*
** report.c: weights_report(path [, path_b]), a one-page HTML report of a
** model, with inline SVG and CSS and no script.
**
**   SELECT weights_report('model.gguf');                  -- one model
**   SELECT weights_report('a.safetensors', 'b.gguf');     -- a diff (report_diff.c)
**
** The page shows: a header (format, architecture, parameters, bytes, bits
** per weight, files, tensors, context length, vocabulary); bytes and
** parameters per dtype; bytes per layer stacked by dtype; histograms with
** log-scale counts of a few representative tensors (the embedding, an
** attention and an MLP weight of the first, middle and last layer, the
** final norm) with min/max/mean/std and NaN/Inf counts; the metadata; and
** every tensor, in one collapsible table per layer.
**
** Everything comes from SQL over the public tables (report.h), run on the
** calling connection.  The cost is bounded: histograms read at most
** WT_SAMPLE_VALUES values of a tensor, in WT_SAMPLE_WINDOWS evenly spaced
** windows of tensor_values(path, name, start, count) (sample.h), and the
** page says so.  Every name and metadata string is HTML-escaped.
** Layer: sql (uses ext/report for the drawing).
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "report.h"
#include "report/names.h"
#include "report/page.h"
#include "report/sample.h"
#include "report/svg.h"

SQLITE_EXTENSION_INIT3

#define WT_HIST_BINS      48   /* bins of a histogram */
#define WT_MAX_HISTOGRAMS 10   /* histograms of a report */
#define WT_MAX_BARS       1024 /* layer bars drawn */
#define WT_MAX_SERIES     9    /* dtypes coloured apart; the rest are "other" */
#define WT_META_SHOWN     300  /* bytes of a metadata value shown */

int wt_report_fail(wt_report *r, const char *fmt, ...) {
  va_list ap;
  if (r->err == NULL) {
    va_start(ap, fmt);
    r->err = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
  }
  return -1;
}

sqlite3_stmt *wt_report_query(wt_report *r, const char *sql, const char *path) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(r->db, sql, -1, &q, NULL) != SQLITE_OK ||
      sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC) != SQLITE_OK) {
    wt_report_fail(r, "%s", sqlite3_errmsg(r->db));
    sqlite3_finalize(q);
    return NULL;
  }
  return q;
}

int wt_report_step(wt_report *r, sqlite3_stmt *q) {
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    return 1;
  if (rc != SQLITE_DONE)
    wt_report_fail(r, "%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* A copy of column i as text (sqlite3_malloc), NULL for NULL. */
static char *wt_col_dup(sqlite3_stmt *q, int i) {
  const unsigned char *s = sqlite3_column_text(q, i);
  return s ? sqlite3_mprintf("%s", s) : NULL;
}

void wt_report_layer_label(int layer, char *out, size_t n) {
  if (layer >= 0)
    snprintf(out, n, "layer %d", layer);
  else
    snprintf(out, n, "%s",
             layer == WT_LAYER_EMBED    ? "embedding"
             : layer == WT_LAYER_OUTPUT ? "output"
                                        : "other");
}

/* Read weights_files(path): count, bytes, the format; a file's error fails. */
static int wt_model_files(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q =
      wt_report_query(r, "SELECT file, format, size, error FROM weights_files(?1)", path);
  int rc;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    const char *format = (const char *)sqlite3_column_text(q, 1);
    if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
      wt_report_fail(r, "%s: %s", sqlite3_column_text(q, 0), sqlite3_column_text(q, 3));
      sqlite3_finalize(q);
      return -1;
    }
    m->n_files++;
    m->file_bytes += sqlite3_column_int64(q, 2);
    if (m->format == NULL)
      m->format = sqlite3_mprintf("%s", format ? format : "unknown");
    else if (format == NULL || strcmp(m->format, format) != 0) {
      sqlite3_free(m->format);
      m->format = sqlite3_mprintf("mixed");
    }
  }
  if (rc == 0 && m->n_files == 0)
    return wt_report_fail(r, "%s: no model files", path);
  return rc;
}

/* Read tensors(path) into m->t. */
static int wt_model_tensors(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q = wt_report_query(r,
                                    "SELECT name, dtype, shape, numel, nbytes, "
                                    "CAST(json_extract(shape, '$[0]') AS INTEGER) FROM tensors(?1)",
                                    path);
  int rc, cap = 0;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    wt_rtensor *t;
    if (m->n == cap) {
      void *p = sqlite3_realloc64(m->t, (cap ? cap * 2 : 64) * sizeof(*m->t));
      if (p == NULL) {
        sqlite3_finalize(q);
        return wt_report_fail(r, "out of memory");
      }
      m->t = p;
      cap = cap ? cap * 2 : 64;
    }
    t = &m->t[m->n];
    t->name = wt_col_dup(q, 0);
    t->dtype = wt_col_dup(q, 1);
    t->shape = wt_col_dup(q, 2);
    if (t->name == NULL || t->shape == NULL) {
      sqlite3_free(t->name);
      sqlite3_free(t->dtype);
      sqlite3_free(t->shape);
      sqlite3_finalize(q);
      return wt_report_fail(r, "out of memory");
    }
    m->n++;
    t->numel = sqlite3_column_int64(q, 3);
    t->nbytes = sqlite3_column_int64(q, 4);
    t->rows = sqlite3_column_type(q, 5) == SQLITE_NULL ? 1 : sqlite3_column_int64(q, 5);
    t->layer = wt_name_layer(t->name);
    t->kind = wt_name_kind(t->name);
  }
  return rc;
}

/* Read the facts of a GGUF model's metadata: architecture, name, context
** length, vocabulary size, heads. */
static int wt_model_gguf_facts(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q = wt_report_query(r,
                                    "SELECT key, CASE WHEN type = 'ARRAY' THEN count ELSE value "
                                    "END FROM gguf_metadata(?1)",
                                    path);
  sqlite3_int64 vocab_size = 0;
  int rc;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    const char *key = (const char *)sqlite3_column_text(q, 0), *dot;
    if (key == NULL)
      continue;
    if (strcmp(key, "general.architecture") == 0 && m->arch == NULL)
      m->arch = wt_col_dup(q, 1);
    else if (strcmp(key, "general.name") == 0 && m->name == NULL)
      m->name = wt_col_dup(q, 1);
    else if (strcmp(key, "tokenizer.ggml.tokens") == 0 && m->vocab == 0)
      m->vocab = sqlite3_column_int64(q, 1);
    else if ((dot = strchr(key, '.')) != NULL && m->arch != NULL &&
             (size_t)(dot - key) == strlen(m->arch) && strncmp(key, m->arch, dot - key) == 0) {
      sqlite3_int64 v = sqlite3_column_int64(q, 1);
      if (strcmp(dot, ".context_length") == 0)
        m->ctx_len = v;
      else if (strcmp(dot, ".vocab_size") == 0)
        vocab_size = v;
      else if (strcmp(dot, ".attention.head_count") == 0)
        m->n_head = v;
      else if (strcmp(dot, ".attention.head_count_kv") == 0)
        m->n_head_kv = v;
    }
  }
  if (m->vocab == 0)
    m->vocab = vocab_size;
  if (m->n_head_kv == 0)
    m->n_head_kv = m->n_head;
  return rc;
}

int wt_report_model(wt_report *r, const char *path, wt_rmodel *m) {
  int i;
  memset(m, 0, sizeof(*m));
  m->path = path;
  if (wt_model_files(r, path, m) || wt_model_tensors(r, path, m))
    return -1;
  if (strcmp(m->format, "gguf") == 0 && wt_model_gguf_facts(r, path, m))
    return -1;
  for (i = 0; i < m->n && m->vocab == 0; i++) /* a checkpoint: the embedding's rows */
    if (m->t[i].layer == WT_LAYER_EMBED && m->t[i].numel > m->t[i].rows)
      m->vocab = m->t[i].rows;
  return 0;
}

void wt_report_model_free(wt_rmodel *m) {
  int i;
  for (i = 0; i < m->n; i++) {
    sqlite3_free(m->t[i].name);
    sqlite3_free(m->t[i].dtype);
    sqlite3_free(m->t[i].shape);
  }
  sqlite3_free(m->t);
  sqlite3_free(m->format);
  sqlite3_free(m->arch);
  sqlite3_free(m->name);
  memset(m, 0, sizeof(*m));
}

sqlite3_int64 wt_report_values(wt_report *r, const char *path, const char *name,
                               sqlite3_int64 start, sqlite3_int64 count, double *v) {
  sqlite3_int64 n = 0;
  int rc;
  if (r->values == NULL &&
      sqlite3_prepare_v2(r->db, "SELECT value FROM tensor_values(?1, ?2, ?3, ?4)", -1, &r->values,
                         NULL) != SQLITE_OK)
    return wt_report_fail(r, "%s", sqlite3_errmsg(r->db));
  sqlite3_reset(r->values);
  sqlite3_bind_text(r->values, 1, path, -1, SQLITE_STATIC);
  sqlite3_bind_text(r->values, 2, name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(r->values, 3, start);
  sqlite3_bind_int64(r->values, 4, count);
  while (n < count && (rc = sqlite3_step(r->values)) == SQLITE_ROW)
    v[n++] = sqlite3_column_type(r->values, 0) == SQLITE_NULL ? NAN
                                                              : sqlite3_column_double(r->values, 0);
  if (n < count && rc != SQLITE_DONE)
    n = wt_report_fail(r, "%s", sqlite3_errmsg(r->db));
  sqlite3_reset(r->values);
  return n;
}

/* ---- the one-model page ---- */

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

int wt_report_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
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
  sqlite3_int64 params = 0, bytes = 0;
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
  wt_dtype_sum *d = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(*d));
  int *g = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(int));
  const char **labels = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(char *) * 2);
  double *vals = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(double) * (WT_MAX_SERIES + 2));
  char(*glabel)[32] = sqlite3_malloc64((size_t)(m->n + 1) * 32);
  int nd, ng, ns, i, j, rc = 0;
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
    wt_report_layer_label(g[i], glabel[i], 32);
    labels[ns + i] = glabel[i];
  }
  memset(vals, 0, (size_t)ng * (size_t)ns * sizeof(double));
  for (i = 0; i < m->n; i++) {
    const char *dt = m->t[i].dtype ? m->t[i].dtype : "unknown";
    int gi = wt_group_index(g, ng, m->t[i].layer);
    if (gi >= ng || g[gi] != m->t[i].layer)
      continue; /* a layer past the bars drawn */
    for (j = 0; j < nd && strcmp(d[j].dtype, dt) != 0; j++)
      ;
    vals[gi * ns + (j < ns ? j : ns - 1)] += (double)m->t[i].nbytes;
  }
  wt_html_lit(b, "<section id=\"layers\"><h2>Bytes per layer, by dtype</h2>");
  wt_svg_stacked(b, labels + ns, ng, labels, ns, vals, wt_fmt_bytes);
  if (ng == WT_MAX_BARS)
    wt_html_printf(b, "<p class=\"note\">The first %d layer groups are drawn.</p>", WT_MAX_BARS);
  wt_html_lit(b, "</section>\n");
done:
  sqlite3_free(d);
  sqlite3_free(g);
  sqlite3_free(labels);
  sqlite3_free(vals);
  sqlite3_free(glabel);
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
  layers = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(int));
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
    sqlite3_free(layers);
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
  sqlite3_int64 n = 0, got;
  wt_sample_stats s;
  double lo, hi;
  int i;
  wt_html_lit(b, "<div class=\"hist\"><h3>");
  wt_html_str(b, t->name);
  wt_html_lit(b, "</h3><p class=\"meta\">");
  wt_html_str(b, t->dtype ? t->dtype : "unknown");
  wt_html_lit(b, " ");
  wt_html_str(b, t->shape);
  for (i = 0; i < nw; i++) {
    got = wt_report_values(r, m->path, t->name, (sqlite3_int64)start[i], (sqlite3_int64)count[i],
                           v + n);
    if (got < 0) { /* a type that cannot be decoded: say so, go on */
      wt_html_lit(b, "</p><p class=\"note\">values not shown: ");
      wt_html_str(b, r->err);
      wt_html_lit(b, "</p></div>");
      sqlite3_free(r->err);
      r->err = NULL;
      return 0;
    }
    n += got;
  }
  wt_sample_stats_init(&s);
  for (i = 0; i < n; i++)
    wt_sample_stats_add(&s, v[i]);
  wt_html_printf(b, " &middot; sampled %lld of %lld values", (long long)n, (long long)t->numel);
  if (nw > 1)
    wt_html_printf(b, " in %d windows", nw);
  wt_html_lit(b, "</p>");
  lo = s.finite ? s.min : 0;
  hi = s.finite ? s.max : 1;
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
                 (long long)n, s.finite ? s.min : NAN, s.finite ? s.mean : NAN,
                 (unsigned long long)s.nan, s.finite ? s.max : NAN, wt_sample_stats_std(&s),
                 (unsigned long long)s.inf);
  return 0;
}

/* The histograms section. */
static int wt_model_histograms(wt_report *r, const wt_rmodel *m) {
  int c[WT_MAX_HISTOGRAMS], n = wt_choose_tensors(m, c), i, rc = 0;
  double *v = sqlite3_malloc64(WT_SAMPLE_VALUES * sizeof(double));
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
  sqlite3_free(v);
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
** length), from gguf_metadata() or safetensors_metadata(). */
static int wt_model_metadata(wt_report *r, const wt_rmodel *m) {
  wt_html *b = &r->out;
  int gguf = strcmp(m->format, "gguf") == 0, rows = 0, rc;
  sqlite3_stmt *q;
  if (!gguf && strcmp(m->format, "safetensors") != 0)
    return 0;
  q = wt_report_query(r,
                      gguf ? "SELECT key, type, CASE WHEN type = 'ARRAY' THEN element_type || '[' "
                             "|| count || ']' ELSE value END FROM gguf_metadata(?1)"
                           : "SELECT key, 'STRING', value FROM safetensors_metadata(?1)",
                      m->path);
  if (q == NULL)
    return -1;
  wt_html_lit(b, "<section id=\"metadata\"><h2>Metadata</h2><table><tr><th>key</th><th>type</th>"
                 "<th>value</th></tr>");
  while ((rc = wt_report_step(r, q)) == 1) {
    const char *v = (const char *)sqlite3_column_text(q, 2);
    wt_html_lit(b, "<tr><td class=\"name\">");
    wt_html_str(b, (const char *)sqlite3_column_text(q, 0));
    wt_html_lit(b, "</td><td>");
    wt_html_str(b, (const char *)sqlite3_column_text(q, 1));
    wt_html_lit(b, "</td><td class=\"meta-value\">");
    if (sqlite3_column_type(q, 2) == SQLITE_BLOB)
      wt_html_printf(b, "(%d bytes, not UTF-8)", sqlite3_column_bytes(q, 2));
    else if (v != NULL)
      wt_meta_value(b, v);
    wt_html_lit(b, "</td></tr>");
    rows++;
  }
  if (rows == 0)
    wt_html_lit(b, "<tr><td colspan=\"3\">none</td></tr>");
  wt_html_lit(b, "</table></section>\n");
  return rc;
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
  uint64_t *order = sqlite3_malloc64((size_t)(m->n + 1) * sizeof(uint64_t));
  int i, j;
  if (order == NULL)
    return wt_report_fail(r, "out of memory");
  for (i = 0; i < m->n; i++)
    order[i] = (uint64_t)(wt_group_key(m->t[i].layer) + 1) << 32 | (uint64_t)i;
  qsort(order, (size_t)m->n, sizeof(uint64_t), wt_cmp_u64);
  wt_html_lit(b, "<section id=\"tensors\"><h2>Every tensor</h2>");
  for (i = 0; i < m->n; i = j) {
    int layer = m->t[(uint32_t)order[i]].layer;
    char label[32];
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
  sqlite3_free(order);
  return 0;
}

/* The report of one model. */
static int wt_report_one(wt_report *r, const wt_rmodel *m) {
  const char *slash = strrchr(m->path, '/');
  wt_page_begin(&r->out, m->name ? m->name : slash && slash[1] ? slash + 1 : m->path, m->path);
  wt_model_tiles(&r->out, m);
  if (wt_model_bars(r, m) || wt_model_histograms(r, m) || wt_model_metadata(r, m) ||
      wt_model_tensor_table(r, m))
    return -1;
  wt_page_end(&r->out, WEIGHTS_VERSION);
  return 0;
}

/* weights_report(path) and weights_report(path_a, path_b). */
static void wt_report_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  wt_report r;
  wt_rmodel a, b;
  const char *pa = (const char *)sqlite3_value_text(argv[0]);
  const char *pb = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
  int rc;
  memset(&r, 0, sizeof(r));
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  r.ctx = ctx;
  r.db = sqlite3_context_db_handle(ctx);
  if (pa == NULL || (argc > 1 && pb == NULL)) {
    sqlite3_result_error(ctx, "weights_report(): the path argument is NULL", -1);
    return;
  }
  rc = wt_report_model(&r, pa, &a);
  if (rc == 0 && argc > 1)
    rc = wt_report_model(&r, pb, &b);
  if (rc == 0)
    rc = argc > 1 ? wt_report_diff(&r, &a, &b) : wt_report_one(&r, &a);
  if (rc == 0 && r.out.oom)
    rc = wt_report_fail(&r, "out of memory");
  if (rc == 0) {
    sqlite3_result_text64(ctx, r.out.p, r.out.n, free, SQLITE_UTF8);
    r.out.p = NULL;
  } else if (r.err == NULL) {
    sqlite3_result_error_nomem(ctx);
  } else {
    char *msg = sqlite3_mprintf("weights_report(): %s", r.err);
    sqlite3_result_error(ctx, msg ? msg : r.err, -1);
    sqlite3_free(msg);
  }
  sqlite3_finalize(r.values);
  sqlite3_free(r.err);
  wt_html_free(&r.out);
  wt_report_model_free(&a);
  wt_report_model_free(&b);
}

int wt_register_report(sqlite3 *db) {
  int rc = sqlite3_create_function_v2(db, "weights_report", 1, WT_FILE_FLAGS, NULL, wt_report_func,
                                      NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "weights_report", 2, WT_FILE_FLAGS, NULL, wt_report_func,
                                    NULL, NULL, NULL);
  return rc;
}
