/*
** hf_locate.c: what a path is in a Hugging Face hub cache (wt_hf_locate,
** hf_cache.h), and the helpers the scan shares (hf_locate.h).  Pure C,
** file system only: the paths layer.
**
** The path's parts are read from the end; the last one named like a repo
** folder ("models--ORG--NAME") that has the structure of one is the repo,
** and what follows it says where in the repo the path is.  When the text
** of the path shows no repo (".", "..", a symlink to a snapshot), its
** directory is resolved with realpath() and read again.
*/
#define _GNU_SOURCE
#include "hf_locate.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A path split into its parts ("" and "." dropped). */
typedef struct wt_hf_parts {
  char *buf;  /* the path, with NULs for the slashes */
  char **c;   /* the parts */
  size_t n;   /* how many */
  int abs;    /* it started with '/' */
  int dotdot; /* a part is ".." */
} wt_hf_parts;

/* ---- helpers (hf_locate.h) ---- */

/* Quote path for a message. */
const char *wt_hf_q(char *buf, const char *path) {
  return wt_quote(buf, WT_HF_QUOTE, path, strlen(path));
}

/* "dir/name" in a new string (no doubled slash when dir ends in one),
** or NULL with err set when it is longer than PATH_MAX or out of memory. */
char *wt_hf_join(const char *dir, const char *name, wt_error *err) {
  size_t dn = strlen(dir), nn = strlen(name);
  int slash = dn > 0 && dir[dn - 1] != '/';
  char *p;
  if (dn + slash + nn >= PATH_MAX) {
    char q[WT_HF_QUOTE], qn[WT_HF_QUOTE];
    wt_fail(err, "the path of %s in %s is longer than PATH_MAX (%d bytes)", wt_hf_q(qn, name),
            wt_hf_q(q, dir), PATH_MAX);
    return NULL;
  }
  p = malloc(dn + slash + nn + 1);
  if (p == NULL) {
    wt_fail(err, "out of memory");
    return NULL;
  }
  memcpy(p, dir, dn);
  if (slash)
    p[dn] = '/';
  memcpy(p + dn + slash, name, nn + 1);
  return p;
}

/* The kind of repo a folder name stands for ("model", "dataset",
** "space"), with *skip set to the length of its prefix; NULL when the name
** is not a repo folder's. */
const char *wt_hf_kind(const char *name, size_t *skip) {
  static const struct {
    const char *prefix, *kind;
  } kinds[] = {{"models--", "model"}, {"datasets--", "dataset"}, {"spaces--", "space"}};
  size_t i;
  for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    size_t k = strlen(kinds[i].prefix);
    if (strncmp(name, kinds[i].prefix, k) == 0 && name[k] != 0) {
      *skip = k;
      return kinds[i].kind;
    }
  }
  return NULL;
}

/* The repo id of a folder name's rest: every "--" read as "/". */
char *wt_hf_repo_id(const char *rest) {
  char *id = malloc(strlen(rest) + 1), *o = id;
  if (id == NULL)
    return NULL;
  while (*rest) {
    if (rest[0] == '-' && rest[1] == '-') {
      *o++ = '/';
      rest += 2;
    } else {
      *o++ = *rest++;
    }
  }
  *o = 0;
  return id;
}

/* Whether path is a directory (symlinks followed). */
int wt_hf_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether dir holds a snapshots/, blobs/ or refs/ directory. */
int wt_hf_repo_shape(const char *dir) {
  static const char *const subs[] = {"snapshots", "blobs", "refs"};
  char buf[PATH_MAX];
  size_t i;
  for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
    int n = snprintf(buf, sizeof(buf), "%s/%s", dir, subs[i]);
    if (n > 0 && n < (int)sizeof(buf) && wt_hf_is_dir(buf))
      return 1;
  }
  return 0;
}

/* Whether dir/name is a repo folder: its name and its structure. */
static int wt_hf_is_repo(const char *dir, const char *name) {
  char buf[PATH_MAX];
  size_t skip;
  int n;
  if (wt_hf_kind(name, &skip) == NULL)
    return 0;
  n = snprintf(buf, sizeof(buf), "%s/%s", dir, name);
  return n > 0 && n < (int)sizeof(buf) && wt_hf_repo_shape(buf);
}

/* Whether dir is a hub: a directory holding a repo folder. */
static int wt_hf_is_hub(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *de;
  int found = 0;
  if (d == NULL)
    return 0;
  while (!found && (de = readdir(d)) != NULL)
    found = wt_hf_is_repo(dir, de->d_name);
  closedir(d);
  return found;
}

/* ---- locating ---- */

/* Split path into parts; 0, or -1 when out of memory. */
static int wt_hf_split(const char *path, wt_hf_parts *x) {
  char *s, *tok;
  memset(x, 0, sizeof(*x));
  x->buf = strdup(path);
  x->c = malloc((strlen(path) / 2 + 2) * sizeof(char *));
  if (x->buf == NULL || x->c == NULL)
    return -1;
  x->abs = path[0] == '/';
  for (tok = strtok_r(x->buf, "/", &s); tok != NULL; tok = strtok_r(NULL, "/", &s)) {
    if (strcmp(tok, ".") == 0)
      continue;
    x->dotdot |= strcmp(tok, "..") == 0;
    x->c[x->n++] = tok;
  }
  return 0;
}

