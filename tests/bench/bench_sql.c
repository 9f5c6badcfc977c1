/*
** bench_sql.c: the extension's side of each case: a :memory: connection
** with build/weights.so loaded through the C API, queries prepared once and
** run as an application would (reset, step every row, read every column),
** and peak memory measured in a child process.  See bench.h.
**
** Reading a column: INTEGER and REAL are fetched; TEXT is fetched with its
** length; a BLOB is fetched and every byte summed with bench_byte_sum(),
** the same consumer the pread floor uses.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

sqlite3 *sql_open(const char *ext_path) {
  sqlite3 *db;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK)
    bench_die("sqlite3_open: %s", sqlite3_errmsg(db));
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)NULL);
  if (sqlite3_load_extension(db, ext_path, NULL, &err) != SQLITE_OK)
    bench_die("cannot load %s: %s", ext_path, err ? err : "?");
  return db;
}

int sql_has_function(sqlite3 *db, const char *name) {
  char *err = NULL;
  char *v = sql_value(db,
                      "SELECT count(*) FROM (SELECT name FROM pragma_function_list UNION ALL "
                      "SELECT name FROM pragma_module_list) WHERE name = ?1",
                      name, &err);
  int found = v != NULL && atoi(v) > 0;
  sqlite3_free(v);
  sqlite3_free(err);
  return found;
}

/* Bind the text parameters that are set. */
static void bind_params(sqlite3_stmt *stmt, const char *p1, const char *p2) {
  if (p1 != NULL)
    sqlite3_bind_text(stmt, 1, p1, -1, SQLITE_STATIC);
  if (p2 != NULL)
    sqlite3_bind_text(stmt, 2, p2, -1, SQLITE_STATIC);
}

void sql_prepare(sql_query *q) {
  if (sqlite3_prepare_v2(q->db, q->sql, -1, &q->stmt, NULL) != SQLITE_OK)
    bench_die("prepare %s: %s", q->sql, sqlite3_errmsg(q->db));
  bind_params(q->stmt, q->p1, q->p2);
}

/* Fetch every column of the current row. */
static void read_row(sqlite3_stmt *stmt) {
  int i, n = sqlite3_column_count(stmt);
  for (i = 0; i < n; i++) {
    switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      bench_sink += (uint64_t)sqlite3_column_int64(stmt, i);
      break;
    case SQLITE_FLOAT:
      bench_sink += (uint64_t)(int64_t)sqlite3_column_double(stmt, i);
      break;
    case SQLITE_TEXT:
      bench_sink += (uintptr_t)sqlite3_column_text(stmt, i);
      bench_sink += (uint64_t)sqlite3_column_bytes(stmt, i);
      break;
    case SQLITE_BLOB: {
      const unsigned char *p = sqlite3_column_blob(stmt, i);
      bench_sink += bench_byte_sum(p, (size_t)sqlite3_column_bytes(stmt, i));
      break;
    }
    default:
      break;
    }
  }
}

/* Step stmt to the end, reading every row. */
static void step_all(sqlite3 *db, sqlite3_stmt *stmt, const char *sql) {
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
    read_row(stmt);
  if (rc != SQLITE_DONE)
    bench_die("%s: %s", sql, sqlite3_errmsg(db));
}

void sql_run(void *arg) {
  sql_query *q = arg;
  sqlite3_reset(q->stmt);
  step_all(q->db, q->stmt, q->sql);
}

/* A new connection, the query prepared on it, stepped when step is set. */
static void run_fresh(const sql_query *q, int step) {
  sqlite3 *db = sql_open(q->ext);
  sqlite3_stmt *stmt;
  if (sqlite3_prepare_v2(db, q->sql, -1, &stmt, NULL) != SQLITE_OK)
    bench_die("prepare %s: %s", q->sql, sqlite3_errmsg(db));
  bind_params(stmt, q->p1, q->p2);
  if (step)
    step_all(db, stmt, q->sql);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

void sql_run_cold(void *q) {
  run_fresh(q, 1);
}

void sql_setup_only(void *q) {
  run_fresh(q, 0);
}

void sql_finalize(sql_query *q) {
  sqlite3_finalize(q->stmt);
  q->stmt = NULL;
}

char *sql_value(sqlite3 *db, const char *sql, const char *p1, char **err) {
  sqlite3_stmt *stmt;
  char *v = NULL;
  int rc;
  *err = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
    *err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return NULL;
  }
  bind_params(stmt, p1, NULL);
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    v = sqlite3_mprintf("%s", sqlite3_column_text(stmt, 0));
  else if (rc != SQLITE_DONE)
    *err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(stmt);
  return v;
}

/* VmHWM of this process, in kB, from /proc/self/status. */
static long vm_hwm_kb(void) {
  char line[256];
  long kb = -1;
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL)
    bench_die_sys("/proc/self/status");
  while (fgets(line, sizeof(line), f) != NULL)
    if (strncmp(line, "VmHWM:", 6) == 0)
      kb = atol(line + 6);
  fclose(f);
  return kb;
}

/* argv: EXT SQL P1, SQL "-" for a bare connection.  Prints VmHWM in kB. */
int sql_peak_child(int argc, char **argv) {
  sqlite3 *db;
  if (argc != 3)
    bench_die("--peak-child EXT SQL PATH");
  db = sql_open(argv[0]);
  if (strcmp(argv[1], "-") != 0) {
    sql_query q = {db, argv[1], argv[2], NULL, NULL, argv[0]};
    sql_prepare(&q);
    sql_run(&q);
    sql_finalize(&q);
  }
  printf("%ld\n", vm_hwm_kb());
  sqlite3_close(db);
  return 0;
}

/* A fresh process (fork and exec of this program), so that nothing the
** parent allocated counts in its peak. */
long sql_peak_kb(const char *ext_path, const char *sql, const char *p1) {
  int fds[2], status;
  char out[64] = {0};
  ssize_t n;
  pid_t pid;
  if (pipe(fds) != 0)
    bench_die_sys("pipe");
  pid = fork();
  if (pid < 0)
    bench_die_sys("fork");
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl("/proc/self/exe", "bench", "--peak-child", ext_path, sql ? sql : "-", p1 ? p1 : "-",
          (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  n = read(fds[0], out, sizeof(out) - 1);
  close(fds[0]);
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || n <= 0)
    bench_die("the peak-memory child failed (%s)", sql ? sql : "bare connection");
  return atol(out);
}
