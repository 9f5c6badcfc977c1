/*
** paths_walk.c: list the model files of a directory (flat, or a recursive
** walk for "dir/" + "**") and of a glob pattern.  Layer: io (no SQLite).  See
** paths.h for which files are model files.
**
** Directories are read through file descriptors (openat, fstatat), so
** that a name is checked and opened in the same directory.  Nothing here
** blocks: directories are opened with O_DIRECTORY, and a file is read
** (O_NONBLOCK, which a FIFO would need) only after stat found a regular
** file.  A FIFO, a device or a socket named like a model is listed (the
** byte source refuses it by its stat, without opening it), as is a
** dangling link or a loop of links named like one.  A recursive walk
** keeps its pending directories on a heap stack, never on the C stack,
** and remembers the (device, inode) of every directory it entered, so
** that a symlink loop is entered once.  The result is sorted by path
** (strcmp), so "a/x" comes before "b".
**
** A Hugging Face cache folder is listed by the hf_cache module instead
** (wt_paths_hf): the files of its snapshots, each with its revision, the
** refs that point at it and the SHA-256 its blob's name promises, and its
** partial downloads; blobs are read through the snapshots, never twice.
**
** A file of a directory whose name is not a model name is opened for its
** first bytes (paths_list.c sniffs every file it adds): it is kept when they
** are a model or a known look-alike, dropped otherwise.
*/
#define _GNU_SOURCE /* tdestroy */
#include "paths_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf_cache.h"

/* A directory's identity, for the set of directories already entered. */
typedef struct wt_dirid {
  dev_t dev;
  ino_t ino;
} wt_dirid;

/* tsearch() order of wt_dirid. */
static int wt_dirid_cmp(const void *a, const void *b) {
  const wt_dirid *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return 0;
}

/* A walk over one directory (flat) or a tree (recursive). */
typedef struct wt_walk {
  wt_paths *x;
  int recursive;
  char **todo; /* directories still to list (malloc'd paths) */
  size_t n_todo, cap_todo;
  size_t n_dirs; /* directories pushed so far */
  size_t opened; /* directories opened so far */
  void *seen;    /* tsearch() tree of wt_dirid: directories entered */
} wt_walk;

/* Push a copy of path[0..n) onto the directories to list. */
static int wt_push(wt_walk *w, const char *path, size_t n) {
  char *copy;
  if (++w->n_dirs > WT_PATHS_MAX_DIRS)
    return wt_fail(w->x->err, "more than %d directories (the limit for one argument)",
                   WT_PATHS_MAX_DIRS);
  if (w->n_todo == w->cap_todo) {
    size_t cap = w->cap_todo ? 2 * w->cap_todo : 16;
    char **todo = realloc(w->todo, cap * sizeof(*todo));
    if (todo == NULL)
      return wt_paths_oom(w->x->err);
    w->todo = todo;
    w->cap_todo = cap;
  }
  copy = strndup(path, n);
  if (copy == NULL)
    return wt_paths_oom(w->x->err);
  w->todo[w->n_todo++] = copy;
  return 0;
}

/* Record the directory st describes as entered: 1 the first time, 0 when
** it was entered before, -1 on out of memory. */
static int wt_first_visit(wt_walk *w, const struct stat *st) {
  wt_dirid *id = malloc(sizeof(*id)), **found;
  if (id == NULL)
    return -1;
  id->dev = st->st_dev;
  id->ino = st->st_ino;
  found = tsearch(id, &w->seen, wt_dirid_cmp);
  if (found == NULL) {
    free(id);
    return -1;
  }
  if (*found != id) {
    free(id);
    return 0;
  }
  return 1;
}

