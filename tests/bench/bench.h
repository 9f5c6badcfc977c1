/*
** bench.h: declarations shared by the files of the benchmark program
** (`make bench`, issue 6).
**
**   gen_smollm.c    writes the SmolLM2-shaped safetensors file and the
**                   folder of 1,000 small safetensors files
**   gen_llama3.c    writes the Llama-3-8B-Q4_K_M-shaped GGUF (sparse)
**   gen_wide.c      writes a safetensors file of 100,000 small tensors
**   gen_iq.c        writes a GGUF of one IQ2_XXS tensor
**   bench_util.c    timing, medians, the byte sums, file writing, errors
**   bench_floor.c   the floors: what the hardware and kernel cost
**   bench_sql.c     the same work through SQLite and the extension
**   bench_report.c  the results table on stdout and in RESULTS.md
**   bench_weights_report.c  weights_report() of a 100k-tensor file (issue 16)
**   bench_write.c   the writers against a durable copy
**   bench_convert.c gguf_convert() against a durable copy (issue 32)
**   bench_mmap.c    tensor bytes through the guarded mapping against pread
**   bench_process.c whole processes: sqlite3 with the extension against
**                   a C lister (lister/gguf_list.c) and a Python reader
**   bench.c         main: options, the cache, the list of cases
**
** The generators describe what they wrote in a bench_inputs, which the
** floors use so that they never depend on the extension's parsers.
*/
#ifndef BENCH_H
#define BENCH_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* One tensor of a generated file: where its bytes are. */
typedef struct bench_tensor {
  char name[96];
  uint64_t offset; /* absolute position in the file */
  uint64_t nbytes;
} bench_tensor;

/* Everything the benchmark generated, or found in the cache. */
typedef struct bench_inputs {
  char cache[4096];

  /* SmolLM2-135M-shaped safetensors file. */
  char st_path[4200];
  uint64_t st_header; /* 8 + N */
  uint64_t st_size;
  bench_tensor *st_tensors; /* in file order */
  int st_n;
  const bench_tensor *st_embed; /* model.embed_tokens.weight */

  /* Llama-3-8B-Q4_K_M-shaped GGUF. */
  char gguf_path[4200];
  uint64_t gguf_header; /* bytes up to the data section (the tensor infos and padding) */
  uint64_t gguf_size;   /* apparent size; the file is sparse */
  int gguf_n_tensors;
  int gguf_n_keys;
  bench_tensor gguf_q4k; /* the Q4_K tensor written with real-looking blocks */

  /* One IQ2_XXS tensor (gen_iq.c). */
  char iq_path[4200];
  bench_tensor iq2xxs;

  /* Folder of small safetensors files. */
  char many_dir[4200];
  char **many_files; /* full paths, sorted */
  int many_n;
  int many_tensors;    /* in all files */
  uint64_t many_bytes; /* sum of every file's tensor bytes */

  /* Safetensors file of 100,000 small tensors. */
  char wide_path[4200];
  uint64_t wide_header; /* 8 + N */
  bench_tensor *wide_tensors;
  int wide_n;
} bench_inputs;

/* ---- generators (gen_smollm.c, gen_llama3.c) ---- */

/* Make sure the file exists in in->cache with the expected size, writing
** it when it does not, and fill in its part of in.  Exit on failure. */
void gen_smollm(bench_inputs *in, int verbose);
void gen_many(bench_inputs *in, int verbose);
void gen_llama3(bench_inputs *in, int verbose);
void gen_wide(bench_inputs *in, int verbose);
void gen_iq2xxs(bench_inputs *in, int verbose);

/* ---- utilities (bench_util.c) ---- */

/* Print "bench: <message>" and exit(1); with errno's text when sys. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void bench_die_sys(const char *what) __attribute__((noreturn));

/* snprintf that ends the run rather than cut a path or a query short. */
void bench_fmt(char *out, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));

/* The clock, in seconds: the process's CPU time (user + system), which a
** shared machine disturbs less than wall time; the monotonic wall clock
** when bench_wall_clock is set. */
double bench_now(void);
extern int bench_wall_clock;

/* Median of n values (sorts a copy). */
double bench_median(const double *v, int n);

/* The sum of bytes p[0..n): every byte is read.  Callers add the result
** to bench_sink so that the compiler cannot drop the loop. */
uint64_t bench_byte_sum(const unsigned char *p, size_t n);

/* The sum of p[0..n) read as little-endian 64-bit words (n a multiple of
** 8; a tail is summed bytewise). */
uint64_t bench_word_sum(const unsigned char *p, size_t n);

extern volatile uint64_t bench_sink;

/* Size of a file, or -1 when it does not exist. */
int64_t bench_file_size(const char *path);

/* mkdir -p. */
void bench_mkdirs(const char *path);

/* A file being written under a temporary name, renamed into place by
** bench_out_close() so that an interrupted run never leaves a file of the
** right size with the wrong contents. */
typedef struct bench_out {
  int fd;
  char tmp[4300], path[4200];
} bench_out;

void bench_out_open(bench_out *o, const char *path);
void bench_out_write(bench_out *o, const void *p, size_t n);
void bench_out_pwrite(bench_out *o, const void *p, size_t n, uint64_t at);
void bench_out_close(bench_out *o, uint64_t truncate_to);

/* A growable byte buffer. */
typedef struct bench_buf {
  unsigned char *p;
  size_t n, cap;
} bench_buf;

void bench_put(bench_buf *b, const void *p, size_t n);
void bench_put_u32(bench_buf *b, uint32_t v);
void bench_put_u64(bench_buf *b, uint64_t v);

/* Deterministic pseudo-random numbers (xorshift64). */
uint64_t bench_rand(uint64_t *state);

