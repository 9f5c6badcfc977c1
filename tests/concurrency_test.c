/*
** concurrency_test.c: the extension under load, for ThreadSanitizer
** (`make tsan` builds this and the module with -fsanitize=thread).
**
**   concurrency_test EXTENSION DEMO_DIR WORK_DIR [ITERATIONS]
**
** Eight threads, each on its own connection (SQLITE_OPEN_FULLMUTEX), load
** the extension with sqlite3_load_extension() and, ITERATIONS times over
** every file, list (tensors()), decode (tensor_stats()) and hash
** (tensor_hash()) it: the files of DEMO_DIR (the same files in every
** thread) and two files in WORK_DIR that a ninth thread keeps changing:
**   churn.model    replaced by rename(2) of a fresh copy, alternately the
**                  demo's tiny-llama.safetensors and tiny-qwen2.gguf;
**   inplace.model  (only with WT_INPLACE=1 in the environment) rewritten
**                  in place, alternately tiny-llama.safetensors and
**                  tiny-llama-finetuned.safetensors (pwrite, then
**                  ftruncate to the new length).
** With WT_MMAP=0 or 1 in the environment every connection first runs
** weights_mmap(0 or 1): tensor bytes read with pread or through the
** guarded mapping (a rewrite that shrinks the file raises SIGBUS there).
** Each query's result is compared with what one thread alone got before
** the threads started: a demo file must give exactly that; a changing
** file must give what one of its two versions gave, or an error naming
** the file.  Anything else (or a crash, or a TSan report) fails.  The
** writer stops when the readers are done; nothing depends on timing.
** The last line says how many queries matched and how many were errors.
*/
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS   8
#define MAX_FILES 16
#define NAMES     4 /* tensor names hashed per file */

/* The queries run on every file: ?1 is the path, ?2 a tensor name. */
static const char *const queries[] = {
    "SELECT group_concat(format||' '||name||' '||ifnull(dtype,'?')||' '||shape||' '||numel||' '"
    "||offset||' '||ifnull(nbytes,'?'), char(10)) FROM tensors(?1)",
    "SELECT group_concat(name||' '||count||' '||quote(min)||' '||quote(max)||' '||quote(mean)||' '"
    "||quote(std)||' '||nan_count||' '||inf_count||' '||zero_count, char(10)) FROM "
    "tensor_stats(?1)",
    "SELECT ifnull(tensor_hash(?1, ?2), 'NULL')",
};
#define NQ 3

/* What one query gave: "ok:TEXT" or "err:MESSAGE" (malloc'd). */
typedef struct file_case {
  char path[512];
  int changing;                  /* 1: churn.model or inplace.model */
  char *want[2][NQ + NAMES - 1]; /* per version: queries 0, 1, then one hash per name */
  const char *names[NAMES];      /* tensor names hashed (from either version) */
  char *name_store[NAMES];
} file_case;

static file_case files[MAX_FILES];
static int nfiles;
static const char *ext_path;
static atomic_int readers_left;
static atomic_long n_match, n_error, n_wrong, n_queries;
static atomic_long n_version[2]; /* changing files: matches of each version */
static char first_error[300];    /* one of the errors, for the last line */
static atomic_flag have_error = ATOMIC_FLAG_INIT;

static void die(const char *what, const char *detail) {
  fprintf(stderr, "concurrency_test: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(2);
}

/* A connection with the extension loaded. */
static sqlite3 *open_db(void) {
  sqlite3 *db;
  char *msg = NULL;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
      SQLITE_OK)
    die("cannot open a connection", NULL);
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, ext_path, NULL, &msg) != SQLITE_OK)
    die("cannot load the extension", msg);
  if (getenv("WT_MMAP") != NULL) {
    sqlite3_stmt *st;
    int want = atoi(getenv("WT_MMAP")) != 0;
    if (sqlite3_prepare_v2(db, "SELECT weights_mmap(?1)", -1, &st, NULL) != SQLITE_OK)
      die("prepare weights_mmap", sqlite3_errmsg(db));
    sqlite3_bind_int(st, 1, want);
    if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != want)
      die("weights_mmap() did not take the setting of WT_MMAP", getenv("WT_MMAP"));
    sqlite3_finalize(st);
  }
  return db;
}