/* Free the parts. */
static void wt_hf_parts_free(wt_hf_parts *x) {
  free(x->buf);
  free(x->c);
  memset(x, 0, sizeof(*x));
}

/* The first k parts as a path: "/" or "." for none.  NULL when out of
** memory. */
static char *wt_hf_prefix(const wt_hf_parts *x, size_t k) {
  size_t i, len = 2;
  char *p;
  for (i = 0; i < k; i++)
    len += strlen(x->c[i]) + 1;
  p = malloc(len);
  if (p == NULL)
    return NULL;
  p[0] = 0;
  if (k == 0)
    strcpy(p, x->abs ? "/" : ".");
  for (i = 0; i < k; i++) {
    if (i > 0 || x->abs)
      strcat(p, "/");
    strcat(p, x->c[i]);
  }
  return p;
}

/* The position of the last part that is a repo folder, or -1. */
static long wt_hf_find_repo(const wt_hf_parts *x) {
  size_t i, skip;
  for (i = x->n; i-- > 0;) {
    char *dir;
    int yes;
    if (wt_hf_kind(x->c[i], &skip) == NULL)
      continue;
    dir = wt_hf_prefix(x, i + 1);
    yes = dir != NULL && wt_hf_repo_shape(dir);
    free(dir);
    if (yes)
      return (long)i;
  }
  return -1;
}

/* Fill w for parts whose part i is the repo folder.  0, or -1 when out of
** memory. */
static int wt_hf_where_fill(const wt_hf_parts *x, size_t i, wt_hf_where *w) {
  size_t skip, rest = x->n - i - 1;
  const char *sub = rest > 0 ? x->c[i + 1] : "";
  w->p.kind = wt_hf_kind(x->c[i], &skip);
  w->p.root = wt_hf_prefix(x, i);
  w->p.repo_dir = wt_hf_prefix(x, i + 1);
  w->p.repo_id = wt_hf_repo_id(x->c[i] + skip);
  if (rest == 0)
    w->scope = WT_HF_REPO;
  else if (strcmp(sub, "snapshots") == 0)
    w->scope = rest == 1 ? WT_HF_SNAPSHOTS : WT_HF_SNAPSHOT;
  else if (strcmp(sub, "blobs") == 0)
    w->scope = rest == 1 ? WT_HF_BLOBS : rest == 2 ? WT_HF_BLOB : WT_HF_OTHER;
  else
    w->scope = WT_HF_OTHER;
  if (w->scope == WT_HF_SNAPSHOT)
    w->p.revision = strdup(x->c[i + 2]);
  if (!w->p.root || !w->p.repo_dir || !w->p.repo_id ||
      (w->scope == WT_HF_SNAPSHOT && !w->p.revision))
    return -1;
  return 0;
}

/* The path with its directory resolved: realpath(path) for a directory,
** else realpath(its directory) + "/" + its last part.  NULL when it
** cannot be resolved or out of memory. */
static char *wt_hf_resolve(const char *path, const wt_hf_parts *x) {
  char *dir, *r, *out;
  wt_error e;
  if (wt_hf_is_dir(path) || x->n == 0)
    return realpath(path, NULL);
  dir = wt_hf_prefix(x, x->n - 1);
  r = dir ? realpath(dir, NULL) : NULL;
  free(dir);
  if (r == NULL)
    return NULL;
  out = wt_hf_join(r, x->c[x->n - 1], &e);
  free(r);
  return out;
}

int wt_hf_where_of(const char *path, wt_hf_where *w) {
  wt_hf_parts x, y;
  char *r = NULL;
  long i = -1;
  int rc = -1;
  memset(w, 0, sizeof(*w));
  memset(&y, 0, sizeof(y));
  if (path[0] == 0 || strlen(path) >= PATH_MAX)
    return 0;
  if (wt_hf_split(path, &x))
    goto done;
  if (!x.dotdot && (i = wt_hf_find_repo(&x)) >= 0) {
    rc = wt_hf_where_fill(&x, (size_t)i, w) ? -1 : 1;
  } else if (wt_hf_is_dir(path) && wt_hf_is_hub(path)) {
    w->scope = WT_HF_HUB;
    w->p.root = x.dotdot ? realpath(path, NULL) : wt_hf_prefix(&x, x.n);
    rc = w->p.root ? 1 : -1;
  } else if ((r = wt_hf_resolve(path, &x)) == NULL) {
    rc = 0; /* it does not exist, or not in a cache */
  } else if (wt_hf_split(r, &y)) {
    rc = -1;
  } else {
    i = wt_hf_find_repo(&y);
    rc = i < 0 ? 0 : wt_hf_where_fill(&y, (size_t)i, w) ? -1 : 1;
  }
done:
  if (rc != 1)
    wt_hf_place_free(&w->p);
  wt_hf_parts_free(&x);
  wt_hf_parts_free(&y);
  free(r);
  return rc;
}

int wt_hf_locate(const char *path, wt_hf_place *out) {
  wt_hf_where w;
  int rc = wt_hf_where_of(path, &w);
  *out = w.p;
  return rc;
}

void wt_hf_place_free(wt_hf_place *p) {
  free(p->root);
  free(p->repo_dir);
  free(p->repo_id);
  free(p->revision);
  memset(p, 0, sizeof(*p));
}
