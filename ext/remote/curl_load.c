/*
** curl_load.c: libcurl opened when a remote path is first opened.  See
** curl_load.h.
*/
#ifdef WT_REMOTE

#include "curl_load.h"

#include <pthread.h>

#include "bytes/dynlib.h"

wt_curl_api wt_curl;

#ifdef WT_CURL_LINKED
/* The functions linked into the program (tests/fuzz/fake_curl.c). */
static int wt_curl_load(wt_error *err) {
  (void)err;
  wt_curl = (wt_curl_api){
      curl_global_init,    curl_easy_init,    curl_easy_cleanup,     curl_easy_setopt,
      curl_easy_perform,   curl_easy_getinfo, curl_easy_strerror,    curl_slist_append,
      curl_slist_free_all, curl_multi_init,   curl_multi_add_handle, curl_multi_remove_handle,
      curl_multi_perform,  curl_multi_poll,   curl_multi_info_read,  curl_multi_cleanup};
  return 0;
}
#else
/* The functions, by the names libcurl exports them under. */
static const wt_dynsym wt_curl_syms[] = {
    {"curl_global_init", (void **)&wt_curl.global_init},
    {"curl_easy_init", (void **)&wt_curl.easy_init},
    {"curl_easy_cleanup", (void **)&wt_curl.easy_cleanup},
    {"curl_easy_setopt", (void **)&wt_curl.easy_setopt},
    {"curl_easy_perform", (void **)&wt_curl.easy_perform},
    {"curl_easy_getinfo", (void **)&wt_curl.easy_getinfo},
    {"curl_easy_strerror", (void **)&wt_curl.easy_strerror},
    {"curl_slist_append", (void **)&wt_curl.slist_append},
    {"curl_slist_free_all", (void **)&wt_curl.slist_free_all},
    {"curl_multi_init", (void **)&wt_curl.multi_init},
    {"curl_multi_add_handle", (void **)&wt_curl.multi_add_handle},
    {"curl_multi_remove_handle", (void **)&wt_curl.multi_remove_handle},
    {"curl_multi_perform", (void **)&wt_curl.multi_perform},
    {"curl_multi_poll", (void **)&wt_curl.multi_poll},
    {"curl_multi_info_read", (void **)&wt_curl.multi_info_read},
    {"curl_multi_cleanup", (void **)&wt_curl.multi_cleanup},
};

/* libcurl 7.x/8.x with OpenSSL, as Debian ships it (libcurl4); the CURLOPT_
** values used are those of curl.h at build time, stable across them. */
static wt_dynlib wt_curl_lib = {"libcurl.so.4",
                                "SQLITE_WEIGHTS_LIBCURL",
                                "libcurl4 (libcurl4t64 on Debian 13)",
                                "remote files (http://, https://, hf://)",
                                wt_curl_syms,
                                sizeof(wt_curl_syms) / sizeof(wt_curl_syms[0]),
                                0,
                                {0}};

static int wt_curl_load(wt_error *err) {
  return wt_dynlib_load(&wt_curl_lib, err);
}
#endif

static pthread_once_t wt_curl_once = PTHREAD_ONCE_INIT;
static CURLcode wt_curl_init_rc = CURLE_FAILED_INIT;

/* curl_global_init, once per process. */
static void wt_curl_init(void) {
  wt_curl_init_rc = wt_curl.global_init(CURL_GLOBAL_DEFAULT);
}

int wt_curl_ready(wt_error *err) {
  if (wt_curl_load(err) != 0)
    return -1;
  pthread_once(&wt_curl_once, wt_curl_init);
  return wt_curl_init_rc == CURLE_OK ? 0 : wt_fail(err, "cannot initialise libcurl");
}

#endif
