/*
** out_file.c: a new file written to a temporary file and renamed over its
** target.  See out_file.h.
** Layer: write (uses bytes/, base/).
**
** The order of the steps is that of Linux's man pages open(2) (O_TMPFILE:
** "linkat(fd, "", ...)" or /proc/self/fd with AT_SYMLINK_FOLLOW), fsync(2)
** and rename(2); copy_file_range(2)'s fallback errors are those its man
** page lists (EXDEV before 5.3 and across filesystem types since 5.12,
** EOPNOTSUPP, ENOSYS, EINVAL).
*/
#define _GNU_SOURCE
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byte_swap.h"
#include "bytes/digest.h"
#include "bytes/fd.h"

/* The mode of a new file before the umask (what cp(1) creates). */
#define WT_OUT_MODE 0666
/* Tries at a free temporary name. */
#define WT_OUT_TRIES 100
/* Bytes written between two starts of write-back (wt_out_write_behind). */
#define WT_OUT_WRITE_BEHIND ((uint64_t)16 << 20)

/* Makes temporary names unique within the process. */
static unsigned wt_out_counter;

/* Write the next temporary name for o into o->tmp. */
static void wt_out_tmp_name(wt_out *o) {
  unsigned n = __atomic_add_fetch(&wt_out_counter, 1, __ATOMIC_RELAXED);
  snprintf(o->tmp, sizeof(o->tmp), ".%.200s.tmp-%ld-%u", o->base, (long)getpid(), n);
}

/* The file a symbolic link at path leads to (malloc'd), as cp(1) writes
** through one; NULL with err set when it leads nowhere (cp: "not writing
** through dangling symlink") or cannot be resolved. */
static char *wt_out_link_target(const char *path, wt_error *err) {
  char *real = realpath(path, NULL);
  if (real == NULL && errno == ENOENT)
    wt_fail(err, "the output is a symbolic link to nothing: give the path of the file to write");
  else if (real == NULL)
    wt_fail(err, "the output is a symbolic link that cannot be followed: %s", strerror(errno));
  return real;
}

/* The target's last component and folder (opened) for path, the file to
** replace: 0, or -1 with err set. */
static int wt_out_place(wt_out *o, const char *path, wt_error *err) {
  const char *slash = strrchr(path, '/');
  struct stat st;
  char *dir;
  o->base = strdup(slash ? slash + 1 : path);
  dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  if (o->base == NULL || dir == NULL) {
    free(dir);
    return wt_fail(err, "out of memory");
  }
  if (o->base[0] == 0 || strcmp(o->base, ".") == 0 || strcmp(o->base, "..") == 0) {
    free(dir);
    return wt_fail(err, "the output path names a folder, not a file");
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    free(dir);
    return wt_fail(err, "the output path exists and is not a regular file");
  }
  o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (o->dirfd < 0)
    return wt_fail(err, "cannot open the output's folder: %s", strerror(errno));
  return 0;
}

int wt_out_open(wt_out *o, const char *path, wt_error *err) {
  struct stat st;
  char *real = NULL;
  int i, rc;
  memset(o, 0, sizeof(*o));
  o->open = 1;
  o->fd = o->dirfd = -1;
  if (path[0] == 0)
    return wt_fail(err, "the output path is empty");
  if ((o->target = strdup(path)) == NULL)
    return wt_fail(err, "out of memory");
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
      (real = wt_out_link_target(path, err)) == NULL)
    return -1;
  rc = wt_out_place(o, real != NULL ? real : path, err); /* through a link: its target */
  free(real);
  if (rc != 0)
    return -1;
  o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, WT_OUT_MODE);
  if (o->fd >= 0)
    return 0;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
    return wt_fail(err, "cannot create a file in the output's folder: %s", strerror(errno));
  for (i = 0; i < WT_OUT_TRIES && o->fd < 0; i++) {
    wt_out_tmp_name(o);
    o->fd = openat(o->dirfd, o->tmp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, WT_OUT_MODE);
    if (o->fd < 0 && errno != EEXIST)
      break;
  }
  if (o->fd < 0)
    return wt_fail(err, "cannot create a file in the output's folder: %s", strerror(errno));
  o->named = 1;
  return 0;
}

