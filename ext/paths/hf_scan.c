/*
** hf_scan.c: the files a path covers in a Hugging Face hub cache
** (wt_hf_scan, hf_cache.h).  Pure C, file system only: the paths layer.
**
** Directories are listed with readdir() and lstat(); only real
** directories are entered (so the walk ends: directories cannot be
** hard-linked), and each symlink is resolved once with realpath().  The
** result is sorted at the end, so the order of readdir() never shows.  No
** file content is read except the ref files (a commit hash each, at most
** WT_HF_REF_BYTES bytes).
*/
#define _GNU_SOURCE
#include "bytes/fd.h"
#include "hf_locate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes read of a ref file: a 40-hex commit, maybe a newline. */
#define WT_HF_REF_BYTES 256

/* One ref of a repo: its name under refs/ and what its file holds. */
typedef struct wt_hf_ref {
  char *name;
  char *commit;
} wt_hf_ref;

/* A scan in progress. */
typedef struct wt_hf_scan_state {
  wt_hf_list *out;
  size_t cap;
  wt_error *err;
  const char *kind;    /* of the repo being scanned */
  const char *repo_id; /* of the repo being scanned */
  wt_hf_ref *refs;     /* of the repo being scanned */
  size_t n_refs;
  size_t n_dirs; /* directories read so far */
} wt_hf_scan_state;

/* ---- small helpers ---- */

/* Report out of memory. */
static int wt_hf_oom(wt_error *err) {
  return wt_fail(err, "out of memory");
}

/* Whether s is exactly n lower-case hex digits. */
static int wt_hf_hex(const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  }
  return s[n] == 0;
}

/* Whether name ends in suffix. */
static int wt_hf_ends(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && memcmp(name + n - k, suffix, k) == 0;
}

/* ---- reading directories ---- */

/* The names in directory dir, "." and ".." left out, in no order: 0 with
** *names and *n set (free each and the array), 1 when dir is gone (it
** vanished, or it is not a directory), -1 with err set. */
static int wt_hf_names(const char *dir, char ***names, size_t *n, wt_error *err) {
  char q[WT_HF_QUOTE];
  DIR *d = opendir(dir);
  struct dirent *de;
  size_t cap = 0;
  int rc = 0;
  *names = NULL;
  *n = 0;
  if (d == NULL) {
    if (errno == ENOENT || errno == ENOTDIR)
      return 1;
    return wt_fail(err, "cannot read directory %s: %s", wt_hf_q(q, dir), strerror(errno));
  }
  for (errno = 0; rc == 0 && (de = readdir(d)) != NULL; errno = 0) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    if (*n == WT_HF_MAX_ENTRIES) {
      rc =
          wt_fail(err, "directory %s holds more than %d names", wt_hf_q(q, dir), WT_HF_MAX_ENTRIES);
      break;
    }
    if (*n == cap) {
      size_t c = cap ? 2 * cap : 16;
      char **p = realloc(*names, (c < WT_HF_MAX_ENTRIES ? c : WT_HF_MAX_ENTRIES) * sizeof(char *));
      if (p == NULL) {
        rc = wt_hf_oom(err);
        break;
      }
      *names = p;
      cap = c < WT_HF_MAX_ENTRIES ? c : WT_HF_MAX_ENTRIES;
    }
    if (((*names)[*n] = strdup(de->d_name)) == NULL)
      rc = wt_hf_oom(err);
    else
      (*n)++;
  }
  if (rc == 0 && errno != 0)
    rc = wt_fail(err, "cannot read directory %s: %s", wt_hf_q(q, dir), strerror(errno));
  closedir(d);
  return rc;
}

/* Free what wt_hf_names() returned. */
static void wt_hf_names_free(char **names, size_t n) {
  while (n > 0)
    free(names[--n]);
  free(names);
}

/* What wt_hf_each() calls for each name of a directory, with its path. */
typedef int (*wt_hf_visit)(wt_hf_scan_state *s, const char *path, const char *name, void *arg);