/* One entry of directory dfd (whose path is dir[0..dn)): keep it when it
** is a model file (paths.h) or cannot be read (the reader will say why);
** push it when it is a directory and the walk is recursive; skip anything
** else, and a name that vanished meanwhile. */
static int wt_scan_entry(wt_walk *w, int dfd, const char *dir, size_t dn, const char *name) {
  char path[PATH_MAX];
  struct stat st;
  const wt_path_file *f;
  size_t n, id;
  if (wt_paths_join(path, dir, dn, name, strlen(name), &n, w->x->err))
    return -1;
  if (fstatat(dfd, name, &st, 0) != 0) {
    /* vanished, a symlink loop, or a dangling symlink: kept when named
    ** like a model (an HF snapshot whose blob is gone) */
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
        wt_paths_model_name(path, n))
      return wt_paths_add(w->x, path, n, &id);
    return 0;
  }
  if (S_ISDIR(st.st_mode))
    return w->recursive ? wt_push(w, path, n) : 0;
  if (!S_ISREG(st.st_mode)) /* a FIFO, a device, a socket: never read */
    return wt_paths_model_name(path, n) ? wt_paths_add_stat(w->x, path, n, &st, &id) : 0;
  if (wt_paths_add_stat(w->x, path, n, &st, &id))
    return -1;
  f = &w->x->out->files[id];
  if (wt_paths_is_model_file(f) || (faccessat(dfd, name, R_OK, 0) != 0 && errno == EACCES))
    return 0;
  wt_paths_drop_last(w->x);
  return 0;
}

/* Report a directory that cannot be listed. */
static int wt_dir_fail(wt_walk *w, const char *dir, int e) {
  char q[WT_PATH_QUOTE];
  return wt_fail(w->x->err, "cannot read directory %s: %s",
                 wt_quote(q, sizeof(q), dir, strlen(dir)), strerror(e));
}

/* Open directory dir for listing.  Returns 1 with *d set, 0 when it was
** entered before (a symlink loop, or a second path to it) or is a
** subdirectory that is gone, -1 on error. */
static int wt_open_dir(wt_walk *w, const char *dir, DIR **d) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;
  int rc, saved;
  if (dfd < 0 && w->opened > 0 && (errno == ENOENT || errno == ENOTDIR))
    return 0; /* a subdirectory that vanished since it was listed */
  if (dfd < 0)
    return wt_dir_fail(w, dir, errno);
  w->opened++;
  if (fstat(dfd, &st) != 0) {
    saved = errno;
    close(dfd);
    return wt_dir_fail(w, dir, saved);
  }
  rc = wt_first_visit(w, &st);
  if (rc <= 0) {
    close(dfd);
    return rc < 0 ? wt_paths_oom(w->x->err) : 0;
  }
  *d = fdopendir(dfd);
  if (*d == NULL) {
    saved = errno;
    close(dfd);
    return wt_dir_fail(w, dir, saved);
  }
  return 1;
}

/* Read the entry names of d (not "." and ".."), sorted by strcmp(), into
** *names (malloc'd, as each name). */
static int wt_read_names(wt_walk *w, DIR *d, const char *dir, char ***names, size_t *n) {
  size_t cap = 0;
  struct dirent *e;
  *names = NULL;
  *n = 0;
  for (;;) {
    errno = 0;
    e = readdir(d);
    if (e == NULL)
      break;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (*n == cap) {
      char **a = realloc(*names, (cap = cap ? 2 * cap : 64) * sizeof(*a));
      if (a == NULL)
        return wt_paths_oom(w->x->err);
      *names = a;
    }
    if (((*names)[*n] = strdup(e->d_name)) == NULL)
      return wt_paths_oom(w->x->err);
    (*n)++;
  }
  if (errno != 0)
    return wt_dir_fail(w, dir, errno);
  if (*n > 1)
    qsort(*names, *n, sizeof(char *), wt_paths_cmp);
  return 0;
}

/* List directory dir, unless it was entered before.  Entries are taken in
** name order and subdirectories pushed so that they are listed in name
** order next: the walk is depth-first in name order, which decides the
** path under which a directory reached by several paths is listed. */
static int wt_scan_dir(wt_walk *w, const char *dir) {
  size_t dn = strlen(dir), lo, hi, base = w->n_todo, n = 0, i;
  char **names = NULL;
  DIR *d = NULL;
  int rc = wt_open_dir(w, dir, &d);
  if (rc <= 0)
    return rc;
  rc = wt_read_names(w, d, dir, &names, &n);
  for (i = 0; rc == 0 && i < n; i++)
    rc = wt_scan_entry(w, dirfd(d), dir, dn, names[i]);
  for (lo = base, hi = w->n_todo; lo + 1 < hi; lo++, hi--) {
    char *t = w->todo[lo];
    w->todo[lo] = w->todo[hi - 1];
    w->todo[hi - 1] = t;
  }
  for (i = 0; i < n; i++)
    free(names[i]);
  free(names);
  closedir(d);
  return rc;
}

