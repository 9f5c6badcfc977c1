/*
** http_get.c: a whole document over HTTP (a listing of the Hub's tree API,
** not a model file), with its Link rel="next".  See wt_http_get in http.h.
*/
#ifdef WT_REMOTE

#include <stdlib.h>
#include <string.h>

#include "http_int.h"
#include "url.h"

/* A whole body being received by wt_http_get. */
typedef struct wt_body {
  char *p;
  size_t n, max;
  int too_big;
  char next[WT_URL_MAX + 1]; /* Link rel="next" of the last response */
} wt_body;

/* CURLOPT_WRITEFUNCTION of wt_http_get: append, within max. */
static size_t wt_on_whole(char *p, size_t size, size_t count, void *arg) {
  wt_body *b = arg;
  size_t n = size * count;
  char *q;
  if (n > b->max - b->n) {
    b->too_big = 1;
    return 0;
  }
  q = realloc(b->p, b->n + n + 1);
  if (q == NULL)
    return 0;
  memcpy(q + b->n, p, n);
  b->p = q;
  b->n += n;
  b->p[b->n] = 0;
  return n;
}

/* CURLOPT_HEADERFUNCTION of wt_http_get: keep Link's rel="next" URL. */
static size_t wt_on_link(char *line, size_t size, size_t count, void *arg) {
  wt_body *b = arg;
  size_t n = size * count;
  wt_http_link_line(line, n, b->next, WT_URL_MAX);
  return n;
}

int wt_http_get(const char *url, int token_ok, size_t max, char **body, size_t *n, char **next,
                wt_error *err) {
  wt_http h;
  wt_body b;
  CURLcode rc;
  long code = 0;
  int ret = -1;
  *body = *next = NULL;
  *n = 0;
  memset(&h, 0, sizeof(h));
  memset(&b, 0, sizeof(b));
  b.max = max;
  h.url = (char *)url;
  if (wt_curl_ready(err) != 0)
    goto done;
  if ((h.curl = wt_curl.easy_init()) == NULL || wt_http_setup(&h) != 0 ||
      wt_http_headers(&h, token_ok, NULL) != 0) {
    wt_fail(err, "cannot set up an HTTP transfer");
    goto done;
  }
  wt_curl.easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, wt_on_whole);
  wt_curl.easy_setopt(h.curl, CURLOPT_WRITEDATA, &b);
  wt_curl.easy_setopt(h.curl, CURLOPT_HEADERFUNCTION, wt_on_link);
  wt_curl.easy_setopt(h.curl, CURLOPT_HEADERDATA, &b);
  rc = wt_curl.easy_perform(h.curl);
  wt_curl.easy_getinfo(h.curl, CURLINFO_RESPONSE_CODE, &code);
  if (b.too_big)
    wt_fail(err, "(%s) the listing is over %zu bytes", url, max);
  else if (rc == CURLE_ABORTED_BY_CALLBACK)
    wt_fail(err, "(%s) interrupted", url);
  else if (rc != CURLE_OK)
    wt_fail(err, "(%s) %s", url, wt_curl.easy_strerror(rc));
  else if (code == 401 || code == 403)
    wt_fail(err, "(%s) HTTP %ld: access denied: the repo needs a token: set HF_TOKEN", url, code);
  else if (code != 200)
    wt_fail(err, "(%s) HTTP %ld", url, code);
  else if ((*next = b.next[0] ? strdup(b.next) : NULL) == NULL && b.next[0])
    wt_fail(err, "out of memory");
  else {
    *body = b.p ? b.p : strdup("");
    *n = b.n;
    b.p = NULL;
    ret = *body ? 0 : wt_fail(err, "out of memory");
  }
done:
  if (h.curl != NULL)
    wt_curl.easy_cleanup(h.curl);
  wt_curl.slist_free_all(h.hdrs);
  free(b.p);
  return ret;
}

#endif
