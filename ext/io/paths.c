/*
** paths.c: expand the path argument of a table into the files to read.
** See paths.h for the rules.
**
** Directories are read through file descriptors (openat, fstatat), so
** that a name is checked and opened in the same directory.  Nothing here
** blocks: directories are opened with O_DIRECTORY, and a file is opened
** (O_NONBLOCK, which a FIFO would need) only after fstatat() found a
** regular file, then checked again with fstat() before its first bytes
** are read.  A recursive walk keeps its pending directories on a heap
** stack, never on the C stack, and remembers the (device, inode) of every
** directory it entered, so that a symlink loop is entered once.
**
** A regular file of a directory that cannot be opened (permissions) is
** kept, not skipped: it might be a model, and reading it then fails with
** the reason.  A name that vanished, or a dangling symlink, is skipped.
**
** An index is parsed with json_check() (strict RFC 8259, positions of
** every string) and cJSON (the tree), as the safetensors parser does, so
** that a tensor name holding an escaped NUL is kept whole.  Shard names
** are checked as huggingface_hub would want them: relative, no ".."
** component, ending in ".safetensors".
*/
#define _GNU_SOURCE /* tdestroy */
#include "paths.h"
#include "http_tree.h"
#include "url.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/json_check.h"
#include "file.h"
#include "formats/sniff.h"
#include "base/utf8.h"

/* Bytes read from the start of a file to tell its format. */
#define WT_SNIFF_BYTES 4096

/* Room for a quoted path of up to 256 bytes in a message. */
#define WT_PATH_QUOTE (256 * 4 + 8)

/* The list being built. */
typedef struct wt_paths {
  wt_pathlist *out;
  size_t cap; /* allocated entries of out->files */
  int format; /* WT_FORMAT_* wanted from a directory, or 0 */
  wt_error *err;
} wt_paths;

/* ---- small helpers ---- */

/* Report out of memory. */
static int wt_oom(wt_error *err) {
  return wt_fail(err, "out of memory");
}

/* True when p[0..n) ends with the C string z. */
static int wt_ends(const char *p, size_t n, const char *z) {
  size_t k = strlen(z);
  return n >= k && memcmp(p + n - k, z, k) == 0;
}

/* Compare two byte strings: bytewise, then the shorter first. */
static int wt_str_cmp(wt_str a, wt_str b) {
  int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);
  if (c != 0)
    return c;
  return a.n < b.n ? -1 : a.n > b.n;
}

/* qsort() order of paths. */
static int wt_path_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append a copy of path[0..n) to the list. */
static int wt_list_add(wt_paths *x, const char *path, size_t n) {
  wt_pathlist *l = x->out;
  char *copy;
  if (l->n >= WT_PATHS_MAX_FILES)
    return wt_fail(x->err, "more than %d files (the limit for one argument)", WT_PATHS_MAX_FILES);
  if (l->n == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 16;
    char **files = realloc(l->files, cap * sizeof(*files));
    if (files == NULL)
      return wt_oom(x->err);
    l->files = files;
    x->cap = cap;
  }
  copy = malloc(n + 1);
  if (copy == NULL)
    return wt_oom(x->err);
  memcpy(copy, path, n);
  copy[n] = 0;
  l->files[l->n++] = copy;
  return 0;
}