/* qsort() order of files: by path. */
static int wt_file_cmp(const void *a, const void *b) {
  return strcmp(((const wt_path_file *)a)->path, ((const wt_path_file *)b)->path);
}

int wt_paths_walk(wt_paths *x, const char *dir, int recursive) {
  wt_walk w;
  int rc;
  memset(&w, 0, sizeof(w));
  w.x = x;
  w.recursive = recursive;
  rc = wt_push(&w, dir, strlen(dir));
  while (rc == 0 && w.n_todo > 0) {
    char *d = w.todo[--w.n_todo];
    rc = wt_scan_dir(&w, d);
    free(d);
  }
  while (w.n_todo > 0)
    free(w.todo[--w.n_todo]);
  free(w.todo);
  tdestroy(w.seen, free);
  if (rc == 0 && x->out->n > 1)
    qsort(x->out->files, x->out->n, sizeof(*x->out->files), wt_file_cmp);
  return rc;
}

int wt_paths_glob(wt_paths *x, const char *pattern) {
  glob_t g;
  struct stat st;
  size_t i, id;
  int rc;
  memset(&g, 0, sizeof(g));
  rc = glob(pattern, 0, NULL, &g);
  if (rc == GLOB_NOSPACE) {
    globfree(&g);
    return wt_paths_oom(x->err);
  }
  rc = 0;
  for (i = 0; rc == 0 && i < g.gl_pathc; i++) {
    const char *p = g.gl_pathv[i];
    size_t n = strlen(p);
    /* a regular file; a FIFO, device or socket, a dangling link or a loop
    ** of links named like a model (listed with its error, never read) */
    if (stat(p, &st) == 0
            ? S_ISREG(st.st_mode) || (!S_ISDIR(st.st_mode) && wt_paths_model_name(p, n))
            : lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && wt_paths_model_name(p, n))
      rc = wt_paths_add(x, p, n, &id);
  }
  globfree(&g);
  if (rc == 0 && x->out->n == 0)
    return wt_fail(x->err, "no files match");
  if (rc == 0 && x->out->n > 1)
    qsort(x->out->files, x->out->n, sizeof(*x->out->files), wt_file_cmp);
  return rc;
}

/* Copy z (or NULL) into *out; -1 on out of memory. */
static int wt_dup(const char *z, char **out) {
  *out = z != NULL ? strdup(z) : NULL;
  return z != NULL && *out == NULL ? -1 : 0;
}

int wt_paths_hf(wt_paths *x, const char *path) {
  wt_hf_list hl;
  size_t i, id;
  int rc = 0;
  if (wt_hf_scan(path, &hl, x->err))
    return -1;
  for (i = 0; rc == 0 && i < hl.n; i++) {
    const wt_hf_entry *e = &hl.e[i];
    wt_path_file *f;
    if ((rc = wt_paths_add(x, e->path, strlen(e->path), &id)) != 0)
      break;
    f = &x->out->files[id];
    if (e->incomplete) {
      f->role = WT_ROLE_INCOMPLETE;
      free(f->error);
      if ((f->error = strdup("incomplete download (a partial blob of huggingface_hub): not "
                             "read")) == NULL)
        rc = wt_paths_oom(x->err);
    } else if (!wt_paths_is_model_file(f)) {
      wt_paths_drop_last(x);
      continue;
    }
    if (rc == 0 && (wt_dup(e->revision, &f->revision) || wt_dup(e->refs, &f->refs) ||
                    wt_dup(e->expected_sha256, &f->expected_sha256)))
      rc = wt_paths_oom(x->err);
  }
  wt_hf_list_free(&hl);
  if (rc == 0 && x->out->n > 1)
    qsort(x->out->files, x->out->n, sizeof(*x->out->files), wt_file_cmp);
  return rc;
}
