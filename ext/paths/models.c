/*
** models.c: open the models of a path and check them; find a tensor by
** name across them.  See models.h.  Layer: io (cache, sources; no SQLite).
**
** A model's parts are held open together while it is checked, so that the
** names of all its tensors can be compared (sorted pointers into the
** parsed headers: duplicates are adjacent).
*/
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "remote/http.h"
#include "paths_int.h" /* wt_split_name */
#include "remote/url.h"

/* One tensor name of a model, for the duplicate check. */
typedef struct wt_name_ref {
  wt_str name;
  size_t part;
} wt_name_ref;

/* ============================= A model's checks ============================= */

/* qsort() order of names: bytewise, then shorter first, then by part. */
static int wt_name_ref_cmp(const void *a, const void *b) {
  const wt_name_ref *x = a, *y = b;
  size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
  int c = memcmp(x->name.p, y->name.p, n);
  if (c != 0)
    return c;
  if (x->name.n != y->name.n)
    return x->name.n < y->name.n ? -1 : 1;
  return x->part < y->part ? -1 : x->part > y->part;
}

/* Record the first error of a model (fatal or not) on out. */
static void wt_facts_fail(wt_model_facts *out, int fatal, const char *where, const char *msg) {
  if (fatal)
    out->n_failing++;
  if (out->error[0] != 0 && (out->fatal || !fatal))
    return;
  out->fatal = out->fatal || fatal;
  out->where = where;
  snprintf(out->error, sizeof(out->error), "%s", msg);
}

/* The index checks of model m: each weight_map entry is in its shard. */
static void wt_check_weights(const wt_pathlist *l, const wt_path_model *m, wt_source **src,
                             wt_model_facts *out) {
  size_t i, k;
  for (i = 0; i < m->n_weights; i++) {
    const wt_weight *w = &m->weights[i];
    char q[WT_QUOTE_SIZE], msg[WT_ERROR_MAX];
    for (k = 0; k < m->n_parts && m->parts[k] != w->shard; k++)
      ;
    if (k == m->n_parts || src[k] == NULL ||
        wt_source_find_tensor(src[k], w->name, w->name_len) != NULL)
      continue;
    snprintf(msg, sizeof(msg), "the weight_map places tensor %s in %s, which does not hold it",
             wt_quote(q, sizeof(q), w->name, w->name_len), l->files[w->shard].path);
    wt_facts_fail(out, 1, l->files[m->name_file].path, msg);
    return;
  }
}

/* Names held by two parts of the model. */
static int wt_check_duplicates(const wt_pathlist *l, const wt_path_model *m, wt_source **src,
                               wt_model_facts *out) {
  wt_name_ref *a;
  size_t i, k, n = 0;
  if (m->n_parts < 2 || out->tensors < 2)
    return 0;
  a = malloc(out->tensors * sizeof(*a));
  if (a == NULL)
    return -1;
  for (k = 0; k < m->n_parts; k++) {
    for (i = 0; src[k] != NULL && i < src[k]->model.n_tensors; i++) {
      a[n].name = src[k]->model.tensors[i].name;
      a[n++].part = k;
    }
  }
  qsort(a, n, sizeof(*a), wt_name_ref_cmp);
  for (i = 1; i < n; i++) {
    char q[WT_QUOTE_SIZE], msg[WT_ERROR_MAX];
    if (a[i].part == a[i - 1].part || a[i].name.n != a[i - 1].name.n ||
        memcmp(a[i].name.p, a[i - 1].name.p, a[i].name.n) != 0)
      continue;
    snprintf(msg, sizeof(msg), "tensor %s is in two files of the model: %s and %s",
             wt_quote(q, sizeof(q), a[i].name.p, a[i].name.n),
             l->files[m->parts[a[i - 1].part]].path, l->files[m->parts[a[i].part]].path);
    wt_facts_fail(out, 1, l->files[m->name_file].path, msg);
    break;
  }
  free(a);
  return 0;
}

/* The format to parse file f of model m as, for a reader of format. */
static int wt_open_format(const wt_path_model *m, const wt_path_file *f, int format) {
  if (format != 0)
    return format;
  if (m->is_index)
    return WT_FORMAT_SAFETENSORS;
  if (m->is_split)
    return WT_FORMAT_GGUF;
  return f->format; /* 0: by content, which says what it is when it is neither */
}

/* ========================= Sources kept for a scan ========================== */

void wt_scope_keep_free(wt_scope_keep *k) {
  size_t i;
  for (i = 0; i < k->n; i++)
    wt_source_release(k->src[i]);
  free(k->src);
  memset(k, 0, sizeof(*k));
}

