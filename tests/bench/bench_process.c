/*
** bench_process.c: whole-process rows of the benchmark: what a user who
** runs one `sqlite3` command per file pays, start to end (issue 25).
**
** Each row runs commands as child processes (fork, exec, stdout to
** /dev/null) and takes their CPU time, user + system, and their page
** faults from wait4(2): the
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
**   gguf-tools   gguf-tools show F (antirez/gguf-tools, when there is one)
**   ggml         build/bench-ggml-list LIB F (tests/bench/lister/ggml_list.c:
**                ggml's gguf_init_from_file(), when libggml-base.so is there)
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
enum { P_BARE, P_LOAD, P_GGUF, P_ST, P_LISTER, P_PYTHON, P_GGUF_TOOLS, P_GGML, P_COUNT };

/* What one run of a command cost: CPU time (user + system, seconds) and
** page faults (minor + major, from the same rusage). */
typedef struct run_cost {
  double cpu;
  double faults;
} run_cost;

/* Run argv to its end with stdout and stderr to /dev/null; exits when it
** fails. */
static run_cost process_cost(char *const argv[]) {
  struct rusage ru;
  int status;
  run_cost c;
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
  c.cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
          ru.ru_stime.tv_usec / 1e6;
  c.faults = (double)(ru.ru_minflt + ru.ru_majflt);
  return c;
}

/* The path of program name beside this one (the benchmark's listers). */
static void sibling_path(char *out, size_t size, const char *name) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  char *slash;
  if (n <= 0)
    bench_die_sys("readlink /proc/self/exe");
  self[n] = 0;
  slash = strrchr(self, '/');
  *slash = 0;
  snprintf(out, size, "%s/%s", self, name);
}

/* The gguf-tools to run into out: tools->gguf_tools, else the first on
** PATH; 1 when it exists. */
static int find_gguf_tools(const bench_tools *tools, char *out, size_t size) {
  const char *path = getenv("PATH");
  char dir[4096];
  if (tools->gguf_tools != NULL) {
    snprintf(out, size, "%s", tools->gguf_tools);
    return access(out, X_OK) == 0;
  }
  while (path != NULL && *path != 0) {
    size_t n = strcspn(path, ":");
    snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
    snprintf(out, size, "%s/gguf-tools", dir[0] ? dir : ".");
    if (access(out, X_OK) == 0)
      return 1;
    path += n + (path[n] == ':');
  }
  return 0;
}

/* "X ms (N faults)" into out. */
static void ms(char *out, size_t size, const run_cost *c) {
  snprintf(out, size, "%.2f ms, %.0f faults", c->cpu * 1e3, c->faults);
}

/* A row of the listing against the program at k of m, as name. */
static void vs_row(const char *name, const char *floor_name, const run_cost *m, int k,
                   double max_ratio, const char *target, const char *note) {
  bench_row row;
  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "%s", name);
  snprintf(row.floor_text, sizeof(row.floor_text), "%s %.2f ms, %.0f faults", floor_name,
           m[k].cpu * 1e3, m[k].faults);
  ms(row.ext_text, sizeof(row.ext_text), &m[P_GGUF]);
  if (m[P_GGUF].cpu <= m[k].cpu)
    snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx (%.1fx faster)",
             m[P_GGUF].cpu / m[k].cpu, m[k].cpu / m[P_GGUF].cpu);
  else
    snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", m[P_GGUF].cpu / m[k].cpu);
  snprintf(row.target_text, sizeof(row.target_text), "%s", target);
  row.has_target = 1;
  row.met = m[P_GGUF].cpu <= max_ratio * m[k].cpu;
  snprintf(row.note, sizeof(row.note), "%s", note);
  report_add(&row);
}

/* A row for a baseline that is not on this machine. */
static void missing_row(const char *name, const char *why) {
  bench_row row;
  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "%s", name);
  snprintf(row.floor_text, sizeof(row.floor_text), "not found");
  snprintf(row.ext_text, sizeof(row.ext_text), "-");
  snprintf(row.ratio_text, sizeof(row.ratio_text), "-");
  snprintf(row.target_text, sizeof(row.target_text), "-");
  snprintf(row.note, sizeof(row.note), "%s", why);
  report_add(&row);
}

