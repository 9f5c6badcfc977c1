/*
** write_interrupt_test.c: sqlite3_interrupt() while a writer reads back
** the file it wrote (issue 34): the statement either fails and leaves the
** target as it was, or succeeds; never both a failure and a new file.
**
**   write_interrupt_test MODULE DIR
**
** The interrupt comes at a point chosen by the test, not by a timer: this
** program defines pread(2), which the module's calls reach (it is linked
** with -rdynamic, so its symbol comes before libc's), and when armed it
** calls sqlite3_interrupt() on the connection at the first pread of a
** file opened read-write, which is the writer's read-back of its output
** (its sources are opened read-only), then reads as libc does.  Each
** writer (gguf_rewrite, safetensors_rewrite, safetensors_write,
** gguf_convert, gguf_split, safetensors_split) runs twice in DIR, on the demo
** model (build/demo), over an older target holding "old":
**   armed: the interrupt fires (checked), the statement, stepped to its
**     end, fails with SQLITE_INTERRUPT, and the target holds "old", with
**     no temporary file beside it; had it succeeded instead, the target
**     would have to be the new file;
**   unarmed: the statement succeeds and the target is replaced.
** Before the writers polled the interrupt at the rename, the read-back
** ran to its end, the file was renamed, and the statement failed after
** its row: both.  Prints "write_interrupt: N passed, M failed".
*/
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEST_NAME "write_interrupt"
#include "check.h"
#include "ext_conn.h"

static sqlite3 *armed; /* the connection to interrupt at the next read-back */
static int fired;      /* interrupts made */

/* pread(2), with the interrupt when armed and fd is open for writing. */
ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  static ssize_t (*real)(int, void *, size_t, off_t);
  if (real == NULL)
    real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
  if (armed != NULL && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR) {
    sqlite3_interrupt(armed);
    armed = NULL;
    fired++;
  }
  return real(fd, buf, n, off);
}

/* Step sql to its end on db: the last result code (SQLITE_DONE when it
** succeeded), the error message into msg. */
static int run(sqlite3 *db, const char *sql, char *msg, size_t size) {
  sqlite3_stmt *st;
  int rc;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    die("prepare", sqlite3_errmsg(db));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    ;
  snprintf(msg, size, "%s", rc == SQLITE_DONE ? "" : sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

/* 1 when path holds exactly "old". */
static int holds_old(const char *path) {
  char buf[8];
  int fd = open(path, O_RDONLY), n;
  if (fd < 0)
    return 0;
  n = (int)read(fd, buf, sizeof(buf));
  close(fd);
  return n == 3 && memcmp(buf, "old", 3) == 0;
}

/* Files in folder whose names are not in keep (a NULL-terminated list). */
static int strays(const char *folder, const char *const *keep) {
  DIR *d = opendir(folder);
  struct dirent *e;
  int n = 0, k;
  if (d == NULL)
    return -1;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    for (k = 0; keep[k] != NULL && strcmp(keep[k], e->d_name) != 0; k++)
      ;
    n += keep[k] == NULL;
  }
  closedir(d);
  return n;
}

/* Write "old" at path. */
static void old_file(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, "old", 3) != 3)
    die("cannot write", path);
  close(fd);
}

/* One writer: sql (%s: the folder) writes target (a name in the folder);
** the folder holds it alone before the call. */
static void writer(const char *dir, const char *name, const char *sql_fmt, const char *target) {
  char folder[1024], path[1200], sql[4096], msg[1024];
  const char *keep[] = {target, NULL};
  sqlite3 *db = open_db();
  int rc, before;
  snprintf(folder, sizeof(folder), "%s/%s", dir, name);
  mkdir(folder, 0755);
  snprintf(path, sizeof(path), "%s/%s", folder, target);
  snprintf(sql, sizeof(sql), sql_fmt, folder);
  /* armed */
  old_file(path);
  before = fired;
  armed = db;
  rc = run(db, sql, msg, sizeof(msg));
  armed = NULL;
  CHECK(fired == before + 1, "%s: the read-back was never reached (no interrupt made)", name);
  if (rc == SQLITE_DONE) {
    CHECK(!holds_old(path), "%s: it succeeded but the target is the old file", name);
  } else {
    CHECK(rc == SQLITE_INTERRUPT, "%s: it failed with %d (%s), not SQLITE_INTERRUPT", name, rc,
          msg);
    CHECK(holds_old(path), "%s: the statement failed (%s) but the target was replaced", name, msg);
  }
  CHECK(strays(folder, keep) == 0, "%s: interrupted, it left a file beside the target", name);
  /* unarmed: the same call writes */
  old_file(path);
  rc = run(db, sql, msg, sizeof(msg));
  CHECK(rc == SQLITE_DONE && !holds_old(path), "%s: uninterrupted, it did not write (%s)", name,
        msg);
  sqlite3_close(db);
}

int main(int argc, char **argv) {
  const char *dir;
  if (argc != 3) {
    fprintf(stderr, "usage: write_interrupt_test MODULE DIR\n");
    return 2;
  }
  ext_path = argv[1];
  dir = argv[2];
  writer(dir, "gguf_rewrite",
         "SELECT gguf_rewrite('%s/out.gguf', 'build/demo/tiny-llama.gguf', NULL)", "out.gguf");
  writer(dir, "safetensors_rewrite",
         "SELECT safetensors_rewrite('%s/out.safetensors', 'build/demo/tiny-llama.safetensors', "
         "'{\"format\": \"pt\"}')",
         "out.safetensors");
  writer(dir, "safetensors_write",
         "SELECT safetensors_write('%s/out.safetensors', name, path) "
         "FROM tensors('build/demo/tiny-llama.safetensors')",
         "out.safetensors");
  writer(dir, "gguf_convert",
         "SELECT gguf_convert('%s/out.gguf', 'build/demo/tiny-llama.safetensors', "
         "'{\"outtype\": \"q8_0\"}')",
         "out.gguf");
  /* one part, one shard: the target is the file a second call replaces */
  writer(dir, "gguf_split",
         "SELECT gguf_split('%s/part', 'build/demo/tiny-llama.gguf', '{\"max_tensors\": 1000}')",
         "part-00001-of-00001.gguf");
  writer(dir, "safetensors_split",
         "SELECT safetensors_split('%s', 'build/demo/tiny-llama.safetensors', 1000000000)",
         "model.safetensors");
  printf("write_interrupt: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
