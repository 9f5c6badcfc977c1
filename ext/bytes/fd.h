/*
** fd.h: what every reader of a local file needs from POSIX, so that each
** is written once: read until n bytes came (pread(2) may return fewer, or
** fail with EINTR), a file's modification time in nanoseconds (what the
** caches and the change checks compare), and a stat of an open file taken
** when its size and modification time name one version of its bytes.  No
** SQLite.
*/
#ifndef WT_FD_H
#define WT_FD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Nanoseconds in a second. */
#define WT_NS_PER_S 1000000000

/* Read up to n bytes at byte off of fd into buf, retrying after EINTR and
** after short reads.  Returns how many bytes were read (fewer than n only
** at the end of the file), or -1 with errno set on an I/O error. */
ssize_t wt_fd_read_full(int fd, void *buf, size_t n, uint64_t off);

/* The modification time of st in nanoseconds since the epoch. */
int64_t wt_stat_mtime_ns(const struct stat *st);

/* fstat(2) of fd at a moment when its size and modification time stand for
** one version of its bytes, so that a later equal fstat means no byte
** changed in between.  Two things make a plain fstat fall short:
**  - write(2) sets the modification time when it starts and then copies
**    (Linux: file_modified() before generic_perform_write(), under the
**    inode's lock), so a file opened during a rewrite in place has the new
**    time while its bytes still change.  lseek(SEEK_DATA) takes that lock
**    on ext4 and tmpfs (not on XFS) and so waits for a write under way; an
**    fstat before and after it that agree mean no write was under way;
**  - a file system stamps times at a granularity (a clock tick, 4 ms at
**    HZ=250, before Linux 6.13's fine-grained stamps; 2 s on FAT), so a
**    second write within the same grain can leave the time as it was.  A
**    file whose time is in the grain of now (the coarse clock's tick, or
**    2 s for a time without nanoseconds) is waited out, at most that long
**    and a tick (the coarse clock that stamps writes lags by up to one);
**    a time ahead of now is taken as it is (a write now is stamped
**    otherwise).
** Returns 0 with *st set; 1 with *st set when the file changed
** WT_SETTLE_ROUNDS times while it was looked at; -1 with errno set when
** fstat failed. */
int wt_fd_settled_stat(int fd, struct stat *st);

/* How many changes wt_fd_settled_stat() sees before it gives up. */
#define WT_SETTLE_ROUNDS 4

#endif