/* The median of each command's runs: CPU time and faults apart. */
static run_cost median_cost(const run_cost *runs, int reps) {
  double *cpu = calloc((size_t)reps, sizeof(double)), *flt = calloc((size_t)reps, sizeof(double));
  run_cost m;
  int i;
  for (i = 0; i < reps; i++) {
    cpu[i] = runs[i].cpu;
    flt[i] = runs[i].faults;
  }
  m.cpu = bench_median(cpu, reps);
  m.faults = bench_median(flt, reps);
  free(cpu);
  free(flt);
  return m;
}

void run_processes(const char *ext_path, const bench_inputs *in, const bench_tools *tools,
                   int reps) {
  char load[4300], q_gguf[4400], q_st[4400], lister[4200], ggml_lister[4200], ext[4200];
  char gguf_tools[4200], note[256];
  char *argv[P_COUNT][8] = {{0}};
  run_cost *t[P_COUNT], m[P_COUNT];
  int have[P_COUNT];
  bench_row row;
  double base;
  int i, k;
  if (realpath(ext_path, ext) == NULL)
    bench_die_sys(ext_path);
  snprintf(load, sizeof(load), ".load %s", ext);
  snprintf(q_gguf, sizeof(q_gguf), "SELECT * FROM gguf('%s')", in->gguf_path);
  snprintf(q_st, sizeof(q_st), "SELECT * FROM safetensors('%s')", in->st_path);
  sibling_path(lister, sizeof(lister), "bench-gguf-list");
  sibling_path(ggml_lister, sizeof(ggml_lister), "bench-ggml-list");
  {
    char *bare[] = {"/usr/bin/sqlite3", ":memory:", "SELECT 1", NULL};
    char *loaded[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", "SELECT 1", NULL};
    char *gguf[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", q_gguf, NULL};
    char *st[] = {"/usr/bin/sqlite3", "-cmd", load, ":memory:", q_st, NULL};
    char *list[] = {lister, (char *)in->gguf_path, NULL};
    char *py[] = {"/usr/bin/python3", "-c", (char *)PY_READER, (char *)in->st_path, NULL};
    char *show[] = {gguf_tools, "show", (char *)in->gguf_path, NULL};
    char *ggml[] = {ggml_lister, (char *)tools->ggml_lib, (char *)in->gguf_path, NULL};
    memcpy(argv[P_BARE], bare, sizeof(bare));
    memcpy(argv[P_LOAD], loaded, sizeof(loaded));
    memcpy(argv[P_GGUF], gguf, sizeof(gguf));
    memcpy(argv[P_ST], st, sizeof(st));
    memcpy(argv[P_LISTER], list, sizeof(list));
    memcpy(argv[P_PYTHON], py, sizeof(py));
    memcpy(argv[P_GGUF_TOOLS], show, sizeof(show));
    memcpy(argv[P_GGML], ggml, sizeof(ggml));
  }
  for (k = 0; k < P_COUNT; k++)
    have[k] = 1;
  have[P_GGUF_TOOLS] = find_gguf_tools(tools, gguf_tools, sizeof(gguf_tools));
  have[P_GGML] = tools->ggml_lib != NULL && access(tools->ggml_lib, R_OK) == 0;
  for (k = 0; k < P_COUNT; k++) {
    t[k] = calloc((size_t)reps, sizeof(run_cost));
    if (have[k])
      process_cost(argv[k]); /* warm: the files and libraries in the page cache */
  }
  for (i = 0; i < reps; i++)
    for (k = 0; k < P_COUNT; k++)
      if (have[k])
        t[k][i] = process_cost(argv[k]);
  for (k = 0; k < P_COUNT; k++) {
    m[k] = median_cost(t[k], reps);
    free(t[k]);
  }

  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "whole process: sqlite3 with .load, SELECT 1");
  snprintf(row.floor_text, sizeof(row.floor_text), "bare sqlite3 %.2f ms, %.0f faults",
           m[P_BARE].cpu * 1e3, m[P_BARE].faults);
  ms(row.ext_text, sizeof(row.ext_text), &m[P_LOAD]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "+%.2f ms",
           (m[P_LOAD].cpu - m[P_BARE].cpu) * 1e3);
  snprintf(row.target_text, sizeof(row.target_text), "<= +1 ms");
  row.has_target = 1;
  row.met = m[P_LOAD].cpu - m[P_BARE].cpu <= 1e-3;
  report_add(&row);

  if (have[P_GGUF_TOOLS]) {
    snprintf(note, sizeof(note),
             "gguf-tools: %.100s show FILE (antirez/gguf-tools: mmap of the file, "
             "every key and tensor printed, arrays to 30 items)",
             gguf_tools);
    vs_row("whole process: list the Llama-3 GGUF (291 tensors) vs gguf-tools show",
           "gguf-tools show", m, P_GGUF_TOOLS, 1.5, "<= 1.5x", note);
  } else {
    missing_row("whole process: list the Llama-3 GGUF (291 tensors) vs gguf-tools show",
                "no gguf-tools on PATH (--gguf-tools PATH names one)");
  }
  if (have[P_GGML]) {
    snprintf(note, sizeof(note),
             "ggml's parser: gguf_init_from_file() with no_alloc from %.100s, every "
             "key and tensor printed (tests/bench/lister/ggml_list.c)",
             tools->ggml_lib);
    vs_row("whole process: list the Llama-3 GGUF vs ggml's parser", "ggml gguf_init_from_file", m,
           P_GGML, 0.1, "<= 0.1x (10x faster)", note);
  } else {
    missing_row(
        "whole process: list the Llama-3 GGUF vs ggml's parser",
        "no libggml-base.so (tests/llama_install.sh installs node-llama-cpp's; --ggml LIB)");
  }

  memset(&row, 0, sizeof(row));
  base = m[P_BARE].cpu + m[P_LISTER].cpu;
  snprintf(row.name, sizeof(row.name), "whole process: list the Llama-3 GGUF (291 tensors)");
  snprintf(row.floor_text, sizeof(row.floor_text), "bare + C lister %.2f ms", base * 1e3);
  ms(row.ext_text, sizeof(row.ext_text), &m[P_GGUF]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", m[P_GGUF].cpu / base);
  snprintf(row.target_text, sizeof(row.target_text), "<= 1.5x");
  row.has_target = 1;
  row.met = m[P_GGUF].cpu <= 1.5 * base;
  snprintf(row.note, sizeof(row.note),
           "the C lister (tests/bench/lister/gguf_list.c) alone: %.2f ms, %.0f faults; bare "
           "sqlite3: %.2f ms, %.0f faults",
           m[P_LISTER].cpu * 1e3, m[P_LISTER].faults, m[P_BARE].cpu * 1e3, m[P_BARE].faults);
  report_add(&row);

  memset(&row, 0, sizeof(row));
  snprintf(row.name, sizeof(row.name), "whole process: list the SmolLM2 safetensors (272)");
  snprintf(row.floor_text, sizeof(row.floor_text), "Python reader %.2f ms, %.0f faults",
           m[P_PYTHON].cpu * 1e3, m[P_PYTHON].faults);
  ms(row.ext_text, sizeof(row.ext_text), &m[P_ST]);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx (%.1fx faster)",
           m[P_ST].cpu / m[P_PYTHON].cpu, m[P_PYTHON].cpu / m[P_ST].cpu);
  snprintf(row.target_text, sizeof(row.target_text), "<= 0.2x (5x faster)");
  row.has_target = 1;
  row.met = m[P_ST].cpu * 5 <= m[P_PYTHON].cpu;
  snprintf(row.note, sizeof(row.note),
           "the Python reader is /usr/bin/python3 -c with struct and json (bench_process.c), "
           "each tensor printed");
  report_add(&row);
  report_note("whole-process rows: %d runs of each command, alternately, medians of the child's "
              "CPU time (user + system) and of its page faults (minor + major), both from wait4; "
              "a page fault of a fresh page costs about 2 us on some virtual machines, 10 us on "
              "others, so the faults are shown beside the times",
              reps);
}
