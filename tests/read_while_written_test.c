/*
** read_while_written_test.c: a file rewritten in place by one write(2) while
** statements open and read it (ext/bytes/fd.h wt_fd_settled_stat()).
**
**   read_while_written_test EXTENSION WORK_DIR [QUERIES]
**
** write(2) stamps the new modification time when it starts and then copies
** the bytes, so a reader that opens the file during the copy sees the new
** time and size while bytes still change, and an fstat after its reads
** agrees with the one at open: without the settled fstat it would take a
** mix of the two versions for one of them.
**
** The file is a safetensors file of two 8 MiB F32 tensors, "x" and "y",
** in two versions of the same size and header length:
**   version A: x first, every value 1.0; then y, every value 2.0;
**   version B: y first, every value 4.0; then x, every value 3.0.
** A writer thread writes A and B over the file in turn, each with one
** pwrite(2) of the whole file (16 MiB, a few milliseconds of copying),
** pausing WRITER_PAUSE_US between.
** Two readers (one reading with pread, one through the guarded mapping:
** weights_mmap(1)) each run QUERIES times (default 150)
**   SELECT min, max FROM tensor_stats(?1) WHERE name = 'x'
** The hand-worked answers: 1.0 and 1.0 (A) or 3.0 and 3.0 (B).  Anything
** else (2.0 or 4.0: the other tensor's bytes under x's offsets; different
** min and max: a part of each version) is a mix and fails the test; an
** error must name the file and say it changed.  At least one answer of
** each version must come (else the race was not run).
**
** Prints "read while written: N queries, A of version A, B of version B, E
** errors, W mixed"; exit status 1 when W > 0 or a check fails.
*/
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEST_NAME "read_while_written_test"
#include "ext_conn.h"

#define NVALUES         (2u << 20) /* F32 values per tensor: 8 MiB */
#define HEADER_LEN      256        /* JSON header bytes, space-padded */
#define WRITER_PAUSE_US 3000
#define READERS         2

static char path[4096];
static unsigned char *version[2]; /* the whole file, A and B */
static size_t file_len;
static int queries = 150;
static atomic_int readers_left, stop_writer;
static atomic_long n_a, n_b, n_error, n_mixed, n_writes;

/* Fill n F32 values at p with v. */
static void fill(unsigned char *p, float v) {
  for (size_t i = 0; i < NVALUES; i++)
    memcpy(p + 4 * i, &v, 4);
}

/* Version v of the file: the 8-byte length, the header, then the first
** tensor's bytes and the second's. */
static unsigned char *make_version(int v) {
  unsigned long long n = 4ull * NVALUES;
  char json[HEADER_LEN + 1];
  unsigned char *p = malloc(file_len);
  uint64_t len = HEADER_LEN;
  int k;
  if (p == NULL)
    die("out of memory", NULL);
  if (v == 0)
    k = snprintf(json, sizeof json,
                 "{\"x\":{\"dtype\":\"F32\",\"shape\":[%u],\"data_offsets\":[0,%llu]},"
                 "\"y\":{\"dtype\":\"F32\",\"shape\":[%u],\"data_offsets\":[%llu,%llu]}}",
                 NVALUES, n, NVALUES, n, 2 * n);
  else
    k = snprintf(json, sizeof json,
                 "{\"y\":{\"dtype\":\"F32\",\"shape\":[%u],\"data_offsets\":[0,%llu]},"
                 "\"x\":{\"dtype\":\"F32\",\"shape\":[%u],\"data_offsets\":[%llu,%llu]}}",
                 NVALUES, n, NVALUES, n, 2 * n);
  if (k <= 0 || k > HEADER_LEN)
    die("header too long", NULL);
  memset(json + k, ' ', (size_t)(HEADER_LEN - k));
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(len >> (8 * i));
  memcpy(p + 8, json, HEADER_LEN);
  fill(p + 8 + HEADER_LEN, v == 0 ? 1.0f : 4.0f);
  fill(p + 8 + HEADER_LEN + n, v == 0 ? 2.0f : 3.0f);
  return p;
}

