/*
** diff_page.c: weights_report(path_a, path_b), the difference of two
** models as one HTML page (report_job.h; model_page.c is the one-model
** page).
**
** Tensors are paired by name.  A checkpoint is compared with its GGUF
** conversion through the one name map (formats/name_map.h): when one
** model is safetensors and the other GGUF, the checkpoint's names are
** mapped to llama.cpp's for the GGUF's architecture, as tensor_compare()
** maps them.  The page lists the tensors added (only in b), removed (only
** in a), retyped (other dtype) and reshaped (other shape, as tensors()
** gives it: row-major for both formats), and draws two heatmaps, layer x
** kind (q, k, v, o, gate, up, down, norms), of the relative L2 difference
** |a - b| / |a| and of the cosine, computed from sampled values: at most
** WT_SAMPLE_VALUES pairs per tensor, in evenly spaced windows, or, for a
** q or k weight whose rows llama.cpp's converter permuted (the rule of
** decode/permute.h, tensor_compare()'s), in evenly spaced whole rows read
** at their un-permuted positions.  A tensor small enough is compared
** whole, and then gives the numbers tensor_compare() gives.
** Layer: report.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/permute.h"
#include "formats/name_map.h"
#include "names.h"
#include "page.h"
#include "report_job.h"
#include "sample.h"
#include "svg.h"

#define WT_NAME_MAX 1024
#define WT_MAX_ROWS 1024 /* heatmap rows drawn */

/* A tensor's name as the other model names it, and whether it was mapped. */
typedef struct wt_key {
  char *key;
  int hf; /* 1: a Hugging Face name, mapped to its GGUF name */
  int i;  /* index in its model */
} wt_key;

/* One pair of tensors with the same key. */
typedef struct wt_pair {
  int a, b;     /* indexes in the models */
  int permuted; /* q/k rows read un-permuted */
  int compared; /* same number of values: d is set */
  wt_compare d; /* tensor_compare()'s accumulator */
} wt_pair;

static int wt_key_cmp(const void *x, const void *y) {
  return strcmp(((const wt_key *)x)->key, ((const wt_key *)y)->key);
}

/* The architecture whose names the checkpoint of the pair (a, b) is mapped
** to: the GGUF's, when one model is safetensors, the other GGUF and the
** name map knows its architecture; else NULL (names pair as they are). */
static const char *wt_map_arch(const wt_rmodel *a, const wt_rmodel *b) {
  const wt_rmodel *g = strcmp(a->format, "gguf") == 0 ? a : b, *h = g == a ? b : a;
  if (strcmp(g->format, "gguf") != 0 || strcmp(h->format, "safetensors") != 0 ||
      !wt_name_map_knows(g->arch))
    return NULL;
  return g->arch;
}

/* The keys of m's tensors, sorted (NULL on out of memory): their names,
** mapped to arch's GGUF names when m is the checkpoint of a mapped pair. */
static wt_key *wt_keys(const wt_rmodel *m, const char *arch) {
  wt_key *k = malloc((size_t)(m->n + 1) * sizeof(*k));
  char buf[WT_NAME_MAX];
  int i;
  if (k == NULL)
    return NULL;
  if (strcmp(m->format, "safetensors") != 0)
    arch = NULL;
  for (i = 0; i < m->n; i++) {
    const char *name = m->t[i].name;
    int n = arch ? wt_name_hf_to_gguf(arch, name, strlen(name), buf, sizeof(buf)) : 0;
    k[i].key = strdup(n > 0 ? buf : name);
    k[i].hf = n > 0;
    k[i].i = i;
    if (k[i].key == NULL) {
      while (i-- > 0)
        free(k[i].key);
      free(k);
      return NULL;
    }
  }
  qsort(k, (size_t)m->n, sizeof(*k), wt_key_cmp);
  return k;
}

static void wt_keys_free(wt_key *k, int n) {
  int i;
  for (i = 0; k != NULL && i < n; i++)
    free(k[i].key);
  free(k);
}

