/*
** local_file.c: the local byte source: open read-only, fstat (regular files
** only), pread, fstat again to notice a change.  See file.h.
*/
#include "fd.h"
#include "file.h"

#include <errno.h>
#include <fcntl.h>
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

/* read_at of a local file: every one of the n bytes, or an error that says
** whether the file got shorter. */
static int wt_local_read_at(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err) {
  uint64_t end;
  ssize_t got;
  if (wt_add(off, n, &end) != 0 || end > (uint64_t)INT64_MAX)
    return wt_fail(err, "read of %zu bytes at byte %llu is out of range", n, U(off));
  got = wt_fd_read_full(f->fd, buf, n, off);
  if (got < 0)
    return wt_fail(err, "cannot read %zu bytes at byte %llu: %s", n, U(off), strerror(errno));
  if ((size_t)got < n) {
    struct stat st;
    uint64_t now = fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : off + (uint64_t)got;
    return wt_fail(err,
                   "file changed while in use: it now has %llu bytes, but the data needed runs "
                   "to byte %llu",
                   U(now), U(end));
  }
  return 0;
}

/* unchanged of a local file: size and mtime as at open. */
static int wt_local_unchanged(const wt_file *f, wt_error *err) {
  struct stat st;
  if (fstat(f->fd, &st) != 0)
    return wt_fail(err, "cannot stat: %s", strerror(errno));
  if ((uint64_t)st.st_size != f->size || wt_stat_mtime_ns(&st) != f->mtime_ns)
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

static const wt_file_ops wt_local_ops = {wt_local_read_at, wt_local_unchanged, wt_local_close,
                                         NULL};

int wt_file_open_local(wt_file *f, const char *path, size_t n, wt_error *err) {
  struct stat st;
  int fd;
  memset(f, 0, sizeof(*f));
  f->fd = -1;
  if (n == 0)
    return wt_fail(err, "the path is empty");
  if (memchr(path, 0, n) != NULL || path[n] != 0)
    return wt_fail(err, "the path contains a NUL byte");
  /* A FIFO, a device or a socket is refused by its stat, never opened:
  ** opening one for reading can be noticed (a FIFO's writer goes on, a
  ** tape rewinds).  O_NONBLOCK: one put there between stat and open must
  ** not wait for a writer; fstat below refuses it. */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return wt_fail(err, "is %s, not a regular file", wt_kind_of(st.st_mode));
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
  f->mtime_ns = wt_stat_mtime_ns(&st);
  return 0;
}
