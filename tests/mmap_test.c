/*
** mmap_test.c: tensor bytes read through a mapping while the file shrinks
** underneath, and the SIGBUS handler's manners toward the process's own
** (ext/bytes/mapping.h).
**
**   mmap_test EXTENSION WORK_DIR
**
** Each part runs in a child process of its own (the SIGBUS disposition and
** the guard are the process's), whose exit status is checked:
**
**   truncate   two threads, each on its own connection with weights_mmap(1)
**              (one on an alternate signal stack), run tensor_blob,
**              tensor_stats, tensor_hash, tensor_histogram and
**              tensor_values over an 8 MiB F32 tensor while a third thread
**              truncates the file to its header and extends it again, in a
**              loop.  Each query must be right before the writer starts;
**              then every answer must be right or an error naming the file,
**              and each query must at least once fail with the error of a fault
**              caught under the guard ("... were read from its mapping"),
**              which shows that SIGBUS was raised and turned into an error;
**              the process must live.
**   chain      a SA_SIGINFO handler installed before the module's gets a
**              fault on a mapping of the test's own (with its address) and
**              a raise(SIGBUS), both after the module installed its guard.
**   plain      the same for a handler without SA_SIGINFO.
**   default    with SIG_DFL before, the test's own fault kills the process
**              with SIGBUS; with SIG_IGN too, while a SIGBUS sent by kill(2)
**              is still ignored.
**   closed     the connection that loaded the module closed (SQLite then
**              unloads it): the handler installed before, or SIG_DFL, still
**              gets the test's own fault (the module stays loaded once its
**              handler is installed).
**   replaced   a handler installed over the module's: weights_mmap_guard()
**              says so, weights_mmap(1) is 0, and reads still work (pread).
**
** The hand-worked values: the tensor holds 2 Mi F32 values, each 1.0, so
** a right answer is 8388608 bytes, count 2097152 and the like.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_NAME "mmap_test"
#include "ext_conn.h"

#define NVALUES       (2u << 20) /* F32 values of the tensor */
#define MAX_SECONDS   60         /* a query that never saw a fault by then fails */
#define VALUES_COUNT  300000     /* rows of the tensor_values query */
#define ALT_STACK     (64 << 10)
#define CHILD_SECONDS (3 * MAX_SECONDS)

static const char *work;
static char big_path[4096];
static uint64_t header_len; /* 8 + N */
static atomic_int stop_writer;

/* Write the safetensors file of one F32 tensor "w" of NVALUES ones. */
static void write_big(void) {
  char header[256];
  int n, fd;
  float *v = malloc(NVALUES * sizeof(float));
  uint64_t len;
  size_t i;
  n = snprintf(header, sizeof(header),
               "{\"w\":{\"dtype\":\"F32\",\"shape\":[%u],\"data_offsets\":[0,%u]}}", NVALUES,
               NVALUES * 4);
  while (n % 8 != 0)
    header[n++] = ' ';
  len = (uint64_t)n;
  header_len = 8 + len;
  for (i = 0; i < NVALUES; i++)
    v[i] = 1.0f;
  snprintf(big_path, sizeof(big_path), "%s/big.safetensors", work);
  fd = open(big_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, &len, 8) != 8 || write(fd, header, (size_t)n) != n ||
      write(fd, v, NVALUES * sizeof(float)) != (ssize_t)(NVALUES * sizeof(float)) || close(fd))
    die("cannot write", big_path);
  free(v);
}

/* The writer: truncate the file to its header, then give it its size back
** (the bytes come back as zeros), until told to stop. */
static void *writer(void *arg) {
  int fd = open(big_path, O_WRONLY);
  unsigned seed = 1;
  (void)arg;
  if (fd < 0)
    die("cannot open", big_path);
  while (!atomic_load(&stop_writer)) {
    if (ftruncate(fd, (off_t)header_len) != 0)
      die("ftruncate", strerror(errno));
    usleep(500);
    if (ftruncate(fd, (off_t)(header_len + NVALUES * 4)) != 0)
      die("ftruncate", strerror(errno));
    usleep(500 + (unsigned)(rand_r(&seed) % 30000));
  }
  close(fd);
  return NULL;
}

