/*
** http.h: the remote byte source: a wt_file read by HTTP Range
** requests through libcurl.  remote layer; no SQLite.
**
** wt_http_open() sends one GET with "Range: bytes=0-(WT_HTTP_FIRST-1)" and
** takes the size from the 206's Content-Range (no HEAD: CDNs strip sizes
** from HEAD replies); those first bytes stay in memory, so a header that
** fits in them costs that one request.  Later reads are one ranged GET
** each, on the same easy handle (one connection, kept alive), sent straight
** to where the first request was redirected (the Hub's CDN), and back to
** the URL asked for if that fails (an expired signed URL).
**
** Checks on every response: status 206, Content-Range exactly the bytes
** asked and the size seen at open, the body exactly that long, the ETag
** the one seen at open ("file changed on the server" otherwise).  A 200
** (the server ignores Range) to the first request is read as the file
** from byte 0 until the header in it is complete (bytes/source.h:
** wt_header_need), then the connection is closed; later reads of such a
** file fail ("the server cannot serve ranges"), and a 200 to a later
** request aborts the transfer at its first body bytes.  At open with a
** header kept on disk, a 304, or a 200/206 of the kept strong ETag and
** size (If-None-Match ignored), ends the transfer: the kept header holds.
** These checks are pure functions of http_parse.h (fuzzed without a
** network); http_transfer.c holds the transfers.
** 401/403 say a token is needed (HF_TOKEN), 404 says not found.  Messages
** name the URL with any user:password removed, never a token.
**
** Security: protocols http and https only, redirects too, at most
** WT_HTTP_MAX_REDIRS; the token (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the
** file $HF_TOKEN_PATH or $HF_HOME/token, default ~/.cache/huggingface/token)
** is sent only when the URL's host and port are HF_ENDPOINT's, and libcurl
** (CURLOPT_UNRESTRICTED_AUTH 0) drops it on a redirect to another host.
**
** Faults: connect timeout 10 s, a stall (under 1 KiB/s) for
** SQLITE_WEIGHTS_HTTP_STALL seconds (default 30) aborts; connection errors,
** short bodies, 429 and 5xx are retried up to WT_HTTP_RETRIES times with a
** backoff of 200 ms doubling to 5 s, or Retry-After (at most 30 s), within
** WT_HTTP_RETRY_TOTAL seconds in all.
**
** Built without libcurl (make REMOTE=0) wt_http_open() fails with a
** message saying so.
*/
#ifndef WT_HTTP_H
#define WT_HTTP_H

#include <stddef.h>

#include "bytes/file.h"

/* The first request's bytes.  (tests/fuzz/fuzz_remote.c builds http.c
** with a smaller one, so that most inputs cross it.) */
#ifndef WT_HTTP_FIRST
#define WT_HTTP_FIRST ((uint64_t)64 << 10)
#endif
/* The most bytes read from a 200 stream (a server that ignores Range) for
** a header: the bytes layer's limit on a header in memory. */
#define WT_HTTP_STREAM_MAX  ((uint64_t)1 << 30)
#define WT_HTTP_MAX_REDIRS  5
#define WT_HTTP_RETRIES     5
#define WT_HTTP_RETRY_TOTAL 60
#define WT_HTTP_PARALLEL    8

/* Open the remote path p[0..n) (http://, https:// or hf://, see url.h) as
** f.  Returns 0, or -1 with err set and f closed. */
int wt_http_open(wt_file *f, const char *p, size_t n, wt_error *err);

/* Open the remote files paths[0..n) ahead, their first requests at once
** (libcurl's multi interface, at most WT_HTTP_PARALLEL), so that a scan of
** many files costs about one round trip per WT_HTTP_PARALLEL files, not one
** per file; wt_http_open() of one of them, on this thread, then takes it
** without a request.  Files opened ahead and not taken are closed by the
** next call (n 0: just that).  A file whose first request does not end
** cleanly is left to its own open (which retries and says why). */
void wt_http_prefetch(const char *const *paths, size_t n);

/* Until the next call, this thread's transfers (and waits before a retry)
** stop with "interrupted" as soon as cancel(arg) returns non-zero; it is
** asked about once a second or more often.  cancel NULL: never. */
typedef int (*wt_cancel_fn)(void *arg);
void wt_http_set_cancel(wt_cancel_fn cancel, void *arg);

/* GET url whole (a listing, not a model file): at most max bytes into a
** malloc'd NUL-terminated *body (*n bytes), and the URL of its Link
** rel="next" into *next (malloc'd) or NULL.  The token goes with it when
** token_ok.  0, or -1 with err set (anything but a 200 is an error). */
int wt_http_get(const char *url, int token_ok, size_t max, char **body, size_t *n, char **next,
                wt_error *err);

/* Make this the byte source of remote paths (wt_file_set_remote in
** bytes/file.h), once per process; safe to call from several threads. */
void wt_remote_register(void);

#endif