/* Run query q on path (and name) and describe the outcome. */
static char *run(sqlite3 *db, int q, const char *path, const char *name) {
  sqlite3_stmt *st;
  const char *txt;
  char *out;
  int rc;
  if (sqlite3_prepare_v2(db, queries[q], -1, &st, NULL) != SQLITE_OK)
    die("prepare", sqlite3_errmsg(db));
  sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
  if (q == 2)
    sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    txt = (const char *)sqlite3_column_text(st, 0);
    out = malloc(strlen(txt ? txt : "NULL") + 4);
    sprintf(out, "ok:%s", txt ? txt : "NULL");
  } else {
    txt = sqlite3_errmsg(db);
    out = malloc(strlen(txt) + 5);
    sprintf(out, "err:%s", txt);
  }
  sqlite3_finalize(st);
  return out;
}

/* Copy file from into to (written whole, then renamed when rename is set;
** else rewritten in place). */
static void put_file(const char *from, const char *to, int rename_it) {
  static char buf[1 << 20];
  char tmp[600];
  int in = open(from, O_RDONLY), out;
  ssize_t n;
  off_t len = 0;
  if (in < 0)
    die("cannot read", from);
  snprintf(tmp, sizeof tmp, "%s.tmp", to);
  out = open(rename_it ? tmp : to, O_WRONLY | O_CREAT | (rename_it ? O_TRUNC : 0), 0644);
  if (out < 0)
    die("cannot write", to);
  while ((n = read(in, buf, sizeof buf)) > 0) {
    if (pwrite(out, buf, (size_t)n, len) != n)
      die("short write", to);
    len += n;
  }
  if (ftruncate(out, len) != 0)
    die("ftruncate", to);
  close(in);
  close(out);
  if (rename_it && rename(tmp, to) != 0)
    die("rename", to);
}

/* The outcome of one query on one file case, checked. */
static void check(file_case *f, int k, const char *got) {
  int v;
  atomic_fetch_add(&n_queries, 1);
  for (v = 0; v < (f->changing ? 2 : 1); v++) {
    if (strcmp(got, f->want[v][k]) == 0) {
      atomic_fetch_add(&n_match, 1);
      if (f->changing && strcmp(f->want[0][k], f->want[1][k]) != 0)
        atomic_fetch_add(&n_version[v], 1);
      return;
    }
  }
  if (f->changing && strncmp(got, "err:", 4) == 0 && strstr(got, f->path) != NULL) {
    atomic_fetch_add(&n_error, 1);
    if (!atomic_flag_test_and_set(&have_error))
      snprintf(first_error, sizeof first_error, "%s", got + 4);
    return;
  }
  atomic_fetch_add(&n_wrong, 1);
  fprintf(stderr, "concurrency_test: %s, query %d: got\n  %.300s\nwanted\n  %.300s\n", f->path, k,
          got, f->want[0][k]);
}

/* Every query of file case f, checked. */
static void exercise(sqlite3 *db, file_case *f) {
  int q, i;
  for (q = 0; q < 2; q++) {
    char *got = run(db, q, f->path, NULL);
    check(f, q, got);
    free(got);
  }
  for (i = 0; i < NAMES && f->names[i]; i++) {
    char *got = run(db, 2, f->path, f->names[i]);
    check(f, 2 + i, got);
    free(got);
  }
}

/* The first NAMES tensor names of a listing ("format name ..." lines). */
static void take_names(file_case *f, const char *listing) {
  const char *p = listing + 3;
  int i = 0;
  while (i < NAMES && strncmp(listing, "ok:", 3) == 0 && *p) {
    const char *sp = strchr(p, ' '), *name = sp ? sp + 1 : NULL, *end;
    if (name == NULL || (end = strchr(name, ' ')) == NULL)
      break;
    f->name_store[i] = strndup(name, (size_t)(end - name));
    f->names[i] = f->name_store[i];
    i++;
    p = strchr(end, '\n');
    if (p == NULL)
      break;
    p++;
  }
}

/* What one thread alone gets for f in version v (the file as it is now). */
static void baseline(sqlite3 *db, file_case *f, int v) {
  int q, i;
  for (q = 0; q < 2; q++)
    f->want[v][q] = run(db, q, f->path, NULL);
  for (i = 0; i < NAMES && f->names[i]; i++)
    f->want[v][2 + i] = run(db, 2, f->path, f->names[i]);
}

static int iterations = 10;

static void *reader(void *arg) {
  int id = (int)(long)arg, it, i;
  sqlite3 *db = open_db();
  for (it = 0; it < iterations; it++)
    for (i = 0; i < nfiles; i++)
      exercise(db, &files[(i + id) % nfiles]);
  sqlite3_close(db);
  atomic_fetch_sub(&readers_left, 1);
  return NULL;
}

static char version_of[2][2][600]; /* [churn, inplace][version]: source files */
static file_case *churn, *inplace;
static long swaps;