/* Compare one pair from sampled values; va, vb hold WT_SAMPLE_VALUES. */
static int wt_compare_pair(wt_report *r, const wt_rmodel *a, const wt_rmodel *b, wt_pair *p,
                           int a_hf, int b_hf, double *va, double *vb) {
  const wt_rtensor *ta = &a->t[p->a], *tb = &b->t[p->b];
  const wt_rmodel *gm = a_hf ? b : a; /* the GGUF */
  const wt_rtensor *tg = a_hf ? tb : ta;
  int64_t rows = tg->rows, cols, i, n;
  uint64_t start[WT_SAMPLE_WINDOWS], count[WT_SAMPLE_WINDOWS], heads = 0;
  wt_error e;
  if (ta->numel != tb->numel || ta->numel == 0)
    return 0;
  p->compared = 1;
  wt_compare_init(&p->d);
  if (a_hf != b_hf)
    heads = wt_qk_heads(gm->arch, tg->name, strlen(tg->name), (uint64_t)gm->n_head,
                        (uint64_t)gm->n_head_kv);
  if (heads > 0 && rows > 0 && ta->numel % rows == 0 &&
      wt_qk_check((uint64_t)rows, heads, &e) == 0) {
    /* whole rows, evenly spaced, each read where the other side has it */
    int64_t nr, per_head = rows / (int64_t)heads;
    cols = ta->numel / rows;
    nr = WT_SAMPLE_VALUES / cols;
    nr = nr < 1 ? 1 : nr > rows ? rows : nr;
    n = cols < WT_SAMPLE_VALUES ? cols : WT_SAMPLE_VALUES;
    p->permuted = 1;
    for (i = 0; i < nr; i++) {
      int64_t g = nr > 1 ? i * (rows - 1) / (nr - 1) : 0;
      int64_t h = (int64_t)wt_qk_source_row((uint64_t)g, (uint64_t)per_head);
      int64_t ra = a_hf ? h : g, rb = a_hf ? g : h;
      if (r->values(r, a->path, ta->name, ra * cols, n, va) != n ||
          r->values(r, b->path, tb->name, rb * cols, n, vb) != n)
        return wt_report_fail(r, "%s: could not read %lld values of '%s'", a->path, (long long)n,
                              ta->name);
      wt_compare_add_f64(&p->d, va, vb, (size_t)n);
    }
    return 0;
  }
  n = wt_sample_windows((uint64_t)ta->numel, WT_SAMPLE_VALUES, WT_SAMPLE_WINDOWS, start, count);
  for (i = 0; i < n; i++) {
    int64_t c = (int64_t)count[i];
    if (r->values(r, a->path, ta->name, (int64_t)start[i], c, va) != c ||
        r->values(r, b->path, tb->name, (int64_t)start[i], c, vb) != c)
      return wt_report_fail(r, "%s: could not read %lld values of '%s'", a->path, (long long)c,
                            ta->name);
    wt_compare_add_f64(&p->d, va, vb, (size_t)c);
  }
  return 0;
}

/* Colour positions (0: alike, 1: different) and labels of the two scales. */
static double wt_pos_rel(double x) {
  return x <= 0 ? 0 : (log10(x) + 4) / 4;
}

static double wt_pos_cos(double c) {
  return c >= 1 ? 0 : c <= 0 ? 1 : (log10(1 - c) + 6) / 6;
}

static void wt_fmt_rel(wt_html *b, double x) {
  if (x > 0 && x < 0.01)
    wt_html_sci(b, x);
  else
    wt_html_printf(b, "%.3f", x);
}

static void wt_fmt_cos(wt_html *b, double c) {
  if (c >= 1)
    wt_html_lit(b, "1");
  else if (c >= 0.999)
    wt_html_printf(b, "%.6f", c);
  else
    wt_html_printf(b, "%.4f", c);
}

