/*
** hf_cache_test.c: unit tests of the Hugging Face cache module
** (ext/paths/hf_locate.c, hf_scan.c) and of wt_sha256_file (ext/bytes/file_sha256.c).
**
**   hf_cache_test DIR     DIR is what tests/gen_hf_cache.py wrote
**                         (build/testdata/hf); one line per test, then
**                         "hf_cache: N passed, M failed"; exit 1 on failure
**
** The expected values come from outside the module: DIR/manifest.tsv,
** written by the generator from its own model of the tree it built (the
** realpath of each blob and the SHA-256 of its bytes from Python's
** os.path and hashlib); counts and refs stated in the generator's
** description; NIST test vectors for SHA-256; and small trees this
** program makes in a temporary directory for the cases that must not hang
** or must fail (a symlink loop, a symlink to a directory, folders nested
** too deep, an unreadable folder, a FIFO, a path over PATH_MAX).
*/
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/hf_cache.h"

static int n_pass, n_fail;
static char detail[8192];

/* Record one test's outcome. */
static void report(const char *name, int ok) {
  if (ok) {
    n_pass++;
    printf("ok   %s\n", name);
  } else {
    n_fail++;
    printf("FAIL %s: %s\n", name, detail);
  }
  detail[0] = 0;
}

/* "-" in the manifest is NULL. */
static int same(const char *want, const char *got) {
  if (strcmp(want, "-") == 0)
    return got == NULL;
  return got != NULL && strcmp(want, got) == 0;
}

/* Split line at TABs into at most max fields; returns how many. */
static int fields(char *line, char **f, int max) {
  int n = 0;
  char *s = line;
  line[strcspn(line, "\n")] = 0;
  while (n < max) {
    f[n++] = s;
    s = strchr(s, '\t');
    if (s == NULL)
      break;
    *s++ = 0;
  }
  return n;
}

/* Show a possibly NULL string. */
static const char *show(const char *s) {
  return s ? s : "NULL";
}

/* A manifest "locate" line. */
static void check_locate(char **f) {
  char name[PATH_MAX + 32];
  wt_hf_place p;
  int rc = wt_hf_locate(f[1], &p), ok;
  snprintf(name, sizeof(name), "locate %s", f[1]);
  ok = rc == atoi(f[2]) && same(f[3], p.root) && same(f[4], p.repo_dir) && same(f[5], p.kind) &&
       same(f[6], p.repo_id) && same(f[7], p.revision);
  if (!ok)
    snprintf(detail, sizeof(detail), "got %d root=%s repo_dir=%s kind=%s repo_id=%s revision=%s",
             rc, show(p.root), show(p.repo_dir), show(p.kind), show(p.repo_id), show(p.revision));
  report(name, ok);
  wt_hf_place_free(&p);
}

/* One manifest "entry" line against entry e: every field, and the hash
** of the blob's bytes. */
static int check_entry(char **f, const wt_hf_entry *e) {
  char hex[65], inc[8];
  wt_error err;
  snprintf(inc, sizeof(inc), "%d", e->incomplete);
  if (!same(f[1], e->path) || !same(f[2], e->blob) || !same(f[3], e->kind) ||
      !same(f[4], e->repo_id) || !same(f[5], e->revision) || !same(f[6], e->refs) ||
      !same(f[7], e->expected_sha256) || strcmp(f[8], inc) != 0) {
    snprintf(detail, sizeof(detail),
             "entry %s: got path=%s blob=%s kind=%s repo_id=%s revision=%s refs=%s expected=%s "
             "incomplete=%d",
             f[1], show(e->path), show(e->blob), show(e->kind), show(e->repo_id), show(e->revision),
             show(e->refs), show(e->expected_sha256), e->incomplete);
    return 0;
  }
  if (e->blob == NULL)
    return 1;
  if (wt_sha256_file(e->blob, hex, &err) != 0 || strcmp(hex, f[9]) != 0) {
    snprintf(detail, sizeof(detail), "sha256 of %s: got %s, want %s", e->blob,
             hex[0] ? hex : err.msg, f[9]);
    return 0;
  }
  return 1;
}

/* A manifest "scan" line and the n "entry" lines after it. */
static void check_scan(char **f, FILE *in) {
  char name[PATH_MAX + 32], line[8192], *g[16];
  size_t want = (size_t)atol(f[2]), i;
  wt_hf_list l;
  wt_error err;
  int ok = 1;
  snprintf(name, sizeof(name), "scan %s (%zu entries)", f[1], want);
  if (wt_hf_scan(f[1], &l, &err) != 0) {
    snprintf(detail, sizeof(detail), "failed: %s", err.msg);
    ok = 0;
  } else if (l.n != want) {
    snprintf(detail, sizeof(detail), "got %zu entries", l.n);
    ok = 0;
  }
  for (i = 0; i < want; i++) {
    if (fgets(line, sizeof(line), in) == NULL || fields(line, g, 16) != 10 ||
        strcmp(g[0], "entry") != 0) {
      snprintf(detail, sizeof(detail), "manifest: entry line %zu is missing", i);
      ok = 0;
      break;
    }
    if (ok && !check_entry(g, &l.e[i]))
      ok = 0;
  }
  report(name, ok);
  wt_hf_list_free(&l);
}

