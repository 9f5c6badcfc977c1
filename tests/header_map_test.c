/*
** header_map_test.c: a GGUF header parsed in place, in a read-only mapping
** of the file (ext/bytes/source.h: the listing of gguf()), while the file
** is cut short and written back underneath.
**
**   header_map_test EXTENSION WORK_DIR
**
** The file: a GGUF of one key, an array of NTOKENS strings (a vocabulary
** of about 4 MB), and one F32 tensor of 8 values; its listing is "1 32"
** (one tensor, 32 bytes), by hand.
**
**   before   on the unchanged file, gguf() gives "1 32" through the
**            mapping and with weights_mmap(0) (pread), and the listing
**            keeps no copy of the header in the connection's cache
**            (weights_cache_stats' bytes, under a tenth of the header)
**            while gguf_metadata()'s reader of values, after it on the
**            same connection, has the header read (bytes over it) and
**            counts the NTOKENS strings of the array.
**   cut      a writer thread cuts the file to CUT_AT bytes (inside the
**            vocabulary) and writes the rest back, in a loop, while a
**            reader lists the file on a new connection each time: every
**            answer must be "1 32" or an error naming the file, and at
**            least one error must be the fault caught under the guard
**            ("... while its header was parsed from its mapping"), which
**            shows that a SIGBUS was raised in the parse and turned into
**            an error; the process must live.  Under AddressSanitizer with
**            leak detection (make test), an abandoned parse leaks nothing.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEST_NAME "header_map_test"
#include "ext_conn.h"

#define NTOKENS     200000
#define CUT_AT      (64 << 10) /* where the writer cuts the file: in the vocabulary */
#define MAX_SECONDS 60         /* the reader stops then, */
#define MIN_FAULTS  20         /* or once it saw as many faults (each an abandoned parse) */
#define WANT        "1 32"     /* gguf(): count(*) || ' ' || sum(nbytes) */
#define LIST_SQL    "SELECT count(*) || ' ' || sum(nbytes) FROM gguf(?1)"

static char path[4096];
static unsigned char *file; /* the whole file, as written */
static size_t file_len, header_len;
static atomic_int stop_writer;

/* ---- the file ---- */

static void put(size_t *at, const void *p, size_t n) {
  memcpy(file + *at, p, n);
  *at += n;
}
static void put32(size_t *at, uint32_t v) {
  put(at, &v, 4); /* the test runs on little-endian hosts, as GGUF is */
}
static void put64(size_t *at, uint64_t v) {
  put(at, &v, 8);
}
static void put_str(size_t *at, const char *s) {
  put64(at, strlen(s));
  put(at, s, strlen(s));
}

/* Lay out the GGUF (v3, little-endian) in memory and write it. */
static void write_file(const char *work) {
  size_t at = 0, i;
  int fd;
  char tok[32];
  file = calloc(1, (size_t)NTOKENS * 24 + 4096);
  if (file == NULL)
    die("out of memory", NULL);
  put(&at, "GGUF", 4);
  put32(&at, 3);
  put64(&at, 1); /* tensors */
  put64(&at, 1); /* key-value pairs */
  put_str(&at, "tokenizer.ggml.tokens");
  put32(&at, 9); /* ARRAY */
  put32(&at, 8); /* of STRING */
  put64(&at, NTOKENS);
  for (i = 0; i < NTOKENS; i++) {
    snprintf(tok, sizeof(tok), "token-%06zu", i);
    put_str(&at, tok);
  }
  put_str(&at, "w");
  put32(&at, 1);
  put64(&at, 8);
  put32(&at, 0); /* F32 */
  put64(&at, 0);
  header_len = at;
  at = (at + 31) / 32 * 32; /* the data section, aligned (zeros between) */
  at += 8 * 4;
  file_len = at;
  snprintf(path, sizeof(path), "%s/vocab.gguf", work);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, file, file_len) != (ssize_t)file_len || close(fd) != 0)
    die("cannot write", path);
}

/* ---- before ---- */

/* The cache's byte count on db. */
static long cache_bytes(sqlite3 *db) {
  char *v = query(db, "SELECT json_extract(weights_cache_stats(), '$.bytes')", NULL);
  long n = atol(v);
  free(v);
  return n;
}