/* Write dir, a '/' unless dir is empty or ends in one, and name into buf
** (PATH_MAX bytes).  Sets *len; returns 0, or -1 with err set when the
** result would not fit. */
static int wt_join(char *buf, const char *dir, size_t dn, const char *name, size_t nn, size_t *len,
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

/* ---- directories ---- */

/* The format of the regular file fd (size bytes) from its first bytes:
** WT_FORMAT_* or 0. */
static int wt_sniff_fd(int fd, uint64_t size) {
  unsigned char buf[WT_SNIFF_BYTES];
  size_t got = 0;
  while (got < sizeof(buf)) {
    ssize_t r = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  return wt_sniff_format(buf, got, got > size ? got : size); /* it may have grown */
}

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
      return wt_oom(w->x->err);
    w->todo = todo;
    w->cap_todo = cap;
  }
  copy = strndup(path, n);
  if (copy == NULL)
    return wt_oom(w->x->err);
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
** is a model file of the wanted format; push it when it is a directory and
** the walk is recursive; skip anything else. */
static int wt_scan_entry(wt_walk *w, int dfd, const char *dir, size_t dn, const char *name) {
  char path[PATH_MAX];
  struct stat st;
  size_t n;
  int fd, format;
  if (wt_join(path, dir, dn, name, strlen(name), &n, w->x->err))
    return -1;
  if (fstatat(dfd, name, &st, 0) != 0)
    return 0; /* vanished, a dangling symlink or a symlink loop */
  if (S_ISDIR(st.st_mode))
    return w->recursive ? wt_push(w, path, n) : 0;
  if (!S_ISREG(st.st_mode) || st.st_size == 0)
    return 0; /* not a file, or an empty one (or one of /proc) */
  fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return errno == ENOENT ? 0 : wt_list_add(w->x, path, n); /* the reader will say why */
  format = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? wt_sniff_fd(fd, (uint64_t)st.st_size) : 0;
  close(fd);
  if (format == 0 || (w->x->format != 0 && format != w->x->format))
    return 0;
  return wt_list_add(w->x, path, n);
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
    return rc < 0 ? wt_oom(w->x->err) : 0;
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
        return wt_oom(w->x->err);
      *names = a;
    }
    if (((*names)[*n] = strdup(e->d_name)) == NULL)
      return wt_oom(w->x->err);
    (*n)++;
  }
  if (errno != 0)
    return wt_dir_fail(w, dir, errno);
  if (*n > 1)
    qsort(*names, *n, sizeof(char *), wt_path_cmp);
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

/* The model files of directory dir, of subdirectories too when
** recursive, sorted by path. */
static int wt_expand_dir(wt_paths *x, const char *dir, int recursive) {
  wt_walk w;
  int rc;
  memset(&w, 0, sizeof(w));
  w.x = x;
  w.recursive = recursive;
  x->out->kind = WT_PATHS_DIR;
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
    qsort(x->out->files, x->out->n, sizeof(char *), wt_path_cmp);
  return rc;
}

/* ---- globs ---- */

/* The regular files that match pattern, sorted by path. */
static int wt_expand_glob(wt_paths *x, const char *pattern) {
  glob_t g;
  struct stat st;
  size_t i;
  int rc;
  x->out->kind = WT_PATHS_GLOB;
  memset(&g, 0, sizeof(g));
  rc = glob(pattern, 0, NULL, &g);
  if (rc == GLOB_NOSPACE) {
    globfree(&g);
    return wt_oom(x->err);
  }
  rc = 0;
  for (i = 0; rc == 0 && i < g.gl_pathc; i++) {
    if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
      rc = wt_list_add(x, g.gl_pathv[i], strlen(g.gl_pathv[i]));
  }
  globfree(&g);
  if (rc == 0 && x->out->n == 0)
    return wt_fail(x->err, "no files match");
  if (rc == 0)
    qsort(x->out->files, x->out->n, sizeof(char *), wt_path_cmp);
  return rc;
}

/* ---- split GGUF ---- */

/* Five decimal digits at p as a number, or -1. */
static int wt_digits5(const char *p) {
  int i, v = 0;
  for (i = 0; i < 5; i++) {
    if (p[i] < '0' || p[i] > '9')
      return -1;
    v = v * 10 + (p[i] - '0');
  }
  return v;
}

/* When path[0..n) ends in "-00001-of-MMMMM.gguf" with M >= 1, return M and
** set *at to the position of "00001"; else return 0. */
static int wt_split_count(const char *path, size_t n, size_t *at) {
  const char *s;
  int m;
  if (n < 20)
    return 0;
  s = path + n - 20; /* "-00001-of-00003.gguf" is 20 bytes */
  if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0 || memcmp(s + 15, ".gguf", 5) != 0)
    return 0;
  m = wt_digits5(s + 10);
  if (wt_digits5(s + 1) != 1 || m < 1)
    return 0;
  *at = n - 19;
  return m;
}

/* All m parts of the split GGUF whose first part is path[0..n). */
static int wt_expand_split(wt_paths *x, const char *path, size_t n, size_t at, int m) {
  char part[PATH_MAX];
  struct stat st;
  int i, k, v;
  x->out->kind = WT_PATHS_SPLIT;
  memcpy(part, path, n + 1);
  for (i = 1; i <= m; i++) {
    for (k = 0, v = i; k < 5; k++, v /= 10)
      part[at + 4 - (size_t)k] = (char)('0' + v % 10);
    if (i > 1 && !wt_url_is_remote(part, n) && stat(part, &st) != 0 && errno == ENOENT) {
      char q[WT_PATH_QUOTE];
      return wt_fail(x->err, "split GGUF part %d of %d is missing: %s", i, m,
                     wt_quote(q, sizeof(q), part, n));
    }
    if (wt_list_add(x, part, n))
      return -1;
  }
  return 0;
}

