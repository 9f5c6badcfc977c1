/*
** report_test.c: unit tests of the report writer (ext/report/), linked
** without SQLite, which shows that layer is pure C.  Every expected value
** is worked out by hand in the comments.  Run by `make test`:
**
**   build/report_test        last line "report_unit: N passed, M failed"
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/html.h"
#include "report/names.h"
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

int main(void) {
  test_html();
  test_names();
  test_sample();
  test_svg();
  printf("report_unit: %d passed, %d failed\n", passed, failed);
  return failed != 0 || passed == 0;
}