/* The before part (see the top): 0 when all is right. */
static int part_before(void) {
  sqlite3 *db = open_db();
  int failed = 0;
  char *v = query(db, LIST_SQL, path);
  long listed, read;
  if (strcmp(v, WANT) != 0) {
    printf("  gguf() through the mapping: %s, want %s\n", v, WANT);
    failed = 1;
  }
  free(v);
  listed = cache_bytes(db);
  if (listed * 10 >= (long)header_len) {
    printf("  the listing keeps %ld bytes in the cache: the header (%zu bytes) was copied\n",
           listed, header_len);
    failed = 1;
  }
  v = query(db, "SELECT count FROM gguf_metadata(?1) WHERE key = 'tokenizer.ggml.tokens'", path);
  read = cache_bytes(db);
  if (atol(v) != NTOKENS || read < (long)header_len) {
    printf("  gguf_metadata() after it: count %s (want %d), the cache holds %ld bytes (want at "
           "least the header's %zu)\n",
           v, NTOKENS, read, header_len);
    failed = 1;
  }
  free(v);
  sqlite3_close(db);
  db = open_db();
  free(query(db, "SELECT weights_mmap(0)", NULL));
  v = query(db, LIST_SQL, path);
  if (strcmp(v, WANT) != 0 || cache_bytes(db) < (long)header_len) {
    printf("  with weights_mmap(0): %s (want %s), %ld bytes in the cache (want the header's)\n", v,
           WANT, cache_bytes(db));
    failed = 1;
  }
  free(v);
  sqlite3_close(db);
  printf("  before: the listing kept %ld bytes, the reader of values %ld (header %zu bytes)\n",
         listed, read, header_len);
  return failed;
}

/* ---- cut ---- */

/* The writer: cut the file inside its header, write the rest back. */
static void *writer(void *arg) {
  int fd = open(path, O_WRONLY);
  unsigned seed = 1;
  (void)arg;
  if (fd < 0)
    die("cannot open", path);
  while (!atomic_load(&stop_writer)) {
    if (ftruncate(fd, CUT_AT) != 0)
      die("ftruncate", strerror(errno));
    usleep(200);
    if (pwrite(fd, file + CUT_AT, file_len - CUT_AT, CUT_AT) != (ssize_t)(file_len - CUT_AT))
      die("pwrite", strerror(errno));
    usleep(100 + (unsigned)(rand_r(&seed) % 3000));
  }
  close(fd);
  return NULL;
}

/* The cut part (see the top): 0 when all is right. */
static int part_cut(void) {
  pthread_t w;
  long runs = 0, right = 0, errors = 0, faults = 0;
  char bad[512] = "";
  time_t t0 = time(NULL);
  pthread_create(&w, NULL, writer, NULL);
  while (faults < MIN_FAULTS && time(NULL) - t0 < MAX_SECONDS) {
    sqlite3 *db = open_db(); /* a new cache: every listing parses */
    char *v = query(db, LIST_SQL, path);
    runs++;
    if (strcmp(v, WANT) == 0) {
      right++;
    } else if (strncmp(v, "error: ", 7) == 0 && strstr(v, path) != NULL) {
      errors++;
      if (strstr(v, "while its header was parsed from its mapping") != NULL)
        faults++;
    } else if (bad[0] == 0) {
      snprintf(bad, sizeof(bad), "%s", v);
    }
    free(v);
    sqlite3_close(db);
  }
  atomic_store(&stop_writer, 1);
  pthread_join(w, NULL);
  printf("  cut: %ld listings: %ld right, %ld errors naming the file, %ld of them a fault under "
         "the guard\n",
         runs, right, errors, faults);
  if (bad[0] != 0)
    printf("  a wrong answer: %s\n", bad);
  return faults == 0 || bad[0] != 0;
}

int main(int argc, char **argv) {
  int failed;
  if (argc != 3)
    die("usage: header_map_test EXTENSION WORK_DIR", NULL);
  ext_path = argv[1];
  write_file(argv[2]);
  failed = part_before();
  if (!failed)
    failed = part_cut();
  sqlite3_shutdown();
  free(file);
  printf("header_map_test: %d passed, %d failed\n", failed ? 0 : 2, failed ? 1 : 0);
  return failed;
}
