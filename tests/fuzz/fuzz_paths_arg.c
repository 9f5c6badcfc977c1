/*
** fuzz_paths_arg.c: libFuzzer target for the reading of a path argument:
** the pure classifier and "~" expansion of ext/io/paths_arg.c, and then
** the whole of wt_paths_expand() (the directory listing, "**" walks,
** glob(3) patterns, the grouping into models) on a fixed tree in /dev/shm
** that holds every kind of entry a folder can: model files, look-alikes,
** plain files, an index and its shard (one missing), split parts, names
** with glob characters, a symlink, dangling symlinks, a FIFO, a symlink
** loop, an empty folder, a hidden file.
**
** Input: byte 0 is the format asked (mod 3); byte 1 the length of the
** $HOME used by the pure "~" check (its bytes follow; a home of more than
** 200 bytes is stretched towards PATH_MAX, so that the length limit is
** met); the rest is the path argument.
** Checks, beside "no crash, no sanitizer report":
**   - wt_paths_home: "~" or "~/x" becomes home and the rest, anything
**     else is unchanged; an error exactly when home is empty or the result
**     would not fit in PATH_MAX bytes with its NUL;
**   - wt_paths_classify, for each of the four stat(2) outcomes, against
**     the harness's own reading of paths.h's rules; a walk's root and "/"
**     then "**" give the argument back;
**   - wt_paths_expand of the argument (when it names nothing outside the
**     tree: not absolute, no ".." nor a component that glob(3) lets match
**     it, not a URL), run in the tree with $HOME
**     the tree: an error only for a glob that matches no regular file
**     (glob(3) asked here), a walk whose root is no directory, or a NUL
**     byte; otherwise paths are unique, each file's `exists` is what
**     stat(2) says, a missing shard or part does not exist, models point
**     at listed files; a directory lists exactly the model files the tree
**     has in it, a walk exactly those below its root (by device and inode,
**     from the table here, not by a listing of ours), a glob every regular
**     file glob(3) matches (and for a pattern of one name, every one that
**     fnmatch(3) matches among the tree's top entries) and nothing else but
**     the shards and parts their models name; any other argument is
**     listed under its own name.
** An argument named like a part of a split of more than 200 parts is only
** classified (listing 99,999 takes seconds under ASan; tests/paths.test
** lists 20,000).  The tree is removed at exit.  Built by `make fuzz`.
*/
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/http.h"
#include "paths/paths.h"
#include "paths/paths_int.h"
#include "remote/url.h"

/* The tree: kind 'f' file (content), 'l' symlink (target), 'p' FIFO, 'd'
** folder; model: a model file of a directory scan (paths.h). */
typedef struct entry {
  char kind;
  const char *path, *data;
  size_t len;
  int model;
  dev_t dev;
  ino_t ino; /* lstat(2) of the entry, once made */
} entry;

#define GGUF_BYTES                                                                                 \
  "GGUF\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000"
#define ST_BYTES "\002\000\000\000\000\000\000\000{}"