const wt_source *wt_scope_kept(const wt_scope_keep *k, size_t i) {
  return i < k->n ? k->src[i] : NULL;
}

/* Park the kept sources that only the keep holds (the cache evicted them),
** once WT_KEEP_MAX_OPEN more have been kept since the last time. */
static void wt_keep_park(wt_scope_keep *k) {
  size_t i;
  if (k->n_open < k->park_at)
    return;
  k->n_open = 0;
  for (i = 0; i < k->n; i++) {
    if (k->src[i] == NULL || wt_source_parked(k->src[i]))
      continue;
    if (k->src[i]->refs > 1 || !wt_source_park(k->src[i]))
      k->n_open++;
  }
  k->park_at = k->n_open + WT_KEEP_MAX_OPEN;
}

/* Keep s, file i of l, in k (taking the caller's reference): 1, or 0 when
** it is not kept (already kept, over the bound, out of memory). */
static int wt_keep_add(wt_scope_keep *k, const wt_pathlist *l, size_t i, wt_source *s) {
  uint64_t b = wt_source_bytes(s);
  if (k->src == NULL) {
    k->src = calloc(l->n ? l->n : 1, sizeof(*k->src));
    if (k->src == NULL)
      return 0;
    k->n = l->n;
    k->park_at = WT_KEEP_MAX_OPEN;
  }
  if (i >= k->n || k->src[i] != NULL || k->bytes + b > WT_KEEP_MAX_BYTES)
    return 0;
  if (s->file.remote && k->n_open >= WT_KEEP_MAX_OPEN)
    return 0; /* a remote source cannot be parked: its connection would stay open */
  k->src[i] = s;
  k->bytes += b;
  k->n_open++;
  wt_keep_park(k);
  return 1;
}

wt_source *wt_scope_take(wt_scope_keep *k, wt_cache *cache, size_t i) {
  wt_source *s = i < k->n ? k->src[i] : NULL;
  if (s == NULL)
    return NULL;
  k->src[i] = NULL;
  k->bytes -= wt_source_bytes(s);
  if (!wt_source_parked(s))
    k->n_open--;
  wt_cache_adopt(cache, s);
  return s;
}

/* wt_model_check(), opening what open says (source.h: WT_OPEN_*) and
** keeping the sources it opened in keep (or NULL). */
static int wt_model_check_keep(wt_cache *cache, const wt_pathlist *l, size_t mi, int format,
                               int open, wt_scope_keep *keep, wt_model_facts *out) {
  const wt_path_model *m = &l->models[mi];
  wt_source **src = calloc(m->n_parts ? m->n_parts : 1, sizeof(*src));
  size_t k, i;
  int rc = 0;
  memset(out, 0, sizeof(*out));
  if (src == NULL)
    return -1;
  out->files = m->n_parts;
  out->files_present = m->n_present;
  if (m->error != NULL)
    wt_facts_fail(out, 1, l->files[m->name_file].path, m->error);
  for (k = 0; k < m->n_parts; k++) {
    const wt_path_file *f = &l->files[m->parts[k]];
    wt_error e;
    if (f->error != NULL) {
      if (f->role != WT_ROLE_MISSING || m->error == NULL)
        wt_facts_fail(out, 1, f->path, f->error); /* else the model's error names it */
      continue;
    }
    if (wt_cache_open_as(cache, f->path, strlen(f->path), wt_open_format(m, f, format), open,
                         &src[k], &e)) {
      src[k] = NULL;
      wt_facts_fail(out, 1, f->path, e.msg);
      continue;
    }
    for (i = 0; i < src[k]->model.n_tensors; i++) {
      const wt_tensor *t = &src[k]->model.tensors[i];
      out->params += t->numel;
      if (t->nbytes_known)
        out->nbytes += t->nbytes;
      else
        out->unsized++;
    }
    out->tensors += src[k]->model.n_tensors;
  }
  if (!out->fatal && m->is_index)
    wt_check_weights(l, m, src, out);
  if (!out->fatal)
    rc = wt_check_duplicates(l, m, src, out);
  if (!out->fatal && m->has_total_size && m->total_size != out->nbytes) {
    char msg[WT_ERROR_MAX];
    snprintf(msg, sizeof(msg),
             "metadata.total_size is %llu, but the tensors of the shards hold %llu bytes",
             (unsigned long long)m->total_size, (unsigned long long)out->nbytes);
    wt_facts_fail(out, 0, l->files[m->name_file].path, msg);
  }
  for (k = 0; k < m->n_parts; k++) {
    if (src[k] != NULL && (keep == NULL || !wt_keep_add(keep, l, m->parts[k], src[k])))
      wt_source_release(src[k]);
  }
  free(src);
  return rc;
}

