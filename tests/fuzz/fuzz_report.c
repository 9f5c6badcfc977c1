/*
** fuzz_report.c: libFuzzer target for the report writer (ext/report):
** HTML escaping, the SVG charts, the tensor-name rules and the sampling
** helpers, with oracles inside the target.
**
** Input: byte 0 picks the charts' shape (rows, columns), bytes 1-8 a
** number for the sampling; then 8 * 16 bytes of
** doubles (chart values, histogram samples, when present); the rest is
** split at NUL bytes into names (tensor names, chart labels).
** Checks, beside "no crash, no sanitizer report":
**   - wt_html_text: the output holds no < > " ' or NUL, and decoding its
**     five entities (and U+FFFD for NUL) gives the input back;
**   - every chart drawn with the hostile labels has exactly as many
**     < > " ' characters as the same chart drawn with labels of the same
**     lengths made of 'x': nothing of a label became markup;
**   - wt_name_layer is a layer number or WT_LAYER_*; wt_name_kind is a
**     kind or -1, and a kind only inside a layer;
**   - wt_sample_windows' windows lie inside the tensor and within the
**     budget; wt_sample_range is the finite values' range; wt_histogram's
**     bins count every finite value once.  (The sampled statistics are
**     decode's wt_stats, fuzzed by fuzz_decode.)
** Built by `make fuzz`.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/names.h"
#include "report/sample.h"
#include "report/svg.h"

#define MAX_NAMES 8
#define NVALS     16

/* Counts of the characters that make markup. */
static void markup_counts(const wt_html *b, size_t c[4]) {
  size_t i;
  memset(c, 0, 4 * sizeof c[0]);
  for (i = 0; i < b->n; i++) {
    switch (b->p[i]) {
    case '<':
      c[0]++;
      break;
    case '>':
      c[1]++;
      break;
    case '"':
      c[2]++;
      break;
    case '\'':
      c[3]++;
      break;
    }
  }
}

static void fmt_num(wt_html *b, double v) {
  wt_html_num(b, v);
}

static double pos(double v) {
  return v / 2 + 0.5;
}

/* Every chart, with the labels given. */
static void draw(wt_html *b, const char *const *names, int n, int rows, int cols,
                 const double *vals, const uint64_t *bins) {
  const char *const *r = names, *const *c = names + (n - cols);
  wt_svg_tick ticks[2] = {{0, names[0]}, {1, names[n - 1]}};
  double m[MAX_NAMES * MAX_NAMES], counts[NVALS];
  int i;
  for (i = 0; i < rows * cols; i++)
    m[i] = vals[i % NVALS];
  for (i = 0; i < NVALS; i++)
    counts[i] = (double)bins[i]; /* byte counts, as the report draws them */
  wt_svg_hbars(b, names, counts, n < NVALS ? n : NVALS, wt_html_bytes, "#4e79a7");
  wt_svg_stacked(b, r, rows, c, cols, m, wt_html_sci);
  wt_svg_heatmap(b, "h", r, rows, c, cols, m, pos, fmt_num, ticks, 2);
  wt_svg_histogram(b, bins, NVALS, vals[0], vals[1]);
}

/* The length of the UTF-8 character at p[0..n) by RFC 3629's table
** (written here, not base/utf8.c's: the oracle must not share the code it
** checks), or 0 when p does not start one. */
static size_t utf8_len(const unsigned char *p, size_t n) {
  size_t len, i;
  unsigned char lo = 0x80, hi = 0xBF;
  if (p[0] < 0x80)
    return 1;
  if (p[0] >= 0xC2 && p[0] <= 0xDF)
    len = 2;
  else if (p[0] >= 0xE0 && p[0] <= 0xEF)
    len = 3, lo = p[0] == 0xE0 ? 0xA0 : 0x80, hi = p[0] == 0xED ? 0x9F : 0xBF;
  else if (p[0] >= 0xF0 && p[0] <= 0xF4)
    len = 4, lo = p[0] == 0xF0 ? 0x90 : 0x80, hi = p[0] == 0xF4 ? 0x8F : 0xBF;
  else
    return 0;
  if (n < len || p[1] < lo || p[1] > hi)
    return 0;
  for (i = 2; i < len; i++)
    if (p[i] < 0x80 || p[i] > 0xBF)
      return 0;
  return len;
}