/* The queries of the truncate part and what each gives on the whole file
** (NULL: any value; the hash changes when the bytes come back as zeros). */
static const struct {
  const char *name, *sql, *want;
} queries[] = {
    {"tensor_blob", "SELECT length(tensor_blob(?1, 'w'))", "8388608"},
    {"tensor_stats", "SELECT count || ' ' || nan_count FROM tensor_stats(?1, 'w')", "2097152 0"},
    {"tensor_hash", "SELECT length(tensor_hash(?1, 'w'))", "32"},
    {"tensor_histogram", "SELECT sum(count) FROM tensor_histogram(?1, 'w', 16)", "2097152"},
    {"tensor_values", "SELECT count(*) FROM tensor_values(?1, 'w', 0, 300000)", "300000"},
};
#define NQUERIES (sizeof(queries) / sizeof(queries[0]))

/* What one reader thread saw. */
typedef struct reader_result {
  int alt_stack;
  long runs[NQUERIES], right[NQUERIES], faults[NQUERIES], errors[NQUERIES];
  char bad[512]; /* the first wrong answer, or "" */
} reader_result;

/* A reader: each query in turn until it has failed with a fault's error,
** or MAX_SECONDS passed. */
static void *reader(void *arg) {
  reader_result *r = arg;
  sqlite3 *db = open_db();
  char *on = query(db, "SELECT weights_mmap(1)", NULL);
  stack_t ss;
  size_t q;
  if (strcmp(on, "1") != 0)
    die("weights_mmap(1) did not turn the mapping on", on);
  free(on);
  if (r->alt_stack) {
    ss.ss_sp = malloc(ALT_STACK);
    ss.ss_size = ALT_STACK;
    ss.ss_flags = 0;
    if (ss.ss_sp == NULL || sigaltstack(&ss, NULL) != 0)
      die("sigaltstack", strerror(errno));
  }
  for (q = 0; q < NQUERIES; q++) {
    time_t t0 = time(NULL);
    while (r->faults[q] == 0 && time(NULL) - t0 < MAX_SECONDS) {
      char *v = query(db, queries[q].sql, big_path);
      r->runs[q]++;
      if (strncmp(v, "error: ", 7) != 0 && strcmp(v, queries[q].want) == 0) {
        r->right[q]++;
      } else if (strncmp(v, "error: ", 7) == 0 && strstr(v, big_path) != NULL) {
        r->errors[q]++;
        if (strstr(v, "file changed while in use: it shrank to") != NULL &&
            strstr(v, "were read from its mapping") != NULL)
          r->faults[q]++;
      } else if (r->bad[0] == 0) {
        snprintf(r->bad, sizeof(r->bad), "%s: %s", queries[q].name, v);
      }
      free(v);
    }
  }
  if (r->alt_stack) {
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    free(ss.ss_sp);
  }
  sqlite3_close(db);
  return NULL;
}

/* Each query on the unchanged file, mapped: 0 when all are right. */
static int right_before(void) {
  sqlite3 *db = open_db();
  char *on = query(db, "SELECT weights_mmap(1)", NULL);
  int failed = strcmp(on, "1") != 0;
  size_t q;
  for (q = 0; q < NQUERIES; q++) {
    char *v = query(db, queries[q].sql, big_path);
    if (strcmp(v, queries[q].want) != 0) {
      printf("  %s on the unchanged file: %s, want %s\n", queries[q].name, v, queries[q].want);
      failed = 1;
    }
    free(v);
  }
  free(on);
  sqlite3_close(db);
  return failed;
}

/* The truncate part (see the top). */
static int part_truncate(void) {
  pthread_t w, rd[2];
  reader_result res[2];
  int i, failed = 0;
  size_t q;
  memset(res, 0, sizeof(res));
  res[1].alt_stack = 1;
  write_big();
  if (right_before() != 0)
    return 1;
  pthread_create(&w, NULL, writer, NULL);
  for (i = 0; i < 2; i++)
    pthread_create(&rd[i], NULL, reader, &res[i]);
  for (i = 0; i < 2; i++)
    pthread_join(rd[i], NULL);
  atomic_store(&stop_writer, 1);
  pthread_join(w, NULL);
  for (i = 0; i < 2; i++) {
    for (q = 0; q < NQUERIES; q++) {
      printf("  reader %d%s %-16s %5ld runs: %5ld right, %5ld errors naming the file, %ld of "
             "them a fault under the guard\n",
             i, res[i].alt_stack ? " (alternate stack)" : "                  ", queries[q].name,
             res[i].runs[q], res[i].right[q], res[i].errors[q], res[i].faults[q]);
      if (res[i].faults[q] == 0)
        failed = 1;
    }
    if (res[i].bad[0] != 0) {
      printf("  reader %d: a wrong answer: %s\n", i, res[i].bad);
      failed = 1;
    }
  }
  return failed;
}

