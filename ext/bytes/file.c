/*
** file.c: the local byte source: open read-only, fstat (regular files
** only), pread, fstat again to notice a change.  See file.h.
*/
#include "file.h"

#include "formats/sniff.h"
#include "remote/http.h"
#include "remote/url.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define U(x) ((unsigned long long)(x))

/* Describe a file type that is not a regular file. */
static const char *wt_kind_of(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/* Modification time of st in nanoseconds. */
static int64_t wt_mtime_ns(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The error for a file that no longer holds bytes up to end. */
static int wt_changed(wt_error *err, uint64_t now, uint64_t end) {
  return wt_fail(err,
                 "file changed while in use: it now has %llu bytes, but the data needed runs "
                 "to byte %llu",
                 U(now), U(end));
}

/* read_at of a local file: pread until n bytes came, retrying on EINTR. */
static int wt_local_read_at(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err) {
  unsigned char *p = buf;
  size_t done = 0;
  uint64_t end;
  if (wt_add(off, n, &end) != 0 || end > (uint64_t)INT64_MAX)
    return wt_fail(err, "read of %zu bytes at byte %llu is out of range", n, U(off));
  while (done < n) {
    ssize_t got = pread(f->fd, p + done, n - done, (off_t)(off + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return wt_fail(err, "cannot read %zu bytes at byte %llu: %s", n, U(off), strerror(errno));
    if (got == 0) {
      struct stat st;
      uint64_t now = fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : off + done;
      return wt_changed(err, now, end);
    }
    done += (size_t)got;
  }
  return 0;
}

/* unchanged of a local file: size and mtime as at open. */
static int wt_local_unchanged(const wt_file *f, wt_error *err) {
  struct stat st;
  if (fstat(f->fd, &st) != 0)
    return wt_fail(err, "cannot stat: %s", strerror(errno));
  if ((uint64_t)st.st_size != f->size || wt_mtime_ns(&st) != f->mtime_ns)
    return wt_fail(err,
                   "file changed while in use: it had %llu bytes when opened and now has "
                   "%llu%s",
                   U(f->size), U(st.st_size),
                   (uint64_t)st.st_size == f->size ? ", with a new modification time" : "");
  return 0;
}

/* close of a local file. */
static void wt_local_close(wt_file *f) {
  close(f->fd);
}

static const wt_file_ops wt_local_ops = {wt_local_read_at, wt_local_unchanged, wt_local_close};

int wt_file_open(wt_file *f, const char *path, size_t n, wt_error *err) {
  struct stat st;
  int fd;
  memset(f, 0, sizeof(*f));
  f->fd = -1;
  if (n == 0)
    return wt_fail(err, "the path is empty");
  if (memchr(path, 0, n) != NULL || path[n] != 0)
    return wt_fail(err, "the path contains a NUL byte");
  if (wt_url_is_remote(path, n))
    return wt_http_open(f, path, n, err);
  /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return wt_fail(err, "cannot open: %s", strerror(errno));
  if (fstat(fd, &st) != 0) {
    wt_fail(err, "cannot stat: %s", strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    wt_fail(err, "is %s, not a regular file", wt_kind_of(st.st_mode));
    close(fd);
    return -1;
  }
  f->ops = &wt_local_ops;
  f->fd = fd;
  f->size = (uint64_t)st.st_size;
  f->dev = (uint64_t)st.st_dev;
  f->ino = (uint64_t)st.st_ino;
  f->mtime_ns = wt_mtime_ns(&st);
  return 0;
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

int wt_file_sniff(const char *path) {
  unsigned char buf[4096];
  struct stat st;
  ssize_t got;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), format = 0;
  if (fd < 0)
    return 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    got = pread(fd, buf, sizeof(buf), 0);
    if (got > 0)
      format = wt_sniff_format(buf, (uint64_t)got, (uint64_t)st.st_size);
  }
  close(fd);
  return format;
}

void wt_file_close(wt_file *f) {
  if (f->ops != NULL)
    f->ops->close(f);
  memset(f, 0, sizeof(*f));
  f->fd = -1;
}