/* ---- sharded safetensors index ---- */

/* One weight_map entry while the index is read. */
typedef struct wt_entry {
  wt_str name;  /* in the list's arena */
  wt_str shard; /* in the mapped index, or its scratch arena when escaped */
  size_t id;    /* the shard's index in the list of files */
  size_t pos;   /* position in the weight_map */
} wt_entry;

/* Reading an index. */
typedef struct wt_index {
  wt_paths *x;
  const char *text; /* the mapped file */
  size_t size;
  json_tokens tok;
  struct wt_arena *tmp; /* escaped shard names, freed with the index */
  wt_entry *e;
  size_t n, cap;
} wt_index;

/* Strings (object keys included) in the JSON subtree j, its own key
** excepted: the number of tok.strs entries it spans. */
static size_t wt_count_strs(const cJSON *j) {
  const cJSON *c;
  size_t k = cJSON_IsString(j) ? 1 : 0;
  for (c = j->child; c != NULL; c = c->next)
    k += (cJSON_IsObject(j) ? 1 : 0) + wt_count_strs(c);
  return k;
}

/* String number k of the index, decoded: into arena a (NUL-terminated),
** or, when a is NULL and the string has no escape, pointing into the
** index's text. */
static int wt_index_str(wt_index *ix, size_t k, struct wt_arena *a, wt_str *out) {
  const json_span *sp;
  const char *raw;
  char *buf;
  if (k >= ix->tok.strs.n)
    return wt_fail(ix->x->err, "internal error: string index out of step");
  sp = &ix->tok.strs.a[k];
  raw = ix->text + sp->pos;
  if (a == NULL && memchr(raw, '\\', sp->len) == NULL) {
    out->p = raw;
    out->n = sp->len;
    return 0;
  }
  buf = wt_arena_alloc(a != NULL ? a : ix->tmp, sp->len + 1);
  if (buf == NULL)
    return wt_oom(ix->x->err);
  out->p = buf;
  out->n = json_unescape(raw, sp->len, buf);
  return 0;
}

/* Parse the index text; find its weight_map object and the index in
** tok.strs of that object's first key.  On failure, why says what makes
** the file not an index. */
static int wt_index_parse(wt_index *ix, cJSON **root, const cJSON **wm, size_t *wm_str,
                          wt_error *why) {
  const cJSON *c;
  size_t valid, k = 0;
  if (ix->size == 0)
    return wt_fail(why, "the file is empty");
  valid = wt_utf8_valid_prefix(ix->text, ix->size);
  if (valid != ix->size)
    return wt_fail(why, "invalid UTF-8 at byte %zu", valid);
  if (json_check(ix->text, ix->size, 0, &ix->tok, why)) {
    if (strncmp(why->msg, "invalid JSON in header ", 23) == 0)
      memmove(why->msg + 13, why->msg + 23, strlen(why->msg + 23) + 1); /* not a header */
    return -1;
  }
  *root = cJSON_ParseWithLengthOpts(ix->text, ix->size, NULL, 0);
  if (*root == NULL)
    return wt_fail(why, "invalid JSON");
  if (!cJSON_IsObject(*root))
    return wt_fail(why, "the JSON is not an object");
  *wm = NULL;
  for (c = (*root)->child; c != NULL; c = c->next) {
    k++; /* the key */
    if (strcmp(c->string, "weight_map") == 0) {
      *wm = c; /* a repeated key: the last wins, as in Python */
      *wm_str = k;
    }
    k += wt_count_strs(c);
  }
  if (*wm == NULL || !cJSON_IsObject(*wm))
    return wt_fail(why, "no \"weight_map\" object");
  return 0;
}

/* True when s has a ".." path component. */
static int wt_has_dotdot(wt_str s) {
  size_t i = 0;
  while (i < s.n) {
    size_t j = i;
    while (j < s.n && s.p[j] != '/')
      j++;
    if (j - i == 2 && s.p[i] == '.' && s.p[i + 1] == '.')
      return 1;
    i = j + 1;
  }
  return 0;
}

