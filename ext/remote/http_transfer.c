/*
** http_transfer.c: the transfers of the HTTP byte source over libcurl
** (http_int.h): an easy handle's options and request headers, libcurl's
** callbacks with the checks of every response (http_parse.h), interrupts
** and waits, and a ranged GET with its retries.  http.c (the source and
** its opens), http_prefetch.c and http_get.c call down to it.
** Built without libcurl (make REMOTE=0), nothing here is built.
*/
#ifdef WT_REMOTE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bytes/source.h"
#include "hf_token.h"
#include "http_int.h"
#include "url.h"

/* Room for a request header's name and ": " before its value. */
#define WT_HEADER_NAME_MAX 64

/* ======================== libcurl and its callbacks ========================= */

/* CURLOPT_HEADERFUNCTION: keep Content-Range and ETag of the last response. */
static size_t wt_on_header(char *line, size_t size, size_t count, void *arg) {
  wt_http *h = arg;
  size_t n = size * count;
  wt_http_resp_line(&h->resp, line, n);
  return n;
}

/* The body of a 200 at open, from a server that ignores Range: append it
** to first[], and end the transfer (0) once the header is complete
** (wt_header_need), at WT_HTTP_STREAM_MAX bytes, or past the length. */
static size_t wt_on_stream(wt_http *h, const char *p, size_t n) {
  uint64_t need;
  if (n > h->cr_total - h->got) {
    h->why = WT_RESP_TOO_LONG;
    return 0;
  }
  if (h->got + n > h->first_cap) {
    size_t cap = h->first_cap * 2 > h->got + n ? h->first_cap * 2 : h->got + n;
    unsigned char *q = realloc(h->first, cap);
    if (q == NULL)
      return 0; /* a write error: the open fails */
    h->first = q;
    h->first_cap = cap;
  }
  memcpy(h->first + h->got, p, n);
  h->got += n;
  if (h->got < h->check_at && h->got < h->cr_total)
    return n;
  if (h->got >= WT_HTTP_STREAM_MAX || !wt_header_need(h->first, h->got, h->cr_total, &need)) {
    h->stopped = 1;
    return h->got == h->cr_total ? n : 0;
  }
  h->check_at = need;
  return n;
}

/* CURLOPT_WRITEFUNCTION: take the body of a 206 into dst; stop at once on
** a 200 (Range ignored) unless it is the first request of an open, on a
** wrong Content-Range, on excess bytes and on the version kept on disk. */
static size_t wt_on_body(char *p, size_t size, size_t count, void *arg) {
  wt_sink *k = arg;
  wt_http *h = k->h;
  size_t n = size * count;
  long code = 0;
  wt_curl.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
  if (!h->body_started) {
    wt_http_ask q = {h->off, h->want, h->opening, k->f->size, h->etag, h->kept_etag, h->kept_size};
    h->body_started = 1;
    h->why = wt_http_verdict(code, &h->resp, &q, &h->cr_total);
    h->want = q.want;
    if (h->why == WT_RESP_KEPT) { /* If-None-Match ignored, same version: stop there */
      h->stopped = 1;
      return 0;
    }
    if (h->why == WT_RESP_WHOLE) {
      h->whole = 1;
      h->why = WT_RESP_OK;
      h->check_at = h->want;
    }
    if (h->why != WT_RESP_OK)
      return 0;
  }
  if (h->whole)
    return wt_on_stream(h, p, n);
  if ((h->why = wt_http_body_step(code, h->want, h->got, &h->discarded, n)) != WT_RESP_OK)
    return 0;
  if (code != 206)
    return n; /* an error page, read to keep the connection */
  memcpy(h->dst + h->got, p, n);
  h->got += n;
  return n;
}

/* =========================== Interrupts and waits =========================== */

/* Seconds since some fixed time. */
static double wt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This thread's cancel test (wt_http_set_cancel). */
static __thread wt_cancel_fn wt_cancel;
static __thread void *wt_cancel_arg;

