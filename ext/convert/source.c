/*
** source.c: the checkpoint a conversion reads.  See source.h.  Layer:
** convert.
*/
#include "source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/file.h"
#include "paths/models.h"

static const char *const file_names[CV_BESIDE_COUNT] = {
    "config.json",    "generation_config.json", "tokenizer.model",
    "tokenizer.json", "tokenizer_config.json",  "added_tokens.json",
    "merges.txt",     "chat_template.json",     "chat_template.jinja",
    "modules.json"};

/* The last component of path[0..n) ('/'-separated), into a malloc'd copy. */
static char *last_component(const char *path, size_t n) {
  const char *s = path + n;
  while (s > path && s[-1] != '/')
    s--;
  return strndup(s, (size_t)(path + n - s));
}

/* 1 when path is a local directory. */
static int is_dir(const char *path) {
  struct stat st;
  return !wt_file_is_remote(path, strlen(path)) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Set c->dir and c->dir_name from source: the folder itself, or the one
** that holds the file it names. */
static int source_dir(cv_checkpoint *c, const char *source, int folder) {
  size_t n = strlen(source);
  while (n > 1 && source[n - 1] == '/')
    n--;
  if (!folder) {
    while (n > 0 && source[n - 1] != '/')
      n--;
    while (n > 1 && source[n - 1] == '/')
      n--;
  }
  c->dir = n > 0 ? strndup(source, n) : strdup(".");
  if (c->dir == NULL)
    return -1;
  c->dir_name = last_component(c->dir, strlen(c->dir));
  if (c->dir_name != NULL &&
      (strcmp(c->dir_name, ".") == 0 || strcmp(c->dir_name, "..") == 0 || c->dir_name[0] == 0)) {
    char real[PATH_MAX];
    if (!wt_file_is_remote(c->dir, strlen(c->dir)) && realpath(c->dir, real) != NULL) {
      free(c->dir_name);
      c->dir_name = last_component(real, strlen(real));
    }
  }
  return c->dir_name == NULL ? -1 : 0;
}

/* The base name of file i of the list. */
static const char *base_of(const wt_pathlist *l, size_t i) {
  const char *p = l->files[i].path, *s = strrchr(p, '/');
  return s != NULL ? s + 1 : p;
}

/* Choose the model of a folder as the converter does. */
static int pick_model(cv_checkpoint *c, int folder, const char **where, wt_error *err) {
  const wt_pathlist *l = &c->list;
  size_t i, found = 0, named = 0;
  for (i = 0; i < l->n_models; i++) {
    const char *b = base_of(l, l->models[i].name_file);
    if (!wt_pathlist_in_scope(l, &l->models[i], WT_FORMAT_SAFETENSORS))
      continue;
    if (!folder || strcmp(b, "model.safetensors.index.json") == 0) {
      c->model = i;
      return 0;
    }
    if (strncmp(b, "model", 5) == 0 && strlen(b) > 12 &&
        strcmp(b + strlen(b) - 12, ".safetensors") == 0) {
      if (named++ == 0)
        found = i;
    }
  }
  *where = c->dir;
  if (named == 1) {
    c->model = found;
    return 0;
  }
  if (named > 1)
    return wt_fail(err,
                   "%zu files named model*.safetensors and no model.safetensors.index.json: "
                   "name the checkpoint's index",
                   named);
  return wt_fail(err, "no safetensors checkpoint here (a model.safetensors.index.json or a "
                      "model*.safetensors file)");
}

/* Every tensor of the shards in the weight_map, in its own shard: what
** the converter checks ("Mismatch between weight map and model parts"). */
static int check_index(cv_checkpoint *c, const char **where, wt_error *err) {
  const wt_path_model *m = &c->list.models[c->model];
  char q[WT_QUOTE_SIZE];
  size_t k, i;
  if (!m->is_index)
    return 0;
  for (k = 0; k < c->n_parts; k++) {
    for (i = 0; i < c->parts[k]->model.n_tensors; i++) {
      const wt_tensor *t = &c->parts[k]->model.tensors[i];
      const wt_weight *w = wt_model_find_weight(m, t->name.p, t->name.n);
      if (w != NULL && w->shard == m->parts[k])
        continue;
      *where = c->list.files[m->name_file].path;
      return wt_fail(err, "the weight_map %s tensor %s, which %s holds",
                     w == NULL ? "does not list" : "places elsewhere",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n), c->list.files[m->parts[k]].path);
    }
  }
  return 0;
}

/* Tensors of one shard in name order. */
static int cmp_in(const void *a, const void *b) {
  const wt_str *x = &((const cv_in *)a)->t->name, *y = &((const cv_in *)b)->t->name;
  size_t n = x->n < y->n ? x->n : y->n;
  int r = memcmp(x->p, y->p, n);
  return r != 0 ? r : (x->n > y->n) - (x->n < y->n);
}