/* A manifest "scanerror" line: the scan fails, saying f[2]. */
static void check_scan_error(char **f) {
  char name[PATH_MAX + 32];
  wt_hf_list l;
  wt_error err;
  int rc = wt_hf_scan(f[1], &l, &err);
  snprintf(name, sizeof(name), "scan fails: %s", f[1]);
  if (rc == 0)
    snprintf(detail, sizeof(detail), "succeeded with %zu entries", l.n);
  else
    snprintf(detail, sizeof(detail), "error: %s", err.msg);
  report(name, rc == -1 && l.n == 0 && strstr(err.msg, f[2]) != NULL);
  wt_hf_list_free(&l);
}

/* Every line of the manifest. */
static void manifest(const char *dir) {
  char path[PATH_MAX], line[8192], *f[16];
  FILE *in;
  int n;
  snprintf(path, sizeof(path), "%s/manifest.tsv", dir);
  in = fopen(path, "r");
  if (in == NULL) {
    snprintf(detail, sizeof(detail), "%s: %s", path, strerror(errno));
    report("manifest", 0);
    return;
  }
  while (fgets(line, sizeof(line), in) != NULL) {
    n = fields(line, f, 16);
    if (strcmp(f[0], "locate") == 0 && n == 8)
      check_locate(f);
    else if (strcmp(f[0], "scan") == 0 && n == 3)
      check_scan(f, in);
    else if (strcmp(f[0], "scanerror") == 0 && n == 3)
      check_scan_error(f);
    else {
      snprintf(detail, sizeof(detail), "bad line: %s", f[0]);
      report("manifest", 0);
    }
  }
  fclose(in);
}

/* The facts the generator's description states, counted by hand: the hub
** holds 13 files (A: 4, B: 6 of which one dangling and one corrupt, one
** incomplete blob, one in the dataset, one in the space). */
static void hub_facts(const char *dir) {
  char hub[PATH_MAX], hex[65];
  wt_hf_list l;
  wt_error err;
  size_t i, inc = 0, dangling = 0, datasets = 0, spaces = 0, main_refs = 0, pr_refs = 0;
  size_t corrupt = 0, git_named = 0;
  const char *corrupt_path = "";
  snprintf(hub, sizeof(hub), "%s/hub", dir);
  if (wt_hf_scan(hub, &l, &err) != 0) {
    snprintf(detail, sizeof(detail), "%s", err.msg);
    report("hub facts", 0);
    return;
  }
  for (i = 0; i < l.n; i++) {
    const wt_hf_entry *e = &l.e[i];
    const char *base = strrchr(e->path, '/') + 1;
    inc += e->incomplete;
    dangling += e->blob == NULL;
    datasets += strcmp(e->kind, "dataset") == 0;
    spaces += strcmp(e->kind, "space") == 0;
    main_refs += e->refs && strcmp(e->refs, "main") == 0 && strcmp(e->repo_id, "org/tiny") == 0;
    pr_refs += e->refs && strcmp(e->refs, "refs/pr/1,v1.0") == 0;
    git_named += strcmp(base, "config.json") == 0 && e->expected_sha256 == NULL;
    if (e->blob && e->expected_sha256 && wt_sha256_file(e->blob, hex, &err) == 0 &&
        strcmp(hex, e->expected_sha256) != 0) {
      corrupt++;
      corrupt_path = e->path;
    }
  }
  snprintf(detail, sizeof(detail),
           "n=%zu incomplete=%zu dangling=%zu datasets=%zu spaces=%zu main=%zu pr=%zu corrupt=%zu "
           "(%s) config.json without sha256=%zu",
           l.n, inc, dangling, datasets, spaces, main_refs, pr_refs, corrupt, corrupt_path,
           git_named);
  report("hub facts: counts, refs, one corrupt blob, git-named config.json",
         l.n == 13 && inc == 1 && dangling == 1 && datasets == 1 && spaces == 1 && main_refs == 6 &&
             pr_refs == 4 && corrupt == 1 && strstr(corrupt_path, "/corrupt.safetensors") &&
             git_named == 2);
  wt_hf_list_free(&l);
}

/* ---- trees made here ---- */

/* Write text to path. */
static int put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fputs(text, f);
  return fclose(f);
}

