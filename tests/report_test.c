/*
** report_test.c: unit tests of the report writer (ext/report/), linked
** without SQLite, which shows that layer is pure C: the drawing pieces,
** and the two pages assembled from models described here, reading values
** through a reader written here (no file, no SQL).  Every expected value
** is worked out by hand in the comments.  Run by `make test`:
**
**   build/report_test        last line "report_unit: N passed, M failed"
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "report/html.h"
#include "report/names.h"
#include "report/report_job.h"
#include "report/sample.h"
#include "report/svg.h"

static int passed, failed;

/* Count a check; print it when it fails. */
static void check(int cond, const char *what, const char *got) {
  if (cond) {
    passed++;
    return;
  }
  failed++;
  printf("FAILED: %s (got %s)\n", what, got ? got : "-");
}

/* Run a writer into a fresh buffer and compare its text with want. */
#define EXPECT_HTML(call, want)                                                                    \
  do {                                                                                             \
    wt_html b = {0};                                                                               \
    call;                                                                                          \
    check(b.p != NULL && strcmp(b.p, want) == 0, #call " == " want, b.p);                          \
    wt_html_free(&b);                                                                              \
  } while (0)

static void test_html(void) {
  /* the five specials become entities, NUL becomes U+FFFD, the rest passes */
  EXPECT_HTML(wt_html_text(&b, "<a href='x'>&\"", 14), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
  EXPECT_HTML(wt_html_text(&b, "a\0b", 3), "a&#xFFFD;b");
  /* bytes that are not UTF-8 become U+FFFD each; valid characters stay */
  EXPECT_HTML(wt_html_text(&b, "\xc3\xa9\xff\xfe.\xc3(", 7), "\xc3\xa9&#xFFFD;&#xFFFD;.&#xFFFD;(");
  EXPECT_HTML(wt_html_str(&b, "caf\xc3\xa9 \xe2\x86\x92"), "caf\xc3\xa9 \xe2\x86\x92");
  EXPECT_HTML(wt_html_str(&b, "&lt;"), "&amp;lt;");
  /* thousands separators: a comma before each group of three from the right */
  EXPECT_HTML(wt_html_int(&b, 0), "0");
  EXPECT_HTML(wt_html_int(&b, 999), "999");
  EXPECT_HTML(wt_html_int(&b, 1000), "1,000");
  EXPECT_HTML(wt_html_int(&b, 107328), "107,328");
  EXPECT_HTML(wt_html_int(&b, -1234567), "-1,234,567");
  EXPECT_HTML(wt_html_int(&b, INT64_MIN), "-9,223,372,036,854,775,808");
  /* bytes: 1536 / 1024 = 1.5; 115000 / 1024 = 112.3 -> no decimals over 100 */
  EXPECT_HTML(wt_html_bytes(&b, 512), "512 B");
  EXPECT_HTML(wt_html_bytes(&b, 1536), "1.50 KiB");
  EXPECT_HTML(wt_html_bytes(&b, 115000), "112 KiB");
  EXPECT_HTML(wt_html_bytes(&b, 5.0 * 1024 * 1024 * 1024), "5.00 GiB");
  /* compact scientific: 0.00412 = 4.12e-3; 0.000999 rounds to 10.0e-4 = 1.0e-3 */
  EXPECT_HTML(wt_html_sci(&b, 0.00412), "4.1e-3");
  EXPECT_HTML(wt_html_sci(&b, 0.000999), "1.0e-3");
  EXPECT_HTML(wt_html_lit(&b, "<b>"), "<b>");
}

static void test_names(void) {
  check(wt_name_layer("blk.12.attn_q.weight") == 12, "layer of blk.12", NULL);
  check(wt_name_layer("model.layers.3.mlp.up_proj.weight") == 3, "layer of model.layers.3", NULL);
  check(wt_name_layer("token_embd.weight") == WT_LAYER_EMBED, "token_embd is the embedding", NULL);
  check(wt_name_layer("model.embed_tokens.weight") == WT_LAYER_EMBED, "embed_tokens", NULL);
  check(wt_name_layer("output_norm.weight") == WT_LAYER_OUTPUT, "output_norm is output", NULL);
  check(wt_name_layer("lm_head.weight") == WT_LAYER_OUTPUT, "lm_head is output", NULL);
  check(wt_name_layer("rope_freqs.weight") == WT_LAYER_OTHER, "rope_freqs is other", NULL);
  check(wt_name_layer("blk.x.attn_q.weight") == WT_LAYER_OTHER, "blk.x has no number", NULL);
  check(wt_name_kind("blk.0.attn_q.weight") == WT_KIND_Q, "attn_q is q", NULL);
  check(wt_name_kind("model.layers.0.self_attn.o_proj.weight") == WT_KIND_O, "o_proj is o", NULL);
  check(wt_name_kind("blk.1.ffn_down.weight") == WT_KIND_DOWN, "ffn_down is down", NULL);
  check(wt_name_kind("blk.1.attn_q_norm.weight") == WT_KIND_NORM, "attn_q_norm is a norm", NULL);
  check(wt_name_kind("model.layers.2.post_attention_layernorm.weight") == WT_KIND_NORM,
        "post_attention_layernorm is a norm", NULL);
  check(wt_name_kind("output.weight") == -1, "output.weight is in no layer", NULL);
  check(wt_name_kind("model.layers.1.pre_feedforward_layernorm.weight") == WT_KIND_NORM &&
            wt_name_kind("blk.1.post_ffw_norm.weight") == WT_KIND_NORM,
        "Gemma 2's extra norms are norms", NULL);
}

static void test_sample(void) {
  uint64_t start[16], count[16], bins[4] = {0};
  double v[] = {-1, 0, 0.5, 1, NAN, INFINITY}, lo = 7, hi = 7;
  int n;
  n = wt_sample_windows(10, 100, 16, start, count);
  check(n == 1 && start[0] == 0 && count[0] == 10, "a small tensor is one window", NULL);
  /* 4 windows of 100/4 = 25 values, gap (1000 - 25) / 3 = 325: 0, 325, 650, 975 (ends at 1000) */
  n = wt_sample_windows(1000, 100, 4, start, count);
  check(n == 4 && count[0] == 25 && start[1] == 325 && start[2] == 650 && start[3] == 975,
        "4 evenly spaced windows of 25", NULL);
  check(wt_sample_windows(0, 100, 4, start, count) == 0, "no values, no window", NULL);
  /* bins of width 0.5 over [-1, 1]: -1 -> 0, 0 -> 2, 0.5 -> 3, 1 -> 3 (the last bin holds hi) */
  wt_histogram(v, 6, -1, 1, bins, 4);
  check(bins[0] == 1 && bins[1] == 0 && bins[2] == 1 && bins[3] == 2, "histogram bins", NULL);
  check(wt_sample_range(v, 6, &lo, &hi) == 4 && lo == -1 && hi == 1,
        "the finite range leaves NaN and Inf out", NULL);
  lo = hi = 7;
  check(wt_sample_range(v + 4, 2, &lo, &hi) == 0 && lo == 7 && hi == 7, "no finite value", NULL);
}

static void test_svg(void) {
  static const char *const labels[] = {"<Q8_0>", "F32"};
  const double values[] = {100, 25};
  const uint64_t bins[3] = {9, 0, 99};
  wt_html b = {0};
  const char *p;
  int n = 0;
  wt_svg_hbars(&b, labels, values, 2, wt_html_num, "#000");
  check(b.p && strstr(b.p, "&lt;Q8_0&gt;") && !strstr(b.p, "<Q8_0>"), "bar labels are escaped",
        b.p);
  /* the longest bar is 250 px, so 25 of 100 is 62.5 px */
  check(b.p && strstr(b.p, "width=\"250.0\"") && strstr(b.p, "width=\"62.5\""), "bar widths", b.p);
  wt_html_free(&b);
  wt_svg_histogram(&b, bins, 3, -1, 1);
  for (p = b.p; p && (p = strstr(p, "class=\"hist-bar\"")) != NULL; p++)
    n++;
  check(n == 2, "one bar per non-empty bin", b.p);
  /* heights log(1 + count) / log(1 + 99) * 100: 9 -> 50, 99 -> 100 */
  check(b.p && strstr(b.p, "height=\"50.00\"") && strstr(b.p, "height=\"100.00\""),
        "log-scale heights", b.p);
  wt_html_free(&b);
}

/* The pages' reader: tensor k's value i is i + 1, plus 1 in model b's
** "blk.0.attn_q.weight"; "blk.0.ffn_up.weight" cannot be read. */
static int reads;
static int64_t fake_values(wt_report *r, const char *path, const char *name, int64_t start,
                           int64_t count, double *v) {
  int64_t i;
  reads++;
  if (strcmp(name, "blk.0.ffn_up.weight") == 0)
    return wt_report_fail(r, "no decoder for %s", name);
  for (i = 0; i < count; i++)
    v[i] = (double)(start + i + 1) + (strcmp(path, "b") == 0 && strstr(name, "attn_q") ? 1 : 0);
  return count;
}

/* Whether the page holds s. */
static int page_has(const wt_report *r, const char *s) {
  return r->out.p != NULL && strstr(r->out.p, s) != NULL;
}

static void test_pages(void) {
  wt_rtensor t[3] = {{"token_embd.weight", "F32", "[3, 2]", 6, 24, 3, 0, 0},
                     {"blk.0.attn_q.weight", "F32", "[2, 2]", 4, 16, 2, 0, 0},
                     {"blk.0.ffn_up.weight", "Q9_9", "[2]", 2, 2, 1, 0, 0}};
  wt_rmeta meta[1] = {{"general.architecture", "STRING", "llama<x>", 0}};
  wt_rmodel a, b;
  wt_report r;
  int i;
  for (i = 0; i < 3; i++) {
    t[i].layer = wt_name_layer(t[i].name);
    t[i].kind = wt_name_kind(t[i].name);
  }
  memset(&a, 0, sizeof(a));
  a.path = "a";
  a.format = "gguf";
  a.arch = "llama";
  a.t = t;
  a.n = 3;
  a.meta = meta;
  a.n_meta = 1;
  a.n_files = 1;
  b = a;
  b.path = "b";
  b.n = 2; /* without the ffn_up weight */

  memset(&r, 0, sizeof(r));
  r.values = fake_values;
  r.version = "test";
  check(wt_report_one(&r, &a) == 0 && !r.out.oom, "the one-model page is written", r.err);
  /* token_embd's values 1..6: min 1, max 6, mean 3.5, std (population)
  ** sqrt(17.5 / 6) = 1.70783; the q weight's 1..4: mean 2.5 */
  check(page_has(&r, "data-stat=\"min\">1<") && page_has(&r, "data-stat=\"max\">6<") &&
            page_has(&r, "data-stat=\"mean\">3.5<") && page_has(&r, "data-stat=\"std\">1.70783<"),
        "the embedding's statistics", NULL);
  check(page_has(&r, "data-stat=\"mean\">2.5<"), "the q weight's mean", NULL);
  check(page_has(&r, "values not shown: no decoder for blk.0.ffn_up.weight"),
        "a tensor that cannot be read", NULL);
  check(page_has(&r, "llama&lt;x&gt;") && !page_has(&r, "llama<x>"), "the metadata, escaped", NULL);
  check(r.err == NULL, "the reader's error is shown, not kept", r.err);
  wt_html_free(&r.out);

  memset(&r, 0, sizeof(r));
  r.values = fake_values;
  r.version = "test";
  reads = 0;
  check(wt_report_diff(&r, &a, &b) == 0 && !r.out.oom, "the diff page is written", r.err);
  /* the q weight: a = (1, 2, 3, 4), b = a + 1: |a - b| / |a| = 2 / sqrt(30)
  ** = 0.36514837167011072; cosine 40 / sqrt(30 * 54) = 0.99380798999990...;
  ** the embedding: the same values, 0 and 1 */
  check(page_has(&r, "data-rel-l2=\"0.3651483716701") &&
            page_has(&r, "data-cosine=\"0.993807989999"),
        "the q weight's difference", NULL);
  check(page_has(&r, "data-rel-l2=\"0\"") && page_has(&r, "data-cosine=\"1\""),
        "the embedding's difference", NULL);
  check(page_has(&r, "data-key=\"removed\" data-value=\"1\"") &&
            page_has(&r, ">blk.0.ffn_up.weight<") &&
            page_has(&r, "data-key=\"paired\" data-value=\"2\""),
        "two pairs, and the tensor only a has listed", NULL);
  check(reads == 4, "two pairs, each read once per side", NULL);
  wt_html_free(&r.out);
  free(r.err);
}

int main(void) {
  test_html();
  test_names();
  test_sample();
  test_svg();
  test_pages();
  printf("report_unit: %d passed, %d failed\n", passed, failed);
  return failed != 0 || passed == 0;
}
