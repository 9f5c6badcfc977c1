/*
** file.c: the byte-source interface: a path opened as the kind of source
** that claims it, and the operations passed on to it.  See file.h.
*/
#include "file.h"

#include <stdlib.h>
#include <string.h>

/* The remote kind of source (remote/http.c registers it), or NULL. */
static const wt_file_kind *wt_remote_kind;

void wt_file_set_remote(const wt_file_kind *kind) {
  wt_remote_kind = kind;
}

int wt_file_is_remote(const char *path, size_t n) {
  return wt_remote_kind != NULL && wt_remote_kind->claims(path, n);
}

int wt_file_open(wt_file *f, const char *path, size_t n, wt_error *err) {
  if (wt_file_is_remote(path, n)) {
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    if (memchr(path, 0, n) != NULL || path[n] != 0)
      return wt_fail(err, "the path contains a NUL byte");
    return wt_remote_kind->open(f, path, n, err);
  }
  return wt_file_open_local(f, path, n, err);
}

int wt_file_read_at(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err) {
  if (f->ops == NULL)
    return wt_fail(err, "file is not open");
  return f->ops->read_at(f, off, n, buf, err);
}

int wt_file_unchanged(const wt_file *f, wt_error *err) {
  if (f->ops == NULL)
    return wt_fail(err, "file is not open");
  return f->ops->unchanged(f, err);
}

void wt_file_header_read(const wt_file *f, const unsigned char *bytes, size_t n) {
  if (f->ops != NULL && f->ops->header_read != NULL)
    f->ops->header_read(f, bytes, n);
}

int wt_file_read_all(const wt_file *f, uint64_t max, unsigned char **out, size_t *n,
                     wt_error *err) {
  unsigned char *buf;
  *out = NULL;
  *n = 0;
  if (f->size > max || f->size >= SIZE_MAX)
    return wt_fail(err, "the file has %llu bytes, over the limit of %llu", U(f->size), U(max));
  buf = malloc((size_t)f->size + 1);
  if (buf == NULL)
    return wt_fail(err, "out of memory reading %llu bytes", U(f->size));
  if (wt_file_read_at(f, 0, (size_t)f->size, buf, err) != 0) {
    free(buf);
    return -1;
  }
  buf[f->size] = 0;
  *out = buf;
  *n = (size_t)f->size;
  return 0;
}

void wt_file_close(wt_file *f) {
  if (f->ops != NULL)
    f->ops->close(f);
  memset(f, 0, sizeof(*f));
  f->fd = -1;
}
