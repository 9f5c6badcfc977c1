/*
** http.c: the remote byte source over libcurl: its operations (ranged
** reads, the header kept on disk) and the two halves of an open (the
** first range, or the header kept on disk), on the transfers of
** http_transfer.c; http_open.c opens a file with them, or takes one
** http_prefetch.c opened ahead (http_register.c makes it the source of
** remote paths).  See http.h.  Built without libcurl (make REMOTE=0),
** http_none.c stands in for it.
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

/* ======================= The byte source's operations ======================= */

/* What messages say before their text: the callers name the path, so
** only the URL an hf:// path resolved to, "(URL) ". */
static void wt_shown_url(const char *url, int is_hf, char *out, size_t size) {
  if (is_hf)
    snprintf(out, size, "(%.500s) ", url);
  else
    out[0] = 0;
}

static int wt_http_read_at(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err) {
  wt_http *h = f->impl;
  uint64_t end;
  long code;
  if (wt_add(off, n, &end) != 0 || end > f->size)
    return wt_fail(err, "%sread of %zu bytes at byte %llu is past the end (%llu bytes)", h->shown,
                   n, U(off), U(f->size));
  if (n == 0)
    return 0;
  if (end <= h->first_n) {
    memcpy(buf, h->first + off, n);
    return 0;
  }
  if (h->whole)
    return wt_fail(err,
                   "%sthe server cannot serve ranges (it answers a Range request with 200 and "
                   "the whole file): the header was read from the start of the file, but bytes "
                   "%llu-%llu, past its first %zu bytes, need a server that honours Range",
                   h->shown, U(off), U(end - 1), h->first_n);
  return wt_fetch(h, f, off, n, buf, &code, err);
}

/* Every response's ETag is checked as it comes. */
static int wt_http_unchanged(const wt_file *f, wt_error *err) {
  (void)f;
  (void)err;
  return 0;
}

static void wt_http_close(wt_file *f) {
  wt_http *h = f->impl;
  if (h == NULL)
    return;
  if (h->curl != NULL)
    wt_curl.easy_cleanup(h->curl);
  wt_curl.slist_free_all(h->hdrs);
  free(h->url);
  free(h->pinned);
  free(h->first);
  free(h);
  f->impl = NULL;
}

/* header_read: keep the header's bytes on disk (disk_cache.h) unless they
** came from there. */
static void wt_http_header_read(const wt_file *f, const unsigned char *bytes, size_t n) {
  wt_http *h = f->impl;
  if (h == NULL || (h->from_disk && n <= h->first_n))
    return; /* nothing new to keep */
  wt_disk_cache_put(h->url, h->etag, f->size, bytes, n);
}

static const wt_file_ops wt_http_ops = {wt_http_read_at, wt_http_unchanged, wt_http_close,
                                        wt_http_header_read};

/* =================================== Open =================================== */

/* Take the header kept on disk as the first bytes. */
static int wt_http_use_kept(wt_http *h, wt_file *f, wt_disk_entry *e) {
  free(h->first);
  h->first = e->bytes;
  h->first_n = h->first_cap = e->n;
  f->first_read = e->n;
  h->whole = 0;
  e->bytes = NULL;
  f->size = e->size;
  snprintf(h->etag, sizeof(h->etag), "%s", e->etag);
  h->from_disk = 1;
  wt_disk_entry_free(e);
  return 0;
}

/* The first half of an open: resolve p, set up f's handle and take the
** disk cache's entry into *e.  *ready is 1 when no request is needed (a
** commit's file kept on disk), else the first fetch is to be made (a
** conditional one when *e holds an ETag).  0, or -1 with err set, f closed. */
int wt_http_begin(wt_file *f, const char *p, size_t n, wt_disk_entry *e, int *ready,
                  wt_error *err) {
  wt_url u;
  wt_http *h;
  int kept;
  *ready = 0;
  memset(f, 0, sizeof(*f));
  memset(e, 0, sizeof(*e));
  f->fd = -1;
  if (wt_curl_ready(err) != 0)
    return -1;
  if (wt_url_resolve(p, n, getenv("HF_ENDPOINT"), &u, err) != 0)
    return -1;
  if (u.is_tree) {
    wt_url_free(&u);
    return wt_fail(err, "this hf:// path names a repo or folder (its tables list its model "
                        "files); a function needs one file: hf://ORG/REPO/FILE");
  }
  h = calloc(1, sizeof(*h));
  if (h == NULL) {
    wt_url_free(&u);
    return wt_fail(err, "out of memory");
  }
  h->url = u.url;
  u.url = NULL;
  wt_shown_url(h->url, u.is_hf, h->shown, sizeof(h->shown));
  f->ops = &wt_http_ops;
  f->impl = h;
  f->remote = 1;
  f->first_read = WT_HTTP_FIRST;
  h->curl = wt_curl.easy_init();
  h->first = malloc((size_t)WT_HTTP_FIRST);
  h->first_cap = (size_t)WT_HTTP_FIRST;
  kept = wt_disk_cache_get(h->url, e) == 0;
  if (kept) {
    snprintf(h->kept_etag, sizeof(h->kept_etag), "%s", e->etag);
    h->kept_size = e->size;
  }
  h->token_ok = u.token_ok;
  if (h->curl == NULL || h->first == NULL || wt_http_setup(h) != 0 ||
      wt_http_headers(h, u.token_ok, kept && e->etag[0] ? e->etag : NULL) != 0) {
    wt_url_free(&u);
    wt_disk_entry_free(e);
    wt_file_close(f);
    return wt_fail(err, "cannot set up an HTTP transfer (out of memory?)");
  }
  if (kept && u.immutable) { /* a commit's file never changes: no request */
    wt_url_free(&u);
    *ready = 1;
    return wt_http_use_kept(h, f, e);
  }
  wt_url_free(&u);
  h->conditional = kept && e->etag[0];
  h->opening = 1;
  return 0;
}

/* The second half: the first fetch ended with rc (0 or -1, err set) and
** status code; make f the open file.  0, or -1 with err set, f closed. */
int wt_http_finish(wt_file *f, wt_disk_entry *e, int rc, long code, wt_error *err) {
  wt_http *h = f->impl;
  uint64_t a, b, t;
  h->opening = 0;
  if (rc == 0 && h->conditional && wt_http_headers(h, h->token_ok, NULL) != 0)
    rc = wt_fail(err, "out of memory");
  if (rc == 0)
    wt_http_pin(h);
  if (rc != 0) {
    wt_disk_entry_free(e);
    goto fail;
  }
  if ((code == 304 && h->conditional) || h->why == WT_RESP_KEPT) /* the kept header holds */
    return wt_http_use_kept(h, f, e);
  wt_disk_entry_free(e);
  if (code == 416) { /* an empty file: "bytes * /0" */
    if (wt_http_parse_range(h->resp.cr, &a, &b, &t) != 0 || t != 0) {
      wt_fail(err, "%sHTTP 416 for the first bytes, Content-Range \"%s\"", h->shown, h->resp.cr);
      goto fail;
    }
    h->first_n = 0;
    f->size = 0;
  } else {
    h->first_n = h->got;
    f->size = h->cr_total;
  }
  f->first_read = h->first_n;
  if (h->first_n < h->first_cap) { /* a small file or header: give back the rest */
    unsigned char *p = realloc(h->first, h->first_n ? h->first_n : 1);
    if (p != NULL) {
      h->first = p;
      h->first_cap = h->first_n;
    }
  }
  snprintf(h->etag, sizeof(h->etag), "%s", h->resp.etag);
  return 0;
fail:
  wt_file_close(f);
  return -1;
}

#endif
