/*
** fd.h: the two things every reader of a local file needs from POSIX, so
** that each is written once: read until n bytes came (pread(2) may return
** fewer, or fail with EINTR), and a file's modification time in nanoseconds
** (what the caches and the change checks compare).  No SQLite.
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

#endif