/* Call visit(s, dir/name, name, arg) for each name in directory dir until
** one fails; a directory that is gone has no names.  0, or -1. */
static int wt_hf_each(wt_hf_scan_state *s, const char *dir, wt_hf_visit visit, void *arg) {
  char **names;
  size_t n, i;
  int rc;
  if (++s->n_dirs > WT_HF_MAX_ENTRIES)
    return wt_fail(s->err, "more than %d folders in the cache (the limit of one scan)",
                   WT_HF_MAX_ENTRIES);
  rc = wt_hf_names(dir, &names, &n, s->err);
  if (rc != 0)
    return rc < 0 ? -1 : 0;
  for (i = 0; rc == 0 && i < n; i++) {
    char *p = wt_hf_join(dir, names[i], s->err);
    rc = p ? visit(s, p, names[i], arg) : -1;
    free(p);
  }
  wt_hf_names_free(names, n);
  return rc;
}

/* ---- refs ---- */

/* Read the ref file path (its name under refs/ is name) into s->refs. */
static int wt_hf_ref_read(wt_hf_scan_state *s, const char *path, const char *name) {
  char q[WT_HF_QUOTE], buf[WT_HF_REF_BYTES + 1];
  wt_hf_ref *r;
  ssize_t k;
  int fd;
  if (s->n_refs >= WT_HF_MAX_REFS)
    return wt_fail(s->err, "more than %d refs in %s", WT_HF_MAX_REFS, wt_hf_q(q, path));
  fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT
               ? 0
               : wt_fail(s->err, "cannot read ref file %s: %s", wt_hf_q(q, path), strerror(errno));
  k = wt_fd_read_full(fd, buf, WT_HF_REF_BYTES, 0);
  close(fd);
  if (k < 0)
    return wt_fail(s->err, "cannot read ref file %s: %s", wt_hf_q(q, path), strerror(errno));
  while (k > 0 && strchr(" \t\r\n", buf[k - 1]) != NULL)
    k--;
  buf[k] = 0;
  r = realloc(s->refs, (s->n_refs + 1) * sizeof(*r));
  if (r == NULL)
    return wt_hf_oom(s->err);
  s->refs = r;
  r[s->n_refs].name = strdup(name);
  r[s->n_refs].commit = strdup(buf);
  if (r[s->n_refs].name == NULL || r[s->n_refs].commit == NULL) {
    free(r[s->n_refs].name);
    free(r[s->n_refs].commit);
    return wt_hf_oom(s->err);
  }
  s->n_refs++;
  return 0;
}

/* Where a folder of refs is: the names of its refs start with prefix ("" in
** refs/ itself), depth folders below refs/. */
typedef struct wt_hf_refs_at {
  const char *prefix;
  int depth;
} wt_hf_refs_at;

/* wt_hf_visit for a name in a folder of refs: a ref file, or a folder of
** more ("refs/refs/pr/1"). */
static int wt_hf_refs_visit(wt_hf_scan_state *s, const char *path, const char *base, void *arg) {
  const wt_hf_refs_at *at = arg;
  char *name = wt_hf_join(at->prefix, base, s->err);
  wt_hf_refs_at sub;
  struct stat st;
  int rc = 0;
  if (name == NULL)
    return -1;
  sub.prefix = name;
  sub.depth = at->depth + 1;
  if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode))
    rc = 0; /* vanished, or not a file huggingface_hub writes */
  else if (S_ISDIR(st.st_mode) && sub.depth <= WT_HF_MAX_DEPTH)
    rc = wt_hf_each(s, path, wt_hf_refs_visit, &sub);
  else if (S_ISREG(st.st_mode))
    rc = wt_hf_ref_read(s, path, name);
  free(name);
  return rc;
}

/* Load the refs of the repo folder repo_dir into s. */
static int wt_hf_refs_load(wt_hf_scan_state *s, const char *repo_dir) {
  char *dir = wt_hf_join(repo_dir, "refs", s->err);
  wt_hf_refs_at top = {"", 0};
  int rc = dir ? wt_hf_each(s, dir, wt_hf_refs_visit, &top) : -1;
  free(dir);
  return rc;
}

/* Forget the refs of the last repo. */
static void wt_hf_refs_free(wt_hf_scan_state *s) {
  size_t i;
  for (i = 0; i < s->n_refs; i++) {
    free(s->refs[i].name);
    free(s->refs[i].commit);
  }
  free(s->refs);
  s->refs = NULL;
  s->n_refs = 0;
}