/* A table of names, one row per pair or lone tensor, in a <details>. */
static void wt_list_open(wt_html *b, const char *id, const char *title, int n, const char *cols) {
  wt_html_printf(b, "<details id=\"%s\"%s><summary>%s<span class=\"n\">%d</span></summary>", id,
                 n > 0 && n <= 40 ? " open" : "", title, n);
  wt_html_printf(b, "<table><tr>%s</tr>", cols);
}

/* One cell of a table with untrusted text. */
static void wt_td(wt_html *b, const char *cls, const char *s) {
  wt_html_printf(b, "<td class=\"%s\">", cls);
  wt_html_str(b, s ? s : "unknown");
  wt_html_lit(b, "</td>");
}

/* The list of tensors only one side has: idx[0..n) of m. */
static void wt_list_lone(wt_html *b, const char *id, const char *title, const wt_rmodel *m,
                         const int *idx, int n) {
  int i;
  wt_list_open(b, id, title, n, "<th>name</th><th>dtype</th><th>shape</th>");
  for (i = 0; i < n; i++) {
    const wt_rtensor *t = &m->t[idx[i]];
    wt_html_lit(b, "<tr class=\"item\">");
    wt_td(b, "name", t->name);
    wt_td(b, "", t->dtype);
    wt_td(b, "", t->shape);
    wt_html_lit(b, "</tr>");
  }
  wt_html_lit(b, "</table></details>");
}

/* The dtype (shape = 0) or shape (shape = 1) of t, "" when unknown. */
static const char *wt_dtype_or_shape(const wt_rtensor *t, int shape) {
  const char *s = shape ? t->shape : t->dtype;
  return s ? s : "";
}

/* How many pairs differ in the field. */
static int wt_count_changed(const wt_rmodel *a, const wt_rmodel *m, const wt_pair *p, int np,
                            int shape) {
  int i, n = 0;
  for (i = 0; i < np; i++)
    n += strcmp(wt_dtype_or_shape(&a->t[p[i].a], shape), wt_dtype_or_shape(&m->t[p[i].b], shape)) !=
         0;
  return n;
}

/* The list of pairs whose dtype (shape = 0) or shape (shape = 1) differ. */
static void wt_list_changed(wt_html *b, const wt_rmodel *a, const wt_rmodel *m, const wt_pair *p,
                            int np, int shape) {
  int i;
  wt_list_open(b, shape ? "reshaped" : "retyped", shape ? "reshaped" : "retyped",
               wt_count_changed(a, m, p, np, shape),
               shape ? "<th>a</th><th>b</th><th>shape in a</th><th>in b</th>"
                     : "<th>a</th><th>b</th><th>dtype in a</th><th>in b</th>");
  for (i = 0; i < np; i++) {
    const wt_rtensor *ta = &a->t[p[i].a], *tb = &m->t[p[i].b];
    if (strcmp(wt_dtype_or_shape(ta, shape), wt_dtype_or_shape(tb, shape)) == 0)
      continue;
    wt_html_lit(b, "<tr class=\"item\">");
    wt_td(b, "name", ta->name);
    wt_td(b, "name", tb->name);
    wt_td(b, "", wt_dtype_or_shape(ta, shape));
    wt_td(b, "", wt_dtype_or_shape(tb, shape));
    wt_html_lit(b, "</tr>");
  }
  wt_html_lit(b, "</table></details>");
}