int wt_out_reserve(wt_out *o, uint64_t size, wt_error *err) {
  if (size == 0 || size > INT64_MAX)
    return 0;
  if (fallocate(o->fd, 0, 0, (off_t)size) == 0)
    return 0;
  if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINTR)
    return 0;
  return wt_fail(err, "cannot reserve %llu bytes for the output: %s", U(size), strerror(errno));
}

/* A failed write or copy, as a sentence. */
/* Ask the kernel to start writing to disk what was written since the last
** call, once WT_OUT_WRITE_BEHIND bytes have gathered (sync_file_range(2)
** with SYNC_FILE_RANGE_WRITE: the write-back starts, nothing waits for it).
** The disk then writes while the rest is copied, encoded and read back,
** and the fsync(2) of the commit waits only for the tail.  Durability is
** the commit's fsync's alone: an error here is left for it to report. */
static void wt_out_write_behind(wt_out *o) {
  if (o->size - o->written_back < WT_OUT_WRITE_BEHIND)
    return;
  (void)sync_file_range(o->fd, (off_t)o->written_back, (off_t)(o->size - o->written_back),
                        SYNC_FILE_RANGE_WRITE);
  o->written_back = o->size;
}

static int wt_out_write_fail(uint64_t at, wt_error *err) {
  return wt_fail(err, "cannot write the output at byte %llu: %s", U(at), strerror(errno));
}

int wt_out_write(wt_out *o, const void *p, size_t n, wt_error *err) {
  const unsigned char *b = p;
  while (n > 0) {
    ssize_t w = pwrite(o->fd, b, n, (off_t)o->size);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return wt_out_write_fail(o->size, err);
    b += w;
    n -= (size_t)w;
    o->size += (uint64_t)w;
  }
  wt_out_write_behind(o);
  return 0;
}

int wt_out_zeros(wt_out *o, uint64_t n, wt_error *err) {
  static const unsigned char zeros[4096];
  while (n > 0) {
    size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);
    if (wt_out_write(o, zeros, k, err) != 0)
      return -1;
    n -= k;
  }
  return 0;
}

/* Call the interrupt check once WT_OUT_POLL bytes were copied since the
** last call. */
static int wt_out_poll(wt_out *o, uint64_t copied, wt_error *err) {
  o->polled += copied;
  if (o->polled < WT_OUT_POLL || o->interrupted == NULL)
    return 0;
  o->polled = 0;
  return o->interrupted(o->ctx, err) ? -1 : 0;
}

/* Copy through memory, WT_OUT_CHUNK bytes at a time (a multiple of any
** element's width), each element's bytes reversed when swap > 1. */
static int wt_out_copy_chunks(wt_out *o, const wt_file *src, uint64_t off, uint64_t n,
                              unsigned swap, wt_error *err) {
  if (o->chunk == NULL && (o->chunk = malloc(WT_OUT_CHUNK)) == NULL)
    return wt_fail(err, "out of memory");
  while (n > 0) {
    size_t k = n < WT_OUT_CHUNK ? (size_t)n : WT_OUT_CHUNK;
    if (wt_file_read_at(src, off, k, o->chunk, err) != 0)
      return -1;
    wt_swap_elements(o->chunk, k, swap);
    if (wt_out_write(o, o->chunk, k, err) != 0 || wt_out_poll(o, k, err) != 0)
      return -1;
    off += k;
    n -= k;
  }
  return 0;
}

