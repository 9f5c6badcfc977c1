/*
** html.h: a growable text buffer for writing HTML, with escaping.
**
** Part of the report writer (ext/report/): pure C, no SQLite.  Everything
** weights_report() prints goes through here; every string that comes from
** a model file (tensor names, metadata values, paths) must be written with
** wt_html_text(), which escapes it for text and for attribute values alike,
** so that a tensor named "<script>" stays text.
**
** A buffer that failed to grow remembers it (oom) and ignores further
** writes; the caller checks once at the end.
*/
#ifndef WT_HTML_H
#define WT_HTML_H

#include <stddef.h>
#include <stdint.h>

typedef struct wt_html {
  char *p;    /* NUL-terminated when not oom */
  size_t n;   /* bytes written */
  size_t cap; /* bytes allocated */
  int oom;    /* an allocation failed: the content is incomplete */
} wt_html;

/* Append n raw bytes (markup written by the report itself). */
void wt_html_raw(wt_html *b, const char *s, size_t n);

/* Append a string literal of raw markup. */
#define wt_html_lit(b, s) wt_html_raw((b), "" s, sizeof(s) - 1)

/* Append raw markup, printf-style. */
void wt_html_printf(wt_html *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append untrusted text escaped for HTML text and quoted attribute values:
** & < > " ' become entities, NUL becomes U+FFFD, other bytes pass. */
void wt_html_text(wt_html *b, const char *s, size_t n);

/* wt_html_text() of a NUL-terminated string (NULL writes nothing). */
void wt_html_str(wt_html *b, const char *s);

/* Append an integer with thousands separators: 1234567 -> "1,234,567". */
void wt_html_int(wt_html *b, int64_t v);

/* Append a byte count for people: "512 B", "17.3 KiB", "4.92 GiB". */
void wt_html_bytes(wt_html *b, double bytes);

/* Append a number in a short form: "1.23 M", "45.6 k", "0.00412", "-1.5e-07". */
void wt_html_num(wt_html *b, double v);

/* Append a number in compact scientific form: 0.00412 -> "4.1e-3". */
void wt_html_sci(wt_html *b, double v);

/* Free the buffer's memory and reset it. */
void wt_html_free(wt_html *b);

#endif
