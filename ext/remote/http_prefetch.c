/*
** http_prefetch.c: remote files opened ahead, their first requests at once
** through libcurl's multi interface, kept for this thread's next opens.
** See wt_http_prefetch in http.h.
*/
#ifdef WT_REMOTE

#include <stdlib.h>
#include <string.h>

#include "http_int.h"

/* A remote file opened by wt_http_prefetch(), waiting for its open. */
typedef struct wt_warm {
  char *path;
  wt_file f;
} wt_warm;

/* This thread's files opened ahead: a connection is used by one thread at
** a time, and its statement opens them right after asking. */
static __thread wt_warm wt_warm_files[WT_HTTP_PARALLEL];
static __thread size_t wt_n_warm;

int wt_http_take_warm(wt_file *f, const char *p, size_t n) {
  size_t i;
  for (i = 0; i < wt_n_warm; i++) {
    wt_warm *w = &wt_warm_files[i];
    if (strlen(w->path) != n || memcmp(w->path, p, n) != 0)
      continue;
    *f = w->f;
    free(w->path);
    *w = wt_warm_files[--wt_n_warm];
    return 1;
  }
  return 0;
}

/* Keep f, just opened for path, for its open (f is taken, closed when it
** cannot be kept). */
static void wt_keep_warm(const char *path, wt_file *f) {
  char *copy = wt_n_warm < WT_HTTP_PARALLEL ? strdup(path) : NULL;
  if (copy == NULL) {
    wt_file_close(f);
    return;
  }
  wt_warm_files[wt_n_warm].path = copy;
  wt_warm_files[wt_n_warm++].f = *f;
}

/* One file being opened by wt_http_prefetch(). */
typedef struct wt_pending {
  wt_file f;
  wt_disk_entry e;
  wt_sink k;
  int active, done;
  CURLcode rc;
} wt_pending;

/* Run the first requests of p[0..n) at once until all have ended. */
static void wt_run_all(CURLM *multi, wt_pending *p, size_t n) {
  CURLMsg *msg;
  int still = 1, left;
  size_t i;
  while (still > 0) {
    if (wt_curl.multi_perform(multi, &still) != CURLM_OK)
      break;
    if (still > 0 && wt_curl.multi_poll(multi, NULL, 0, 1000, NULL) != CURLM_OK)
      break;
  }
  while ((msg = wt_curl.multi_info_read(multi, &left)) != NULL) {
    for (i = 0; msg->msg == CURLMSG_DONE && i < n; i++) {
      if (p[i].active && ((wt_http *)p[i].f.impl)->curl == msg->easy_handle) {
        p[i].done = 1;
        p[i].rc = msg->data.result;
      }
    }
  }
}

void wt_http_prefetch(const char *const *paths, size_t n) {
  wt_pending p[WT_HTTP_PARALLEL];
  CURLM *multi = NULL;
  size_t i;
  wt_error err;
  while (wt_n_warm > 0) { /* what the last call opened and nobody took */
    wt_warm *w = &wt_warm_files[--wt_n_warm];
    free(w->path);
    wt_file_close(&w->f);
  }
  if (n < 2)
    return; /* one file opens as fast by itself */
  if (n > WT_HTTP_PARALLEL)
    n = WT_HTTP_PARALLEL;
  memset(p, 0, sizeof(p));
  if (wt_curl_ready(&err) != 0 || (multi = wt_curl.multi_init()) == NULL)
    return;
  for (i = 0; i < n; i++) {
    int ready;
    wt_http *h;
    if (wt_http_begin(&p[i].f, paths[i], strlen(paths[i]), &p[i].e, &ready, &err) != 0)
      continue; /* its own open says why */
    if (ready) {
      wt_keep_warm(paths[i], &p[i].f);
      continue;
    }
    h = p[i].f.impl;
    p[i].k.h = h;
    p[i].k.f = &p[i].f;
    wt_transfer_setup(h, 0, (size_t)WT_HTTP_FIRST, h->first, &p[i].k);
    if (wt_curl.multi_add_handle(multi, h->curl) != CURLM_OK) {
      wt_disk_entry_free(&p[i].e);
      wt_file_close(&p[i].f);
      continue;
    }
    p[i].active = 1;
  }
  wt_run_all(multi, p, n);
  for (i = 0; i < n; i++) {
    wt_http *h = p[i].f.impl;
    long code = 0;
    if (!p[i].active)
      continue;
    wt_curl.multi_remove_handle(multi, h->curl);
    wt_curl.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
    /* anything but a clean answer is left to the file's own open, which
    ** retries and says what is wrong */
    if (p[i].done && wt_http_opened(h, p[i].rc, code) &&
        wt_http_finish(&p[i].f, &p[i].e, 0, code, &err) == 0) {
      wt_keep_warm(paths[i], &p[i].f);
      continue;
    }
    wt_disk_entry_free(&p[i].e);
    wt_file_close(&p[i].f);
  }
  wt_curl.multi_cleanup(multi);
}

#endif
