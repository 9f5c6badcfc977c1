/*
** html.c: the text buffer of the report writer, with HTML escaping and
** number formatting (see html.h).  Pure C, no SQLite.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "html.h"

/* Make room for n more bytes plus a NUL.  Returns 0, or -1 (oom set). */
static int wt_html_reserve(wt_html *b, size_t n) {
  size_t want;
  char *p;
  if (b->oom)
    return -1;
  if (n < b->cap - b->n)
    return 0;
  want = b->cap ? b->cap : 4096;
  while (want - b->n <= n) {
    if (want > SIZE_MAX / 2) {
      b->oom = 1;
      return -1;
    }
    want *= 2;
  }
  p = realloc(b->p, want);
  if (p == NULL) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = want;
  return 0;
}

void wt_html_raw(wt_html *b, const char *s, size_t n) {
  if (wt_html_reserve(b, n))
    return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

/* Formatted into the free space at once (made at least 256 bytes first);
** formatted again only when it did not fit. */
void wt_html_printf(wt_html *b, const char *fmt, ...) {
  va_list ap;
  int len;
  if (wt_html_reserve(b, 256))
    return;
  va_start(ap, fmt);
  len = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  if (len < 0) {
    b->p[b->n] = 0;
    return;
  }
  if ((size_t)len >= b->cap - b->n) {
    if (wt_html_reserve(b, (size_t)len)) {
      b->p[b->n] = 0;
      return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  b->n += (size_t)len;
}

void wt_html_text(wt_html *b, const char *s, size_t n) {
  size_t i, start = 0, k;
  for (i = 0; i < n; i++) {
    const char *rep;
    if ((unsigned char)s[i] >= 0x80) { /* a valid character as it is, else U+FFFD */
      if ((k = wt_utf8_char(s + i, n - i)) > 0) {
        i += k - 1;
        continue;
      }
      wt_html_raw(b, s + start, i - start);
      wt_html_raw(b, "&#xFFFD;", strlen("&#xFFFD;"));
      start = i + 1;
      continue;
    }
    switch (s[i]) {
    case '&':
      rep = "&amp;";
      break;
    case '<':
      rep = "&lt;";
      break;
    case '>':
      rep = "&gt;";
      break;
    case '"':
      rep = "&quot;";
      break;
    case '\'':
      rep = "&#39;";
      break;
    case 0:
      rep = "&#xFFFD;";
      break;
    default:
      continue;
    }
    wt_html_raw(b, s + start, i - start);
    wt_html_raw(b, rep, strlen(rep));
    start = i + 1;
  }
  wt_html_raw(b, s + start, n - start);
}

void wt_html_str(wt_html *b, const char *s) {
  if (s != NULL)
    wt_html_text(b, s, strlen(s));
}

void wt_html_int(wt_html *b, int64_t v) {
  char digits[32], out[48];
  int n, i, o = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)u);
  if (v < 0)
    out[o++] = '-';
  for (i = 0; i < n; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      out[o++] = ',';
    out[o++] = digits[i];
  }
  wt_html_raw(b, out, (size_t)o);
}

void wt_html_bytes(wt_html *b, double bytes) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    u++;
  }
  if (u == 0)
    wt_html_printf(b, "%.0f B", bytes);
  else
    wt_html_printf(b, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, unit[u]);
}

void wt_html_num(wt_html *b, double v) {
  double a = fabs(v);
  if (isnan(v))
    wt_html_raw(b, "NaN", 3);
  else if (isinf(v))
    wt_html_printf(b, "%s", v < 0 ? "-Inf" : "Inf");
  else if (a >= 1e9)
    wt_html_printf(b, "%.3g G", v / 1e9);
  else if (a >= 1e6)
    wt_html_printf(b, "%.3g M", v / 1e6);
  else if (a >= 1e4)
    wt_html_printf(b, "%.3g k", v / 1e3);
  else
    wt_html_printf(b, "%.4g", v);
}

void wt_html_sci(wt_html *b, double v) {
  char m[32];
  int e;
  if (v == 0 || !isfinite(v)) {
    wt_html_num(b, v);
    return;
  }
  e = (int)floor(log10(fabs(v)));
  snprintf(m, sizeof(m), "%.1f", v / pow(10, e));
  if (strcmp(m, "10.0") == 0 || strcmp(m, "-10.0") == 0) { /* 9.96 rounds up */
    e++;
    snprintf(m, sizeof(m), "%.1f", v / pow(10, e));
  }
  wt_html_printf(b, "%se%d", m, e);
}

void wt_html_free(wt_html *b) {
  free(b->p);
  memset(b, 0, sizeof(*b));
}