void wt_http_set_cancel(wt_cancel_fn cancel, void *arg) {
  wt_cancel = cancel;
  wt_cancel_arg = arg;
}

/* True when this thread's statement was interrupted. */
static int wt_cancelled(void) {
  return wt_cancel != NULL && wt_cancel(wt_cancel_arg) != 0;
}

/* CURLOPT_XFERINFOFUNCTION: non-zero stops the transfer. */
static int wt_on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                          curl_off_t ulnow) {
  (void)arg;
  (void)dltotal;
  (void)dlnow;
  (void)ultotal;
  (void)ulnow;
  return wt_cancelled();
}

/* Sleep for s seconds, in slices of 50 ms: -1 as soon as the statement is
** interrupted, else 0. */
static int wt_sleep(double s) {
  while (s > 0) {
    double slice = s < 0.05 ? s : 0.05;
    struct timespec ts;
    if (wt_cancelled())
      return -1;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)(slice * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
      ;
    s -= slice;
  }
  return wt_cancelled() ? -1 : 0;
}

/* ======================= Transfers and their retries ======================== */

/* An integer from the environment variable name, or def. */
static long wt_env_long(const char *name, long def, long lo, long hi) {
  const char *v = getenv(name);
  char *end;
  long x;
  if (v == NULL || *v == 0)
    return def;
  x = strtol(v, &end, 10);
  return *end == 0 && x >= lo && x <= hi ? x : def;
}

/* True for transport errors worth another try. */
static int wt_transient(CURLcode rc) {
  return rc == CURLE_COULDNT_CONNECT || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
         rc == CURLE_PARTIAL_FILE || rc == CURLE_GOT_NOTHING || rc == CURLE_OPERATION_TIMEDOUT;
}

/* The error of a finished transfer that will not be retried. */
static int wt_transfer_error(wt_http *h, const wt_file *f, CURLcode rc, long code, wt_error *err) {
  switch (h->why) {
  case WT_RESP_IGNORED_RANGE:
    return wt_fail(err,
                   "%sthe server cannot serve ranges: it answered the request for bytes "
                   "%llu-%llu with 200 and the whole file (stopped at once instead of "
                   "downloading it)",
                   h->shown, U(h->off), U(h->off + h->want - 1));
  case WT_RESP_BAD_RANGE:
    return wt_fail(err, "%swrong Content-Range \"%s\" for bytes %llu-%llu", h->shown, h->resp.cr,
                   U(h->off), U(h->off + h->want - 1));
  case WT_RESP_TOO_LONG:
    return wt_fail(err, "%sthe server sent more than the %zu bytes asked at byte %llu", h->shown,
                   h->want, U(h->off));
  case WT_RESP_CHANGED:
    return wt_fail(err,
                   "%sfile changed on the server (ETag %s and %llu bytes at open, now ETag %s, "
                   "Content-Range %s)",
                   h->shown, h->etag[0] ? h->etag : "none", U(f->size),
                   h->resp.etag[0] ? h->resp.etag : "none", h->resp.cr);
  default:
    break;
  }
  if (code == 401 || code == 403)
    return wt_fail(err, "%sHTTP %ld: access denied: the file needs a token: set HF_TOKEN%s",
                   h->shown, code, h->has_token ? " (the token given was refused)" : "");
  if (code == 404)
    return wt_fail(err, "%sHTTP 404: not found", h->shown);
  if (rc == CURLE_ABORTED_BY_CALLBACK && h->why == WT_RESP_OK)
    return wt_fail(err, "%sinterrupted", h->shown);
  if (rc == CURLE_TOO_MANY_REDIRECTS)
    return wt_fail(err, "%smore than %d redirects", h->shown, WT_HTTP_MAX_REDIRS);
  if (rc == CURLE_UNSUPPORTED_PROTOCOL)
    return wt_fail(err, "%sa redirect to a protocol other than http or https", h->shown);
  if (rc == CURLE_OPERATION_TIMEDOUT)
    return wt_fail(err, "%sthe transfer stalled or timed out", h->shown);
  if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
    return wt_fail(err, "%s%s", h->shown, wt_curl.easy_strerror(rc));
  if (code == 206)
    return wt_fail(err, "%sshort body: %zu of the %zu bytes asked at byte %llu", h->shown, h->got,
                   h->want, U(h->off));
  return wt_fail(err, "%sHTTP %ld for bytes %llu-%llu", h->shown, code, U(h->off),
                 U(h->off + h->want - 1));
}

