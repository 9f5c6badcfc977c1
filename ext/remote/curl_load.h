/*
** curl_load.h: the libcurl functions the remote source uses (http.c,
** http_get.c, http_prefetch.c), looked up in libcurl.so.4 the first time
** a remote path is opened (bytes/dynlib.h), so that a process that reads
** only local files does not load libcurl and the libraries it pulls in.
** Built with WT_CURL_LINKED (the fuzzer, over tests/fuzz/fake_curl.c) the
** table holds the functions linked into the program instead.  remote
** layer, built only with libcurl (WT_REMOTE); no SQLite.
*/
#ifndef WT_CURL_LOAD_H
#define WT_CURL_LOAD_H

#include <curl/curl.h>

#include "base/model.h"

/* libcurl's functions of the same names (curl_global_init, ...). */
typedef struct wt_curl_api {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *c);
  CURLcode (*easy_setopt)(CURL *c, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *c);
  CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
  const char *(*easy_strerror)(CURLcode rc);
  struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
  void (*slist_free_all)(struct curl_slist *l);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_add_handle)(CURLM *m, CURL *c);
  CURLMcode (*multi_remove_handle)(CURLM *m, CURL *c);
  CURLMcode (*multi_perform)(CURLM *m, int *running);
  CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd fds[], unsigned int n, int ms, int *ret);
  CURLMsg *(*multi_info_read)(CURLM *m, int *left);
  CURLMcode (*multi_cleanup)(CURLM *m);
} wt_curl_api;

/* Filled by the first successful wt_curl_ready(). */
extern wt_curl_api wt_curl;

/* Load libcurl and run curl_global_init, once per process: 0, or -1 with
** err set (the library missing, named with its Debian package). */
int wt_curl_ready(wt_error *err);

#endif