/* Compare two strings through pointers (qsort). */
static int wt_hf_strp_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the refs that point at revision, sorted and joined with
** commas, into *out (NULL when none).  0, or -1 when out of memory. */
static int wt_hf_refs_of(const wt_hf_scan_state *s, const char *revision, char **out) {
  const char **hit = NULL;
  size_t i, k = 0, len = 0;
  *out = NULL;
  for (i = 0; i < s->n_refs; i++)
    k += strcmp(s->refs[i].commit, revision) == 0;
  if (k == 0)
    return 0;
  hit = malloc(k * sizeof(*hit));
  if (hit == NULL)
    return -1;
  for (i = 0, k = 0; i < s->n_refs; i++) {
    if (strcmp(s->refs[i].commit, revision) == 0) {
      hit[k++] = s->refs[i].name;
      len += strlen(s->refs[i].name) + 1;
    }
  }
  qsort(hit, k, sizeof(*hit), wt_hf_strp_cmp);
  *out = malloc(len);
  if (*out != NULL) {
    (*out)[0] = 0;
    for (i = 0; i < k; i++) {
      if (i > 0)
        strcat(*out, ",");
      strcat(*out, hit[i]);
    }
  }
  free(hit);
  return *out ? 0 : -1;
}

/* ---- entries ---- */

/* Free the strings of one entry. */
static void wt_hf_entry_free(wt_hf_entry *e) {
  free(e->path);
  free(e->blob);
  free(e->repo_id);
  free(e->revision);
  free(e->refs);
  free(e->expected_sha256);
}

/* A copy of the last part of path when it is 64 lower-case hex digits,
** else NULL (*oom set when out of memory). */
static char *wt_hf_sha_name(const char *path, int *oom) {
  const char *base = strrchr(path, '/');
  char *r;
  base = base ? base + 1 : path;
  if (!wt_hf_hex(base, 64))
    return NULL;
  r = strdup(base);
  *oom |= r == NULL;
  return r;
}

/* Where the symlink at path resolves to, into e->blob (NULL when it does
** not resolve), and its expected SHA-256. */
static int wt_hf_resolve_link(wt_hf_scan_state *s, const char *path, wt_hf_entry *e, int *oom) {
  char q[WT_HF_QUOTE], target[PATH_MAX];
  struct stat st;
  ssize_t k;
  e->blob = realpath(path, NULL);
  if (e->blob != NULL) {
    if (stat(e->blob, &st) == 0 && S_ISDIR(st.st_mode))
      return 1; /* a symlink to a directory: not a file, not followed */
    e->expected_sha256 = wt_hf_sha_name(e->blob, oom);
    return 0;
  }
  if (errno == ENOMEM)
    return wt_hf_oom(s->err);
  if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
    return wt_fail(s->err, "cannot resolve symlink %s: %s", wt_hf_q(q, path), strerror(errno));
  k = readlink(path, target, sizeof(target) - 1);
  if (k >= 0) {
    target[k] = 0;
    e->expected_sha256 = wt_hf_sha_name(target, oom);
  }
  return 0;
}

