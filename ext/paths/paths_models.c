/*
** paths_models.c: group the files in scope into models.  Layer: io (file
** system only: no SQLite, and no model header is parsed here).
**
** A model is
**   - a safetensors index and the shards its weight_map names (a shard
**     that is missing is listed, as a file that is missing, and is the
**     model's error);
**   - the parts of a split GGUF, "NAME-0000K-of-0000M.gguf" (a missing
**     part likewise), named by part 1 even when part 1 is the one missing;
**   - any other file, alone.  In a directory or glob, a file named like a
**     safetensors shard ("-00002-of-00003.safetensors") that no index in
**     scope names is such a model, with an error saying so.
** A file that is reached by several names (same device and inode: a
** symlink, a hard link) is read once: a name an index or split claims
** wins, else the first in path order; the other names are duplicates,
** listed with the model of the name that is read.
**
** At the end files are sorted by path and models by the path of the file
** that names them, so that every listing has one order.
*/
#define _GNU_SOURCE /* qsort_r */
#include "paths_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The shape "-0000K-of-0000M" + ext at the end of path[0..n): M, with *part
** and *at set, or 0. */
static int wt_parts_name(const char *path, size_t n, const char *ext, int *part, size_t *at) {
  size_t e = strlen(ext);
  const char *s;
  int k, m;
  if (n < 15 + e)
    return 0;
  s = path + n - 15 - e; /* "-00001-of-00003" is 15 bytes */
  if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0 || memcmp(s + 15, ext, e) != 0)
    return 0;
  k = wt_digits5(s + 1);
  m = wt_digits5(s + 10);
  if (k < 1 || m < 1 || k > m)
    return 0;
  *part = k;
  *at = (size_t)(s + 1 - path);
  return m;
}

int wt_split_name(const char *path, size_t n, int *part, size_t *at) {
  return wt_parts_name(path, n, ".gguf", part, at);
}

void wt_split_part_name(char *path, size_t at, int k) {
  int i;
  for (i = 4; i >= 0; i--, k /= 10)
    path[at + (size_t)i] = (char)('0' + k % 10);
}

/* Set an error string (malloc'd) on *slot unless it has one. */
static int wt_set_msg(char **slot, const char *msg, wt_error *err) {
  if (*slot != NULL)
    return 0;
  *slot = strdup(msg);
  return *slot == NULL ? wt_paths_oom(err) : 0;
}

/* A new model named by file id. */
static int wt_model_new(wt_paths *x, size_t id, int format, wt_path_model **out) {
  wt_pathlist *l = x->out;
  if (l->n_models == x->cap_models) {
    size_t cap = x->cap_models ? 2 * x->cap_models : 16;
    wt_path_model *a = realloc(l->models, cap * sizeof(*a));
    if (a == NULL)
      return wt_paths_oom(x->err);
    l->models = a;
    x->cap_models = cap;
  }
  *out = &l->models[l->n_models];
  memset(*out, 0, sizeof(**out));
  (*out)->name_file = id;
  (*out)->format = format;
  l->files[id].model = l->n_models++;
  return 0;
}

/* Append file id to the parts of model m (the last model of the list). */
static int wt_model_part(wt_paths *x, wt_path_model *m, size_t id) {
  if (m->n_parts == m->cap_parts) { /* doubled: a split has up to 99,999 parts */
    size_t cap = m->cap_parts ? 2 * m->cap_parts : 4;
    size_t *a = realloc(m->parts, cap * sizeof(*a));
    if (a == NULL)
      return wt_paths_oom(x->err);
    m->parts = a;
    m->cap_parts = cap;
  }
  m->parts[m->n_parts++] = id;
  if (x->out->files[id].model == WT_NONE)
    x->out->files[id].model = (size_t)(m - x->out->models);
  return 0;
}

/* The file at path, already in the list or added now (it may be missing:
** then it is marked so, with what names it). */
static int wt_member(wt_paths *x, const char *path, const char *named_by, size_t *id) {
  wt_path_file *f;
  char msg[WT_ERROR_MAX];
  *id = wt_paths_lookup(x, path);
  if (*id == WT_NONE && (wt_paths_add(x, path, strlen(path), id) || wt_paths_remember(x, *id)))
    return -1;
  f = &x->out->files[*id];
  if (f->exists || f->error != NULL)
    return 0;
  f->role = WT_ROLE_MISSING;
  snprintf(msg, sizeof(msg), "missing: %s names this file, which does not exist", named_by);
  return wt_set_msg(&f->error, msg, x->err);
}

