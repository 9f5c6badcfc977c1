/*
** http_int.h: what the files of the HTTP byte source share: http_open.c
** opens a file, calling down to http_prefetch.c (files opened ahead) and
** http.c (the source and the halves of an open), which call down to
** http_transfer.c (options, headers, callbacks, retries), as http_get.c
** (whole listings) does; none calls a file that calls it.  Built only with
** libcurl (WT_REMOTE).
*/
#ifndef WT_HTTP_INT_H
#define WT_HTTP_INT_H

#include "curl_load.h"
#include "disk_cache.h"
#include "http.h"
#include "http_parse.h"

/* An open remote file (wt_file.impl). */
typedef struct wt_http {
  CURL *curl;
  struct curl_slist *hdrs;
  char *url;            /* the resolved URL */
  char shown[512];      /* the URL for messages, without user info */
  char etag[256];       /* the ETag at open, "" when the server sent none */
  unsigned char *first; /* bytes [0, first_n) read at open */
  size_t first_n;
  size_t first_cap; /* bytes allocated at first */
  /* one transfer */
  unsigned char *dst;
  uint64_t off;
  size_t want, got, discarded;
  int opening;         /* the first request: the size is not known yet */
  int conditional;     /* the first request carries If-None-Match */
  int from_disk;       /* first[] came from the disk cache, unchanged */
  int whole;           /* the server ignores Range: first[] is the start of a 200 stream */
  int stopped;         /* the first transfer was ended on purpose (the header complete or kept) */
  uint64_t check_at;   /* a 200 stream: ask whether the header is complete at this many bytes */
  char kept_etag[256]; /* the header kept on disk (its ETag, "" for none) */
  uint64_t kept_size;  /* and its file's size */
  int body_started, why;
  int has_token;     /* an Authorization header is sent */
  int token_ok;      /* the URL's host is the endpoint's */
  char *pinned;      /* where the first request was redirected to, used after it */
  wt_http_resp resp; /* Content-Range and ETag of the last response */
  uint64_t cr_total; /* the size its Content-Range says */
} wt_http;

/* Where the body of a transfer goes: its handle and the file it reads. */
typedef struct wt_sink {
  wt_http *h;
  const wt_file *f;
} wt_sink;

/* http_transfer.c: one ranged GET of bytes [off, off + want) of f into
** dst with its checks and retries (*code: the last status): 0, or -1 with
** err set; after an open's first request, later ones go straight to where
** it was redirected (pin). */
int wt_fetch(wt_http *h, const wt_file *f, uint64_t off, size_t want, void *dst, long *code,
             wt_error *err);
void wt_http_pin(wt_http *h);

/* Set the options of h's easy handle (protocols, redirects, timeouts,
** callbacks).  0, or -1. */
int wt_http_setup(wt_http *h);

/* The request headers: the token when token_ok, If-None-Match when etag.
** 0, or -1 when out of memory. */
int wt_http_headers(wt_http *h, int token_ok, const char *etag);

/* True when the first transfer of an open ended as one that opens: a 206 of
** the bytes asked, a 416 (an empty file), a 304 or a response of the version
** kept on disk, or a 200 stream read to the end of the header (or file). */
int wt_http_opened(const wt_http *h, CURLcode rc, long code);

/* Set h up for one GET of bytes [off, off + want) into dst, the body going
** to sink k (which must live until the transfer ends). */
void wt_transfer_setup(wt_http *h, uint64_t off, size_t want, void *dst, wt_sink *k);

/* The first half of an open: resolve p, set up f's handle and take the
** disk cache's entry into *e.  *ready is 1 when no request is needed (a
** commit's file kept on disk), else the first fetch is to be made (a
** conditional one when *e holds an ETag).  0, or -1 with err set, f closed. */
int wt_http_begin(wt_file *f, const char *p, size_t n, wt_disk_entry *e, int *ready, wt_error *err);

/* The second half: the first fetch ended with rc (0 or -1, err set) and
** status code; make f the open file.  0, or -1 with err set, f closed. */
int wt_http_finish(wt_file *f, wt_disk_entry *e, int rc, long code, wt_error *err);

/* Move the file opened ahead for p[0..n) into f: 1, or 0 when none is. */
int wt_http_take_warm(wt_file *f, const char *p, size_t n);

#endif