/* ---- floors (bench_floor.c); each does one repetition ---- */

/* A floor or extension run: one repetition of the work on arg. */
typedef void (*bench_fn)(void *arg);

/* Argument of the mapping floors: map path, sum its first n bytes. */
typedef struct floor_map_arg {
  const char *path;
  uint64_t n;
} floor_map_arg;

void floor_st_header(void *arg);  /* path: the header length is read from the file */
void floor_map_prefix(void *arg); /* path, n bytes */
void floor_many(void *arg);       /* bench_inputs: readdir, then every file */
void floor_pread_one(void *arg);  /* bench_inputs: the embedding tensor */
void floor_pread_all(void *arg);  /* bench_inputs: every tensor of the safetensors file */
void floor_words(void *arg);      /* floor_words_arg */
void floor_wide(void *arg);       /* bench_inputs: the 100,000-tensor file, header and tensors */

typedef struct floor_words_arg {
  const char *path;
  uint64_t offset, nbytes;
} floor_words_arg;

/* ---- extension (bench_sql.c) ---- */

/* Open a :memory: connection with the extension loaded. */
sqlite3 *sql_open(const char *ext_path);

/* Does the connection have a function or table-valued function name? */
int sql_has_function(sqlite3 *db, const char *name);

/* A query and its parameters.  sql_run() runs it on db, prepared once by
** sql_prepare(): reset, step every row, read every column (blobs are
** summed bytewise).  sql_run_cold() runs it on a new connection each time
** (open, load ext, prepare, step as sql_run, finalize, close), which the
** extension's per-connection cache of parsed files cannot serve;
** sql_setup_only() does the same without stepping, to be subtracted. */
typedef struct sql_query {
  sqlite3 *db;
  const char *sql;
  const char *p1, *p2; /* text parameters ?1, ?2 (NULL: none) */
  sqlite3_stmt *stmt;
  const char *ext; /* for the cold runs */
} sql_query;

void sql_prepare(sql_query *q);
void sql_run(void *q);
void sql_finalize(sql_query *q);
void sql_run_cold(void *q);
void sql_setup_only(void *q);

/* Run query once and return its first column of the first row as text
** (sqlite3_malloc'd), or NULL with *err set to the error message. */
char *sql_value(sqlite3 *db, const char *sql, const char *p1, char **err);

/* Peak memory (VmHWM, kB) of a fresh process that loads the extension and
** runs sql on p1 (NULL sql: a bare connection). */
long sql_peak_kb(const char *ext_path, const char *sql, const char *p1);

/* The entry point of that child process (argv after "--peak-child"). */
int sql_peak_child(int argc, char **argv);

/* ---- whole processes (bench_process.c) ---- */

/* Other programs the whole-process rows compare with (NULL or a path that
** does not exist: that row says so). */
typedef struct bench_tools {
  const char *gguf_tools; /* antirez's gguf-tools (NULL: gguf-tools on PATH) */
  const char *ggml_lib;   /* ggml's libggml-base.so */
} bench_tools;

/* Time sqlite3 alone, with the extension loaded, and listing the GGUF and
** the safetensors file, against a C lister, gguf-tools, ggml's parser and a
** Python reader, each run reps times as its own process, with its page
** faults; add the rows. */
void run_processes(const char *ext_path, const bench_inputs *in, const bench_tools *tools,
                   int reps);

/* ---- weights_report() (bench_weights_report.c) ---- */

/* Time the report of a 100k-tensor file written into cache; add its row. */
void run_weights_report(const char *ext_path, const char *cache);

/* ---- the guarded mapping against pread (bench_mmap.c) ---- */

/* Time each case with weights_mmap(1) against weights_mmap(0), on one
** connection and on a new one per run; add their rows (only: --only). */
void run_mmap(const bench_inputs *in, const char *ext_path, int reps, const char *only);

/* ---- the writing functions (bench_write.c) ---- */

/* gguf_rewrite() and safetensors_write() against a durable copy; add rows. */
void run_write(const char *ext_path, const bench_inputs *in);

/* The writers' floor: a copy of ranges of files into a new file (out) by
** copy_file_range(2), fsynced when durable, renamed, then removed; what
** `cp` then `sync FILE` does.  A bench_fn of a copy_arg. */
#define SHARDS 3
typedef struct copy_arg {
  const char *out;
  const char *src[SHARDS];
  uint64_t off[SHARDS], n[SHARDS];
  int n_src;
  int durable; /* fsync and rename, as the functions do */
} copy_arg;
void floor_copy(void *p);

/* A writer's run, a bench_fn of an ext_arg: the query (which must give a
** row), then the output removed. */
typedef struct ext_arg {
  sqlite3 *db;
  const char *sql, *out;
} ext_arg;
void ext_write(void *p);

/* The median wall-clock seconds of WRITE_REPS runs of fn (a writer's). */
#define WRITE_REPS 3
double median_of(bench_fn fn, void *arg);

/* ---- gguf_convert() (bench_convert.c) ---- */

/* gguf_convert() of the SmolLM2-shaped checkpoint to BF16 and Q8_0 against
** a durable copy of its bytes, and its peak memory; add rows. */
void run_convert(const char *ext_path, const bench_inputs *in);

/* ---- report (bench_report.c) ---- */

/* One row of the results table. */
typedef struct bench_row {
  char name[96];
  char floor_text[64], ext_text[64], ratio_text[32], target_text[48];
  int has_target, met;
  char note[256];
} bench_row;

void report_add(const bench_row *r);
void report_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_print(void);
void report_write_markdown(const char *path, const bench_inputs *in, const char *versions);

#endif