/* The model of index file id. */
static int wt_group_index(wt_paths *x, size_t id) {
  wt_pathlist *l = x->out;
  const char *ipath = l->files[id].path;
  const char *slash = strrchr(ipath, '/');
  size_t skip = slash == NULL ? 0 : (size_t)(slash - ipath) + 1, i, m_id;
  char q[WT_PATH_QUOTE], msg[WT_ERROR_MAX + 64];
  wt_path_model *m;
  wt_index_doc doc;
  wt_error why;
  int rc;
  l->files[id].role = WT_ROLE_INDEX;
  if (wt_model_new(x, id, WT_FORMAT_SAFETENSORS, &m))
    return -1;
  m_id = l->n_models - 1;
  m->is_index = 1;
  if (l->files[id].error != NULL)
    return wt_set_msg(&m->error, l->files[id].error, x->err);
  if (x->format == WT_FORMAT_GGUF && l->kind == WT_PATHS_INDEX)
    return wt_set_msg(&m->error,
                      "this is a safetensors index, not a GGUF file (read it with safetensors())",
                      x->err);
  rc = wt_index_read(x, ipath, strlen(ipath), &doc, &why);
  if (rc != 0) {
    snprintf(msg, sizeof(msg), "%s%s", rc == 1 ? "not a valid safetensors index: " : "", why.msg);
    wt_index_doc_free(&doc);
    return wt_set_msg(&m->error, msg, x->err);
  }
  snprintf(msg, sizeof(msg), "the index %s", wt_quote(q, sizeof(q), ipath, strlen(ipath)));
  for (i = 0; i < doc.n_shards; i++) {
    size_t part;
    char miss[WT_ERROR_MAX];
    if (wt_member(x, doc.shards[i], msg, &part) || wt_model_part(x, &l->models[m_id], part))
      goto fail;
    if (l->files[part].role == WT_ROLE_MISSING) {
      const char *rel = doc.shards[i] + (strncmp(doc.shards[i], ipath, skip) == 0 ? skip : 0);
      snprintf(miss, sizeof(miss), "the weight_map names shard file %s, which is missing",
               wt_quote(q, sizeof(q), rel, strlen(rel)));
      if (wt_set_msg(&l->models[m_id].error, miss, x->err))
        goto fail;
    }
  }
  m = &l->models[m_id];
  for (i = 0; i < doc.n_weights; i++)
    doc.weights[i].shard = m->parts[doc.weights[i].shard];
  m->weights = doc.weights;
  m->n_weights = doc.n_weights;
  m->has_total_size = doc.has_total_size;
  m->total_size = doc.total_size;
  doc.weights = NULL;
  wt_index_doc_free(&doc);
  return 0;
fail:
  wt_index_doc_free(&doc);
  return -1;
}

/* The model of split GGUF part file id (K of M), unless part 1's model
** exists already. */
static int wt_group_split(wt_paths *x, size_t id, int count, size_t at) {
  wt_pathlist *l = x->out;
  char part[PATH_MAX], first[PATH_MAX], msg[WT_ERROR_MAX], q[WT_PATH_QUOTE];
  size_t n = strlen(l->files[id].path), m_id = 0, pid;
  int i;
  memcpy(part, l->files[id].path, n + 1);
  for (i = 1; i <= count; i++) {
    wt_split_part_name(part, at, i);
    if (i == 1) {
      memcpy(first, part, n + 1);
      snprintf(msg, sizeof(msg), "the split GGUF %s", wt_quote(q, sizeof(q), first, n));
    }
    if (wt_member(x, part, msg, &pid))
      return -1;
    if (i == 1) {
      wt_path_model *m;
      if (l->files[pid].model != WT_NONE)
        return 0; /* part 1 named it already */
      if (wt_model_new(x, pid, WT_FORMAT_GGUF, &m))
        return -1;
      m->is_split = 1;
      m_id = l->n_models - 1;
    }
    if (wt_model_part(x, &l->models[m_id], pid))
      return -1;
    if (l->files[pid].role == WT_ROLE_MISSING && l->models[m_id].error == NULL) {
      char e[WT_ERROR_MAX];
      snprintf(e, sizeof(e), "split GGUF part %d of %d is missing: %s", i, count,
               wt_quote(q, sizeof(q), part, n));
      if (wt_set_msg(&l->models[m_id].error, e, x->err))
        return -1;
    }
  }
  return 0;
}