/* The lists of changes and of compared pairs. */
static void wt_diff_lists(wt_html *b, const wt_rmodel *a, const wt_rmodel *m, const wt_pair *p,
                          int np, const int *only_a, int na, const int *only_b, int nb) {
  int i;
  wt_html_lit(b, "<section id=\"changes\"><h2>Changes</h2>");
  wt_list_lone(b, "added", "added (only in b)", m, only_b, nb);
  wt_list_lone(b, "removed", "removed (only in a)", a, only_a, na);
  wt_list_changed(b, a, m, p, np, 0);
  wt_list_changed(b, a, m, p, np, 1);
  wt_html_lit(b, "</section>\n");

  wt_html_lit(b, "<section id=\"pairs\"><h2>Every compared pair</h2>");
  wt_list_open(b, "compared", "tensors compared", np,
               "<th>a</th><th>b</th><th class=\"n\">values</th><th class=\"n\">rel. L2</th>"
               "<th class=\"n\">cosine</th>");
  for (i = 0; i < np; i++) {
    const wt_pair *q = &p[i];
    wt_compare_summary s;
    if (!q->compared)
      continue;
    wt_compare_summarize(&q->d, &s);
    wt_html_lit(b, "<tr class=\"pair\">");
    wt_td(b, "name", a->t[q->a].name);
    wt_td(b, "name", m->t[q->b].name);
    wt_html_printf(b, "<td class=\"n\">%llu%s</td><td class=\"n\" data-rel-l2=\"%.17g\">",
                   (unsigned long long)q->d.count, q->permuted ? " (rows un-permuted)" : "",
                   s.rel_l2);
    wt_fmt_rel(b, s.rel_l2);
    wt_html_printf(b, "</td><td class=\"n\" data-cosine=\"%.17g\">", s.cosine);
    wt_fmt_cos(b, s.cosine);
    wt_html_lit(b, "</td></tr>");
  }
  wt_html_lit(b, "</table></details></section>\n");
}

