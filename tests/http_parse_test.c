/*
** http_parse_test.c: unit tests of ext/remote/http_parse.c (the checks of a
** range response), against Content-Range values and verdicts worked out by
** hand from RFC 9110 §14.4 and the rules in http.h.  Prints
** "http_parse_test: N passed, M failed"; exit status 1 on a failure.
*/
#include <stdio.h>
#include <string.h>

#include "remote/http_parse.h"

static int passed, failed;

static void expect(int cond, const char *what) {
  if (cond) {
    passed++;
  } else {
    failed++;
    printf("FAILED: %s\n", what);
  }
}

/* Parse s: want rc, and a, b, t when rc is 0. */
static void range(const char *s, int rc, uint64_t a, uint64_t b, uint64_t t) {
  uint64_t x = 7, y = 7, z = 7;
  int got = wt_http_parse_range(s, &x, &y, &z);
  char what[200];
  snprintf(what, sizeof(what), "parse \"%s\": rc %d (%llu-%llu/%llu)", s, got,
           (unsigned long long)x, (unsigned long long)y, (unsigned long long)z);
  expect(got == rc && (rc != 0 || (x == a && y == b && z == t)), what);
}

/* The verdict on status code with the header lines lines (one string,
** lines ended by \r\n) to a request of want bytes at off. */
static int verdict(long code, const char *lines, uint64_t off, size_t want, int opening,
                   uint64_t size, const char *etag, size_t *want_after, uint64_t *total) {
  wt_http_resp r;
  wt_http_ask q = {off, want, opening, size, etag, NULL, 0};
  const char *p = lines, *nl;
  int v;
  memset(&r, 0, sizeof(r));
  while ((nl = strchr(p, '\n')) != NULL) {
    wt_http_resp_line(&r, p, (size_t)(nl + 1 - p));
    p = nl + 1;
  }
  *total = 0;
  v = wt_http_verdict(code, &r, &q, total);
  *want_after = q.want;
  return v;
}

/* The verdict at open on code and lines, with a header kept (its ETag, size). */
static int kept(long code, const char *lines, const char *etag, uint64_t size) {
  wt_http_resp r;
  wt_http_ask q = {0, 65536, 1, 0, "", etag, size};
  const char *p = lines, *nl;
  uint64_t total;
  memset(&r, 0, sizeof(r));
  while ((nl = strchr(p, '\n')) != NULL) {
    wt_http_resp_line(&r, p, (size_t)(nl + 1 - p));
    p = nl + 1;
  }
  return wt_http_verdict(code, &r, &q, &total);
}

