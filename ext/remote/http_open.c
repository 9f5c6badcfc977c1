/*
** http_open.c: a remote file opened: the one http_prefetch.c opened ahead
** for this thread, or the two halves of http.c around the first fetch of
** http_transfer.c.  See wt_http_open in http.h.
** Built without libcurl (make REMOTE=0), http_none.c stands in for it.
*/
#ifdef WT_REMOTE

#include "http_int.h"

int wt_http_open(wt_file *f, const char *p, size_t n, wt_error *err) {
  wt_disk_entry e;
  long code = 0;
  int ready, rc;
  if (wt_http_take_warm(f, p, n))
    return 0;
  if (wt_http_begin(f, p, n, &e, &ready, err) != 0)
    return -1;
  if (ready)
    return 0;
  rc = wt_fetch(f->impl, f, 0, (size_t)WT_HTTP_FIRST, ((wt_http *)f->impl)->first, &code, err);
  return wt_http_finish(f, &e, rc, code, err);
}

#endif