/* Rank of a file for the choice of the name that is read: claimed first. */
typedef struct wt_ident {
  uint64_t dev, ino;
  const char *rev; /* HF revision: one blob is a file of each revision */
  size_t rev_n;
  size_t claimed; /* 0 claimed by an index or split, 1 not */
  size_t id;
} wt_ident;

/* qsort() order of identities. */
static int wt_ident_cmp(const void *a, const void *b) {
  const wt_ident *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  if (x->rev_n != y->rev_n)
    return x->rev_n < y->rev_n ? -1 : 1;
  if (x->rev_n > 0 && memcmp(x->rev, y->rev, x->rev_n) != 0)
    return memcmp(x->rev, y->rev, x->rev_n);
  if (x->claimed != y->claimed)
    return x->claimed < y->claimed ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Mark the unclaimed names of a file already in scope as duplicates. */
static int wt_group_duplicates(wt_paths *x) {
  wt_pathlist *l = x->out;
  wt_ident *a = malloc((l->n ? l->n : 1) * sizeof(*a));
  size_t i, k = 0;
  if (a == NULL)
    return wt_paths_oom(x->err);
  for (i = 0; i < l->n; i++) {
    if (!l->files[i].exists || (l->files[i].dev == 0 && l->files[i].ino == 0))
      continue; /* missing, or remote (no identity: each URL is its own file) */
    a[k].dev = l->files[i].dev;
    a[k].ino = l->files[i].ino;
    a[k].claimed = l->files[i].model == WT_NONE;
    a[k].rev = l->files[i].revision;
    a[k].rev_n = a[k].rev != NULL ? strlen(a[k].rev) : 0;
    a[k++].id = i;
  }
  qsort(a, k, sizeof(*a), wt_ident_cmp);
  for (i = 1; i < k; i++) {
    wt_path_file *f = &l->files[a[i].id];
    if (a[i].dev != a[i - 1].dev || a[i].ino != a[i - 1].ino || a[i].rev_n != a[i - 1].rev_n ||
        (a[i].rev_n > 0 && memcmp(a[i].rev, a[i - 1].rev, a[i].rev_n) != 0) || f->model != WT_NONE)
      continue;
    f->role = WT_ROLE_DUPLICATE;
    f->same_as = l->files[a[i - 1].id].role == WT_ROLE_DUPLICATE ? l->files[a[i - 1].id].same_as
                                                                 : a[i - 1].id;
  }
  free(a);
  return 0;
}

/* The format of a lone file: by content, else by name. */
static int wt_guess_format(const wt_path_file *f) {
  size_t n = strlen(f->path);
  if (f->format != 0)
    return f->format;
  if (wt_paths_ends(f->path, n, ".safetensors"))
    return WT_FORMAT_SAFETENSORS;
  if (wt_paths_ends(f->path, n, ".gguf"))
    return WT_FORMAT_GGUF;
  return 0;
}

/* Every file not in a model yet, and not a duplicate: a model alone. */
static int wt_group_singles(wt_paths *x) {
  wt_pathlist *l = x->out;
  size_t i, n = l->n, at;
  int part, count;
  for (i = 0; i < n; i++) {
    wt_path_file *f = &l->files[i];
    wt_path_model *m;
    if (f->model != WT_NONE || f->role == WT_ROLE_DUPLICATE || f->role == WT_ROLE_INCOMPLETE)
      continue;
    if (wt_model_new(x, i, wt_guess_format(f), &m) || wt_model_part(x, m, i))
      return -1;
    count = wt_parts_name(f->path, strlen(f->path), ".safetensors", &part, &at);
    if (count > 0 && l->kind != WT_PATHS_FILE) {
      char msg[WT_ERROR_MAX];
      snprintf(msg, sizeof(msg),
               "a shard (%d of %d) of a sharded checkpoint that no index in scope names "
               "(is model.safetensors.index.json missing?)",
               part, count);
      if (wt_set_msg(&m->error, msg, x->err))
        return -1;
    }
  }
  for (i = 0; i < n; i++) {
    if (l->files[i].role == WT_ROLE_DUPLICATE)
      l->files[i].model = l->files[l->files[i].same_as].model;
  }
  return 0;
}

/* qsort_r() order of file ids by path (list: the wt_pathlist; no static,
** so that connections on several threads expand paths at once). */
static int wt_id_cmp(const void *a, const void *b, void *list) {
  const wt_pathlist *l = list;
  return strcmp(l->files[*(const size_t *)a].path, l->files[*(const size_t *)b].path);
}

/* qsort() order of models by their name file's (new) position. */
static int wt_model_cmp(const void *a, const void *b) {
  size_t x = ((const wt_path_model *)a)->name_file, y = ((const wt_path_model *)b)->name_file;
  return x < y ? -1 : x > y;
}

/* Sort files by path and models by name file, renumbering every id. */
static int wt_group_sort(wt_paths *x) {
  wt_pathlist *l = x->out;
  size_t *order = malloc((l->n ? l->n : 1) * sizeof(*order));
  size_t *pos = malloc((l->n ? l->n : 1) * sizeof(*pos));
  size_t *mpos = malloc((l->n_models ? l->n_models : 1) * sizeof(*mpos));
  wt_path_file *files = malloc((l->n ? l->n : 1) * sizeof(*files));
  size_t i, k;
  if (order == NULL || pos == NULL || mpos == NULL || files == NULL) {
    free(order), free(pos), free(mpos), free(files);
    return wt_paths_oom(x->err);
  }
  for (i = 0; i < l->n; i++)
    order[i] = i;
  qsort_r(order, l->n, sizeof(*order), wt_id_cmp, l);
  for (i = 0; i < l->n; i++) {
    pos[order[i]] = i;
    files[i] = l->files[order[i]];
  }
  free(l->files);
  l->files = files;
  x->cap = l->n ? l->n : 1;
  for (i = 0; i < l->n_models; i++) {
    wt_path_model *m = &l->models[i];
    m->name_file = pos[m->name_file];
    for (k = 0; k < m->n_parts; k++)
      m->parts[k] = pos[m->parts[k]];
    for (k = 0; k < m->n_weights; k++)
      m->weights[k].shard = pos[m->weights[k].shard];
  }
  for (i = 0; i < l->n; i++) {
    if (files[i].same_as != WT_NONE)
      files[i].same_as = pos[files[i].same_as];
  }
  if (l->n_models > 1)
    qsort(l->models, l->n_models, sizeof(*l->models), wt_model_cmp);
  for (i = 0; i < l->n_models; i++)
    mpos[l->files[l->models[i].name_file].model] = i;
  for (i = 0; i < l->n; i++) {
    if (files[i].model != WT_NONE)
      files[i].model = mpos[files[i].model];
  }
  free(order), free(pos), free(mpos);
  return 0;
}

int wt_paths_group(wt_paths *x) {
  wt_pathlist *l = x->out;
  size_t i, n = l->n, at;
  int part, count;
  x->n_sorted = l->kind == WT_PATHS_DIR || l->kind == WT_PATHS_GLOB || n < 2 ? n : 0;
  for (i = x->n_sorted; i < n; i++)
    if (wt_paths_remember(x, i))
      return -1;
  for (i = 0; i < n; i++) {
    wt_path_file *f = &l->files[i];
    if ((f->role == WT_ROLE_INDEX ||
         (l->kind != WT_PATHS_FILE &&
          wt_paths_ends(f->path, strlen(f->path), ".safetensors.index.json"))) &&
        wt_group_index(x, i))
      return -1;
  }
  for (i = 0; i < n; i++) {
    const char *p = l->files[i].path;
    if (l->files[i].model != WT_NONE || l->files[i].role != WT_ROLE_DATA)
      continue;
    count = wt_split_name(p, strlen(p), &part, &at);
    if (count > 0 && (l->kind != WT_PATHS_FILE || part == 1) && wt_group_split(x, i, count, at))
      return -1;
  }
  if (wt_group_duplicates(x) || wt_group_singles(x) || wt_group_sort(x))
    return -1;
  for (i = 0; i < l->n_models; i++) {
    wt_path_model *m = &l->models[i];
    size_t k;
    m->n_present = 0;
    for (k = 0; k < m->n_parts; k++)
      m->n_present += l->files[m->parts[k]].exists;
  }
  return 0;
}
