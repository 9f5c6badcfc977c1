/*
** bench_process.c: whole-process rows of the benchmark: what a user who
** runs one `sqlite3` command per file pays, start to end (issue 25).
**
** Each row runs commands as child processes (fork, exec, stdout to
** /dev/null) and takes their CPU time, user + system, from wait4(2): the
** dynamic loader, the libraries a module pulls in, the parse and the
** printing all count.  The commands of a row run alternately, reps times
** each, and the table shows medians.
**
**   bare         sqlite3 :memory: 'SELECT 1'
**   load         sqlite3 -cmd '.load EXT' :memory: 'SELECT 1'
**   gguf         sqlite3 -cmd '.load EXT' :memory: "SELECT * FROM gguf('F')"
**   safetensors  the same with safetensors()
**   C lister     build/bench-gguf-list F (tests/bench/lister/gguf_list.c: stdio, once
**                front to back, each tensor printed)
**   Python       /usr/bin/python3 -c READER F: the stdlib reader below (struct,
**                json), each tensor printed
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench.h"

/* The Python baseline: a safetensors header read with the standard library. */
static const char *const PY_READER =
    "import json, struct, sys\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    (n,) = struct.unpack('<Q', f.read(8))\n"
    "    header = json.loads(f.read(n))\n"
    "for name, t in header.items():\n"
    "    if name != '__metadata__':\n"
    "        print(name, t['dtype'], t['shape'], t['data_offsets'][0], t['data_offsets'][1])\n";

/* The commands of the rows. */
enum { P_BARE, P_LOAD, P_GGUF, P_ST, P_LISTER, P_PYTHON, P_COUNT };

/* CPU time (user + system, seconds) of running argv to its end with
** stdout and stderr to /dev/null; exits when it fails. */
static double process_cpu(char *const argv[]) {
  struct rusage ru;
  int status;
  pid_t pid = fork();
  if (pid < 0)
    bench_die_sys("fork");
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    bench_die("%s %s failed", argv[0], argv[1] ? argv[1] : "");
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

/* The path of the C lister: bench-gguf-list beside this program. */
static void lister_path(char *out, size_t size) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  char *slash;
  if (n <= 0)
    bench_die_sys("readlink /proc/self/exe");
  self[n] = 0;
  slash = strrchr(self, '/');
  *slash = 0;
  snprintf(out, size, "%s/bench-gguf-list", self);
}

/* "X ms" into out. */
static void ms(char *out, size_t size, double s) {
  snprintf(out, size, "%.2f ms", s * 1e3);
}

void run_processes(const char *ext_path, const bench_inputs *in, int reps) {
  char load[4300], q_gguf[4400], q_st[4400], lister[4200], ext[4200];
  char *argv[P_COUNT][8] = {{0}};
  double *t[P_COUNT], m[P_COUNT], base;
  bench_row row;
  int i, k;
  if (realpath(ext_path, ext) == NULL)
    bench_die_sys(ext_path);
  snprintf(load, sizeof(load), ".load %s", ext);
  snprintf(q_gguf, sizeof(q_gguf), "SELECT * FROM gguf('%s')", in->gguf_path);
  snprintf(q_st, sizeof(q_st), "SELECT * FROM safetensors('%s')", in->st_path);
  lister_path(lister, sizeof(lister));
  {
    char *bare[] = {"/usr/bin/sqlite3", ":memory:", "SELECT 1", NULL};
    char *loaded[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", "SELECT 1", NULL};
    char *gguf[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", q_gguf, NULL};
    char *st[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", q_st, NULL};
    char *list[] = {lister, (char *)in->gguf_path, NULL};
    char *py[] = {"/usr/bin/python3", "-c", (char *)PY_READER, (char *)in->st_path, NULL};
    memcpy(argv[P_BARE], bare, sizeof(bare));
    memcpy(argv[P_LOAD], loaded, sizeof(loaded));
    memcpy(argv[P_GGUF], gguf, sizeof(gguf));
    memcpy(argv[P_ST], st, sizeof(st));
    memcpy(argv[P_LISTER], list, sizeof(list));
    memcpy(argv[P_PYTHON], py, sizeof(py));
  }
  for (k = 0; k < P_COUNT; k++) {
    t[k] = calloc((size_t)reps, sizeof(double));
    process_cpu(argv[k]); /* warm: the files and libraries in the page cache */
  }
  for (i = 0; i < reps; i++)
    for (k = 0; k < P_COUNT; k++)
      t[k][i] = process_cpu(argv[k]);
  for (k = 0; k < P_COUNT; k++) {
    m[k] = bench_median(t[k], reps);
    free(t[k]);
  }

  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "whole process: sqlite3 with .load, SELECT 1");
  snprintf(row.floor_text, sizeof(row.floor_text), "bare sqlite3 %.2f ms", m[P_BARE] * 1e3);
  ms(row.ext_text, sizeof(row.ext_text), m[P_LOAD]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "+%.2f ms", (m[P_LOAD] - m[P_BARE]) * 1e3);
  snprintf(row.target_text, sizeof(row.target_text), "<= +1 ms");
  row.has_target = 1;
  row.met = m[P_LOAD] - m[P_BARE] <= 1e-3;
  report_add(&row);

  memset(&row, 0, sizeof(row));
  base = m[P_BARE] + m[P_LISTER];
  snprintf(row.name, sizeof(row.name), "whole process: list the Llama-3 GGUF (291 tensors)");
  snprintf(row.floor_text, sizeof(row.floor_text), "bare + C lister %.2f ms", base * 1e3);
  ms(row.ext_text, sizeof(row.ext_text), m[P_GGUF]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", m[P_GGUF] / base);
  snprintf(row.target_text, sizeof(row.target_text), "<= 1.5x");
  row.has_target = 1;
  row.met = m[P_GGUF] <= 1.5 * base;
  snprintf(row.note, sizeof(row.note),
           "the C lister (tests/bench/lister/gguf_list.c) alone: %.2f ms; bare sqlite3: %.2f ms",
           m[P_LISTER] * 1e3, m[P_BARE] * 1e3);
  report_add(&row);

  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "whole process: list the SmolLM2 safetensors (272)");
  snprintf(row.floor_text, sizeof(row.floor_text), "Python reader %.2f ms", m[P_PYTHON] * 1e3);
  ms(row.ext_text, sizeof(row.ext_text), m[P_ST]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx (%.1fx faster)", m[P_ST] / m[P_PYTHON],
           m[P_PYTHON] / m[P_ST]);
  snprintf(row.target_text, sizeof(row.target_text), "<= 0.2x (5x faster)");
  row.has_target = 1;
  row.met = m[P_ST] * 5 <= m[P_PYTHON];
  snprintf(row.note, sizeof(row.note),
           "the Python reader is /usr/bin/python3 -c with struct and json (bench_process.c), "
           "each tensor printed");
  report_add(&row);
  report_note("whole-process rows: %d runs of each command, alternately, medians of the child's "
              "CPU time (user + system, wait4)",
              reps);
}
