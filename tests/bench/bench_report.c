/*
** bench_report.c: the results table, printed on stdout and written as
** Markdown (tests/bench/RESULTS.md, linked from the README) with the date,
** the machine (nproc, CPU model from /proc/cpuinfo), the inputs, what each
** floor does, the targets and whether each was met.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_ROWS  64
#define MAX_NOTES 32

static bench_row rows[MAX_ROWS];
static int n_rows;
static char notes[MAX_NOTES][512];
static int n_notes;

void report_add(const bench_row *r) {
  if (n_rows == MAX_ROWS)
    bench_die("too many rows");
  rows[n_rows++] = *r;
}

void report_note(const char *fmt, ...) {
  va_list ap;
  if (n_notes == MAX_NOTES)
    bench_die("too many notes");
  va_start(ap, fmt);
  vsnprintf(notes[n_notes++], sizeof(notes[0]), fmt, ap);
  va_end(ap);
}

/* "met", "MISSED" or "-" (no target). */
static const char *verdict(const bench_row *r) {
  return !r->has_target ? "-" : r->met ? "met" : "MISSED";
}

/* The CPU model from /proc/cpuinfo. */
static void cpu_model(char *out, size_t n) {
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(out, n, "unknown");
  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
      snprintf(out, n, "%s", colon + 2);
      out[strcspn(out, "\n")] = 0;
      break;
    }
  }
  if (f != NULL)
    fclose(f);
}

/* Date and machine, one line. */
static void machine(char *out, size_t n) {
  char cpu[256], date[64];
  time_t now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
  cpu_model(cpu, sizeof(cpu));
  snprintf(out, n, "%s, %ld CPUs (nproc), %s", date, sysconf(_SC_NPROCESSORS_ONLN), cpu);
}

void report_print(void) {
  char m[512];
  int i;
  machine(m, sizeof(m));
  printf("\n%s\n\n", m);
  printf("%-56s %22s %22s %10s %-26s %s\n", "case", "floor", "extension", "ratio", "target", "");
  for (i = 0; i < n_rows; i++)
    printf("%-56s %22s %22s %10s %-26s %s\n", rows[i].name, rows[i].floor_text, rows[i].ext_text,
           rows[i].ratio_text, rows[i].target_text, verdict(&rows[i]));
  for (i = 0; i < n_notes; i++)
    printf("- %s\n", notes[i]);
}

/* The fixed text of RESULTS.md: inputs and methods. */
static void write_methods(FILE *f, const bench_inputs *in) {
  fprintf(f, "## Inputs (generated once into `%s`)\n\n", in->cache);
  fprintf(f,
          "- `smollm2-135m.safetensors`: SmolLM2-135M's 272 BF16 tensors, real names and "
          "shapes; header %.1f KB, file %.1f MB.\n",
          (double)in->st_header / 1e3, (double)in->st_size / 1e6);
  fprintf(f,
          "- `llama3-8b-q4_k_m.gguf`: Llama-3-8B Q4_K_M's %d keys (128,256 tokens, 128,256 "
          "token types, 280,147 merges) and %d tensors; header %.2f MB; %.2f GB apparent size, "
          "sparse (real bytes for the norms and the Q4_K `token_embd.weight`).\n",
          in->gguf_n_keys, in->gguf_n_tensors, (double)in->gguf_header / 1e6,
          (double)in->gguf_size / 1e9);
  fprintf(f,
          "- `iq2_xxs.gguf`: one IQ2_XXS tensor shaped as Llama-3-8B's `ffn_down` (4096 x "
          "14336, %.1f MB of pseudo-random blocks with finite scales).\n",
          (double)in->iq2xxs.nbytes / 1e6);
  fprintf(f, "- `many/`: %d safetensors files of 20 F16 tensors each.\n", in->many_n);
  fprintf(f,
          "- `wide-100k.safetensors`: %d F16 tensors of 16 values (a MoE checkpoint's tensor "
          "count); header %.2f MB.\n\n",
          in->wide_n, (double)in->wide_header / 1e6);
  fprintf(f, "## Method\n\n");
  fprintf(f, "- Time is the process's CPU time (user + system: system calls and page faults "
             "count), which other load on a shared machine disturbs less than wall time "
             "(`--clock wall` for wall time).  Each case runs floor and extension alternately, "
             "several repetitions; the table shows medians.  A repetition of a fast case "
             "repeats the work enough times to last about 50 ms and reports the time per run.  "
             "Everything is read once before timing, so the page cache is warm.\n");
  fprintf(f, "- Extension: a `:memory:` connection with the extension loaded; each query is "
             "prepared, bound, stepped to the end, every column of every row fetched (a "
             "BLOB's bytes summed one by one).  \"new connection\" rows open a connection, "
             "load the extension and prepare the query for each run, so the extension's "
             "per-connection cache of parsed files is empty; that setup, timed alone in the "
             "same loop, is subtracted.  \"again (cached)\" rows rerun the prepared query on "
             "one connection, as an application that queries a file repeatedly would.\n");
  fprintf(f, "- \"SQLite alone\" returns as many rows of similar columns from a recursive CTE, "
             "without the extension: SQLite's own share of a listing.\n");
  fprintf(f, "- Floor \"touch the header\": open, fstat, mmap (whole file, read-only, "
             "private), a byte-sum loop over every header byte (8 + N bytes for safetensors; "
             "everything before the data section for GGUF) whose result goes to a volatile "
             "variable, munmap, close.  For the folder: readdir, then that for each file.\n");
  fprintf(f, "- Floor \"pread\": malloc a buffer of the tensor's size, pread the tensor into "
             "it, sum its bytes with the same loop, free.\n");
  fprintf(f, "- Floor \"one pass\" (a function per row of 100,000 tensors): touch the header, "
             "then the \"pread\" floor for every tensor on one descriptor.\n");
  fprintf(f, "- Floor \"64-bit sum\" (tensor_stats, tensor_histogram): mmap, sum the "
             "tensor's bytes as 64-bit integers, munmap.  The histogram with its default range "
             "decodes the tensor twice (its finite min and max first, then the bins).  "
             "IQ2_XXS holds 3.9 values per byte (Q4_K 1.8, BF16 0.5), so its target in bytes "
             "per second is lower.\n");
  fprintf(f, "- Peak memory: VmHWM of a fresh process (fork and exec of the benchmark) that "
             "opens a connection, loads the extension and lists the GGUF, against the same "
             "process that runs no query.\n");
}

void report_write_markdown(const char *path, const bench_inputs *in, const char *versions) {
  char m[512];
  int i;
  FILE *f = fopen(path, "w");
  if (f == NULL)
    bench_die_sys(path);
  machine(m, sizeof(m));
  fprintf(f, "# Benchmark results\n\n");
  fprintf(f, "Written by `make bench` (`tests/bench/`, issue 6).  %s; %s.\n\n", m, versions);
  fprintf(f, "| case | floor | extension | ratio | target | |\n");
  fprintf(f, "|---|---:|---:|---:|---|---|\n");
  for (i = 0; i < n_rows; i++)
    fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", rows[i].name, rows[i].floor_text,
            rows[i].ext_text, rows[i].ratio_text, rows[i].target_text, verdict(&rows[i]));
  fprintf(f, "\n");
  for (i = 0; i < n_rows; i++)
    if (rows[i].note[0])
      fprintf(f, "- %s: %s\n", rows[i].name, rows[i].note);
  for (i = 0; i < n_notes; i++)
    fprintf(f, "- %s\n", notes[i]);
  fprintf(f, "\n");
  write_methods(f, in);
  if (fclose(f) != 0)
    bench_die_sys(path);
}
