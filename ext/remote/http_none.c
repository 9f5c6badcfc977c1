/*
** http_none.c: the remote source of a build without libcurl (make
** REMOTE=0): every remote path is an error that says so.  See http.h.
*/
#ifndef WT_REMOTE

#include <string.h>

#include "http.h"

int wt_http_get(const char *url, int token_ok, size_t max, char **body, size_t *n, char **next,
                wt_error *err) {
  (void)url;
  (void)token_ok;
  (void)max;
  *body = *next = NULL;
  *n = 0;
  return wt_fail(err, "remote files are not supported: this module was built with REMOTE=0");
}

void wt_http_prefetch(const char *const *paths, size_t n) {
  (void)paths;
  (void)n;
}

void wt_http_set_cancel(wt_cancel_fn cancel, void *arg) {
  (void)cancel;
  (void)arg;
}

int wt_http_open(wt_file *f, const char *p, size_t n, wt_error *err) {
  (void)p;
  (void)n;
  memset(f, 0, sizeof(*f));
  f->fd = -1;
  return wt_fail(err, "remote files are not supported: this module was built with REMOTE=0");
}

#endif
