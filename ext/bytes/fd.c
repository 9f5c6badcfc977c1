/*
** fd.c: reading a descriptor until n bytes came, and mtimes in
** nanoseconds.  See fd.h.
*/
#include "fd.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

ssize_t wt_fd_read_full(int fd, void *buf, size_t n, uint64_t off) {
  unsigned char *p = buf;
  size_t done = 0;
  if (n > (size_t)SSIZE_MAX || off > (uint64_t)INT64_MAX - n) {
    errno = EINVAL;
    return -1;
  }
  while (done < n) {
    ssize_t got = pread(fd, p + done, n - done, (off_t)(off + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -1;
    if (got == 0)
      break;
    done += (size_t)got;
  }
  return (ssize_t)done;
}

int64_t wt_stat_mtime_ns(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * WT_NS_PER_S + st->st_mtim.tv_nsec;
}