/* sprintf into a static buffer (one at a time). */
static const char *at(const char *fmt, const char *a, const char *b) {
  static char buf[PATH_MAX * 2];
  snprintf(buf, sizeof(buf), fmt, a, b);
  return buf;
}

/* Hand-made trees under tmp. */
static void made_trees(const char tmp[256]) {
  char repo[512], snap[768], deep[1024], lock[768];
  wt_hf_list l;
  wt_hf_place p;
  wt_error err;
  int i, rc;
  snprintf(repo, sizeof(repo), "%s/hub/models--me--x", tmp);
  snprintf(snap, sizeof(snap), "%s/snapshots/r1", repo);
  mkdir(at("%s/hub", tmp, ""), 0755);
  mkdir(repo, 0755);
  mkdir(at("%s/snapshots", repo, ""), 0755);
  mkdir(snap, 0755);
  put(at("%s/%s", snap, "file.safetensors"), "x");
  symlink("loop", at("%s/%s", snap, "loop")); /* a symlink to itself */
  symlink(".", at("%s/%s", snap, "here"));    /* to its own folder */
  mkfifo(at("%s/%s", snap, "fifo"), 0644);    /* not a file to list */
  rc = wt_hf_scan(snap, &l, &err);
  snprintf(detail, sizeof(detail), "rc=%d n=%zu %s %s", rc, l.n, l.n ? l.e[0].path : "",
           l.n > 1 ? show(l.e[1].blob) : "");
  report("a symlink loop is dangling; a symlink to a folder and a FIFO are left out",
         rc == 0 && l.n == 2 && strstr(l.e[0].path, "/file.safetensors") && l.e[0].blob &&
             strstr(l.e[1].path, "/loop") && l.e[1].blob == NULL && l.e[1].refs == NULL);
  wt_hf_list_free(&l);

  /* "." and a bare file name from inside a snapshot: found through realpath() */
  {
    char cwd[PATH_MAX], *real = realpath(repo, NULL);
    if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(snap) == 0) {
      rc = wt_hf_locate(".", &p);
      snprintf(detail, sizeof(detail), "rc=%d repo_dir=%s revision=%s", rc, show(p.repo_dir),
               show(p.revision));
      report("\".\" inside a snapshot is located", rc == 1 && p.repo_dir && real &&
                                                       strcmp(p.repo_dir, real) == 0 &&
                                                       p.revision && strcmp(p.revision, "r1") == 0);
      wt_hf_place_free(&p);
      rc = wt_hf_locate("file.safetensors", &p);
      report("a bare file name inside a snapshot is located",
             rc == 1 && p.revision && strcmp(p.revision, "r1") == 0);
      wt_hf_place_free(&p);
      rc = wt_hf_scan(".", &l, &err);
      snprintf(detail, sizeof(detail), "rc=%d n=%zu %s", rc, l.n, l.n ? l.e[0].path : err.msg);
      report("a scan of \".\" gives paths from \".\"",
             rc == 0 && l.n == 2 && strcmp(l.e[0].path, "./file.safetensors") == 0);
      wt_hf_list_free(&l);
      if (chdir(cwd) != 0)
        perror("chdir");
    }
    free(real);
  }

  /* 70 folders deep: more than WT_HF_MAX_DEPTH */
  snprintf(deep, sizeof(deep), "%s", snap);
  for (i = 0; i < 70; i++) {
    strcat(deep, "/d");
    mkdir(deep, 0755);
  }
  rc = wt_hf_scan(snap, &l, &err);
  snprintf(detail, sizeof(detail), "rc=%d: %s", rc, rc ? err.msg : "");
  report("folders nested too deep are an error", rc == -1 && strstr(err.msg, "folders deep"));
  wt_hf_list_free(&l);
  rc = wt_hf_scan(at("%s/%s", snap, "d/d/d/d/d/d/d/d/d/d"), &l, &err); /* 60 below */
  snprintf(detail, sizeof(detail), "rc=%d n=%zu: %s", rc, l.n, rc ? err.msg : "");
  report("a folder inside a snapshot: its own depth counts from there", rc == 0 && l.n == 0);
  wt_hf_list_free(&l);

  /* folders whose full path passes PATH_MAX: made one level at a time */
  {
    char cwd[PATH_MAX], name[256], r3[800];
    int made = 0;
    memset(name, 'n', 250);
    name[250] = 0;
    snprintf(r3, sizeof(r3), "%s/snapshots/r3", repo);
    mkdir(r3, 0755);
    if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(r3) == 0) {
      for (i = 0; i < 18 && mkdir(name, 0755) == 0 && chdir(name) == 0; i++)
        made++;
      if (chdir(cwd) != 0)
        perror("chdir");
    }
    rc = wt_hf_scan(r3, &l, &err);
    snprintf(detail, sizeof(detail), "made %d, rc=%d: %s", made, rc, rc ? err.msg : "");
    report("a path in a snapshot longer than PATH_MAX is an error",
           made == 18 && rc == -1 && strstr(err.msg, "longer than PATH_MAX"));
    wt_hf_list_free(&l);
  }

  /* an unreadable folder (root reads everything: skipped then) */
  snprintf(lock, sizeof(lock), "%s/snapshots/r2", repo);
  mkdir(lock, 0755);
  mkdir(at("%s/%s", lock, "locked"), 0000);
  if (geteuid() == 0) {
    printf("skip an unreadable folder is an error (running as root)\n");
  } else {
    rc = wt_hf_scan(lock, &l, &err);
    snprintf(detail, sizeof(detail), "rc=%d: %s", rc, rc ? err.msg : "");
    report("an unreadable folder is an error",
           rc == -1 && strstr(err.msg, "cannot read directory"));
    wt_hf_list_free(&l);
  }
  rmdir(at("%s/%s", lock, "locked"));

  /* a path longer than PATH_MAX */
  {
    char *longp = malloc(PATH_MAX + 100);
    memset(longp, 'a', PATH_MAX + 99);
    longp[PATH_MAX + 99] = 0;
    memcpy(longp, "models--a--b/", 13);
    rc = wt_hf_locate(longp, &p);
    report("a path over PATH_MAX is not located", rc == 0 && p.root == NULL);
    rc = wt_hf_scan(longp, &l, &err);
    report("a path over PATH_MAX does not scan", rc == -1 && l.n == 0);
    free(longp);
  }
}

