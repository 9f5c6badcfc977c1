/*
** bench_mmap.c: tensor bytes read through the guarded mapping against
** pread (weights_mmap(1) against weights_mmap(0)), the same query on the
** same files, measured alternately in one process.  See bench.h.
**
** Each case is timed two ways: "same connection" reruns a prepared query
** on one connection per mode, as an application that reads a file
** repeatedly would (the mapping, made once, stays with the connection's
** cached file, so its pages are faulted in once); "new connection" opens
** a connection, sets the mode, runs the query and closes it for every run
** (a short process: the mapping is made and its pages faulted in every
** time).  The ratio is mapped time / pread time: below 1, the mapping is
** faster.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MMAP_BATCH_SECONDS 0.05

/* One query, on one connection per mode (the warm runs). */
typedef struct mmap_case {
  const char *name;
  const char *sql, *p1, *p2;
  uint64_t bytes; /* for GB/s */
} mmap_case;

/* A run of one case in one mode, warm or on a new connection. */
typedef struct mmap_run {
  const mmap_case *c;
  const char *ext;
  int mapped;
  sql_query warm; /* prepared on a connection set to the mode */
} mmap_run;

/* Set the connection's mode; dies when the module cannot map. */
static void set_mode(sqlite3 *db, int mapped) {
  char *err = NULL,
       *v = sql_value(db, mapped ? "SELECT weights_mmap(1)" : "SELECT weights_mmap(0)", NULL, &err);
  if (v == NULL || atoi(v) != mapped)
    bench_die("weights_mmap(%d) gave %s (weights_mmap_guard() says why)", mapped,
              v     ? v
              : err ? err
                    : "?");
  sqlite3_free(v);
}

/* One warm run. */
static void run_warm(void *arg) {
  sql_run(&((mmap_run *)arg)->warm);
}

/* One run on a new connection: open, set the mode, run, close. */
static void run_cold(void *arg) {
  mmap_run *r = arg;
  sql_query q = {sql_open(r->ext), r->c->sql, r->c->p1, r->c->p2, NULL, r->ext};
  set_mode(q.db, r->mapped);
  sql_prepare(&q);
  sql_run(&q);
  sql_finalize(&q);
  sqlite3_close(q.db);
}

/* Seconds per run of fn over k runs. */
static double per_run(bench_fn fn, void *arg, int k) {
  double t0 = bench_now();
  int i;
  for (i = 0; i < k; i++)
    fn(arg);
  return (bench_now() - t0) / k;
}

/* "12.3 ms, 4.56 GB/s". */
static void show(char *out, size_t n, double s, uint64_t bytes) {
  if (s < 1e-3)
    snprintf(out, n, "%.1f us, %.2f GB/s", s * 1e6, (double)bytes / s / 1e9);
  else
    snprintf(out, n, "%.2f ms, %.2f GB/s", s * 1e3, (double)bytes / s / 1e9);
}

/* Time pread and mapped alternately, reps times, with fn; add the row. */
static void measure(const char *name, const char *how, bench_fn fn, mmap_run *pread_run,
                    mmap_run *map_run, uint64_t bytes, int reps) {
  double tp[64], tm[64], p, m, once;
  int k, r;
  bench_row row = {0};
  fprintf(stderr, "bench: mapped vs pread: %s, %s\n", name, how);
  fn(pread_run); /* warm up: the page cache, and each connection's mapping */
  fn(map_run);
  once = per_run(fn, pread_run, 1);
  k = once > MMAP_BATCH_SECONDS ? 1 : (int)(MMAP_BATCH_SECONDS / (once > 1e-9 ? once : 1e-9));
  for (r = 0; r < reps; r++) {
    tp[r] = per_run(fn, pread_run, k);
    tm[r] = per_run(fn, map_run, k);
  }
  p = bench_median(tp, reps);
  m = bench_median(tm, reps);
  snprintf(row.name, sizeof(row.name), "mapped vs pread: %s, %s", name, how);
  show(row.floor_text, sizeof(row.floor_text), p, bytes);
  show(row.ext_text, sizeof(row.ext_text), m, bytes);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", m / p);
  snprintf(row.target_text, sizeof(row.target_text), "-");
  report_add(&row);
}

void run_mmap(const bench_inputs *in, const char *ext_path, int reps, const char *only) {
  uint64_t wide_bytes = (uint64_t)in->wide_n * in->wide_tensors[0].nbytes;
  const char *embed = in->st_embed->name;
  const mmap_case cases[] = {
      {"safetensors_blob(), 56.6 MB embedding", "SELECT safetensors_blob(?1, ?2)", in->st_path,
       embed, in->st_embed->nbytes},
      {"safetensors_blob() per row, 100,000 tensors",
       "SELECT name, safetensors_blob(path, name) FROM safetensors(?1)", in->wide_path, NULL,
       wide_bytes},
      {"tensor_stats(), BF16 embedding", "SELECT * FROM tensor_stats(?1, ?2)", in->st_path, embed,
       in->st_embed->nbytes},
      {"tensor_stats(), Q4_K token_embd", "SELECT * FROM tensor_stats(?1, ?2)", in->gguf_path,
       in->gguf_q4k.name, in->gguf_q4k.nbytes},
      {"tensor_hash(), 56.6 MB embedding (xxh3-128)", "SELECT tensor_hash(?1, ?2)", in->st_path,
       embed, in->st_embed->nbytes},
      {"tensor_hash() per row, 100,000 tensors",
       "SELECT name, tensor_hash(path, name) FROM safetensors(?1)", in->wide_path, NULL,
       wide_bytes},
      {"tensor_histogram(), BF16 embedding, 64 bins", "SELECT * FROM tensor_histogram(?1, ?2, 64)",
       in->st_path, embed, in->st_embed->nbytes},
  };
  size_t i;
  int mode;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    mmap_run runs[2];
    char full[160];
    snprintf(full, sizeof(full), "mapped vs pread: %s", cases[i].name);
    if (only != NULL && strstr(full, only) == NULL)
      continue;
    for (mode = 0; mode < 2; mode++) {
      sql_query q = {sql_open(ext_path), cases[i].sql, cases[i].p1, cases[i].p2, NULL, ext_path};
      set_mode(q.db, mode);
      sql_prepare(&q);
      runs[mode].c = &cases[i];
      runs[mode].ext = ext_path;
      runs[mode].mapped = mode;
      runs[mode].warm = q;
    }
    measure(cases[i].name, "same connection", run_warm, &runs[0], &runs[1], cases[i].bytes, reps);
    measure(cases[i].name, "new connection", run_cold, &runs[0], &runs[1], cases[i].bytes, reps);
    for (mode = 0; mode < 2; mode++) {
      sql_finalize(&runs[mode].warm);
      sqlite3_close(runs[mode].warm.db);
    }
  }
  report_note("mapped vs pread: the same query with weights_mmap(0) (\"floor\" column: pread) and "
              "weights_mmap(1) (\"extension\" column: the guarded mapping), alternately; ratio = "
              "mapped / pread. \"same connection\": a prepared query rerun on one connection per "
              "mode (the mapping made once); \"new connection\": a connection opened, set, run "
              "and closed for each run (the mapping made and its pages faulted in each time)");
}