/* Add the file at path (its lstat() in st) to the list, for revision
** (NULL for a blob); directories, FIFOs and such are left out. */
static int wt_hf_add(wt_hf_scan_state *s, const char *path, const struct stat *st,
                     const char *revision, const char *refs, int incomplete) {
  wt_hf_entry e;
  int oom = 0, rc = 0;
  if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
    return 0;
  if (s->out->n == WT_HF_MAX_ENTRIES)
    return wt_fail(s->err, "more than %d files in the cache (the limit of one scan)",
                   WT_HF_MAX_ENTRIES);
  memset(&e, 0, sizeof(e));
  if (S_ISLNK(st->st_mode)) {
    rc = wt_hf_resolve_link(s, path, &e, &oom);
  } else if ((e.blob = realpath(path, NULL)) != NULL) {
    e.expected_sha256 = wt_hf_sha_name(e.blob, &oom);
  } else if (errno == ENOENT) {
    rc = 1; /* vanished meanwhile */
  } else {
    char q[WT_HF_QUOTE];
    rc = wt_fail(s->err, "cannot resolve %s: %s", wt_hf_q(q, path), strerror(errno));
  }
  if (incomplete) {
    free(e.expected_sha256);
    e.expected_sha256 = NULL;
  }
  e.path = strdup(path);
  e.repo_id = strdup(s->repo_id);
  e.kind = s->kind;
  e.revision = revision ? strdup(revision) : NULL;
  e.refs = refs ? strdup(refs) : NULL;
  e.incomplete = incomplete;
  oom |= !e.path || !e.repo_id || (revision && !e.revision) || (refs && !e.refs);
  if (rc == 0 && oom)
    rc = wt_hf_oom(s->err);
  if (rc == 0 && s->out->n == s->cap) {
    size_t c = s->cap ? 2 * s->cap : 64;
    wt_hf_entry *p = realloc(s->out->e, c * sizeof(*p));
    if (p == NULL)
      rc = wt_hf_oom(s->err);
    else {
      s->out->e = p;
      s->cap = c;
    }
  }
  if (rc != 0) {
    wt_hf_entry_free(&e);
    return rc < 0 ? -1 : 0;
  }
  s->out->e[s->out->n++] = e;
  return 0;
}

/* Where a walk of a snapshot is. */
typedef struct wt_hf_walk_at {
  const char *revision, *refs;
  int depth; /* folders below where the walk began */
} wt_hf_walk_at;

/* wt_hf_visit for a name in a snapshot: a folder to enter, or a file. */
static int wt_hf_walk_visit(wt_hf_scan_state *s, const char *path, const char *name, void *arg) {
  const wt_hf_walk_at *at = arg;
  wt_hf_walk_at sub = *at;
  char q[WT_HF_QUOTE];
  struct stat st;
  (void)name;
  if (lstat(path, &st) != 0)
    return errno == ENOENT
               ? 0
               : wt_fail(s->err, "cannot stat %s: %s", wt_hf_q(q, path), strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return wt_hf_add(s, path, &st, at->revision, at->refs, 0);
  if (++sub.depth > WT_HF_MAX_DEPTH)
    return wt_fail(s->err, "%s is more than %d folders deep in its snapshot", wt_hf_q(q, path),
                   WT_HF_MAX_DEPTH);
  return wt_hf_each(s, path, wt_hf_walk_visit, &sub);
}

/* Add the snapshot folder (or folder or file inside one) at path. */
static int wt_hf_snapshot(wt_hf_scan_state *s, const char *path, const char *revision) {
  char q[WT_HF_QUOTE], *refs;
  struct stat st;
  int rc;
  if (wt_hf_refs_of(s, revision, &refs))
    return wt_hf_oom(s->err);
  rc = 0;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    wt_hf_walk_at top = {revision, refs, 0};
    rc = wt_hf_each(s, path, wt_hf_walk_visit, &top);
  } else if (lstat(path, &st) == 0)
    rc = wt_hf_add(s, path, &st, revision, refs, 0);
  else
    rc = errno == ENOENT ? 0
                         : wt_fail(s->err, "cannot stat %s: %s", wt_hf_q(q, path), strerror(errno));
  free(refs);
  return rc;
}

/* wt_hf_visit for a name in snapshots/: a revision's folder (a file there
** is no revision). */
static int wt_hf_snapshots_visit(wt_hf_scan_state *s, const char *path, const char *name,
                                 void *arg) {
  (void)arg;
  return wt_hf_is_dir(path) ? wt_hf_snapshot(s, path, name) : 0;
}

/* wt_hf_visit for a name in blobs/: a blob, when *only_incomplete is 0
** or it is an incomplete one. */
static int wt_hf_blobs_visit(wt_hf_scan_state *s, const char *path, const char *name, void *arg) {
  const int *only_incomplete = arg;
  int inc = wt_hf_ends(name, ".incomplete");
  struct stat st;
  if ((*only_incomplete && !inc) || lstat(path, &st) != 0) /* or it vanished */
    return 0;
  return wt_hf_add(s, path, &st, NULL, NULL, inc);
}

