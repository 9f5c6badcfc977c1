/*
** interrupt_test.c: sqlite3_interrupt() stops a remote transfer that waits
** on the network (issue 13), run by tests/interrupt_test.sh.
**
**   interrupt_test MODULE STALL_URL RETRY_URL
**
** Built against a SQLite of 3.41 or later (the amalgamation that
** better-sqlite3 ships in build/node: Debian 12's is 3.40, which has no
** sqlite3_is_interrupted() for the extension to poll).  STALL_URL answers
** 16 bytes then pauses 4 s (tests/http_server.py fault "stall"); RETRY_URL
** answers 500 every time, so the extension retries for about 6 s.  Each is
** read twice: left alone, it takes its full time (the stall) or fails as
** HTTP 500; interrupted from another thread 0.5 s in, the statement ends
** within 2 s with "interrupted".  Prints "interrupt: N passed, M failed".
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"

static int passed, failed;

/* Count one check. */
static void check(int ok, const char *what, const char *detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAILED: %s: %s\n", what, detail);
  }
}

/* Seconds since some fixed time. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The other thread: interrupt db after half a second. */
static void *interrupt_later(void *db) {
  usleep(500000);
  sqlite3_interrupt(db);
  return NULL;
}

/* Run sql with url bound on a new connection that loads module; when
** interrupt, another thread interrupts it 0.5 s in.  The first column of
** the first row or the error message into out; the seconds it took. */
static double run(const char *module, const char *sql, const char *url, int interrupt, int *ok,
                  char *out, size_t size) {
  sqlite3 *db;
  sqlite3_stmt *st = NULL;
  pthread_t t;
  char *err = NULL;
  double t0;
  int rc;
  *ok = 0;
  snprintf(out, size, "?");
  if (sqlite3_open(":memory:", &db) != SQLITE_OK)
    return 0;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, module, NULL, &err) != SQLITE_OK) {
    snprintf(out, size, "load: %s", err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(db);
    return 0;
  }
  sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  sqlite3_bind_text(st, 1, url, -1, SQLITE_STATIC);
  t0 = now();
  if (interrupt)
    pthread_create(&t, NULL, interrupt_later, db);
  rc = sqlite3_step(st);
  t0 = now() - t0;
  if (interrupt)
    pthread_join(t, NULL);
  *ok = rc == SQLITE_ROW;
  snprintf(out, size, "%s",
           rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return t0;
}

int main(int argc, char **argv) {
  const char *q = "SELECT count(*) FROM gguf(?1)";
  char out[1024], what[256];
  double s;
  int ok;
  if (argc != 4) {
    fprintf(stderr, "usage: interrupt_test MODULE STALL_URL RETRY_URL\n");
    return 2;
  }
  /* a stalled body */
  s = run(argv[1], q, argv[2], 0, &ok, out, sizeof(out));
  snprintf(what, sizeof(what), "a stalled transfer left alone ends in %.1f s with the rows", s);
  check(ok && strcmp(out, "21") == 0 && s >= 3.5, what, out);
  s = run(argv[1], q, argv[2], 1, &ok, out, sizeof(out));
  snprintf(what, sizeof(what), "a stalled transfer interrupted at 0.5 s ends in %.1f s", s);
  check(!ok && strstr(out, "interrupted") != NULL && s < 2, what, out);
  /* the waits between retries */
  s = run(argv[1], q, argv[3], 0, &ok, out, sizeof(out));
  snprintf(what, sizeof(what), "retries left alone give up in %.1f s", s);
  check(!ok && strstr(out, "HTTP 500") != NULL && s >= 3, what, out);
  s = run(argv[1], q, argv[3], 1, &ok, out, sizeof(out));
  snprintf(what, sizeof(what), "retries interrupted at 0.5 s end in %.1f s", s);
  check(!ok && strstr(out, "interrupted") != NULL && s < 2, what, out);
  printf("interrupt: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