/* Check the shard file name of tensor name: a relative path below the
** index's directory (dn bytes) that ends in ".safetensors". */
static int wt_check_shard(wt_index *ix, wt_str name, wt_str shard, size_t dn) {
  const char *why = NULL;
  char qn[WT_QUOTE_SIZE], qs[WT_PATH_QUOTE];
  if (shard.n == 0)
    why = "is empty";
  else if (memchr(shard.p, 0, shard.n) != NULL)
    why = "contains a NUL byte";
  else if (shard.p[0] == '/')
    why = "is an absolute path (shards must be inside the index's directory)";
  else if (wt_has_dotdot(shard))
    why = "has a '..' component (shards must be inside the index's directory)";
  else if (!wt_ends(shard.p, shard.n, ".safetensors"))
    why = "does not end in .safetensors";
  else if (dn + 1 + shard.n >= PATH_MAX)
    why = "makes a path longer than PATH_MAX";
  if (why == NULL)
    return 0;
  return wt_fail(ix->x->err, "bad weight_map entry: tensor %s: shard file %s %s",
                 wt_quote(qn, sizeof(qn), name.p, name.n),
                 wt_quote(qs, sizeof(qs), shard.p, shard.n), why);
}

/* Read the entries of weight_map (its first key is string number k),
** checking each shard name. */
static int wt_index_entries(wt_index *ix, const cJSON *wm, size_t k, size_t dn) {
  const cJSON *c;
  for (c = wm->child; c != NULL; c = c->next) {
    wt_entry *e;
    if (ix->n == ix->cap) {
      size_t cap = ix->cap ? 2 * ix->cap : 64;
      wt_entry *a = realloc(ix->e, cap * sizeof(*a));
      if (a == NULL)
        return wt_oom(ix->x->err);
      ix->e = a;
      ix->cap = cap;
    }
    e = &ix->e[ix->n];
    e->pos = ix->n;
    if (wt_index_str(ix, k++, ix->x->out->arena, &e->name))
      return -1;
    if (!cJSON_IsString(c)) {
      char q[WT_QUOTE_SIZE];
      return wt_fail(ix->x->err, "bad weight_map entry: tensor %s: the shard is not a string",
                     wt_quote(q, sizeof(q), e->name.p, e->name.n));
    }
    if (wt_index_str(ix, k++, NULL, &e->shard) || wt_check_shard(ix, e->name, e->shard, dn))
      return -1;
    ix->n++;
  }
  return 0;
}

/* qsort() and bsearch() order of shard names. */
static int wt_shard_cmp(const void *a, const void *b) {
  return wt_str_cmp(*(const wt_str *)a, *(const wt_str *)b);
}

/* Add shard file s, relative to the index's directory dir[0..dn), to the
** list; it must exist. */
static int wt_index_shard(wt_index *ix, const char *dir, size_t dn, wt_str s) {
  char path[PATH_MAX], q[WT_PATH_QUOTE];
  struct stat st;
  size_t len;
  if (wt_join(path, dir, dn, s.p, s.n, &len, ix->x->err))
    return -1;
  if (!wt_url_is_remote(path, len) && stat(path, &st) != 0 && errno == ENOENT)
    return wt_fail(ix->x->err, "the weight_map names shard file %s, which is missing",
                   wt_quote(q, sizeof(q), s.p, s.n));
  return wt_list_add(ix->x, path, len);
}

/* List the distinct shards of the entries, sorted by name, as files
** (joined to dir[0..dn)), and set each entry's id.  Entries of one shard
** usually come in runs (tensors of a layer), collapsed before sorting. */
static int wt_index_shards(wt_index *ix, const char *dir, size_t dn) {
  wt_str *shards = malloc(ix->n * sizeof(*shards));
  size_t i, n = 0, ns = 0;
  int rc = 0;
  if (shards == NULL)
    return wt_oom(ix->x->err);
  for (i = 0; i < ix->n; i++) {
    if (n == 0 || wt_str_cmp(shards[n - 1], ix->e[i].shard) != 0)
      shards[n++] = ix->e[i].shard;
  }
  qsort(shards, n, sizeof(*shards), wt_shard_cmp);
  for (i = 0; i < n; i++) {
    if (ns == 0 || wt_str_cmp(shards[ns - 1], shards[i]) != 0)
      shards[ns++] = shards[i];
  }
  if (ns > WT_PATHS_MAX_SHARDS)
    rc = wt_fail(ix->x->err, "the weight_map names %zu shard files, more than the limit of %d", ns,
                 WT_PATHS_MAX_SHARDS);
  for (i = 0; rc == 0 && i < ns; i++)
    rc = wt_index_shard(ix, dir, dn, shards[i]);
  for (i = 0; rc == 0 && i < ix->n; i++) {
    wt_entry *e = &ix->e[i];
    if (i > 0 && wt_str_cmp(e->shard, e[-1].shard) == 0)
      e->id = e[-1].id;
    else
      e->id = (size_t)((wt_str *)bsearch(&e->shard, shards, ns, sizeof(*shards), wt_shard_cmp) -
                       shards);
  }
  free(shards);
  return rc;
}