static void *writer(void *arg) {
  int v = 1;
  (void)arg;
  while (atomic_load(&readers_left) > 0) {
    put_file(version_of[0][v], churn->path, 1);
    if (inplace)
      put_file(version_of[1][v], inplace->path, 0);
    v ^= 1;
    swaps++;
    usleep(500); /* pacing only: the result does not depend on it */
  }
  return NULL;
}

/* Add a file case; changing ones get both versions' baselines. */
static file_case *add_case(sqlite3 *db, const char *path, const char *v0, const char *v1,
                           int rename_it) {
  file_case *f = &files[nfiles++];
  char *l0, *l1;
  int i;
  snprintf(f->path, sizeof f->path, "%s", path);
  f->changing = v0 != NULL;
  if (f->changing)
    put_file(v0, path, rename_it);
  l0 = run(db, 0, path, NULL);
  take_names(f, l0);
  if (f->changing) { /* names of version 1 too, past those of version 0 */
    file_case tmp = {0};
    put_file(v1, path, rename_it);
    l1 = run(db, 0, path, NULL);
    take_names(&tmp, l1);
    for (i = 0; i < NAMES / 2 && tmp.names[i]; i++) {
      int at = NAMES / 2 + i;
      free(f->name_store[at]);
      f->name_store[at] = tmp.name_store[i];
      f->names[at] = tmp.names[i];
    }
    free(l1);
    baseline(db, f, 1);
    put_file(v0, path, rename_it);
  }
  free(l0);
  baseline(db, f, 0);
  return f;
}

int main(int argc, char **argv) {
  pthread_t th[THREADS], w;
  const char *demo, *work;
  char p[600], a[600], b[600], c[600];
  sqlite3 *db;
  DIR *d;
  struct dirent *de;
  int i;
  if (argc < 4)
    die("usage: concurrency_test EXTENSION DEMO_DIR WORK_DIR [ITERATIONS]", NULL);
  ext_path = argv[1];
  demo = argv[2];
  work = argv[3];
  if (argc > 4)
    iterations = atoi(argv[4]);
  mkdir(work, 0755);
  db = open_db();
  d = opendir(demo);
  if (d == NULL)
    die("no demo folder", demo);
  while ((de = readdir(d)) != NULL && nfiles < MAX_FILES - 2) {
    size_t n = strlen(de->d_name);
    if ((n > 5 && strcmp(de->d_name + n - 5, ".gguf") == 0) ||
        (n > 12 && strcmp(de->d_name + n - 12, ".safetensors") == 0)) {
      snprintf(p, sizeof p, "%s/%s", demo, de->d_name);
      add_case(db, p, NULL, NULL, 0);
    }
  }
  closedir(d);
  snprintf(a, sizeof a, "%s/tiny-llama.safetensors", demo);
  snprintf(b, sizeof b, "%s/tiny-qwen2.gguf", demo);
  snprintf(c, sizeof c, "%s/tiny-llama-finetuned.safetensors", demo);
  snprintf(version_of[0][0], 600, "%s", a);
  snprintf(version_of[0][1], 600, "%s", b);
  snprintf(version_of[1][0], 600, "%s", a);
  snprintf(version_of[1][1], 600, "%s", c);
  snprintf(p, sizeof p, "%s/churn.model", work);
  churn = add_case(db, p, a, b, 1);
  if (getenv("WT_INPLACE") && strcmp(getenv("WT_INPLACE"), "1") == 0) {
    snprintf(p, sizeof p, "%s/inplace.model", work);
    inplace = add_case(db, p, a, c, 0);
  }
  sqlite3_close(db);

  atomic_store(&readers_left, THREADS);
  for (i = 0; i < THREADS; i++)
    if (pthread_create(&th[i], NULL, reader, (void *)(long)i) != 0)
      die("pthread_create", NULL);
  pthread_create(&w, NULL, writer, NULL);
  for (i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  pthread_join(w, NULL);
  printf("concurrency: %d threads x %d iterations over %d files (%s), %ld replacements: "
         "%ld queries, %ld as one thread alone, %ld errors naming a changing file, %ld wrong\n",
         THREADS, iterations, nfiles, inplace ? "in-place rewrites too" : "renames only", swaps,
         (long)n_queries, (long)n_match, (long)n_error, (long)n_wrong);
  printf("concurrency: answers that tell the versions of a changing file apart: %ld of the "
         "first, %ld of the second\n",
         (long)n_version[0], (long)n_version[1]);
  if (n_error)
    printf("concurrency: one of the errors: %s\n", first_error);
  return n_wrong ? 1 : 0;
}
