/*
** paths.c: the entry point of path expansion: expand "~", stat the
** argument, take the rule of paths.h that paths_arg.c says it falls under
** (a remote URL, a directory, an index, part 1 of a split, "**", a glob,
** a file) and build the list of files in scope, each with what stat(2) and
** its first bytes say.  Layer: io (no SQLite).
**
** The directory walk and globs are in paths_walk.c, the index reader in
** paths_index.c, the grouping into models in paths_models.c.  A file is
** sniffed once, here, when it is added: nothing later (weights_files'
** columns) needs to open it again to say what it is.
*/
#define _GNU_SOURCE /* memrchr */
#include "paths_int.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/sniff.h"
#include "bytes/fd.h"
#include "hf_cache.h"
#include "remote/http_tree.h"
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

/* ======================== One argument, by its rule ========================= */

/* Remove the "./" that a walk of "." put in front of every path. */
static void wt_strip_dot(wt_pathlist *l) {
  size_t i;
  for (i = 0; i < l->n; i++) {
    char *p = l->files[i].path;
    if (p[0] == '.' && p[1] == '/')
      memmove(p, p + 2, strlen(p + 2) + 1);
  }
}

/* An existing regular .json file: an index (its role set) or a plain file. */
static int wt_dispatch_json(wt_paths *x, const char *path, size_t n) {
  size_t id;
  int rc = 0;
  if (!wt_paths_ends(path, n, ".safetensors.index.json")) {
    wt_index_doc doc;
    wt_error why;
    memset(&doc, 0, sizeof(doc));
    rc = wt_index_read(x, path, n, &doc, &why);
    wt_index_doc_free(&doc);
  }
  if (wt_paths_add(x, path, n, &id))
    return -1;
  if (rc != 1) {
    x->out->kind = WT_PATHS_INDEX;
    x->out->reusable = 1;
    x->out->files[id].role = WT_ROLE_INDEX;
  }
  return 0;
}

/* A URL (url.h): an hf:// repo or folder (its model files, listed by the
** Hub's tree API), part 1 of a split GGUF, an index, or one file.  A
** remote list is never reused: nothing cheap says it is unchanged. */
static int wt_dispatch_url(wt_paths *x, char *path, size_t n) {
  char **files;
  size_t k, i, id, at, bn;
  int part, rc, recursive = wt_paths_ends(path, n, "/**");
  if (recursive)
    path[n -= 2] = 0; /* a folder then two stars: the folder, recursively */
  rc = wt_hf_tree(path, n, x->format, &files, &k, x->err);
  if (rc > 0) {
    /* the tree API lists the whole tree: a folder is its own files only, as
    ** a local one is, unless "**" asked for all; the whole list is kept
    ** for the shards and parts that the folder's models name */
    bn = path[n - 1] == '/' ? n : n + 1;
    x->out->kind = WT_PATHS_DIR;
    x->tree = files;
    x->n_tree = k;
    for (i = 0; i < k; i++) {
      const char *f = files[i];
      int inside = strncmp(f, path, n) == 0 && (bn == n || f[n] == '/');
      if ((recursive || !inside || strchr(f + bn, '/') == NULL) &&
          wt_paths_add(x, f, strlen(f), &id))
        return -1;
    }
    return 0;
  }
  if (recursive)
    return wt_fail(x->err, "\"**\" after a remote path needs an hf:// repo or folder");
  if (rc < 0)
    return -1;
  if (wt_split_name(path, n, &part, &at) > 0 && part == 1)
    x->out->kind = WT_PATHS_SPLIT;
  else if (wt_paths_ends(path, n, ".json"))
    return wt_dispatch_json(x, path, n);
  return wt_paths_add(x, path, n, &id);
}