/* ---- the handler's manners ---- */

static sigjmp_buf own_jump;
static volatile sig_atomic_t own_calls, own_plain_calls;
static void *volatile own_addr;
static volatile int own_code;

/* The test's SA_SIGINFO handler: note the call, jump back from a fault. */
static void own_handler(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)ctx;
  own_calls++;
  own_addr = si->si_addr;
  own_code = si->si_code;
  if (si->si_code > 0)
    siglongjmp(own_jump, 1);
}

/* The test's plain handler. */
static void own_plain(int sig) {
  (void)sig;
  own_plain_calls++;
  if (own_plain_calls == 1)
    siglongjmp(own_jump, 1); /* the fault */
}

/* A page of a file of the test's own, mapped, then the file truncated: its
** address (touching it raises SIGBUS outside the module's guard). */
static volatile unsigned char *own_fault_page(void) {
  char path[4200];
  int fd;
  void *p;
  long page = sysconf(_SC_PAGESIZE);
  snprintf(path, sizeof(path), "%s/own.bin", work);
  fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, page) != 0)
    die("cannot make", path);
  p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
    die("cannot map", path);
  close(fd);
  return p;
}

/* Load the module in this process and have it install its guard. */
static sqlite3 *load_and_guard(void) {
  sqlite3 *db = open_db();
  char *g = query(db, "SELECT weights_mmap_guard()", NULL);
  if (strcmp(g, "ready") != 0)
    die("the guard is not ready", g);
  free(g);
  return db;
}

/* Install handler h (SA_SIGINFO when info) for SIGBUS. */
static void install(void (*plain)(int), void (*info)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sigemptyset(&sa.sa_mask);
  if (info != NULL) {
    sa.sa_sigaction = info;
    sa.sa_flags = SA_SIGINFO;
  } else {
    sa.sa_handler = plain;
  }
  sigaction(SIGBUS, &sa, NULL);
}

/* The chain part: exit status 0 when the test's handler got both. */
static int part_chain(void) {
  volatile unsigned char *page;
  sqlite3 *db;
  install(NULL, own_handler);
  db = load_and_guard();
  page = own_fault_page();
  if (sigsetjmp(own_jump, 1) == 0)
    (void)page[0];
  if (own_calls != 1 || own_addr != (void *)page || own_code <= 0) {
    printf("  chain: the fault reached the test's handler %d times, address %p (want %p)\n",
           (int)own_calls, own_addr, (void *)page);
    return 1;
  }
  raise(SIGBUS);
  if (own_calls != 2 || own_code > 0) {
    printf("  chain: raise(SIGBUS) reached the test's handler %d times\n", (int)own_calls - 1);
    return 1;
  }
  sqlite3_close(db);
  return 0;
}

/* The plain part: exit status 0 when the plain handler got both. */
static int part_plain(void) {
  volatile unsigned char *page;
  sqlite3 *db;
  install(own_plain, NULL);
  db = load_and_guard();
  page = own_fault_page();
  if (sigsetjmp(own_jump, 1) == 0)
    (void)page[0];
  raise(SIGBUS);
  sqlite3_close(db);
  return own_plain_calls == 2 ? 0 : 1;
}

/* The default part: dies by SIGBUS on the fault (the caller checks). */
static int part_default(int ignore) {
  volatile unsigned char *page;
  install(ignore ? SIG_IGN : SIG_DFL, NULL);
  load_and_guard();
  if (ignore) {
    kill(getpid(), SIGBUS); /* ignored, as before the module */
  }
  page = own_fault_page();
  return page[0] == 0 ? 3 : 4; /* not reached */
}