static entry tree[] = {
    {'f', "x.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "y.safetensors", ST_BYTES, 10, 1, 0, 0},
    {'f', "README.md", "# a model\n", 10, 0, 0, 0},
    {'f', "blob", GGUF_BYTES, 24, 1, 0, 0}, /* a model by its bytes */
    {'f', "page", "<!DOCTYPE html><html><body>x</body></html>\n", 44, 1, 0, 0}, /* a look-alike */
    {'f', "plain.json", "{\"a\": 1}\n", 9, 0, 0, 0},
    {'f', "m.safetensors.index.json",
     "{\"weight_map\": {\"a\": \"m-1.safetensors\", \"b\": \"m-2.safetensors\"}}", 65, 1, 0, 0},
    {'f', "m-1.safetensors", ST_BYTES, 10, 1, 0, 0},
    {'f', "s-00001-of-00002.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "s-00002-of-00002.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "t-00002-of-00003.gguf", GGUF_BYTES, 24, 1, 0, 0}, /* parts 1 and 3 missing */
    {'f', "[x].gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "q?.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'l', "link.gguf", "x.gguf", 0, 1, 0, 0},
    {'l', "dang.gguf", "nowhere", 0, 1, 0, 0},
    {'l', "dang.txt", "nowhere", 0, 0, 0, 0},
    {'p', "fifo", NULL, 0, 0, 0, 0},
    {'d', "sub", NULL, 0, 0, 0, 0},
    {'f', "sub/a.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "sub/.hidden.gguf", GGUF_BYTES, 24, 1, 0, 0},
    {'f', "sub/c.json", "{\"weight_map\": {\"t\": \"a.safetensors\"}}", 38, 0, 0, 0},
    {'d', "sub/deeper", NULL, 0, 0, 0, 0},
    {'f', "sub/deeper/b.safetensors", ST_BYTES, 10, 1, 0, 0},
    {'l', "sub/deeper/self", ".", 0, 0, 0, 0}, /* a loop */
    {'d', "emp", NULL, 0, 0, 0, 0},
    {'d', "g[1]", NULL, 0, 0, 0, 0},
    {'f', "g[1]/z.gguf", GGUF_BYTES, 24, 1, 0, 0},
};
#define N_TREE (sizeof(tree) / sizeof(tree[0]))

static char root[64];
static int home_fd = -1; /* where the fuzzer was started */
static dev_t root_dev;
static ino_t root_ino;

static void cleanup(void) {
  char p[128];
  snprintf(p, sizeof p, "rm -rf '%s'", root);
  if (system(p) != 0)
    fprintf(stderr, "fuzz_paths_arg: could not remove %s\n", root);
}

/* Make the tree (folders come before their entries in the table), from
** inside it.  (The fuzzer's own folders are relative to where it was
** started: the harness goes back there after each run in the tree.) */
static void make_tree(void) {
  struct stat st;
  size_t i;
  snprintf(root, sizeof root, "/dev/shm/fuzz_paths_arg.%d", (int)getpid());
  if ((home_fd = open(".", O_RDONLY | O_DIRECTORY)) < 0 || mkdir(root, 0700) != 0 ||
      chdir(root) != 0 || setenv("HOME", root, 1) != 0)
    abort();
  atexit(cleanup);
  for (i = 0; i < N_TREE; i++) {
    entry *e = &tree[i];
    FILE *f;
    int rc = 0;
    if (e->kind == 'f') {
      f = fopen(e->path, "wb");
      rc = f == NULL || fwrite(e->data, 1, e->len, f) != e->len || fclose(f) != 0;
    } else if (e->kind == 'l') {
      rc = symlink(e->data, e->path);
    } else if (e->kind == 'p') {
      rc = mkfifo(e->path, 0600);
    } else {
      rc = mkdir(e->path, 0700);
    }
    if (rc != 0 || lstat(e->path, &st) != 0)
      abort();
    e->dev = st.st_dev;
    e->ino = st.st_ino;
  }
  if (stat(".", &st) != 0)
    abort();
  root_dev = st.st_dev;
  root_ino = st.st_ino;
  if (fchdir(home_fd) != 0)
    abort();
}

/* The folder of the tree that dir is (by stat(2)): "" for the top, its
** path, or NULL when dir is none of them. */
static const char *tree_dir(const char *dir) {
  struct stat st;
  size_t i;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return NULL;
  if (st.st_dev == root_dev && st.st_ino == root_ino)
    return "";
  for (i = 0; i < N_TREE; i++)
    if (tree[i].kind == 'd' && tree[i].dev == st.st_dev && tree[i].ino == st.st_ino)
      return tree[i].path;
  return NULL;
}

/* True when tree entry e is directly in folder d ("" the top), or below it
** when deep. */
static int entry_in(const entry *e, const char *d, int deep) {
  size_t n = strlen(d);
  const char *rest;
  if (n > 0 && (strncmp(e->path, d, n) != 0 || e->path[n] != '/'))
    return 0;
  rest = e->path + (n > 0 ? n + 1 : 0);
  return deep || strchr(rest, '/') == NULL;
}

/* lstat(2) of each listed file (dev 0 and ino 0: none, or a missing one). */
typedef struct file_id {
  dev_t dev;
  ino_t ino;
} file_id;

static file_id *list_ids(const wt_pathlist *l) {
  file_id *id = calloc(l->n + 1, sizeof *id);
  struct stat st;
  size_t i;
  if (id == NULL)
    abort();
  for (i = 0; i < l->n; i++)
    if (l->files[i].role != WT_ROLE_MISSING && lstat(l->files[i].path, &st) == 0) {
      id[i].dev = st.st_dev;
      id[i].ino = st.st_ino;
    }
  return id;
}

/* The listed file whose lstat(2) is entry e's, or -1. */
static long find_entry(const wt_pathlist *l, const file_id *id, const entry *e) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (id[i].ino == e->ino && id[i].dev == e->dev)
      return (long)i;
  return -1;
}

/* The listed file named path, or -1. */
static long find_path(const wt_pathlist *l, const char *path) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (strcmp(l->files[i].path, path) == 0)
      return (long)i;
  return -1;
}