/* True when URLs a and b have the same host and port. */
static int wt_same_host(const char *a, const char *b) {
  char ha[256], hb[256];
  int pa, pb;
  return wt_url_host(a, ha, sizeof(ha), &pa) == 0 && wt_url_host(b, hb, sizeof(hb), &pb) == 0 &&
         strcmp(ha, hb) == 0 && pa == pb;
}

/* Read from where the first request was redirected (the Hub's CDN), so that
** later requests skip the redirect; the token goes there only if its host
** is the endpoint's.  Nothing changes when that cannot be done. */
void wt_http_pin(wt_http *h) {
  char *eff = NULL, *copy;
  if (wt_curl.easy_getinfo(h->curl, CURLINFO_EFFECTIVE_URL, &eff) != CURLE_OK || eff == NULL ||
      strcmp(eff, h->url) == 0 || (copy = strdup(eff)) == NULL)
    return;
  if (wt_http_headers(h, h->token_ok && wt_same_host(h->url, copy), NULL) != 0) {
    free(copy);
    return;
  }
  h->pinned = copy;
  wt_curl.easy_setopt(h->curl, CURLOPT_URL, h->pinned);
}

/* Back to the URL asked for (a pinned CDN URL may expire). */
static int wt_http_unpin(wt_http *h) {
  free(h->pinned);
  h->pinned = NULL;
  wt_curl.easy_setopt(h->curl, CURLOPT_URL, h->url);
  return wt_http_headers(h, h->token_ok, NULL);
}

void wt_transfer_setup(wt_http *h, uint64_t off, size_t want, void *dst, wt_sink *k) {
  char range[64];
  h->dst = dst;
  h->off = off;
  h->want = want;
  h->got = h->discarded = 0;
  h->body_started = h->whole = h->stopped = 0;
  h->why = WT_RESP_OK;
  h->resp.cr[0] = h->resp.etag[0] = 0;
  snprintf(range, sizeof(range), "%llu-%llu", U(off), U(off + want - 1));
  wt_curl.easy_setopt(h->curl, CURLOPT_RANGE, range);
  wt_curl.easy_setopt(h->curl, CURLOPT_WRITEDATA, k);
}