/* Expand path[0..n) (NUL-terminated, n < PATH_MAX) by the rules of
** paths.h (which one applies: wt_paths_classify, paths_arg.c), then group
** what was found into models. */
static int wt_dispatch(wt_paths *x, char *path, size_t n) {
  struct stat st;
  size_t id, root;
  int kind, have = 0;
  x->out->kind = WT_PATHS_FILE;
  if (!wt_url_is_remote(path, n) && stat(path, &st) == 0) {
    have = S_ISDIR(st.st_mode) ? WT_STAT_DIR : S_ISREG(st.st_mode) ? WT_STAT_REG : WT_STAT_OTHER;
    x->out->arg_dev = (uint64_t)st.st_dev;
    x->out->arg_ino = (uint64_t)st.st_ino;
    x->out->arg_size = (uint64_t)st.st_size;
    x->out->arg_mtime_ns = wt_stat_mtime_ns(&st);
  }
  kind = wt_paths_classify(path, n, have, &root);
  switch (kind) {
  case WT_ARG_URL:
    if (wt_dispatch_url(x, path, n))
      return -1;
    x->out->reusable = 0;
    break;
  case WT_ARG_DIR: {
    wt_hf_place hf;
    int in_hf = wt_hf_locate(path, &hf);
    wt_hf_place_free(&hf);
    x->out->kind = WT_PATHS_DIR;
    if (in_hf < 0)
      return wt_paths_oom(x->err);
    if (in_hf ? wt_paths_hf(x, path) : wt_paths_walk(x, path, 0))
      return -1;
    x->out->reusable = !in_hf;
    break;
  }
  case WT_ARG_SPLIT:
    x->out->kind = WT_PATHS_SPLIT;
    x->out->reusable = 1;
    if (wt_paths_add(x, path, n, &id))
      return -1;
    break;
  case WT_ARG_JSON: /* an index is reusable, a plain .json not */
    if (wt_dispatch_json(x, path, n))
      return -1;
    break;
  case WT_ARG_WALK:
    x->out->kind = WT_PATHS_DIR;
    if (root == 0)
      strcpy(path, ".");
    else
      path[root] = 0;
    if (wt_paths_walk(x, path, 1))
      return -1;
    if (root == 0)
      wt_strip_dot(x->out); /* "**" lists "a/x", as the shell would */
    break;
  case WT_ARG_GLOB:
    x->out->kind = WT_PATHS_GLOB;
    if (wt_paths_glob(x, path))
      return -1;
    break;
  default: /* WT_ARG_FILE */
    if (wt_paths_add(x, path, n, &id))
      return -1;
  }
  return wt_paths_group(x);
}

int wt_paths_expand(const char *arg, size_t n, int format, wt_pathlist *out, wt_error *err) {
  char path[PATH_MAX];
  wt_paths x;
  size_t i;
  int rc;
  memset(out, 0, sizeof(*out));
  if (memchr(arg, 0, n) != NULL)
    return wt_fail(err, "the path contains a NUL byte");
  if (n >= PATH_MAX)
    return wt_fail(err, "the path is %zu bytes long, over the limit of %d (PATH_MAX)", n,
                   PATH_MAX - 1);
  memcpy(path, arg, n);
  path[n] = 0;
  if (wt_paths_home(path, &n, getenv("HOME"), err))
    return -1;
  memset(&x, 0, sizeof(x));
  x.out = out;
  x.format = format;
  x.err = err;
  out->arena = wt_arena_new();
  if (out->arena == NULL)
    return wt_paths_oom(err);
  rc = wt_dispatch(&x, path, n);
  tdestroy(x.added, free);
  for (i = 0; i < x.n_tree; i++)
    free(x.tree[i]);
  free(x.tree);
  if (rc != 0) {
    wt_pathlist_free(out);
    return -1;
  }
  return 0;
}

/* ========================== Freshness and lookups =========================== */

/* True when stat(2) of path matches the identity recorded (or both say
** it does not exist). */
static int wt_same_file(const char *path, int exists, uint64_t dev, uint64_t ino, uint64_t size,
                        int64_t mtime_ns) {
  struct stat st;
  if (stat(path, &st) != 0)
    return !exists;
  return exists && (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino &&
         (S_ISDIR(st.st_mode) || (uint64_t)st.st_size == size) && wt_stat_mtime_ns(&st) == mtime_ns;
}

int wt_pathlist_fresh(const wt_pathlist *l, const char *arg) {
  size_t i;
  if (!l->reusable || !wt_same_file(arg, 1, l->arg_dev, l->arg_ino, l->arg_size, l->arg_mtime_ns))
    return 0;
  for (i = 0; i < l->n; i++) {
    const wt_path_file *f = &l->files[i];
    if (!wt_same_file(f->path, f->exists, f->dev, f->ino, f->size, f->mtime_ns))
      return 0;
  }
  return 1;
}

int wt_pathlist_in_scope(const wt_pathlist *l, const wt_path_model *m, int format) {
  if (format == 0 || l->kind != WT_PATHS_DIR)
    return 1;
  return m->format == 0 || m->format == format;
}

/* Compare two byte strings: bytewise, then the shorter first. */
static int wt_bytes_cmp(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  if (c != 0)
    return c;
  return an < bn ? -1 : an > bn;
}

const wt_weight *wt_model_find_weight(const wt_path_model *m, const char *name, size_t n) {
  size_t lo = 0, hi = m->n_weights;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const wt_weight *w = &m->weights[mid];
    int c = wt_bytes_cmp(name, n, w->name, w->name_len);
    if (c == 0)
      return w;
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

void wt_pathlist_free(wt_pathlist *l) {
  size_t i;
  if (l == NULL)
    return;
  for (i = 0; i < l->n; i++) {
    free(l->files[i].path);
    free(l->files[i].error);
    free(l->files[i].revision);
    free(l->files[i].refs);
    free(l->files[i].expected_sha256);
  }
  for (i = 0; i < l->n_models; i++) {
    free(l->models[i].parts);
    free(l->models[i].error);
    free(l->models[i].weights);
  }
  free(l->files);
  free(l->models);
  wt_arena_free(l->arena);
  memset(l, 0, sizeof(*l));
}