/* wt_html_text of s: no markup characters, and it decodes back to s with
** NUL and every byte that starts no UTF-8 character as U+FFFD. */
static void check_text(const char *s, size_t n) {
  static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#xFFFD;"};
  static const char *const raw[] = {"&", "<", ">", "\"", "'", "\xef\xbf\xbd"};
  wt_html b = {0};
  size_t i, o = 0, k;
  char *want = malloc(3 * n + 1), *got = malloc(n * 3 + 1);
  for (i = 0; i < n;) {
    size_t len = utf8_len((const unsigned char *)s + i, n - i);
    if (s[i] == 0 || len == 0) {
      memcpy(want + o, "\xef\xbf\xbd", 3);
      o += 3;
      i++;
    } else {
      memcpy(want + o, s + i, len);
      o += len;
      i += len;
    }
  }
  wt_html_text(&b, s, n);
  if (b.oom)
    abort();
  for (i = 0, k = 0; i < b.n;) {
    size_t e;
    if (strchr("<>\"'", b.p[i]) != NULL || b.p[i] == 0)
      abort();
    for (e = 0; e < 6; e++)
      if (b.p[i] == '&' && strncmp(b.p + i, ent[e], strlen(ent[e])) == 0)
        break;
    if (b.p[i] == '&' && e == 6)
      abort(); /* a '&' that starts no entity: an input '&' left raw */
    if (e < 6 && b.p[i] == '&') {
      memcpy(got + k, raw[e], strlen(raw[e]));
      k += strlen(raw[e]);
      i += strlen(ent[e]);
    } else {
      got[k++] = b.p[i++];
    }
  }
  if (k != o || memcmp(got, want, o) != 0)
    abort();
  wt_html_free(&b);
  free(want);
  free(got);
}

static void check_name(const char *name) {
  int layer = wt_name_layer(name), kind = wt_name_kind(name);
  if (layer < WT_LAYER_OTHER || (kind < -1 || kind >= WT_KIND_COUNT) || (kind >= 0 && layer < 0) ||
      wt_kind_name(kind) == NULL)
    abort();
}

static void check_sampling(uint64_t numel, const double *v, size_t n) {
  uint64_t start[WT_SAMPLE_WINDOWS], count[WT_SAMPLE_WINDOWS], budget = numel >> 40;
  uint64_t bins[48] = {0}, total = 0, finite = 0;
  double lo = 0, hi = 1;
  int nw = wt_sample_windows(numel, budget, WT_SAMPLE_WINDOWS, start, count), i;
  size_t k;
  if (nw < 0 || nw > WT_SAMPLE_WINDOWS)
    abort();
  for (i = 0; i < nw; i++) {
    total += count[i];
    if (start[i] > numel || count[i] > numel - start[i])
      abort();
  }
  if (total > budget || (numel > 0 && budget > 0 && nw == 0))
    abort();
  /* The histogram as the model report makes it (report/model_page.c). */
  for (k = 0; k < n; k++)
    finite += isfinite(v[k]) != 0;
  if (wt_sample_range(v, n, &lo, &hi) != finite)
    abort();
  for (k = 0; k < n; k++)
    if (isfinite(v[k]) && (v[k] < lo || v[k] > hi))
      abort();
  if (hi <= lo) {
    double pad = fabs(lo) > 0 ? fabs(lo) / 2 : 0.5;
    lo -= pad;
    hi += pad;
  }
  /* regressions/report-histogram-inf-width: a range wider than DBL_MAX
  ** (fixed: wt_histogram works in halves) */
  wt_histogram(v, n, lo, hi, bins, 48);
  for (i = 0, total = 0; i < 48; i++)
    total += bins[i];
  if (total != finite)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *names[MAX_NAMES], *xnames[MAX_NAMES];
  char *text, *xtext;
  double vals[NVALS] = {0};
  uint64_t bins[NVALS], u = 0;
  wt_html a = {0}, b = {0};
  size_t ca[4], cb[4], i, len;
  int n = 0, rows, cols;
  if (size < 9)
    return 0;
  for (i = 0; i < 8; i++)
    u = u << 8 | data[1 + i];
  len = size - 9 < 8 * NVALS ? size - 9 : 8 * NVALS;
  memcpy(vals, data + 9, len);
  for (i = 0; i < NVALS; i++)
    memcpy(&bins[i], &vals[i], sizeof bins[i]);
  check_sampling(u, vals, len / 8);

  /* The names: the rest, split at NUL bytes. */
  len = size - 9 - len;
  text = malloc(len + 1);
  xtext = malloc(len + 1);
  memcpy(text, data + size - len, len);
  text[len] = 0;
  for (i = 0; i < len; i++)
    xtext[i] = text[i] ? 'x' : 0;
  xtext[len] = 0;
  check_text(text, len);
  for (i = 0; i <= len && n < MAX_NAMES; i++) {
    if (i == 0 || text[i - 1] == 0) {
      names[n] = text + i;
      xnames[n] = xtext + i;
      check_name(names[n]);
      n++;
    }
  }
  rows = 1 + data[0] % (n < 4 ? n : 4);
  cols = 1 + (data[0] >> 4) % (n < 4 ? n : 4);
  draw(&a, names, n, rows, cols, vals, bins);
  draw(&b, xnames, n, rows, cols, vals, bins);
  if (a.oom || b.oom)
    abort();
  markup_counts(&a, ca);
  markup_counts(&b, cb);
  if (memcmp(ca, cb, sizeof ca) != 0)
    abort();
  wt_html_free(&a);
  wt_html_free(&b);
  free(text);
  free(xtext);
  return 0;
}