/* ======================== Remote files opened ahead ========================= */

/* Add file i of l to the remote files to open ahead, unless it is local,
** failed already, or open in the cache or in keep.  0, or -1 when paths
** is full. */
static int wt_ahead_add(wt_cache *cache, const wt_scope_keep *keep, const wt_pathlist *l, size_t i,
                        const char **paths, size_t *k) {
  const wt_path_file *f = &l->files[i];
  size_t n = strlen(f->path);
  if (f->error != NULL || f->role != WT_ROLE_DATA || !wt_url_is_remote(f->path, n) ||
      wt_cache_holds(cache, f->path, n) || (keep != NULL && wt_scope_kept(keep, i) != NULL))
    return 0;
  if (*k == WT_HTTP_PARALLEL)
    return -1;
  paths[(*k)++] = f->path;
  return 0;
}

size_t wt_open_ahead(wt_cache *cache, const wt_scope_keep *keep, const wt_pathlist *l,
                     const size_t *ids, size_t from, size_t n, int models, int format) {
  const char *paths[WT_HTTP_PARALLEL] = {NULL};
  size_t i, j, k = 0;
  for (i = from; i < n; i++) {
    size_t id = ids != NULL ? ids[i] : i, before = k;
    int full = 0;
    if (!models) {
      full = wt_ahead_add(cache, keep, l, id, paths, &k) != 0;
    } else if (format < 0 || wt_pathlist_in_scope(l, &l->models[id], format)) {
      const wt_path_model *m = &l->models[id];
      for (j = 0; !full && j < m->n_parts; j++)
        full = wt_ahead_add(cache, keep, l, m->parts[j], paths, &k) != 0;
    }
    if (full) {
      if (i > from)
        k = before; /* a model is opened ahead whole, or with the next ones */
      break;
    }
  }
  wt_http_prefetch(paths, k);
  return i > from ? i : from + 1;
}

int wt_model_check(wt_cache *cache, const wt_pathlist *l, size_t mi, int format,
                   wt_model_facts *out) {
  return wt_model_check_keep(cache, l, mi, format, WT_OPEN_HEADER, NULL, out);
}

int wt_scope_check(wt_cache *cache, const wt_pathlist *l, int format, int open, wt_scope_keep *keep,
                   const char **where, wt_error *err) {
  size_t i, ahead = 0;
  int failing = 0;
  *where = NULL;
  for (i = 0; i < l->n_models; i++) {
    wt_model_facts f;
    if (!wt_pathlist_in_scope(l, &l->models[i], format))
      continue;
    if (i >= ahead) /* the remote files of the next models, at once */
      ahead = wt_open_ahead(cache, keep, l, NULL, i, l->n_models, 1, format);
    if (wt_model_check_keep(cache, l, i, format, open, keep, &f)) {
      wt_fail(err, "out of memory");
      return -1;
    }
    if (!f.fatal)
      continue;
    if (failing == 0) {
      *where = f.where;
      wt_fail(err, "%s", f.error);
    }
    failing += f.n_failing;
  }
  wt_http_prefetch(NULL, 0); /* nothing opened ahead stays open */
  return failing;
}

/* =================== Resolving a (path, name) to a tensor =================== */

int wt_path_is_plain_file(const char *path, size_t n) {
  struct stat st;
  size_t at;
  int part;
  if (n == 0 || memchr(path, 0, n) != NULL || path[n] != 0)
    return 1; /* the file layer says what is wrong */
  if (path[0] == '~')
    return 0;
  if (stat(path, &st) != 0)
    return strpbrk(path, "*?[") == NULL && strstr(path, "://") == NULL &&
           !wt_paths_ends(path, n, "**");
  if (!S_ISREG(st.st_mode))
    return !S_ISDIR(st.st_mode);
  if (wt_split_name(path, n, &part, &at) > 0 && part == 1)
    return 0;
  return !wt_paths_ends(path, n, ".json");
}

int wt_scope_open(wt_cache *cache, const char *path, size_t n, int format, wt_pathlist *l,
                  wt_error *err) {
  const char *where;
  char msg[2 * WT_ERROR_MAX];
  int failing;
  memset(l, 0, sizeof(*l));
  if (wt_cache_allow(cache, path, n, err) || wt_paths_expand(path, n, format, l, err))
    return -1;
  failing = wt_scope_check(cache, l, format, WT_OPEN_HEADER, NULL, &where, err);
  if (failing == 0)
    return 0;
  if (failing > 0) {
    snprintf(msg, sizeof(msg), "%.400s: %s", where, err->msg);
    if (failing > 1)
      snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " (and %d other files fail)",
               failing - 1);
    wt_fail(err, "%s", msg);
  }
  wt_pathlist_free(l);
  return -1;
}