/* The two heatmaps, layer x kind, of the compared pairs. */
static int wt_diff_heatmaps(wt_report *r, const wt_rmodel *a, const wt_rmodel *m, const wt_pair *p,
                            int np, const char *map_arch) {
  static const wt_svg_tick rel_ticks[] = {{0, "\xe2\x89\xa4"
                                              "1e-4"},
                                          {0.25, "1e-3"},
                                          {0.5, "0.01"},
                                          {0.75, "0.1"},
                                          {1, "\xe2\x89\xa5"
                                              "1"}};
  static const wt_svg_tick cos_ticks[] = {{0, "\xe2\x89\xa5"
                                              "0.999999"},
                                          {1.0 / 3, "0.9999"},
                                          {2.0 / 3, "0.99"},
                                          {1, "\xe2\x89\xa4"
                                              "0"}};
  const char *cols[WT_KIND_COUNT];
  wt_html *b = &r->out;
  int *layers = malloc((size_t)(np + 1) * sizeof(int)), nl = 0, i, j, k;
  wt_compare *cell = NULL;
  double *rel = NULL, *cos = NULL;
  char(*labels)[WT_LABEL_SIZE] = NULL;
  const char **rows = NULL;
  int rc = 0;
  if (layers == NULL)
    return wt_report_fail(r, "out of memory");
  for (i = 0; i < np; i++)
    if (p[i].compared && a->t[p[i].a].layer >= 0 && a->t[p[i].a].kind >= 0)
      layers[nl++] = a->t[p[i].a].layer;
  qsort(layers, (size_t)nl, sizeof(int), wt_report_cmp_int);
  for (i = j = 0; i < nl; i++)
    if (j == 0 || layers[j - 1] != layers[i])
      layers[j++] = layers[i];
  nl = j > WT_MAX_ROWS ? WT_MAX_ROWS : j;
  wt_html_lit(b, "<section id=\"heatmaps\"><h2>Difference by layer and kind</h2>");
  if (map_arch) {
    const wt_rmodel *g = strcmp(a->format, "gguf") == 0 ? a : m;
    wt_html_lit(b, "<p class=\"note\">Names paired through llama.cpp's name map for ");
    wt_html_str(b, map_arch);
    wt_html_lit(b, " (Hugging Face \xe2\x86\x92 GGUF)");
    if (!wt_qk_arch_permutes(map_arch))
      wt_html_lit(b, "; its converter keeps the rows of q and k in the checkpoint's order.</p>");
    else if (g->n_head == 0)
      wt_html_lit(b, ". No head count is known, so q and k weights are compared row for row "
                     "as stored (llama.cpp permutes their rows).</p>");
    else
      wt_html_printf(b,
                     "; the rows of q and k weights are read un-permuted (%lld heads, %lld "
                     "key/value heads, from the GGUF metadata).</p>",
                     (long long)g->n_head, (long long)g->n_head_kv);
  }
  if (nl == 0) {
    wt_html_lit(b, "<p class=\"note\">No layer tensors (q, k, v, o, gate, up, down, norms) pair "
                   "up.</p></section>\n");
    free(layers);
    return 0;
  }
  cell = malloc((size_t)nl * WT_KIND_COUNT * sizeof(*cell));
  rel = malloc((size_t)nl * WT_KIND_COUNT * sizeof(double));
  cos = malloc((size_t)nl * WT_KIND_COUNT * sizeof(double));
  labels = malloc((size_t)nl * WT_LABEL_SIZE);
  rows = malloc((size_t)nl * sizeof(char *));
  if (cell == NULL || rel == NULL || cos == NULL || labels == NULL || rows == NULL) {
    rc = wt_report_fail(r, "out of memory");
    goto done;
  }
  for (i = 0; i < nl * WT_KIND_COUNT; i++)
    wt_compare_init(&cell[i]);
  for (i = 0; i < np; i++) { /* the norms of a layer add up into one cell */
    const wt_rtensor *t = &a->t[p[i].a];
    int *at;
    wt_compare *c;
    if (!p[i].compared || t->layer < 0 || t->kind < 0)
      continue;
    at = bsearch(&t->layer, layers, (size_t)nl, sizeof(int), wt_report_cmp_int);
    if (at == NULL)
      continue;
    c = &cell[(at - layers) * WT_KIND_COUNT + t->kind];
    wt_compare_merge(c, &p[i].d);
  }
  for (i = 0; i < nl; i++) {
    wt_report_layer_label(layers[i], labels[i], WT_LABEL_SIZE);
    rows[i] = labels[i];
    for (k = 0; k < WT_KIND_COUNT; k++) {
      const wt_compare *c = &cell[i * WT_KIND_COUNT + k];
      wt_compare_summary s;
      wt_compare_summarize(c, &s);
      rel[i * WT_KIND_COUNT + k] = c->count ? s.rel_l2 : NAN;
      cos[i * WT_KIND_COUNT + k] = c->count ? s.cosine : NAN;
    }
  }
  for (k = 0; k < WT_KIND_COUNT; k++)
    cols[k] = wt_kind_name(k);
  wt_html_lit(b,
              "<div class=\"row\"><div><h3 class=\"note\">relative L2 difference |a \xe2\x88\x92 "
              "b| / |a| (log scale)</h3>");
  wt_svg_heatmap(b, "rel-l2", rows, nl, cols, WT_KIND_COUNT, rel, wt_pos_rel, wt_fmt_rel, rel_ticks,
                 5);
  wt_html_lit(b, "</div><div><h3 class=\"note\">cosine similarity (log scale of 1 \xe2\x88\x92 "
                 "cosine)</h3>");
  wt_svg_heatmap(b, "cosine", rows, nl, cols, WT_KIND_COUNT, cos, wt_pos_cos, wt_fmt_cos, cos_ticks,
                 4);
  wt_html_printf(b,
                 "</div></div><p class=\"note\">Dark: alike; bright: different; grey: no pair. "
                 "Sampled: at most %d value pairs of each tensor, read with tensor_values(path, "
                 "name, start, count) in %d evenly spaced windows, or as evenly spaced whole rows "
                 "for q and k weights whose rows llama.cpp permuted (each row read at its "
                 "un-permuted position); a tensor that small is compared whole, as "
                 "tensor_compare() does. The norms cell pools a layer's norms.</p></section>\n",
                 WT_SAMPLE_VALUES, WT_SAMPLE_WINDOWS);
done:
  free(layers);
  free(cell);
  free(rel);
  free(cos);
  free(labels);
  free(rows);
  return rc;
}

