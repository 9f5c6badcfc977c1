/*
** local_file.c: the local byte source: open read-only, a settled fstat
** (fd.h; regular files only), pread or a copy from a guarded mapping
** (mapping.h), fstat again to notice a change.  See file.h.
*/
#include "fd.h"
#include "file.h"
#include "mapping.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The size of f now (fstat), or dflt when it cannot be known. */
static uint64_t wt_local_size_now(const wt_file *f, uint64_t dflt) {
  struct stat st;
  return fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : dflt;
}

/* The error of a read that the file, now shorter, cannot give up to byte end. */
static int wt_local_short(uint64_t now, uint64_t end, wt_error *err) {
  return wt_fail(err,
                 "file changed while in use: it now has %llu bytes, but the data needed runs "
                 "to byte %llu",
                 U(now), U(end));
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
  if ((size_t)got < n)
    return wt_local_short(wt_local_size_now(f, off + (uint64_t)got), end, err);
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
  wt_unmap(f->map, f->size);
  close(f->fd);
}

static const wt_file_ops wt_local_ops = {wt_local_read_at, wt_local_unchanged, wt_local_close,
                                         NULL};

int wt_file_open_local(wt_file *f, const char *path, size_t n, wt_error *err) {
  struct stat st;
  int fd, settled;
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
  /* the identity every later check compares with: taken when no write
  ** is under way and a new one would move the modification time (fd.h) */
  settled = wt_fd_settled_stat(fd, &st);
  if (settled != 0) {
    if (settled < 0)
      wt_fail(err, "cannot stat: %s", strerror(errno));
    else
      wt_fail(err, "file changed while in use: it was written to %d times while it was opened",
              WT_SETTLE_ROUNDS);
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

int wt_file_map(wt_file *f) {
  if (f->ops != &wt_local_ops || !wt_guard_ready(NULL))
    return 0; /* the guard is checked at every read: another handler may have replaced it */
  if (f->map == NULL)
    f->map = wt_map_fd(f->fd, f->size);
  return f->map != NULL;
}

/* Check that [off, off + n) lies in f's mapping (the file's size at
** open): 0, or -1 with the error a short pread gives. */
static int wt_mapped_range(const wt_file *f, uint64_t off, size_t n, wt_error *err) {
  uint64_t end;
  if (f->map == NULL)
    return wt_fail(err, "internal error: the file is not mapped");
  if (wt_add(off, n, &end) != 0 || end > (uint64_t)INT64_MAX)
    return wt_fail(err, "read of %zu bytes at byte %llu is out of range", n, U(off));
  if (end > f->size)
    return wt_local_short(wt_local_size_now(f, f->size), end, err);
  return 0;
}

/* The error of a fault under the guard: the file got shorter while bytes
** up to byte end were read. */
static int wt_mapped_fault(const wt_file *f, uint64_t end, wt_error *err) {
  return wt_fail(err,
                 "file changed while in use: it shrank to %llu bytes while bytes up to byte "
                 "%llu were read from its mapping",
                 U(wt_local_size_now(f, 0)), U(end));
}

int wt_file_read_mapped(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err) {
  if (wt_mapped_range(f, off, n, err) != 0)
    return -1;
  if (wt_guarded_copy(buf, f->map + off, n) == WT_GUARD_FAULT)
    return wt_mapped_fault(f, off + n, err);
  return 0;
}

/* The argument of wt_scan_run. */
typedef struct wt_scan_arg {
  wt_scan_fn fn;
  void *arg;
  const unsigned char *p;
  size_t n;
} wt_scan_arg;

/* wt_file_scan_mapped()'s guarded run. */
static int wt_scan_run(void *arg, wt_error *err) {
  wt_scan_arg *a = arg;
  return a->fn(a->arg, a->p, a->n, err);
}

int wt_file_scan_mapped(const wt_file *f, uint64_t off, size_t n, wt_scan_fn fn, void *arg,
                        wt_error *err) {
  wt_scan_arg a = {fn, arg, NULL, n};
  int rc;
  if (wt_mapped_range(f, off, n, err) != 0)
    return -1;
  a.p = f->map + off;
  rc = wt_guarded(a.p, n, wt_scan_run, &a, err);
  if (rc == WT_GUARD_FAULT)
    return wt_mapped_fault(f, off + n, err);
  return rc;
}