int wt_scope_find_tensor(wt_cache *cache, const wt_pathlist *l, int format, const char *name,
                         size_t nn, wt_source **src, const wt_tensor **t, wt_error *err) {
  const char *first_model = NULL;
  size_t i, k;
  *src = NULL;
  *t = NULL;
  for (i = 0; i < l->n_models; i++) {
    const wt_path_model *m = &l->models[i];
    if (!wt_pathlist_in_scope(l, m, format))
      continue;
    for (k = 0; k < m->n_parts; k++) {
      const wt_path_file *f = &l->files[m->parts[k]];
      const wt_tensor *hit;
      wt_source *s;
      if (wt_cache_open(cache, f->path, strlen(f->path), wt_open_format(m, f, format), &s, err))
        return -1;
      hit = wt_source_find_tensor(s, name, nn);
      if (hit == NULL) {
        wt_source_release(s);
        continue;
      }
      if (*src != NULL) {
        char q[WT_QUOTE_SIZE];
        wt_fail(err, "tensor %s is in two models of the path: %s and %s; name one of them",
                wt_quote(q, sizeof(q), name, nn), first_model, l->files[m->name_file].path);
        wt_source_release(s);
        wt_source_release(*src);
        *src = NULL;
        *t = NULL;
        return -1;
      }
      *src = s;
      *t = hit;
      first_model = l->files[m->name_file].path;
      break; /* a name twice in one model is that model's error, checked above */
    }
  }
  return *src != NULL;
}

int wt_resolve_model(wt_cache *cache, const char *path, size_t n, int format, wt_pathlist *l,
                     size_t *m, wt_model_facts *facts, wt_error *err) {
  const char *where;
  size_t i, k = 0;
  int failing;
  memset(l, 0, sizeof(*l));
  if (wt_cache_allow(cache, path, n, err) || wt_paths_expand(path, n, format, l, err))
    return -1;
  failing = wt_scope_check(cache, l, format, WT_OPEN_HEADER, NULL, &where, err);
  if (failing != 0) {
    char msg[WT_ERROR_MAX];
    snprintf(msg, sizeof(msg), "%s", err->msg);
    if (failing > 0)
      wt_fail(err, "%.300s: %s", where, msg);
    wt_pathlist_free(l);
    return -1;
  }
  for (i = 0; i < l->n_models; i++) {
    if (wt_pathlist_in_scope(l, &l->models[i], format) && k++ == 0)
      *m = i;
  }
  if (k != 1) {
    wt_pathlist_free(l);
    if (k == 0)
      return wt_fail(err, "no model files here");
    return wt_fail(err, "the path holds %zu models (weights_models lists them); name one", k);
  }
  if (wt_model_check(cache, l, *m, format, facts)) {
    wt_pathlist_free(l);
    return wt_fail(err, "out of memory");
  }
  return 0;
}

int wt_resolve_cached(wt_cache *cache, const char *path, size_t n, int format, const char *name,
                      size_t nn, uint64_t check, wt_source **src, const wt_tensor **t) {
  size_t at;
  int part;
  *src = NULL;
  *t = NULL;
  /* a name that may be a plain file (wt_path_is_plain_file() without its
  ** stat), and a fresh cache entry, which only a regular file can have */
  if (n == 0 || path[n] != 0 || memchr(path, 0, n) != NULL || path[0] == '~' ||
      wt_paths_ends(path, n, ".json") || (wt_split_name(path, n, &part, &at) > 0 && part == 1) ||
      !wt_cache_find_checked(cache, path, n, format, check, src))
    return WT_NOT_CACHED;
  *t = wt_source_find_tensor(*src, name, nn);
  if (*t != NULL)
    return 1;
  wt_source_release(*src);
  *src = NULL;
  return 0;
}

int wt_resolve_tensor(wt_cache *cache, const char *path, size_t n, int format, const char *name,
                      size_t nn, wt_source **src, const wt_tensor **t, wt_error *err) {
  wt_pathlist l;
  int rc;
  *src = NULL;
  *t = NULL;
  if (wt_path_is_plain_file(path, n)) {
    if (wt_cache_open(cache, path, n, format, src, err))
      return -1;
    *t = wt_source_find_tensor(*src, name, nn);
    if (*t != NULL)
      return 1;
    wt_source_release(*src);
    *src = NULL;
    return 0;
  }
  if (wt_scope_open(cache, path, n, format, &l, err))
    return -1;
  rc = wt_scope_find_tensor(cache, &l, format, name, nn, src, t, err);
  wt_pathlist_free(&l);
  return rc;
}
