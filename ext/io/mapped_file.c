/*
** mapped_file.c: open read-only, fstat (regular files only), mmap, unmap.
** See mapped_file.h.
*/
#include "mapped_file.h"

#include "formats/sniff.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
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

int wt_file_open(wt_file *f, const char *path, size_t n, wt_error *err) {
  struct stat st;
  void *p;
  memset(f, 0, sizeof(*f));
  f->fd = -1;
  if (n == 0)
    return wt_fail(err, "the path is empty");
  if (memchr(path, 0, n) != NULL || path[n] != 0)
    return wt_fail(err, "the path contains a NUL byte");
  /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
  f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f->fd < 0)
    return wt_fail(err, "cannot open: %s", strerror(errno));
  if (fstat(f->fd, &st) != 0) {
    wt_fail(err, "cannot stat: %s", strerror(errno));
    goto fail;
  }
  if (!S_ISREG(st.st_mode)) {
    wt_fail(err, "is %s, not a regular file", wt_kind_of(st.st_mode));
    goto fail;
  }
  f->size = (uint64_t)st.st_size;
  f->dev = (uint64_t)st.st_dev;
  f->ino = (uint64_t)st.st_ino;
  f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  if (f->size > 0) {
    if (f->size > SIZE_MAX) {
      wt_fail(err, "file of %llu bytes is too large to map", (unsigned long long)f->size);
      goto fail;
    }
    p = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (p == MAP_FAILED) {
      wt_fail(err, "cannot map: %s", strerror(errno));
      goto fail;
    }
    f->data = p;
  }
  f->is_open = 1;
  return 0;
fail:
  close(f->fd);
  f->fd = -1;
  return -1;
}

int wt_file_check(const wt_file *f, uint64_t end, wt_error *err) {
  struct stat st;
  if (!f->is_open)
    return wt_fail(err, "file is not open");
  if (fstat(f->fd, &st) != 0)
    return wt_fail(err, "cannot stat: %s", strerror(errno));
  if ((uint64_t)st.st_size < end || f->size < end) {
    return wt_fail(err,
                   "file changed while in use: it now has %llu bytes, but the data needed "
                   "runs to byte %llu",
                   (unsigned long long)st.st_size, (unsigned long long)end);
  }
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
  if (!f->is_open)
    return;
  if (f->data != NULL)
    munmap((void *)f->data, (size_t)f->size);
  close(f->fd);
  memset(f, 0, sizeof(*f));
}