static void fail(const char *what, const char *arg) {
  fprintf(stderr, "fuzz_paths_arg: %s: argument '%s'\n", what, arg);
  abort();
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The checks every successful expansion passes. */
static void check_list(const wt_pathlist *l, const char *arg) {
  const char **sorted;
  char *in_model = calloc(l->n + 1, 1);
  size_t i, j, k;
  struct stat st;
  if (in_model == NULL)
    abort();
  for (i = 0; i < l->n_models; i++) {
    const wt_path_model *m = &l->models[i];
    if (m->name_file >= l->n || m->n_present > m->n_parts)
      fail("a model names no file", arg);
    in_model[m->name_file] = 1;
    for (k = 0; k < m->n_parts; k++) {
      if (m->parts[k] >= l->n)
        fail("a model part out of range", arg);
      in_model[m->parts[k]] = 1;
    }
  }
  for (i = 0; i < l->n; i++) {
    const wt_path_file *f = &l->files[i];
    if (f->role < WT_ROLE_DATA || f->role > WT_ROLE_INCOMPLETE)
      fail("a role out of range", arg);
    if (f->exists != (stat(f->path, &st) == 0))
      fail("exists is not what stat says", arg);
    if (f->role == WT_ROLE_MISSING && (lstat(f->path, &st) == 0 || !in_model[i]))
      fail("a missing file exists or is no model's", arg);
    if (f->role == WT_ROLE_DUPLICATE && (f->same_as >= l->n || f->same_as == i))
      fail("a duplicate of no file", arg);
  }
  /* unique paths: sorted copies, neighbours differ (a split of 99,999
  ** parts lists as many files) */
  sorted = malloc((l->n + 1) * sizeof *sorted);
  if (sorted == NULL)
    abort();
  for (i = 0; i < l->n; i++)
    sorted[i] = l->files[i].path;
  qsort(sorted, l->n, sizeof *sorted, cmp_str);
  for (j = 1; j < l->n; j++)
    if (strcmp(sorted[j - 1], sorted[j]) == 0)
      fail("a path listed twice", arg);
  free(sorted);
  free(in_model);
}

/* True when name ends like a model file's name (the rule of paths.h,
** written here again). */
static int model_named(const char *name) {
  static const char *const ends[] = {".safetensors", ".gguf", ".safetensors.index.json"};
  size_t i, n = strlen(name);
  for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
    if (n >= strlen(ends[i]) && strcmp(name + n - strlen(ends[i]), ends[i]) == 0)
      return 1;
  return 0;
}

/* The files glob(3) finds for pattern that a glob lists (0 when none):
** regular files, and what is named like a model but is no regular file
** nor a directory (a FIFO, a dangling link, a loop of links: listed with
** its error).  When l is not NULL each must be listed, and matched[i] is
** set for listed file i. */
static size_t glob_regular(const char *pattern, const wt_pathlist *l, char *matched,
                           const char *arg) {
  glob_t g;
  size_t i, found = 0;
  struct stat st;
  long k;
  memset(&g, 0, sizeof g);
  if (glob(pattern, 0, NULL, &g) == 0) {
    for (i = 0; i < g.gl_pathc; i++) {
      int is_file = stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode);
      int is_dir = stat(g.gl_pathv[i], &st) == 0 && S_ISDIR(st.st_mode);
      if (!is_file && (is_dir || !model_named(g.gl_pathv[i])))
        continue;
      found++;
      if (l == NULL)
        continue;
      if ((k = find_path(l, g.gl_pathv[i])) < 0)
        fail("a file the glob matches is not listed", arg);
      matched[k] = 1;
    }
  }
  globfree(&g);
  return found;
}

/* True when listed file i is in a model (its name file or a part) with a
** file the glob matched: the grouping brought it in. */
static int brought_in(const wt_pathlist *l, size_t i, const char *matched) {
  size_t m, k, j;
  for (m = 0; m < l->n_models; m++) {
    const wt_path_model *md = &l->models[m];
    int has_i = md->name_file == i, has_match = matched[md->name_file];
    for (k = 0; k < md->n_parts; k++) {
      j = md->parts[k];
      has_i |= j == i;
      has_match |= matched[j];
    }
    if (has_i && has_match)
      return 1;
  }
  return 0;
}