int wt_out_copy(wt_out *o, const wt_file *src, uint64_t off, uint64_t n, wt_error *err) {
  if (off > src->size || n > src->size - off)
    return wt_fail(err, "file changed while in use: it has %llu bytes, the copy needs %llu",
                   U(src->size), U(off + n));
  while (n > 0 && !src->remote && src->fd >= 0) {
    loff_t in = (loff_t)off, out = (loff_t)o->size;
    size_t k = n < WT_OUT_POLL ? (size_t)n : (size_t)WT_OUT_POLL;
    ssize_t r = copy_file_range(src->fd, &in, o->fd, &out, k, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && (errno == EXDEV || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL))
      break; /* the kernel cannot: through memory */
    if (r < 0)
      return wt_out_write_fail(o->size, err);
    if (r == 0)
      return wt_fail(err, "file changed while in use: it ended before byte %llu", U(off + n));
    off += (uint64_t)r;
    n -= (uint64_t)r;
    o->size += (uint64_t)r;
    wt_out_write_behind(o);
    if (wt_out_poll(o, (uint64_t)r, err) != 0)
      return -1;
  }
  if (n > 0 && wt_out_copy_chunks(o, src, off, n, 0, err) != 0)
    return -1;
  return wt_file_unchanged(src, err);
}

int wt_out_copy_swapped(wt_out *o, const wt_file *src, uint64_t off, uint64_t n, unsigned swap,
                        wt_error *err) {
  if (swap < 2)
    return wt_out_copy(o, src, off, n, err);
  if (off > src->size || n > src->size - off)
    return wt_fail(err, "file changed while in use: it has %llu bytes, the copy needs %llu",
                   U(src->size), U(off + n));
  if (n % swap != 0)
    return wt_fail(err, "%llu bytes are not whole elements of %u bytes", U(n), swap);
  if (wt_out_copy_chunks(o, src, off, n, swap, err) != 0)
    return -1;
  return wt_file_unchanged(src, err);
}

int wt_out_read(const wt_out *o, uint64_t off, size_t n, void *buf, wt_error *err) {
  ssize_t got = wt_fd_read_full(o->fd, buf, n, off);
  if (got < 0)
    return wt_fail(err, "cannot read the output back: %s", strerror(errno));
  if ((size_t)got != n)
    return wt_fail(err, "the output has %llu bytes, not the %llu written", U(off + (uint64_t)got),
                   U(o->size));
  return 0;
}

int wt_out_digest_swapped(const wt_out *o, const wt_file *src, uint64_t off, uint64_t n,
                          unsigned char *buf, unsigned swap, char hex[WT_DIGEST_HEX_MAX],
                          wt_error *err) {
  wt_digest *d;
  if (wt_digest_begin("xxh3-64", 7, &d, err) != 0)
    return -1;
  while (n > 0) {
    size_t k = n < WT_OUT_CHUNK ? (size_t)n : WT_OUT_CHUNK;
    if ((src ? wt_file_read_at(src, off, k, buf, err) : wt_out_read(o, off, k, buf, err)) != 0) {
      wt_digest_free(d);
      return -1;
    }
    wt_swap_elements(buf, k, swap);
    if (wt_digest_update(d, buf, k, err) != 0) {
      wt_digest_free(d);
      return -1;
    }
    off += k;
    n -= k;
  }
  return wt_digest_end(d, hex, err);
}

int wt_out_digest(const wt_out *o, const wt_file *src, uint64_t off, uint64_t n, unsigned char *buf,
                  char hex[WT_DIGEST_HEX_MAX], wt_error *err) {
  return wt_out_digest_swapped(o, src, off, n, buf, 0, hex, err);
}

int wt_out_same_bytes(const wt_out *o, uint64_t out_off, const wt_file *src, uint64_t src_off,
                      uint64_t n, unsigned char *buf, const char *what, wt_error *err) {
  return wt_out_same_values(o, out_off, src, src_off, n, 0, buf, what, err);
}

int wt_out_same_values(const wt_out *o, uint64_t out_off, const wt_file *src, uint64_t src_off,
                       uint64_t n, unsigned swap, unsigned char *buf, const char *what,
                       wt_error *err) {
  char a[WT_DIGEST_HEX_MAX], b[WT_DIGEST_HEX_MAX];
  if (wt_out_digest(o, src, src_off, n, buf, a, err) != 0 ||
      wt_out_digest_swapped(o, NULL, out_off, n, buf, swap, b, err) != 0)
    return -1;
  if (strcmp(a, b) != 0 && swap > 1)
    return wt_fail(err,
                   "read back: the values of %s, swapped back, differ from the input's (xxh3 %s, "
                   "not %s)",
                   what, b, a);
  if (strcmp(a, b) != 0)
    return wt_fail(err, "read back: the bytes of %s differ from the input's (xxh3 %s, not %s)",
                   what, b, a);
  return 0;
}

