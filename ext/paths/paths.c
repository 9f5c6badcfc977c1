/*
** paths.c: the entry point of path expansion: expand "~", stat the
** argument, take the rule of paths.h that paths_arg.c says it falls under
** (a remote URL, a directory, an index, part 1 of a split, "**", a glob,
** a file) and build the list of files in scope, each with what stat(2) and
** its first bytes say.  Layer: io (no SQLite).
**
** The directory walk and globs are in paths_walk.c, the index reader in
** paths_index.c, the grouping into models in paths_models.c, the list of
** files they all add to in paths_list.c: this file calls down to them,
** and they never call it.
*/
#define _GNU_SOURCE /* memrchr */
#include "paths_int.h"

#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/fd.h"
#include "hf_cache.h"
#include "remote/http_tree.h"
#include "remote/url.h"

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