/* ---- SHA-256 ---- */

/* Hash a file holding text; compare with want (a NIST vector). */
static void sha_vector(const char *tmp, const char *name, const char *text, size_t repeat,
                       const char *want) {
  char path[PATH_MAX], hex[65] = "";
  wt_error err;
  FILE *f;
  size_t i;
  snprintf(path, sizeof(path), "%s/vector", tmp);
  f = fopen(path, "w");
  for (i = 0; f != NULL && i < repeat; i++)
    fputs(text, f);
  if (f != NULL)
    fclose(f);
  if (wt_sha256_file(path, hex, &err) != 0)
    snprintf(detail, sizeof(detail), "%s", err.msg);
  else
    snprintf(detail, sizeof(detail), "got %s", hex);
  report(name, strcmp(hex, want) == 0);
  unlink(path);
}

/* wt_sha256_file on what is not a stable regular file: an error, no hang. */
static void sha_errors(const char tmp[256]) {
  char hex[65], fifo[512];
  wt_error err;
  int rc;
  rc = wt_sha256_file(tmp, hex, &err);
  snprintf(detail, sizeof(detail), "rc=%d %s", rc, err.msg);
  report("sha256 of a directory is an error", rc == -1 && strstr(err.msg, "directory"));
  rc = wt_sha256_file(at("%s/%s", tmp, "missing"), hex, &err);
  snprintf(detail, sizeof(detail), "rc=%d %s", rc, err.msg);
  report("sha256 of a missing file is an error", rc == -1 && strstr(err.msg, "No such file"));
  snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
  mkfifo(fifo, 0644);
  rc = wt_sha256_file(fifo, hex, &err);
  snprintf(detail, sizeof(detail), "rc=%d %s", rc, err.msg);
  report("sha256 of a FIFO is an error, at once", rc == -1 && strstr(err.msg, "not a regular"));
  unlink(fifo);
  /* st_size 0, yet reads give bytes: a file that is not what its size says */
  rc = wt_sha256_file("/proc/self/status", hex, &err);
  snprintf(detail, sizeof(detail), "rc=%d %s", rc, err.msg);
  report("sha256 of a file holding more than its size is an error",
         rc == -1 && strstr(err.msg, "changed while it was hashed"));
}

/* Remove the tree at dir (what made_trees left). */
static void remove_tree(const char *dir) {
  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  char tmp[256];
  const char *t = getenv("TMPDIR");
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR (what tests/gen_hf_cache.py wrote)\n", argv[0]);
    return 2;
  }
  manifest(argv[1]);
  hub_facts(argv[1]);
  snprintf(tmp, sizeof(tmp), "%s/hf_cache_test.XXXXXX", t && *t ? t : "/tmp");
  if (mkdtemp(tmp) == NULL) {
    perror("mkdtemp");
    return 2;
  }
  made_trees(tmp);
  /* FIPS 180-2 examples and the empty string */
  sha_vector(tmp, "sha256 of an empty file", "", 0,
             "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha_vector(tmp, "sha256 of \"abc\"", "abc", 1,
             "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha_vector(tmp, "sha256 of a million \"a\"", "a", 1000000,
             "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* files of several chunks: tests/hash_test.py, against sha256sum */
  sha_errors(tmp);
  remove_tree(tmp);
  printf("hf_cache: %d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