/* Add a whole repo folder at dir: its snapshots and incomplete blobs. */
static int wt_hf_repo(wt_hf_scan_state *s, const char *dir) {
  char *snap = wt_hf_join(dir, "snapshots", s->err);
  char *blobs = snap ? wt_hf_join(dir, "blobs", s->err) : NULL;
  int only_incomplete = 1;
  int rc = blobs ? wt_hf_refs_load(s, dir) : -1;
  if (rc == 0)
    rc = wt_hf_each(s, snap, wt_hf_snapshots_visit, NULL);
  if (rc == 0)
    rc = wt_hf_each(s, blobs, wt_hf_blobs_visit, &only_incomplete);
  wt_hf_refs_free(s);
  free(snap);
  free(blobs);
  return rc;
}

/* wt_hf_visit for a name in the hub: a repo folder, or something else. */
static int wt_hf_hub_visit(wt_hf_scan_state *s, const char *path, const char *name, void *arg) {
  size_t skip;
  const char *kind = wt_hf_kind(name, &skip);
  char *id;
  int rc;
  (void)arg;
  if (kind == NULL || !wt_hf_repo_shape(path))
    return 0;
  id = wt_hf_repo_id(name + skip);
  if (id == NULL)
    return wt_hf_oom(s->err);
  s->kind = kind;
  s->repo_id = id;
  rc = wt_hf_repo(s, path);
  s->repo_id = NULL;
  free(id);
  return rc;
}

/* Order entries by path. */
static int wt_hf_entry_cmp(const void *a, const void *b) {
  return strcmp(((const wt_hf_entry *)a)->path, ((const wt_hf_entry *)b)->path);
}

int wt_hf_scan(const char *path, wt_hf_list *out, wt_error *err) {
  wt_hf_scan_state s;
  wt_hf_where w;
  struct stat st;
  int rc = wt_hf_where_of(path, &w);
  memset(out, 0, sizeof(*out));
  if (rc <= 0)
    return rc < 0 ? wt_hf_oom(err)
                  : wt_fail(err, "not in a Hugging Face hub cache (no models--, datasets-- or "
                                 "spaces-- folder with snapshots/, blobs/ or refs/)");
  memset(&s, 0, sizeof(s));
  s.out = out;
  s.err = err;
  s.kind = w.p.kind;
  s.repo_id = w.p.repo_id;
  rc = 0;
  if (lstat(path, &st) != 0) {
    char q[WT_HF_QUOTE];
    rc = wt_fail(err, "cannot stat %s: %s", wt_hf_q(q, path), strerror(errno));
  } else if (w.scope == WT_HF_HUB)
    rc = wt_hf_each(&s, path, wt_hf_hub_visit, NULL);
  else if (w.scope == WT_HF_REPO)
    rc = wt_hf_repo(&s, path);
  else if (w.scope == WT_HF_SNAPSHOTS || w.scope == WT_HF_SNAPSHOT) {
    rc = wt_hf_refs_load(&s, w.p.repo_dir);
    if (rc == 0)
      rc = w.scope == WT_HF_SNAPSHOTS ? wt_hf_each(&s, path, wt_hf_snapshots_visit, NULL)
                                      : wt_hf_snapshot(&s, path, w.p.revision);
    wt_hf_refs_free(&s);
  } else if (w.scope == WT_HF_BLOBS) {
    int all = 0;
    rc = wt_hf_each(&s, path, wt_hf_blobs_visit, &all);
  } else if (w.scope == WT_HF_BLOB)
    rc = wt_hf_add(&s, path, &st, NULL, NULL, wt_hf_ends(path, ".incomplete"));
  wt_hf_place_free(&w.p);
  if (rc != 0) {
    wt_hf_list_free(out);
    return -1;
  }
  if (out->n > 1)
    qsort(out->e, out->n, sizeof(*out->e), wt_hf_entry_cmp);
  return 0;
}

void wt_hf_list_free(wt_hf_list *l) {
  size_t i;
  for (i = 0; i < l->n; i++)
    wt_hf_entry_free(&l->e[i]);
  free(l->e);
  l->e = NULL;
  l->n = 0;
}
