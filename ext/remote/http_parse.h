/*
** http_parse.h: the pure parts of the remote byte source (http.c): what
** the response headers of a range request say and whether the response is
** the one asked for.  remote layer; no libcurl, no I/O, no SQLite, so that the
** fuzzer (tests/fuzz/fuzz_http.c) can call it with any bytes.
**
** http.c feeds every header line of a response to wt_http_resp_line()
** (Content-Range and ETag are kept; a status line "HTTP/..." starts a new
** response: a redirect's headers are forgotten), asks wt_http_verdict() at
** the first body bytes, and wt_http_body_step() for each piece of body.
** A listing (wt_http_get) feeds its header lines to wt_http_link_line()
** for the URL of the next page.
*/
#ifndef WT_HTTP_PARSE_H
#define WT_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The verdict on a response (why a transfer is aborted). */
enum {
  WT_RESP_OK = 0,         /* go on */
  WT_RESP_IGNORED_RANGE,  /* a 200: the server sends the whole file */
  WT_RESP_BAD_RANGE,      /* Content-Range missing, malformed or not the bytes asked */
  WT_RESP_TOO_LONG,       /* more body than asked */
  WT_RESP_CHANGED,        /* the size or ETag differs from the ones at open */
  WT_RESP_BIG_ERROR_BODY, /* an error page over WT_RESP_MAX_ERROR_BODY bytes */
  WT_RESP_KEPT,           /* at open: the version whose header is kept (its ETag and size) */
  WT_RESP_WHOLE           /* at open: a 200 with a Content-Length, read from byte 0 */
};

/* An error page is read (to keep the connection) up to this many bytes. */
#define WT_RESP_MAX_ERROR_BODY (64 << 10)

/* The headers kept of the last response, NUL-terminated and trimmed
** (truncated to their buffers). */
typedef struct wt_http_resp {
  char cr[128];    /* Content-Range, "" when none */
  char etag[256];  /* ETag, "" when none */
  uint64_t length; /* Content-Length, when has_length */
  int has_length;  /* a Content-Length of digits only came */
} wt_http_resp;

/* What a range request asked for, and what was seen at open. */
typedef struct wt_http_ask {
  uint64_t off;     /* the first byte asked */
  size_t want;      /* the bytes asked (at least 1) */
  int opening;      /* the first request: size and ETag are not known yet */
  uint64_t size;    /* the file's size seen at open (not opening) */
  const char *etag; /* the ETag seen at open, "" for none (not opening) */
  /* at open: the header kept on disk, asked with If-None-Match */
  const char *kept_etag; /* its ETag, NULL or "" for none */
  uint64_t kept_size;    /* the size of its file */
} wt_http_ask;

/* Take one header line line[0..n) (not NUL-terminated, may end in CRLF)
** into r: Content-Range, ETag and Content-Length. */
void wt_http_resp_line(wt_http_resp *r, const char *line, size_t n);

/* Parse Content-Range "bytes A-B/T" (case-insensitive "bytes "; "*" for
** A-B sets a and b to UINT64_MAX, "*" for T sets t to UINT64_MAX): 0, or
** -1 when s is anything else (including B < A). */
int wt_http_parse_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *t);

/* The verdict at the first body bytes of a response with status code and
** headers r to request q.  A 206 passes only with a Content-Range of
** exactly bytes q->off..q->off+q->want-1 of q->size bytes and the ETag
** q->etag; at open, of bytes q->off..B of some known T with B < T and at
** most q->want bytes, and q->want becomes B - q->off + 1 (a file smaller
** than the range asked).  On WT_RESP_OK from a 206 *total is T.  Any
** status but 200 and 206 is WT_RESP_OK: an error page, which the caller
** judges by its status when the transfer ends.
** At open, a 200 or 206 whose strong ETag is q->kept_etag and whose size
** is q->kept_size is WT_RESP_KEPT: the server ignored If-None-Match, but
** the file is the version kept (stop: the kept header holds).  At open, a
** 200 for a range from byte 0 with a Content-Length is WT_RESP_WHOLE, *total
** the length: the server ignores Range, and the caller may read the
** header from the start of the body; any other 200 is WT_RESP_IGNORED_RANGE. */
int wt_http_verdict(long code, const wt_http_resp *r, wt_http_ask *q, uint64_t *total);

/* The verdict on n more body bytes of a response with status code, after
** got bytes of the want asked (a 206) or *discarded bytes of an error page
** (any other status; *discarded grows by n).  WT_RESP_OK means: take them
** (a 206: they fit in want - got). */
int wt_http_body_step(long code, size_t want, size_t got, size_t *discarded, size_t n);

/* Take one header line line[0..n) of a listing's response: a status line
** clears next, a Link header with a <URL> of at most max bytes followed by
** rel="next" sets it (next holds max + 1 bytes). */
void wt_http_link_line(const char *line, size_t n, char *next, size_t max);

#endif