/* Open the shards and list their tensors. */
static int open_parts(wt_cache *cache, cv_checkpoint *c, const char **where, wt_error *err) {
  const wt_path_model *m = &c->list.models[c->model];
  wt_model_facts facts;
  size_t k, i, total = 0;
  if (wt_model_check(cache, &c->list, c->model, WT_FORMAT_SAFETENSORS, &facts) != 0)
    return wt_fail(err, "out of memory");
  if (facts.fatal) {
    *where = facts.where;
    return wt_fail(err, "%s", facts.error);
  }
  c->parts = calloc(m->n_parts + 1, sizeof(*c->parts));
  if (c->parts == NULL)
    return wt_fail(err, "out of memory");
  for (k = 0; k < m->n_parts; k++) {
    const char *path = c->list.files[m->parts[k]].path;
    *where = path;
    if (wt_cache_open(cache, path, strlen(path), WT_FORMAT_SAFETENSORS, &c->parts[k], err) != 0)
      return -1;
    c->n_parts++;
    total += c->parts[k]->model.n_tensors;
  }
  *where = c->dir;
  if ((c->in = calloc(total + 1, sizeof(*c->in))) == NULL)
    return wt_fail(err, "out of memory");
  for (k = 0; k < c->n_parts; k++) {
    size_t first = c->n_in;
    for (i = 0; i < c->parts[k]->model.n_tensors; i++)
      c->in[c->n_in++] = (cv_in){c->parts[k], &c->parts[k]->model.tensors[i]};
    qsort(c->in + first, c->n_in - first, sizeof(*c->in), cmp_in);
  }
  return check_index(c, where, err);
}

int cv_checkpoint_read(cv_checkpoint *c, int which, const char **where, wt_error *err) {
  cv_file *f = &c->files[which];
  struct stat st;
  wt_file file;
  size_t n = strlen(c->dir) + strlen(file_names[which]) + 2;
  int remote = wt_file_is_remote(c->dir, strlen(c->dir)), rc;
  if (f->path != NULL)
    return 0; /* read already */
  f->name = file_names[which];
  if ((f->path = malloc(n)) == NULL)
    return wt_fail(err, "out of memory");
  snprintf(f->path, n, "%s/%s", c->dir, file_names[which]);
  *where = f->path;
  if (!remote && stat(f->path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return 0;
  if (wt_file_open(&file, f->path, strlen(f->path), err) != 0)
    return remote && strstr(err->msg, "HTTP 404") != NULL ? 0 : -1;
  rc = wt_file_read_all(&file, CV_BESIDE_MAX, &f->p, &f->n, err);
  wt_file_close(&file);
  if (rc != 0)
    return -1;
  f->present = 1;
  return 0;
}

/* Read config.json, which must be there, and generation_config.json. */
static int read_files(cv_checkpoint *c, const char **where, wt_error *err) {
  if (cv_checkpoint_read(c, CV_BESIDE_CONFIG, where, err) != 0 ||
      cv_checkpoint_read(c, CV_BESIDE_GENERATION_CONFIG, where, err) != 0)
    return -1;
  if (!c->files[CV_BESIDE_CONFIG].present) {
    *where = c->dir;
    return wt_fail(err, "no config.json beside the checkpoint");
  }
  return 0;
}

int cv_checkpoint_open(wt_cache *cache, const char *source, cv_checkpoint *c, const char **where,
                       wt_error *err) {
  size_t n = strlen(source);
  int folder =
      is_dir(source) || (wt_file_is_remote(source, n) && strstr(source, ".safetensors") == NULL &&
                         (n < 5 || strcmp(source + n - 5, ".json") != 0));
  memset(c, 0, sizeof(*c));
  *where = source;
  if (source_dir(c, source, folder) != 0)
    return wt_fail(err, "out of memory");
  if (wt_cache_allow(cache, source, n, err) != 0 ||
      wt_paths_expand(source, n, WT_FORMAT_SAFETENSORS, &c->list, err) != 0 ||
      pick_model(c, folder, where, err) != 0 || open_parts(cache, c, where, err) != 0 ||
      read_files(c, where, err) != 0)
    return -1;
  *where = source;
  return 0;
}

const char *cv_checkpoint_file_of(const cv_checkpoint *c, size_t i) {
  return i < c->n_in ? c->in[i].src->path : c->dir;
}

void cv_checkpoint_close(cv_checkpoint *c) {
  size_t k;
  int i;
  for (k = 0; k < c->n_parts; k++)
    wt_source_release(c->parts[k]);
  for (i = 0; i < CV_BESIDE_COUNT; i++) {
    free(c->files[i].path);
    free(c->files[i].p);
  }
  free(c->parts);
  free(c->in);
  free(c->dir);
  free(c->dir_name);
  wt_pathlist_free(&c->list);
  memset(c, 0, sizeof(*c));
}
