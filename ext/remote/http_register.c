/*
** http_register.c: the HTTP byte source (http.c, or http_none.c in a build
** without libcurl) made the source of remote paths: the bytes layer's
** wt_file_open() then gives it every path that url.h calls remote.
*/
#include <pthread.h>

#include "http.h"
#include "url.h"

/* Remote paths are this source's (url.h says which). */
static const wt_file_kind wt_remote_kind = {wt_url_is_remote, wt_http_open};

static pthread_once_t wt_register_once = PTHREAD_ONCE_INIT;

/* Register, once per process. */
static void wt_register(void) {
  wt_file_set_remote(&wt_remote_kind);
}

void wt_remote_register(void) {
  pthread_once(&wt_register_once, wt_register);
}
