/*
** fd.c: reading a descriptor until n bytes came, mtimes in nanoseconds,
** and a settled fstat.  See fd.h.
*/
#define _GNU_SOURCE /* SEEK_DATA */
#include "fd.h"

#include <errno.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

/* The grain of a time stamped without nanoseconds: FAT's 2 seconds. */
#define WT_SECONDS_GRAIN_NS (2LL * WT_NS_PER_S)

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

/* How long to sleep until a write could no longer be stamped with the
** modification time of st (see fd.h), in nanoseconds; 0 when it cannot.
** Writes are stamped by the coarse clock, which lags real time by up to
** a tick: the sleep is a tick longer than the coarse clock's distance to
** the end of the grain, so that the coarse clock is past it on waking. */
static int64_t wt_racy_ns(const struct stat *st) {
  struct timespec now, tick;
  int64_t mtime = wt_stat_mtime_ns(st), grain, now_ns, tick_ns;
  if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0 ||
      clock_getres(CLOCK_REALTIME_COARSE, &tick) != 0)
    return 0;
  now_ns = (int64_t)now.tv_sec * WT_NS_PER_S + now.tv_nsec;
  tick_ns = (int64_t)tick.tv_sec * WT_NS_PER_S + tick.tv_nsec;
  grain = st->st_mtim.tv_nsec == 0 ? WT_SECONDS_GRAIN_NS : tick_ns;
  /* a write now is stamped now, to the grain: it can repeat mtime only
  ** while now is in mtime's grain (a time ahead of now: a fine-grained
  ** stamp, after which writes get finer ones, or a clock set back) */
  if (now_ns < mtime || now_ns >= mtime + grain)
    return 0;
  return mtime + grain - now_ns + tick_ns;
}

int wt_fd_settled_stat(int fd, struct stat *st) {
  int changes = 0, waits = 0;
  for (;;) {
    struct stat again;
    struct timespec pause;
    int64_t wait;
    if (fstat(fd, st) != 0)
      return -1;
    if (!S_ISREG(st->st_mode))
      return 0;
    (void)lseek(fd, 0, SEEK_DATA); /* waits for a write under way; the offset is unused */
    if (fstat(fd, &again) != 0)
      return -1;
    if (again.st_size != st->st_size || wt_stat_mtime_ns(&again) != wt_stat_mtime_ns(st)) {
      *st = again;
      if (++changes == WT_SETTLE_ROUNDS)
        return 1; /* written to all along */
      continue;
    }
    wait = wt_racy_ns(st);
    if (wait == 0 || ++waits > WT_SETTLE_ROUNDS) /* the clock moved back: take it */
      return 0;
    pause.tv_sec = (time_t)(wait / WT_NS_PER_S);
    pause.tv_nsec = (long)(wait % WT_NS_PER_S);
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
      ;
  }
}
