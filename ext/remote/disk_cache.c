/*
** disk_cache.c: remote headers on disk.  See disk_cache.h.
*/
#include "disk_cache.h"

#include "bytes/fd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define WT_DISK_MAGIC  "sqlite-weights header cache 1"
#define WT_DISK_MAX_MB 256

int wt_disk_cache_on(void) {
  const char *v = getenv("SQLITE_WEIGHTS_CACHE");
  return v == NULL || (strcmp(v, "off") != 0 && strcmp(v, "0") != 0);
}

/* The cache folder into dir; made when make.  0, or -1. */
static int wt_disk_dir(char *dir, size_t size, int make) {
  const char *v = getenv("SQLITE_WEIGHTS_CACHE_DIR");
  int n;
  if (v != NULL && *v != 0)
    n = snprintf(dir, size, "%s", v);
  else if ((v = getenv("XDG_CACHE_HOME")) != NULL && *v == '/')
    n = snprintf(dir, size, "%s/sqlite-weights", v);
  else if ((v = getenv("HOME")) != NULL && *v == '/')
    n = snprintf(dir, size, "%s/.cache/sqlite-weights", v);
  else
    return -1;
  if (n < 0 || (size_t)n >= size)
    return -1;
  if (make) {
    char parent[PATH_MAX];
    char *slash;
    snprintf(parent, sizeof(parent), "%s", dir);
    slash = strrchr(parent, '/');
    if (slash != NULL && slash != parent) {
      *slash = 0;
      mkdir(parent, 0700); /* ~/.cache may not exist yet */
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
      return -1;
  }
  return 0;
}

/* The file of url into path. */
static int wt_disk_path(const char *url, char *path, size_t size, int make) {
  char dir[PATH_MAX];
  XXH128_hash_t h = XXH3_128bits(url, strlen(url));
  int n;
  if (wt_disk_dir(dir, sizeof(dir), make) != 0)
    return -1;
  n = snprintf(path, size, "%s/%016llx%016llx.hdr", dir, (unsigned long long)h.high64,
               (unsigned long long)h.low64);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Read one line (without its '\n') into buf. */
static int wt_line(FILE *fp, char *buf, size_t size) {
  size_t n;
  if (fgets(buf, (int)size, fp) == NULL)
    return -1;
  n = strlen(buf);
  if (n == 0 || buf[n - 1] != '\n')
    return -1;
  buf[n - 1] = 0;
  return 0;
}

int wt_disk_cache_get(const char *url, wt_disk_entry *e) {
  char path[PATH_MAX], line[9000];
  unsigned long long size, n;
  FILE *fp;
  int rc = -1;
  memset(e, 0, sizeof(*e));
  if (!wt_disk_cache_on() || wt_disk_path(url, path, sizeof(path), 0) != 0)
    return -1;
  fp = fopen(path, "rbe");
  if (fp == NULL)
    return -1;
  if (wt_line(fp, line, sizeof(line)) || strcmp(line, WT_DISK_MAGIC) != 0 ||
      wt_line(fp, line, sizeof(line)) || strcmp(line, url) != 0 ||
      wt_line(fp, e->etag, sizeof(e->etag)) || wt_line(fp, line, sizeof(line)) ||
      sscanf(line, "%llu", &size) != 1 || wt_line(fp, line, sizeof(line)) ||
      sscanf(line, "%llu", &n) != 1 || n > size || n > ((uint64_t)1 << 31))
    goto done;
  e->bytes = malloc(n ? (size_t)n : 1);
  if (e->bytes == NULL || fread(e->bytes, 1, (size_t)n, fp) != n || fgetc(fp) != EOF)
    goto done;
  e->size = size;
  e->n = (size_t)n;
  rc = 0;
  utimensat(AT_FDCWD, path, NULL, 0); /* most recently used */
done:
  fclose(fp);
  if (rc != 0)
    wt_disk_entry_free(e);
  return rc;
}

/* One file of the folder, for trimming. */
typedef struct wt_disk_file {
  char name[64];
  int64_t mtime_ns;
  uint64_t bytes;
} wt_disk_file;

static int wt_older(const void *a, const void *b) {
  const wt_disk_file *x = a, *y = b;
  return x->mtime_ns < y->mtime_ns ? -1 : x->mtime_ns > y->mtime_ns;
}

/* Remove the oldest *.hdr files until the folder is within its bound. */
static void wt_disk_trim(void) {
  char dir[PATH_MAX];
  const char *v = getenv("SQLITE_WEIGHTS_CACHE_MB");
  uint64_t max = (uint64_t)(v && atol(v) > 0 ? atol(v) : WT_DISK_MAX_MB) << 20, total = 0;
  wt_disk_file *files = NULL;
  size_t n = 0, cap = 0, i;
  struct dirent *d;
  DIR *dp;
  if (wt_disk_dir(dir, sizeof(dir), 0) != 0 || (dp = opendir(dir)) == NULL)
    return;
  while ((d = readdir(dp)) != NULL) {
    struct stat st;
    size_t len = strlen(d->d_name);
    if (len < 5 || len >= 64 || strcmp(d->d_name + len - 4, ".hdr") != 0)
      continue;
    if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (n == cap) {
      wt_disk_file *p = realloc(files, (cap = cap ? 2 * cap : 64) * sizeof(*files));
      if (p == NULL)
        break;
      files = p;
    }
    memcpy(files[n].name, d->d_name, len + 1);
    files[n].mtime_ns = wt_stat_mtime_ns(&st);
    files[n].bytes = (uint64_t)st.st_size;
    total += files[n].bytes;
    n++;
  }
  qsort(files, n, sizeof(*files), wt_older);
  for (i = 0; i < n && total > max; i++)
    if (unlinkat(dirfd(dp), files[i].name, 0) == 0)
      total -= files[i].bytes;
  closedir(dp);
  free(files);
}

void wt_disk_cache_put(const char *url, const char *etag, uint64_t size, const void *bytes,
                       size_t n) {
  char path[PATH_MAX], tmp[PATH_MAX + 32];
  FILE *fp;
  int fd, ok;
  if (!wt_disk_cache_on() || strchr(url, '\n') != NULL || strchr(etag, '\n') != NULL ||
      wt_disk_path(url, path, sizeof(path), 1) != 0)
    return;
  static unsigned seq;
  snprintf(tmp, sizeof(tmp), "%s.%ld.%u.tmp", path, (long)getpid(),
           __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return;
  fp = fdopen(fd, "wb");
  if (fp == NULL) {
    close(fd);
    unlink(tmp);
    return;
  }
  ok = fprintf(fp, "%s\n%s\n%s\n%llu\n%llu\n", WT_DISK_MAGIC, url, etag, (unsigned long long)size,
               (unsigned long long)n) > 0 &&
       fwrite(bytes, 1, n, fp) == n;
  ok = fclose(fp) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return;
  }
  wt_disk_trim();
}

void wt_disk_entry_free(wt_disk_entry *e) {
  free(e->bytes);
  memset(e, 0, sizeof(*e));
}