int wt_report_diff(wt_report *r, const wt_rmodel *a, const wt_rmodel *b) {
  const char *map_arch = wt_map_arch(a, b);
  wt_key *ka = wt_keys(a, map_arch), *kb = wt_keys(b, map_arch);
  wt_pair *p = malloc((size_t)(a->n + 1) * sizeof(*p));
  int *only_a = malloc((size_t)(a->n + 1) * sizeof(int));
  int *only_b = malloc((size_t)(b->n + 1) * sizeof(int));
  double *va = malloc(WT_SAMPLE_VALUES * sizeof(double));
  double *vb = malloc(WT_SAMPLE_VALUES * sizeof(double));
  char *title = NULL;
  int np = 0, na = 0, nb = 0, i, j, rc = 0, n_retyped = 0, n_reshaped = 0;
  wt_html *o = &r->out;
  if (ka == NULL || kb == NULL || p == NULL || only_a == NULL || only_b == NULL || va == NULL ||
      vb == NULL) {
    rc = wt_report_fail(r, "out of memory");
    goto done;
  }
  /* pair by key: both lists are sorted */
  for (i = j = 0; i < a->n || j < b->n;) {
    int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(ka[i].key, kb[j].key);
    if (c < 0)
      only_a[na++] = ka[i++].i;
    else if (c > 0)
      only_b[nb++] = kb[j++].i;
    else {
      memset(&p[np], 0, sizeof(p[np]));
      p[np].a = ka[i].i;
      p[np].b = kb[j].i;
      rc = wt_compare_pair(r, a, b, &p[np], ka[i].hf, kb[j].hf, va, vb);
      if (rc)
        goto done;
      np++;
      i++;
      j++;
    }
  }
  qsort(only_a, (size_t)na, sizeof(int), wt_report_cmp_int); /* back to file order */
  qsort(only_b, (size_t)nb, sizeof(int), wt_report_cmp_int);
  n_retyped = wt_count_changed(a, b, p, np, 0);
  n_reshaped = wt_count_changed(a, b, p, np, 1);
  title = wt_report_printf("%s vs %s", strrchr(a->path, '/') ? strrchr(a->path, '/') + 1 : a->path,
                           strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path);
  if (title == NULL) {
    rc = wt_report_fail(r, "out of memory");
    goto done;
  }
  {
    char *sub = wt_report_printf("a: %s \xe2\x80\x94 b: %s", a->path, b->path);
    wt_page_begin(o, title, sub);
    free(sub);
  }
  wt_page_tiles_begin(o);
  wt_page_tile_text(o, "format_a", "format of a", a->format);
  wt_page_tile_int(o, "tensors_a", "tensors in a", a->n);
  wt_page_tile_text(o, "format_b", "format of b", b->format);
  wt_page_tile_int(o, "tensors_b", "tensors in b", b->n);
  wt_page_tile_int(o, "paired", "paired", np);
  wt_page_tile_int(o, "added", "added", nb);
  wt_page_tile_int(o, "removed", "removed", na);
  wt_page_tile_int(o, "retyped", "retyped", n_retyped);
  wt_page_tile_int(o, "reshaped", "reshaped", n_reshaped);
  wt_page_tiles_end(o);
  rc = wt_diff_heatmaps(r, a, b, p, np, map_arch);
  if (rc == 0) {
    wt_diff_lists(o, a, b, p, np, only_a, na, only_b, nb);
    wt_page_end(o, r->version);
  }
done:
  wt_keys_free(ka, a->n);
  wt_keys_free(kb, b->n);
  free(p);
  free(only_a);
  free(only_b);
  free(va);
  free(vb);
  free(title);
  return rc;
}
