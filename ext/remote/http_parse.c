/*
** http_parse.c: the headers and the verdict of a range response.  See
** http_parse.h.
*/
#define _GNU_SOURCE /* memmem */
#include "http_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Copy header value v[0..n) (trimmed) into out. */
static void wt_header_value(const char *v, size_t n, char *out, size_t size) {
  while (n > 0 && (*v == ' ' || *v == '\t'))
    v++, n--;
  while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
    n--;
  if (n >= size)
    n = size - 1;
  memcpy(out, v, n);
  out[n] = 0;
}

/* 1 with *v set when s is a decimal number of 1 to 19 digits, else 0. */
static int wt_digits(const char *s, uint64_t *v) {
  size_t i;
  *v = 0;
  for (i = 0; s[i] >= '0' && s[i] <= '9'; i++)
    *v = *v * 10 + (uint64_t)(s[i] - '0');
  return i > 0 && i <= 19 && s[i] == 0;
}

void wt_http_resp_line(wt_http_resp *r, const char *line, size_t n) {
  if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) { /* a new response: forget the last */
    r->cr[0] = 0;
    r->etag[0] = 0;
    r->has_length = 0;
  } else if (n > 15 && strncasecmp(line, "content-length:", 15) == 0) {
    char v[24];
    wt_header_value(line + 15, n - 15, v, sizeof(v));
    r->has_length = wt_digits(v, &r->length);
  } else if (n > 14 && strncasecmp(line, "content-range:", 14) == 0) {
    wt_header_value(line + 14, n - 14, r->cr, sizeof(r->cr));
  } else if (n > 5 && strncasecmp(line, "etag:", 5) == 0) {
    wt_header_value(line + 5, n - 5, r->etag, sizeof(r->etag));
  }
}

int wt_http_parse_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *t) {
  char *end;
  errno = 0;
  if (strncasecmp(s, "bytes ", 6) != 0)
    return -1;
  s += 6;
  if (*s == '*') {
    *a = *b = UINT64_MAX;
    end = (char *)s + 1;
  } else {
    if (*s < '0' || *s > '9')
      return -1;
    errno = 0;
    *a = strtoull(s, &end, 10);
    if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
      return -1;
    *b = strtoull(end + 1, &end, 10);
    if (errno || *b < *a)
      return -1;
  }
  if (*end != '/')
    return -1;
  if (end[1] == '*' && end[2] == 0) {
    *t = UINT64_MAX;
    return 0;
  }
  if (end[1] < '0' || end[1] > '9')
    return -1;
  *t = strtoull(end + 1, &end, 10);
  return errno || *end != 0 ? -1 : 0;
}

/* The verdict on a 206's headers: the range asked for, the size and the
** ETag seen at open. */
static int wt_check_206(const wt_http_resp *r, wt_http_ask *q, uint64_t *total) {
  uint64_t a, b, t;
  if (wt_http_parse_range(r->cr, &a, &b, &t) != 0 || a == UINT64_MAX || a != q->off ||
      t == UINT64_MAX || b >= t)
    return WT_RESP_BAD_RANGE;
  if (q->opening) {
    if (b - a + 1 > q->want)
      return WT_RESP_BAD_RANGE;
    q->want = (size_t)(b - a + 1); /* a file smaller than the first range */
  } else {
    if (t != q->size)
      return WT_RESP_CHANGED;
    if (b != q->off + q->want - 1)
      return WT_RESP_BAD_RANGE;
    if (strcmp(r->etag, q->etag) != 0)
      return WT_RESP_CHANGED;
  }
  *total = t;
  return WT_RESP_OK;
}

/* True when a response at open is of the version whose header is kept:
** the same strong ETag (a weak one promises no bytes) and size. */
static int wt_is_kept(long code, const wt_http_resp *r, const wt_http_ask *q) {
  uint64_t a, b, t;
  if (!q->opening || q->kept_etag == NULL || q->kept_etag[0] == 0 ||
      strncmp(q->kept_etag, "W/", 2) == 0 || strcmp(r->etag, q->kept_etag) != 0)
    return 0;
  if (code == 200)
    return r->has_length && r->length == q->kept_size;
  /* (an unknown total, "*", confirms no size, whatever size was kept) */
  return wt_http_parse_range(r->cr, &a, &b, &t) == 0 && t != UINT64_MAX && t == q->kept_size;
}

int wt_http_verdict(long code, const wt_http_resp *r, wt_http_ask *q, uint64_t *total) {
  if ((code == 200 || code == 206) && wt_is_kept(code, r, q))
    return WT_RESP_KEPT;
  if (code == 200 && q->opening && q->off == 0 && r->has_length) {
    *total = r->length;
    return WT_RESP_WHOLE;
  }
  if (code == 200)
    return WT_RESP_IGNORED_RANGE;
  if (code == 206)
    return wt_check_206(r, q, total);
  return WT_RESP_OK;
}

int wt_http_body_step(long code, size_t want, size_t got, size_t *discarded, size_t n) {
  if (code != 206) { /* an error page: read it to keep the connection, within reason */
    *discarded += n;
    return *discarded > WT_RESP_MAX_ERROR_BODY ? WT_RESP_BIG_ERROR_BODY : WT_RESP_OK;
  }
  return n > want - got ? WT_RESP_TOO_LONG : WT_RESP_OK;
}

void wt_http_link_line(const char *line, size_t n, char *next, size_t max) {
  const char *lt, *gt;
  if (n >= 5 && memcmp(line, "HTTP/", 5) == 0)
    next[0] = 0;
  if (n > 5 && strncasecmp(line, "link:", 5) == 0 && (lt = memchr(line, '<', n)) != NULL &&
      (gt = memchr(lt, '>', n - (size_t)(lt - line))) != NULL && (size_t)(gt - lt - 1) <= max &&
      memmem(gt, n - (size_t)(gt - line), "rel=\"next\"", 10)) {
    memcpy(next, lt + 1, (size_t)(gt - lt - 1));
    next[gt - lt - 1] = 0;
  }
}
