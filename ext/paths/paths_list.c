/*
** paths_list.c: the list of files a path expands to, as the files of path
** expansion build it (paths_int.h): adding a file with what stat(2) and
** its first bytes say, remembering and finding files by path, and the
** small helpers on paths they share.  A file is sniffed once, here, when
** it is added: nothing later (weights_files' columns) needs to open it
** again to say what it is.  Layer: io (no SQLite).
*/
#include "paths_int.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/fd.h"
#include "formats/sniff.h"
#include "remote/url.h"

/* Bytes read from the start of a file to tell its format. */
#define WT_SNIFF_BYTES 4096

/* ======================== Helpers of the paths files ======================== */

int wt_paths_oom(wt_error *err) {
  return wt_fail(err, "out of memory");
}

int wt_paths_ends(const char *p, size_t n, const char *z) {
  size_t k = strlen(z);
  return n >= k && memcmp(p + n - k, z, k) == 0;
}

int wt_paths_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int wt_paths_join(char *buf, const char *dir, size_t dn, const char *name, size_t nn, size_t *len,
                  wt_error *err) {
  size_t sep = dn > 0 && dir[dn - 1] != '/';
  if (dn + sep + nn >= PATH_MAX) {
    char qn[WT_QUOTE_SIZE], qd[WT_QUOTE_SIZE];
    return wt_fail(err, "the path of %s in directory %s is longer than PATH_MAX (%d bytes)",
                   wt_quote(qn, sizeof(qn), name, nn), wt_quote(qd, sizeof(qd), dir, dn), PATH_MAX);
  }
  memcpy(buf, dir, dn);
  buf[dn] = '/';
  memcpy(buf + dn + sep, name, nn);
  buf[dn + sep + nn] = 0;
  *len = dn + sep + nn;
  return 0;
}

int wt_paths_model_name(const char *path, size_t n) {
  return wt_paths_ends(path, n, ".safetensors") || wt_paths_ends(path, n, ".gguf") ||
         wt_paths_ends(path, n, ".safetensors.index.json");
}

/* ============================ The list of files ============================= */

/* Fill f's format and what from its first bytes (a regular file only;
** never blocks: O_NONBLOCK, and the type is checked again after open). */
static void wt_paths_sniff(wt_path_file *f) {
  unsigned char buf[WT_SNIFF_BYTES];
  struct stat st;
  ssize_t r;
  size_t got;
  int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    r = wt_fd_read_full(fd, buf, sizeof(buf), 0);
    got = r > 0 ? (size_t)r : 0; /* unreadable: sniffed as empty, its open says why */
    f->format = wt_sniff_format(buf, got, got > f->size ? got : f->size);
    f->what = f->format ? NULL : wt_sniff_describe(buf, got, 0);
  }
  close(fd);
}

int wt_paths_add(wt_paths *x, const char *path, size_t n, size_t *id) {
  return wt_paths_add_stat(x, path, n, NULL, id);
}

int wt_paths_add_stat(wt_paths *x, const char *path, size_t n, const struct stat *known,
                      size_t *id) {
  wt_pathlist *l = x->out;
  wt_path_file *f;
  struct stat st;
  if (l->n >= WT_PATHS_MAX_FILES)
    return wt_fail(x->err, "more than %d files (the limit for one argument)", WT_PATHS_MAX_FILES);
  if (l->n == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 16;
    wt_path_file *a = realloc(l->files, cap * sizeof(*a));
    if (a == NULL)
      return wt_paths_oom(x->err);
    l->files = a;
    x->cap = cap;
  }
  f = &l->files[l->n];
  memset(f, 0, sizeof(*f));
  f->model = f->same_as = WT_NONE;
  f->role = WT_ROLE_DATA;
  f->path = strndup(path, n);
  if (f->path == NULL)
    return wt_paths_oom(x->err);
  *id = l->n++;
  if (known != NULL)
    st = *known;
  if (wt_url_is_remote(path, n)) {
    /* a URL: no stat or sniff (each would cost a request); its format is
    ** its name's, and opening it says what is wrong (a 404 names it).  In
    ** a listed remote folder, the listing says whether it exists. */
    f->exists = x->tree == NULL ||
                bsearch(&f->path, x->tree, x->n_tree, sizeof(char *), wt_paths_cmp) != NULL;
  } else if (known != NULL || stat(f->path, &st) == 0) {
    f->exists = 1;
    f->size = (uint64_t)st.st_size;
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->mtime_ns = wt_stat_mtime_ns(&st);
    if (S_ISREG(st.st_mode))
      wt_paths_sniff(f);
  } else if (errno == ELOOP || (lstat(f->path, &st) == 0 && S_ISLNK(st.st_mode))) {
    int loop = errno == ELOOP; /* stat's: a link that leads back to itself */
    char target[PATH_MAX], q[WT_PATH_QUOTE];
    ssize_t k = readlink(f->path, target, sizeof(target) - 1);
    if (k < 0)
      k = 0;
    f->error = malloc(WT_ERROR_MAX);
    if (f->error == NULL)
      return wt_paths_oom(x->err);
    if (loop)
      snprintf(f->error, WT_ERROR_MAX,
               "a loop of symbolic links: its target %s leads back to a link already "
               "followed, never to a file",
               wt_quote(q, sizeof(q), target, (size_t)k));
    else
      snprintf(f->error, WT_ERROR_MAX,
               "dangling symlink: its target %s does not exist (a deleted blob or an "
               "unfinished download?)",
               wt_quote(q, sizeof(q), target, (size_t)k));
  }
  return 0;
}

void wt_paths_drop_last(wt_paths *x) {
  wt_path_file *f = &x->out->files[--x->out->n];
  free(f->path);
  free(f->error);
  free(f->revision);
  free(f->refs);
  free(f->expected_sha256);
}

int wt_paths_is_model_file(const wt_path_file *f) {
  return wt_paths_model_name(f->path, strlen(f->path)) || f->format != 0 || f->what != NULL;
}

/* An entry of wt_paths.added: a file's path and its index. */
typedef struct wt_added {
  const char *path;
  size_t id;
} wt_added;

static int wt_added_cmp(const void *a, const void *b) {
  return strcmp(((const wt_added *)a)->path, ((const wt_added *)b)->path);
}

int wt_paths_remember(wt_paths *x, size_t id) {
  wt_added *a = malloc(sizeof(*a)), **found;
  if (a == NULL)
    return wt_paths_oom(x->err);
  a->path = x->out->files[id].path;
  a->id = id;
  found = tsearch(a, &x->added, wt_added_cmp);
  if (found == NULL) {
    free(a);
    return wt_paths_oom(x->err);
  }
  if (*found != a)
    free(a); /* there already */
  return 0;
}

size_t wt_paths_lookup(const wt_paths *x, const char *path) {
  size_t lo = 0, hi = x->n_sorted;
  wt_added key, **found;
  while (lo < hi) { /* the listed files, sorted: a binary search */
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(path, x->out->files[mid].path);
    if (c == 0)
      return mid;
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  key.path = path; /* the ones added since: a split names up to 99,999 */
  found = tfind(&key, &x->added, wt_added_cmp);
  return found != NULL ? (*found)->id : WT_NONE;
}