/* Expand arg in the tree and check the result (see the top comment). */
static void check_expand(const char *arg, size_t n, int format) {
  wt_pathlist l;
  wt_error err;
  char path[PATH_MAX];
  size_t i, root_n, pn = n;
  const char *d;
  struct stat st;
  file_id *id;
  char *matched;
  int have, kind, rc;
  memcpy(path, arg, n);
  path[n] = 0;
  if (n > 0 && path[0] == '~' && (n == 1 || path[1] == '/')) { /* what the shell would do */
    snprintf(path, sizeof path, "%s%s", root, arg + 1);
    pn = strlen(path);
  }
  have = stat(path, &st) != 0  ? WT_STAT_NONE
         : S_ISDIR(st.st_mode) ? WT_STAT_DIR
         : S_ISREG(st.st_mode) ? WT_STAT_REG
                               : WT_STAT_OTHER;
  kind = wt_paths_classify(path, pn, have, &root_n);
  err.msg[0] = 0;
  rc = wt_paths_expand(arg, n, format, &l, &err);
  if (rc != 0) {
    char walk_root[PATH_MAX];
    if (err.msg[0] == 0)
      fail("an error without a message", arg);
    if (kind == WT_ARG_GLOB && glob_regular(path, NULL, NULL, arg) == 0)
      return;
    if (kind == WT_ARG_WALK) {
      memcpy(walk_root, path, root_n);
      walk_root[root_n] = 0;
      if (stat(root_n ? walk_root : ".", &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    }
    fprintf(stderr, "error: %s\n", err.msg);
    fail("an error where none was expected", arg);
  }
  check_list(&l, arg);
  id = list_ids(&l);
  matched = calloc(l.n + 1, 1);
  if (matched == NULL)
    abort();
  switch (kind) {
  case WT_ARG_DIR:
  case WT_ARG_WALK:
    if (kind == WT_ARG_WALK) {
      path[root_n] = 0;
      d = tree_dir(root_n ? path : ".");
    } else {
      d = tree_dir(path);
    }
    if (d == NULL)
      fail("a folder outside the tree", arg);
    for (i = 0; i < N_TREE; i++) {
      int want = tree[i].model && entry_in(&tree[i], d, kind == WT_ARG_WALK);
      if (want != (find_entry(&l, id, &tree[i]) >= 0))
        fail(want ? "a model file of the folder is not listed" : "a file listed that is none", arg);
    }
    for (i = 0; i < l.n; i++) { /* nothing from elsewhere, apart from missing ones */
      size_t k;
      if (l.files[i].role == WT_ROLE_MISSING)
        continue;
      for (k = 0; k < N_TREE && (tree[k].dev != id[i].dev || tree[k].ino != id[i].ino); k++)
        ;
      if (k == N_TREE)
        fail("a listed file that is not one of the tree", arg);
    }
    break;
  case WT_ARG_GLOB:
    glob_regular(path, &l, matched, arg);
    for (i = 0; i < l.n; i++)
      if (!matched[i] && !brought_in(&l, i, matched))
        fail("a listed file that the glob does not match", arg);
    if (strchr(path, '/') == NULL && strchr(path, '\\') == NULL) {
      for (i = 0; i < N_TREE; i++)
        if (strchr(tree[i].path, '/') == NULL && stat(tree[i].path, &st) == 0 &&
            S_ISREG(st.st_mode) && fnmatch(path, tree[i].path, FNM_PERIOD) == 0 &&
            find_path(&l, tree[i].path) < 0)
          fail("a top file that fnmatch matches is not listed", arg);
    }
    break;
  default: /* a URL is not expanded here */
    if (find_path(&l, path) < 0)
      fail("the argument is not listed under its name", arg);
  }
  free(id);
  free(matched);
  wt_pathlist_free(&l);
}

/* True when arg[0..n) is absolute or a component may name "..": one that is "..", or
** one that starts with '.' (after any '\\', which glob(3) drops) and holds a
** wildcard, which glob(3) lets match "." and "..".  Such an argument may
** reach outside the tree (".*" then "/" then "*" lists the parent). */
static int leaves_tree(const char *arg, size_t n) {
  size_t i = 0;
  while (i < n && arg[i] == '\\')
    i++;
  if (i < n && arg[i] == '/')
    return 1; /* absolute, "\\/" too */
  i = 0;
  while (i < n) {
    size_t e = i, k;
    int dots = 0, other = 0, wild = 0, first = 1;
    while (e < n && arg[e] != '/')
      e++;
    for (k = i; k < e; k++) {
      if (arg[k] == '\\')
        continue; /* glob(3) reads the next byte as itself */
      if (first && arg[k] != '.')
        break; /* no leading '.': cannot match ".." */
      first = 0;
      if (arg[k] == '.')
        dots++;
      else if (arg[k] == '*' || arg[k] == '?' || arg[k] == '[')
        wild = 1;
      else
        other = 1;
    }
    if (!first && ((dots == 2 && !other && !wild) || wild))
      return 1;
    i = e + 1;
  }
  return 0;
}

/* The pure "~" expansion against a reading of it done here. */
static void check_home(const char *arg, size_t n, const char *home) {
  char buf[PATH_MAX], want[PATH_MAX + 1];
  wt_error err;
  size_t len = n, hn = strlen(home);
  int tilde = n > 0 && arg[0] == '~' && (n == 1 || arg[1] == '/'), rc;
  if (n >= PATH_MAX)
    return;
  memcpy(buf, arg, n);
  buf[n] = 0;
  rc = wt_paths_home(buf, &len, home, &err);
  if (!tilde) {
    if (rc != 0 || len != n || memcmp(buf, arg, n) != 0 || buf[n] != 0)
      abort();
    return;
  }
  if (hn == 0 || hn + n - 1 >= PATH_MAX) {
    if (rc == 0)
      abort();
    return;
  }
  memcpy(want, home, hn);
  memcpy(want + hn, arg + 1, n - 1);
  if (rc != 0 || len != hn + n - 1 || memcmp(buf, want, len) != 0 || buf[len] != 0)
    abort();
}

/* The classifier against the rules of paths.h, read here. */
static void check_classify(const char *p, size_t n) {
  int st;
  for (st = WT_STAT_NONE; st <= WT_STAT_OTHER; st++) {
    size_t root_n, at;
    int part, kind = wt_paths_classify(p, n, st, &root_n), want;
    int url = (n >= 7 && strncasecmp(p, "http://", 7) == 0) ||
              (n >= 8 && strncasecmp(p, "https://", 8) == 0) ||
              (n >= 5 && strncasecmp(p, "hf://", 5) == 0);
    int json = n >= 5 && memcmp(p + n - 5, ".json", 5) == 0;
    int stars = n >= 2 && p[n - 1] == '*' && p[n - 2] == '*' && (n == 2 || p[n - 3] == '/');
    int pattern = 0;
    size_t i;
    for (i = 0; i < n; i++)
      pattern |= p[i] == '*' || p[i] == '?' || p[i] == '[';
    if (url)
      want = WT_ARG_URL;
    else if (st == WT_STAT_DIR)
      want = WT_ARG_DIR;
    else if (st == WT_STAT_REG && wt_split_name(p, n, &part, &at) > 0 && part == 1)
      want = WT_ARG_SPLIT;
    else if (st == WT_STAT_REG && json)
      want = WT_ARG_JSON;
    else if (st != WT_STAT_NONE)
      want = WT_ARG_FILE;
    else if (stars)
      want = WT_ARG_WALK;
    else if (pattern)
      want = WT_ARG_GLOB;
    else
      want = WT_ARG_FILE;
    if (kind != want)
      abort();
    if (kind == WT_ARG_WALK) {
      /* the root then "/" then "**" is the argument ("**" alone: no root) */
      if (n == 2 ? root_n != 0
                 : (n == 3 ? root_n != 1 : root_n != n - 3 || memcmp(p + root_n, "/**", 3) != 0))
        abort();
    } else if (root_n != 0) {
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char home[PATH_MAX + 1];
  static int made;
  const char *arg;
  size_t hn, n, i;
  wt_remote_register(); /* remote paths go to the HTTP source, as in the module */
  if (!made) {
    make_tree();
    made = 1;
  }
  if (size < 2 || (size_t)data[1] > size - 2)
    return 0;
  hn = data[1];
  memcpy(home, data + 2, hn);
  home[hn] = 0;
  hn = strlen(home);
  if (hn > 200) /* stretched towards PATH_MAX: the length limit */
    for (i = hn; i < PATH_MAX - 512 + hn; i++)
      home[i] = home[i % hn];
  home[hn > 200 ? PATH_MAX - 512 + hn : hn] = 0;
  arg = (const char *)data + 2 + data[1];
  n = size - 2 - data[1];
  check_home(arg, n, home);
  check_classify(arg, n);
  if (memchr(arg, 0, n) == NULL && n < 256 && (n == 0 || arg[0] != '/') &&
      !wt_url_is_remote(arg, n)) {
    if (leaves_tree(arg, n))
      return 0;
    char shown[256];
    size_t at;
    int part;
    memcpy(shown, arg, n);
    shown[n] = 0;
    if (wt_split_name(shown, n, &part, &at) > 200)
      return 0; /* 99,999 parts take seconds under ASan; tests/paths.test has 20,000 */
    if (chdir(root) != 0)
      abort();
    check_expand(shown, n, data[0] % 3);
    if (fchdir(home_fd) != 0)
      abort();
  }
  return 0;
}