/* Give an unnamed temporary file a temporary name in its folder. */
static int wt_out_link(wt_out *o, wt_error *err) {
  char proc[64];
  int i;
  snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
  for (i = 0; i < WT_OUT_TRIES; i++) {
    wt_out_tmp_name(o);
    if (linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW) == 0) {
      o->named = 1;
      return 0;
    }
    if (errno != EEXIST)
      break;
  }
  return wt_fail(err, "cannot name the output in its folder: %s", strerror(errno));
}

/* Make o durable and give it a temporary name in its folder (closing its
** descriptor): 0, or -1 with err set. */
static int wt_out_ready(wt_out *o, wt_error *err) {
  int fd = o->fd;
  if (fsync(fd) != 0)
    return wt_fail(err, "cannot write the output to disk (fsync): %s", strerror(errno));
  if (!o->named && wt_out_link(o, err) != 0)
    return -1;
  o->fd = -1;
  if (close(fd) != 0)
    return wt_fail(err, "cannot close the output: %s", strerror(errno));
  return 0;
}

/* The interrupt check of the first of o[0..n) that has one: 1 when it
** says stop (err set). */
static int wt_out_stop(wt_out *const *o, size_t n, wt_error *err) {
  size_t i;
  for (i = 0; i < n; i++)
    if (o[i]->interrupted != NULL)
      return o[i]->interrupted(o[i]->ctx, err) != 0;
  return 0;
}

int wt_out_commit_all(wt_out *const *o, size_t n, wt_error *err) {
  size_t i;
  int rc = -1;
  for (i = 0; i < n; i++)
    if (wt_out_ready(o[i], err) != 0)
      goto release;
  if (wt_out_stop(o, n, err)) /* the last moment an interrupt leaves every target as it was */
    goto release;
  for (i = 0; i < n; i++) {
    if (renameat(o[i]->dirfd, o[i]->tmp, o[i]->dirfd, o[i]->base) != 0)
      break;
    o[i]->named = 0;
  }
  if (i < n && i == 0) {
    wt_fail(err, "cannot rename the output to %s: %s", o[i]->target, strerror(errno));
    goto release;
  }
  if (i < n) {
    wt_fail(err, "cannot rename the output to %s: %s (the %zu files before it are in place)",
            o[i]->target, strerror(errno), i);
    goto release;
  }
  rc = 0;
  for (i = 0; i < n && rc == 0; i++) /* the renames made durable */
    if (fsync(o[i]->dirfd) != 0)
      rc = wt_fail(err, "%s was written, but its folder could not be synced: %s", o[i]->target,
                   strerror(errno));
release:
  for (i = 0; i < n; i++)
    wt_out_abort(o[i]);
  return rc;
}

int wt_out_commit(wt_out *o, wt_error *err) {
  return wt_out_commit_all(&o, 1, err);
}

void wt_out_abort(wt_out *o) {
  if (!o->open)
    return;
  if (o->fd >= 0)
    close(o->fd);
  if (o->named)
    unlinkat(o->dirfd, o->tmp, 0);
  if (o->dirfd >= 0)
    close(o->dirfd);
  free(o->target);
  free(o->base);
  free(o->chunk);
  o->target = o->base = NULL;
  o->chunk = NULL;
  o->fd = o->dirfd = -1;
  o->named = o->open = 0;
}

int wt_out_not_input(const char *path, const wt_file *f, const char *hint, wt_error *err) {
  if (!wt_out_is_file(path, f))
    return 0;
  return wt_fail(err, "%s is an input file: refusing to replace it%s%s%s", path, hint ? " (" : "",
                 hint ? hint : "", hint ? " allows it)" : "");
}

int wt_out_is_file(const char *path, const wt_file *f) {
  struct stat st;
  if (f->remote || stat(path, &st) != 0)
    return 0;
  return (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino;
}