/* The closed part: the module's handler outlives the connection that
** loaded it (SQLite unloads an extension at the last close): the test's
** own fault then reaches the test's handler (exit status 0), or, under
** SIG_DFL, kills by SIGBUS (not SIGSEGV in unmapped code). */
static int part_closed(int dfl) {
  volatile unsigned char *page;
  if (dfl)
    install(SIG_DFL, NULL);
  else
    install(NULL, own_handler);
  sqlite3_close(load_and_guard());
  page = own_fault_page();
  if (sigsetjmp(own_jump, 1) == 0)
    (void)page[0];
  return own_calls == 1 && own_addr == (void *)page ? 0 : 1;
}

/* The replaced part: exit status 0 when the module noticed and reads. */
static int part_replaced(void) {
  sqlite3 *db = load_and_guard();
  char *why, *on, *n;
  int rc;
  install(NULL, own_handler);
  write_big();
  why = query(db, "SELECT weights_mmap_guard()", NULL);
  on = query(db, "SELECT weights_mmap(1)", NULL);
  n = query(db, "SELECT count FROM tensor_stats(?1, 'w')", big_path);
  rc = strstr(why, "is not this module's") != NULL && strcmp(on, "0") == 0 &&
               strcmp(n, "2097152") == 0
           ? 0
           : 1;
  if (rc)
    printf("  replaced: weights_mmap_guard() %s; weights_mmap(1) %s; count %s\n", why, on, n);
  free(why);
  free(on);
  free(n);
  sqlite3_close(db);
  return rc;
}

/* Run part in a child; 0 when it ended as want_status (>= 0) or by signal
** want_signal (> 0). */
static int run(const char *name, int (*part)(int), int arg, int want_status, int want_signal) {
  int status, ok;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if (pid < 0)
    die("fork", strerror(errno));
  if (pid == 0) {
    int rc;
    alarm(CHILD_SECONDS); /* a handler that loops on a fault fails, not hangs */
    rc = part(arg);
    fflush(stdout);
    _exit(rc);
  }
  if (waitpid(pid, &status, 0) != pid)
    die("waitpid", strerror(errno));
  ok = want_signal > 0 ? WIFSIGNALED(status) && WTERMSIG(status) == want_signal
                       : WIFEXITED(status) && WEXITSTATUS(status) == want_status;
  printf("%s: %s (", ok ? "ok" : "FAILED", name);
  if (WIFSIGNALED(status))
    printf("killed by signal %d)\n", WTERMSIG(status));
  else
    printf("exit status %d)\n", WEXITSTATUS(status));
  return ok ? 0 : 1;
}

static int run_truncate(int arg) {
  (void)arg;
  return part_truncate();
}
static int run_chain(int arg) {
  (void)arg;
  return part_chain();
}
static int run_plain(int arg) {
  (void)arg;
  return part_plain();
}
static int run_replaced(int arg) {
  (void)arg;
  return part_replaced();
}

int main(int argc, char **argv) {
  int failed = 0;
  if (argc != 3)
    die("usage: mmap_test EXTENSION WORK_DIR", NULL);
  ext_path = argv[1];
  work = argv[2];
  mkdir(work, 0755);
  failed += run("truncated under mapped reads, in two threads: errors, never a crash", run_truncate,
                0, 0, 0);
  failed += run("a SA_SIGINFO handler installed before gets its own fault and raise()", run_chain,
                0, 0, 0);
  failed +=
      run("a plain handler installed before gets its own fault and raise()", run_plain, 0, 0, 0);
  failed +=
      run("SIG_DFL before: the test's own fault still kills by SIGBUS", part_default, 0, 0, SIGBUS);
  failed += run("SIG_IGN before: kill() ignored, the own fault kills by SIGBUS", part_default, 1, 0,
                SIGBUS);
  failed += run("the connection closed (SQLite unloads the module): the handler before still gets "
                "its own fault",
                part_closed, 0, 0, 0);
  failed += run("the connection closed: SIG_DFL before, the own fault still kills by SIGBUS",
                part_closed, 1, 0, SIGBUS);
  failed +=
      run("a handler installed after the module's: noticed, pread instead", run_replaced, 0, 0, 0);
  printf("mmap_test: %s\n", failed ? "FAILED" : "all passed");
  return failed ? 1 : 0;
}