/* Write version v over the file with one pwrite(2). */
static void write_version(int fd, int v) {
  if (pwrite(fd, version[v], file_len, 0) != (ssize_t)file_len)
    die("short write", path);
}

static void *writer(void *arg) {
  int fd = open(path, O_WRONLY), v = 1;
  (void)arg;
  if (fd < 0)
    die("cannot open for writing", path);
  while (!atomic_load(&stop_writer)) {
    write_version(fd, v);
    v ^= 1;
    atomic_fetch_add(&n_writes, 1);
    usleep(WRITER_PAUSE_US);
  }
  close(fd);
  return NULL;
}

/* A connection with the extension loaded, mapped reads on when map is set. */
static sqlite3 *open_db_mapped(int map) {
  sqlite3 *db = open_db();
  char *msg = NULL;
  if (sqlite3_exec(db, map ? "SELECT weights_mmap(1)" : "SELECT 1", NULL, NULL, &msg) != SQLITE_OK)
    die("weights_mmap", msg);
  return db;
}

/* Run the query once and count what it gave. */
static void one_query(sqlite3 *db, sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    double lo = sqlite3_column_double(st, 0), hi = sqlite3_column_double(st, 1);
    if (lo == 1.0 && hi == 1.0)
      atomic_fetch_add(&n_a, 1);
    else if (lo == 3.0 && hi == 3.0)
      atomic_fetch_add(&n_b, 1);
    else {
      atomic_fetch_add(&n_mixed, 1);
      fprintf(stderr, "read_while_written_test: mixed answer: min %g, max %g\n", lo, hi);
    }
  } else if (strstr(sqlite3_errmsg(db), path) != NULL &&
             strstr(sqlite3_errmsg(db), "changed") != NULL) {
    atomic_fetch_add(&n_error, 1);
  } else {
    atomic_fetch_add(&n_mixed, 1);
    fprintf(stderr, "read_while_written_test: unexpected: %s\n",
            rc == SQLITE_DONE ? "no row" : sqlite3_errmsg(db));
  }
  sqlite3_reset(st);
}

static void *reader(void *arg) {
  sqlite3 *db = open_db_mapped((int)(long)arg);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT min, max FROM tensor_stats(?1) WHERE name = 'x'", -1, &st,
                         NULL) != SQLITE_OK)
    die("prepare", sqlite3_errmsg(db));
  sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
  for (int i = 0; i < queries; i++)
    one_query(db, st);
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (atomic_fetch_sub(&readers_left, 1) == 1)
    atomic_store(&stop_writer, 1);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t th[READERS], w;
  int fd, failed = 0;
  if (argc < 3)
    die("usage: read_while_written_test EXTENSION WORK_DIR [QUERIES]", NULL);
  ext_path = argv[1];
  if (argc > 3)
    queries = atoi(argv[3]);
  mkdir(argv[2], 0755);
  snprintf(path, sizeof path, "%s/race.safetensors", argv[2]);
  file_len = 8 + HEADER_LEN + 8ull * NVALUES;
  version[0] = make_version(0);
  version[1] = make_version(1);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    die("cannot create", path);
  write_version(fd, 0);
  close(fd);

  atomic_store(&readers_left, READERS);
  if (pthread_create(&w, NULL, writer, NULL) != 0)
    die("pthread_create", NULL);
  for (int i = 0; i < READERS; i++)
    if (pthread_create(&th[i], NULL, reader, (void *)(long)i) != 0)
      die("pthread_create", NULL);
  for (int i = 0; i < READERS; i++)
    pthread_join(th[i], NULL);
  pthread_join(w, NULL);
  printf("read while written: %ld writes, %d queries, %ld of version A, %ld of version B, %ld errors, "
         "%ld mixed\n",
         (long)n_writes, READERS * queries, (long)n_a, (long)n_b, (long)n_error, (long)n_mixed);
  if (n_mixed > 0)
    failed = 1;
  if (n_a == 0 || n_b == 0) {
    printf("FAILED: no answer of version %s: the rewrites did not overlap the queries\n",
           n_a == 0 ? "A" : "B");
    failed = 1;
  }
  free(version[0]);
  free(version[1]);
  return failed;
}