/* qsort() order of entries: by name, then by position. */
static int wt_entry_cmp(const void *a, const void *b) {
  const wt_entry *x = a, *y = b;
  int c = wt_str_cmp(x->name, y->name);
  if (c != 0)
    return c;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort the entries by name; of a repeated name keep the last entry (as
** Python's json does). */
static void wt_index_dedupe(wt_index *ix) {
  size_t i, n = 0;
  qsort(ix->e, ix->n, sizeof(*ix->e), wt_entry_cmp);
  for (i = 0; i < ix->n; i++) {
    if (i + 1 < ix->n && wt_str_cmp(ix->e[i].name, ix->e[i + 1].name) == 0)
      continue;
    ix->e[n++] = ix->e[i];
  }
  ix->n = n;
}

/* Give the list the weight_map (the entries, sorted and numbered). */
static int wt_index_weights(wt_index *ix) {
  wt_pathlist *l = ix->x->out;
  size_t i;
  l->weights = malloc(ix->n * sizeof(*l->weights));
  if (l->weights == NULL)
    return wt_oom(ix->x->err);
  for (i = 0; i < ix->n; i++) {
    l->weights[i].name = ix->e[i].name.p;
    l->weights[i].name_len = ix->e[i].name.n;
    l->weights[i].shard = ix->e[i].id;
  }
  l->n_weights = ix->n;
  return 0;
}

/* From the entries read: the shard files in the list, the weight_map. */
static int wt_index_finish(wt_index *ix, const char *dir, size_t dn) {
  if (ix->n == 0)
    return 0;
  wt_index_dedupe(ix);
  return wt_index_shards(ix, dir, dn) || wt_index_weights(ix) ? -1 : 0;
}

/* Read path[0..n), an existing regular file named *.json, as an index.
** Returns 0 when it was one (the shards listed), 1 when it is not one and
** was not named like one (read it as a plain file), -1 on error. */
static int wt_expand_index(wt_paths *x, const char *path, size_t n) {
  int named = wt_ends(path, n, ".safetensors.index.json");
  const char *slash = memrchr(path, '/', n);
  size_t dn = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
  const cJSON *wm = NULL;
  cJSON *root = NULL;
  wt_index ix;
  wt_file f;
  wt_error why;
  unsigned char *text = NULL;
  size_t wm_str = 0;
  int rc = -1;
  memset(&ix, 0, sizeof(ix));
  ix.x = x;
  if (wt_file_open(&f, path, n, &why) == 0) {
    if (f.size > WT_PATHS_MAX_INDEX)
      wt_fail(&why, "the file has %llu bytes, over the limit of %d for an index",
              (unsigned long long)f.size, WT_PATHS_MAX_INDEX);
    else if (wt_file_read_all(&f, WT_PATHS_MAX_INDEX, &text, &ix.size, &why) == 0 &&
             (ix.text = (const char *)text, wt_index_parse(&ix, &root, &wm, &wm_str, &why)) == 0)
      rc = 0;
  }
  if (rc != 0) {
    rc = named ? wt_fail(x->err, "not a valid safetensors index: %s", why.msg) : 1;
  } else if (x->format == WT_FORMAT_GGUF) {
    rc = wt_fail(x->err,
                 "this is a safetensors index, not a GGUF file (read it with safetensors())");
  } else {
    x->out->kind = WT_PATHS_INDEX;
    ix.tmp = wt_arena_new();
    if (ix.tmp == NULL)
      rc = wt_oom(x->err);
    else if (wt_index_entries(&ix, wm, wm_str, dn) || wt_index_finish(&ix, path, dn))
      rc = -1;
  }
  cJSON_Delete(root);
  json_tokens_free(&ix.tok);
  wt_arena_free(ix.tmp);
  free(ix.e);
  free(text);
  wt_file_close(&f);
  return rc;
}

/* ---- remote ---- */

/* An hf:// repo or folder: its model files (http_tree.h).  1 when it was
** one, 0 when not, -1 on error. */
static int wt_expand_hf_tree(wt_paths *x, const char *path, size_t n) {
  char **files;
  size_t k, i;
  int rc = wt_hf_tree(path, n, x->format, &files, &k, x->err);
  x->out->kind = WT_PATHS_DIR;
  for (i = 0; i < k; i++) {
    if (rc > 0 && wt_list_add(x, files[i], strlen(files[i])) != 0)
      rc = -1;
    free(files[i]);
  }
  free(files);
  return rc;
}

/* ---- the entry points ---- */

/* Expand path[0..n) (NUL-terminated, n < PATH_MAX) by the rules of
** paths.h. */
static int wt_dispatch(wt_paths *x, char *path, size_t n) {
  struct stat st;
  size_t at;
  int m, rc;
  x->out->kind = WT_PATHS_FILE;
  if (wt_url_is_remote(path, n)) { /* a URL (url.h): a split GGUF, an index or one file */
    if ((rc = wt_expand_hf_tree(x, path, n)) != 0) /* an hf:// repo or folder */
      return rc < 0 ? -1 : 0;
    if ((m = wt_split_count(path, n, &at)) > 0)
      return wt_expand_split(x, path, n, at, m);
    if (wt_ends(path, n, ".json") && (rc = wt_expand_index(x, path, n)) <= 0)
      return rc;
    x->out->kind = WT_PATHS_FILE;
    return wt_list_add(x, path, n);
  }
  if (n > 0 && stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return wt_expand_dir(x, path, 0);
    if (S_ISREG(st.st_mode) && (m = wt_split_count(path, n, &at)) > 0)
      return wt_expand_split(x, path, n, at, m);
    if (S_ISREG(st.st_mode) && wt_ends(path, n, ".json") && (rc = wt_expand_index(x, path, n)) <= 0)
      return rc;
    x->out->kind = WT_PATHS_FILE;
    return wt_list_add(x, path, n);
  }
  if (wt_ends(path, n, "/**")) {
    path[n == 3 ? 1 : n - 3] = 0; /* "/" followed by "**" is the root */
    return wt_expand_dir(x, path, 1);
  }
  if (strpbrk(path, "*?[") != NULL)
    return wt_expand_glob(x, path);
  return wt_list_add(x, path, n);
}

int wt_paths_expand(const char *arg, size_t n, int format, wt_pathlist *out, wt_error *err) {
  char path[PATH_MAX];
  wt_paths x;
  memset(out, 0, sizeof(*out));
  if (memchr(arg, 0, n) != NULL)
    return wt_fail(err, "the path contains a NUL byte");
  if (n >= PATH_MAX)
    return wt_fail(err, "the path is %zu bytes long, over the limit of %d (PATH_MAX)", n,
                   PATH_MAX - 1);
  memcpy(path, arg, n);
  path[n] = 0;
  x.out = out;
  x.cap = 0;
  x.format = format;
  x.err = err;
  out->arena = wt_arena_new();
  if (out->arena == NULL)
    return wt_oom(err);
  if (wt_dispatch(&x, path, n) != 0) {
    wt_pathlist_free(out);
    return -1;
  }
  return 0;
}

/* bsearch() order of weights by name. */
static int wt_weight_cmp(const void *key, const void *elt) {
  const wt_weight *w = elt;
  wt_str b = {w->name, w->name_len};
  return wt_str_cmp(*(const wt_str *)key, b);
}

const wt_weight *wt_pathlist_find(const wt_pathlist *l, const char *name, size_t n) {
  wt_str key = {name, n};
  if (l->n_weights == 0)
    return NULL;
  return bsearch(&key, l->weights, l->n_weights, sizeof(*l->weights), wt_weight_cmp);
}

void wt_pathlist_free(wt_pathlist *l) {
  size_t i;
  if (l == NULL)
    return;
  for (i = 0; i < l->n; i++)
    free(l->files[i]);
  free(l->files);
  free(l->weights);
  wt_arena_free(l->arena);
  memset(l, 0, sizeof(*l));
}