/* GET bytes [off, off + want) into dst, retrying what may pass.  At open
** (h->opening) a shorter range is fine and becomes h->want. */
int wt_fetch(wt_http *h, const wt_file *f, uint64_t off, size_t want, void *dst, long *status,
             wt_error *err) {
  wt_sink k = {h, f};
  long retries = wt_env_long("SQLITE_WEIGHTS_HTTP_RETRIES", WT_HTTP_RETRIES, 0, 20);
  double t0 = wt_now(), backoff = 0.2;
  long attempt;
  for (attempt = 0;; attempt++) {
    CURLcode rc;
    long code = 0;
    curl_off_t after = -1;
    double wait;
    wt_transfer_setup(h, off, want, dst, &k);
    rc = wt_curl.easy_perform(h->curl);
    wt_curl.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
    *status = code;
    if (rc == CURLE_OK && code == 206 && h->body_started && h->why == WT_RESP_OK &&
        h->got == h->want)
      return 0;
    if (h->opening && wt_http_opened(h, rc, code))
      return 0;
    if (h->pinned != NULL && h->why == WT_RESP_OK &&
        (code == 401 || code == 403 || code == 404 || code == 410 || wt_transient(rc))) {
      if (wt_http_unpin(h) != 0)
        return wt_fail(err, "out of memory");
      attempt--; /* the redirect again, not a retry */
      continue;
    }
    if (h->why != WT_RESP_OK || attempt >= retries ||
        !(wt_transient(rc) || code == 429 || (code >= 500 && code != 501) ||
          (rc == CURLE_OK && code == 206)))
      return wt_transfer_error(h, f, rc, code, err);
    wait = backoff;
    if ((code == 429 || code == 503) &&
        wt_curl.easy_getinfo(h->curl, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after >= 0)
      wait = after > 30 ? 30 : (double)after;
    if (wt_now() + wait - t0 > WT_HTTP_RETRY_TOTAL)
      return wt_transfer_error(h, f, rc, code, err);
    if (wt_sleep(wait) != 0)
      return wt_fail(err, "%sinterrupted while waiting to retry", h->shown);
    backoff = backoff * 2 > 5 ? 5 : backoff * 2;
  }
}

/* ======================== Request options and headers ======================= */

int wt_http_headers(wt_http *h, int token_ok, const char *etag) {
  char token[WT_HF_TOKEN_MAX], line[WT_HF_TOKEN_MAX + WT_HEADER_NAME_MAX];
  struct curl_slist *l = NULL, *t;
  if (token_ok) {
    wt_hf_token(token, sizeof(token));
    if (token[0] != 0) {
      snprintf(line, sizeof(line), "Authorization: Bearer %s", token);
      l = wt_curl.slist_append(NULL, line);
      memset(token, 0, sizeof(token));
      memset(line, 0, sizeof(line));
      if (l == NULL)
        return -1;
    }
  }
  if (etag != NULL) {
    snprintf(line, sizeof(line), "If-None-Match: %s", etag);
    if ((t = wt_curl.slist_append(l, line)) == NULL) {
      wt_curl.slist_free_all(l);
      return -1;
    }
    l = t;
  }
  wt_curl.slist_free_all(h->hdrs);
  h->hdrs = l;
  h->has_token = l != NULL && strncmp(l->data, "Authorization:", 14) == 0;
  wt_curl.easy_setopt(h->curl, CURLOPT_HTTPHEADER, l);
  return 0;
}

int wt_http_setup(wt_http *h) {
  CURL *c = h->curl;
  long stall = wt_env_long("SQLITE_WEIGHTS_HTTP_STALL", 30, 1, 3600);
  if (wt_curl.easy_setopt(c, CURLOPT_URL, h->url) != CURLE_OK ||
      wt_curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
      wt_curl.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
    return -1;
  wt_curl.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  wt_curl.easy_setopt(c, CURLOPT_MAXREDIRS, (long)WT_HTTP_MAX_REDIRS);
  wt_curl.easy_setopt(c, CURLOPT_UNRESTRICTED_AUTH, 0L);
  wt_curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  wt_curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  wt_curl.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  wt_curl.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, stall);
  wt_curl.easy_setopt(c, CURLOPT_USERAGENT, "sqlite-weights/" WEIGHTS_VERSION);
  wt_curl.easy_setopt(c, CURLOPT_HEADERFUNCTION, wt_on_header);
  wt_curl.easy_setopt(c, CURLOPT_HEADERDATA, h);
  wt_curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, wt_on_body);
  wt_curl.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, wt_on_progress);
  wt_curl.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  return 0;
}

/* True when the first transfer of an open ended as one that opens
** (http_int.h). */
int wt_http_opened(const wt_http *h, CURLcode rc, long code) {
  if (h->stopped) /* ended on purpose: the header complete, or the version kept */
    return rc == CURLE_OK || rc == CURLE_WRITE_ERROR;
  if (rc != CURLE_OK)
    return 0;
  return (code == 206 && h->body_started && h->why == WT_RESP_OK && h->got == h->want) ||
         code == 416 || (code == 304 && h->conditional) ||
         (code == 200 && h->whole && h->got == h->cr_total);
}

#endif