int main(void) {
  size_t w, d;
  uint64_t t;
  char next[16];
  range("bytes 0-0/1", 0, 0, 0, 1);
  range("BYTES 5-9/10", 0, 5, 9, 10);
  range("bytes 0-1/*", 0, 0, 1, UINT64_MAX);
  range("bytes */0", 0, UINT64_MAX, UINT64_MAX, 0);
  range("bytes 18446744073709551614-18446744073709551614/18446744073709551615", 0,
        18446744073709551614ull, 18446744073709551614ull, 18446744073709551615ull);
  range("bytes 18446744073709551616-1/2", -1, 0, 0, 0); /* 2^64 */
  range("bytes 5-4/10", -1, 0, 0, 0);                   /* B < A */
  range("bytes -5/10", -1, 0, 0, 0);
  range("bytes 0-5/10 ", -1, 0, 0, 0);
  range("bytes 0-5/", -1, 0, 0, 0);
  range("bytes 0-5", -1, 0, 0, 0);
  range("items 0-5/10", -1, 0, 0, 0);
  range("bytes +0-5/10", -1, 0, 0, 0);
  range("bytes 0--5/10", -1, 0, 0, 0);
  range("bytes 0-5/*x", -1, 0, 0, 0);

  /* at open: 2 MiB asked of a 6724-byte file, after a redirect's headers */
  expect(verdict(206,
                 "HTTP/1.1 302 Found\r\nContent-Range: bytes 0-1/2\r\nETag: \"old\"\r\n"
                 "HTTP/1.1 206 Partial Content\r\ncontent-range:  bytes 0-6723/6724 \r\n",
                 0, 2 << 20, 1, 0, "", &w, &t) == WT_RESP_OK &&
             w == 6724 && t == 6724,
         "open: a file smaller than the first range");
  expect(verdict(206, "Content-Range: bytes 0-99/100\r\n", 0, 50, 1, 0, "", &w, &t) ==
             WT_RESP_BAD_RANGE,
         "open: more than asked");
  expect(verdict(206, "Content-Range: bytes 0-99/100\r\nHTTP/1.1 206\r\n", 0, 200, 1, 0, "", &w,
                 &t) == WT_RESP_BAD_RANGE,
         "open: the last response has no Content-Range");
  expect(verdict(206, "Content-Range: bytes 0-99/*\r\n", 0, 200, 1, 0, "", &w, &t) ==
             WT_RESP_BAD_RANGE,
         "open: unknown size");
  expect(verdict(206, "Content-Range: bytes 0-100/100\r\n", 0, 200, 1, 0, "", &w, &t) ==
             WT_RESP_BAD_RANGE,
         "open: the range ends past the size");
  /* later reads: 100 bytes at 4096 of 6724, ETag "abc" */
  expect(verdict(206, "ETag: \"abc\"\r\nContent-Range: bytes 4096-4195/6724\r\n", 4096, 100, 0,
                 6724, "\"abc\"", &w, &t) == WT_RESP_OK &&
             w == 100 && t == 6724,
         "read: the range asked");
  expect(verdict(206, "ETag: \"abc\"\r\nContent-Range: bytes 4096-4194/6724\r\n", 4096, 100, 0,
                 6724, "\"abc\"", &w, &t) == WT_RESP_BAD_RANGE,
         "read: one byte short");
  expect(verdict(206, "ETag: \"abc\"\r\nContent-Range: bytes 4097-4196/6724\r\n", 4096, 100, 0,
                 6724, "\"abc\"", &w, &t) == WT_RESP_BAD_RANGE,
         "read: shifted by one");
  expect(verdict(206, "ETag: \"abc\"\r\nContent-Range: bytes 4096-4195/6725\r\n", 4096, 100, 0,
                 6724, "\"abc\"", &w, &t) == WT_RESP_CHANGED,
         "read: another size");
  expect(verdict(206, "ETag: \"abd\"\r\nContent-Range: bytes 4096-4195/6724\r\n", 4096, 100, 0,
                 6724, "\"abc\"", &w, &t) == WT_RESP_CHANGED,
         "read: another ETag");
  expect(verdict(206, "Content-Range: bytes 4096-4195/6724\r\n", 4096, 100, 0, 6724, "", &w, &t) ==
             WT_RESP_OK,
         "read: no ETag at open nor now");
  expect(verdict(200, "Content-Range: bytes 4096-4195/6724\r\n", 4096, 100, 0, 6724, "", &w, &t) ==
             WT_RESP_IGNORED_RANGE,
         "read: a 200");
  expect(verdict(404, "", 4096, 100, 0, 6724, "", &w, &t) == WT_RESP_OK && w == 100,
         "read: an error page is judged by its status later");

  /* a 200 at open: the header from the start of the stream, when its length is known */
  expect(verdict(200, "Content-Length: 6724\r\n", 0, 65536, 1, 0, "", &w, &t) == WT_RESP_WHOLE &&
             t == 6724,
         "open: a 200 with a length");
  expect(verdict(200, "content-length:  0 \r\n", 0, 65536, 1, 0, "", &w, &t) == WT_RESP_WHOLE &&
             t == 0,
         "open: a 200 of an empty file");
  expect(verdict(200, "", 0, 65536, 1, 0, "", &w, &t) == WT_RESP_IGNORED_RANGE,
         "open: a 200 without a length");
  expect(verdict(200, "Content-Length: 6724x\r\n", 0, 65536, 1, 0, "", &w, &t) ==
             WT_RESP_IGNORED_RANGE,
         "open: a 200 with a malformed length");
  expect(verdict(200, "Content-Length: 99999999999999999999\r\n", 0, 65536, 1, 0, "", &w, &t) ==
             WT_RESP_IGNORED_RANGE,
         "open: a 200 with a length of 20 digits");
  expect(verdict(200, "Content-Length: 6724\r\nHTTP/1.1 200 OK\r\n", 0, 65536, 1, 0, "", &w, &t) ==
             WT_RESP_IGNORED_RANGE,
         "open: a length of an earlier response is forgotten");
  expect(verdict(200, "Content-Length: 6724\r\n", 4096, 100, 0, 6724, "", &w, &t) ==
             WT_RESP_IGNORED_RANGE,
         "read: a 200 with a length");
  /* at open with a header kept on disk (If-None-Match "k", 6724 bytes) */
  expect(kept(200, "ETag: \"k\"\r\nContent-Length: 6724\r\n", "\"k\"", 6724) == WT_RESP_KEPT,
         "kept: a 200 of the same version");
  expect(kept(206, "ETag: \"k\"\r\nContent-Range: bytes 0-65535/6724000\r\n", "\"k\"", 6724000) ==
             WT_RESP_KEPT,
         "kept: a 206 of the same version");
  expect(kept(206, "ETag: \"k\"\r\nContent-Range: bytes 0-65535/6724001\r\n", "\"k\"", 6724000) ==
             WT_RESP_OK,
         "kept: the same ETag, another size");
  expect(kept(206, "ETag: \"j\"\r\nContent-Range: bytes 0-65535/6724000\r\n", "\"k\"", 6724000) ==
             WT_RESP_OK,
         "kept: another ETag");
  expect(kept(206, "ETag: \"k\"\r\nContent-Range: bytes 0-67/*\r\n", "\"k\"", UINT64_MAX) !=
             WT_RESP_KEPT,
         "kept: an unknown total confirms no size (fuzz_http: a kept size of 2^64 - 1)");
  expect(kept(200, "ETag: W/\"k\"\r\nContent-Length: 6724\r\n", "W/\"k\"", 6724) == WT_RESP_WHOLE,
         "kept: a weak ETag promises no bytes");
  expect(kept(200, "Content-Length: 6724\r\n", "", 6724) == WT_RESP_WHOLE, "kept: no ETag kept");

  /* body pieces */
  d = 0;
  expect(wt_http_body_step(206, 100, 60, &d, 40) == WT_RESP_OK, "body: the last 40 of 100");
  expect(wt_http_body_step(206, 100, 60, &d, 41) == WT_RESP_TOO_LONG, "body: one byte too many");
  expect(wt_http_body_step(404, 100, 0, &d, 65536) == WT_RESP_OK && d == 65536,
         "error page: 64 KiB read");
  expect(wt_http_body_step(404, 100, 0, &d, 1) == WT_RESP_BIG_ERROR_BODY, "error page: 64 KiB + 1");

  /* Link rel="next" */
  strcpy(next, "old");
  wt_http_link_line("HTTP/1.1 200 OK\r\n", 17, next, 15);
  expect(next[0] == 0, "link: a status line clears it");
  wt_http_link_line("Link: <http://h/n>; rel=\"next\"\r\n", 32, next, 15);
  expect(strcmp(next, "http://h/n") == 0, "link: rel=next");
  wt_http_link_line("link: <http://h/prev>; rel=\"prev\"\r\n", 35, next, 15);
  expect(strcmp(next, "http://h/n") == 0, "link: rel=prev is not next");
  wt_http_link_line("Link: <http://h/0123456789>; rel=\"next\"\r\n", 41, next, 15);
  expect(strcmp(next, "http://h/n") == 0, "link: a URL over the bound is not taken");

  printf("http_parse_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
