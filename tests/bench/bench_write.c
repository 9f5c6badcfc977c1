/*
** bench_write.c: the writing functions against a durable copy of the same
** bytes (`make bench`).
**
**   1. gguf_rewrite() of the Llama-3-shaped GGUF with a new chat template,
**      against a copy of the whole file: copy_file_range(2) of every byte
**      into a new file in the same folder, fsync(2), rename(2) (what `cp`
**      then `sync FILE` does; `cp` alone, without the fsync, is shown in the
**      note).  With the byte comparison (the default) and without it
**      ("verify": 0).
**   2. safetensors_write() merging a 3-shard SmolLM2-shaped checkpoint into
**      one file, against the same durable copy of the shards' data.
**   3. The peak memory (VmHWM) of the rewrite, against a bare connection:
**      the target is the header's size plus 64 MiB.
** Wall-clock time (the copies' time is the kernel's), medians of WRITE_REPS
** runs; each output is removed after its run.  The shards are made once,
** by safetensors_write() itself, into the cache.
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define WRITE_MAX_RATIO    1.2
#define WRITE_MEMORY_SLACK ((double)(64 << 20))

/* A durable copy of ranges of files into a new file: the floor (bench.h). */
void floor_copy(void *p) {
  const copy_arg *a = p;
  char tmp[4200];
  int i, fd;
  bench_fmt(tmp, sizeof(tmp), "%s.tmp", a->out);
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    bench_die_sys(tmp);
  for (i = 0; i < a->n_src; i++) {
    int in = open(a->src[i], O_RDONLY | O_CLOEXEC);
    loff_t off = (loff_t)a->off[i];
    uint64_t left = a->n[i];
    if (in < 0)
      bench_die_sys(a->src[i]);
    while (left > 0) {
      ssize_t r = copy_file_range(in, &off, fd, NULL, left, 0);
      if (r <= 0)
        bench_die_sys("copy_file_range");
      left -= (uint64_t)r;
    }
    close(in);
  }
  if ((a->durable && fsync(fd) != 0) || close(fd) != 0 || rename(tmp, a->out) != 0)
    bench_die_sys(a->out);
  unlink(a->out);
}

/* The extension's run: the query, then the output removed (bench.h). */
void ext_write(void *p) {
  const ext_arg *a = p;
  char *err = NULL, *v = sql_value(a->db, a->sql, NULL, &err);
  if (v == NULL)
    bench_die("%s: %s", a->sql, err ? err : "no row");
  sqlite3_free(v);
  unlink(a->out);
}

/* Median seconds of WRITE_REPS runs of fn (bench.h). */
double median_of(bench_fn fn, void *arg) {
  double t[WRITE_REPS];
  int r;
  for (r = 0; r < WRITE_REPS; r++) {
    double t0 = bench_now();
    fn(arg);
    t[r] = bench_now() - t0;
  }
  return bench_median(t, WRITE_REPS);
}

static void add_row(const char *name, double f, double e, uint64_t bytes, const char *note) {
  bench_row row = {0};
  snprintf(row.name, sizeof(row.name), "%s", name);
  snprintf(row.floor_text, sizeof(row.floor_text), "%.2f s, %.2f GB/s", f, (double)bytes / f / 1e9);
  snprintf(row.ext_text, sizeof(row.ext_text), "%.2f s, %.2f GB/s", e, (double)bytes / e / 1e9);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", e / f);
  snprintf(row.target_text, sizeof(row.target_text), "<= %.1fx", WRITE_MAX_RATIO);
  snprintf(row.note, sizeof(row.note), "%s", note);
  row.has_target = 1;
  row.met = e / f <= WRITE_MAX_RATIO;
  report_add(&row);
}

/* 1 and 3: the chat template of the GGUF. */
static void run_rewrite(const char *ext_path, const bench_inputs *in, sqlite3 *db,
                        const char *dir) {
  char out[4200], sql[9000], nov[9200], note[256];
  copy_arg c = {0};
  ext_arg e = {db, sql, out};
  double f, fc, x, xn, bare, peak, limit;
  bench_fmt(out, sizeof(out), "%s/rewritten.gguf", dir);
  bench_fmt(sql, sizeof(sql),
            "SELECT gguf_rewrite('%s', '%s', json_object('tokenizer.chat_template', "
            "'{%%- for m in messages %%}<|start_header_id|>{{ m.role }}<|end_header_id|>"
            "{{ m.content }}<|eot_id|>{%%- endfor %%}'))",
            out, in->gguf_path);
  c = (copy_arg){out, {in->gguf_path}, {0}, {in->gguf_size}, 1, 1};
  fprintf(stderr, "bench: gguf_rewrite of the %.1f GB GGUF\n", (double)in->gguf_size / 1e9);
  f = median_of(floor_copy, &c);
  x = median_of(ext_write, &e);
  c.durable = 0;
  fc = median_of(floor_copy, &c);
  snprintf(note, sizeof(note),
           "floor: copy_file_range of the whole file, fsync, rename; `cp` "
           "alone (no fsync): %.2f s",
           fc);
  add_row("gguf_rewrite: a new chat template (4.9 GB)", f, x, in->gguf_size, note);
  bench_fmt(nov, sizeof(nov), "%.*s, '{\"verify\": 0}')", (int)strlen(sql) - 1, sql);
  e.sql = nov;
  xn = median_of(ext_write, &e);
  add_row("gguf_rewrite, \"verify\": 0", f, xn, in->gguf_size,
          "the parse check only, no second read of the tensors' bytes");
  /* 3. peak memory: the child process rewrites and exits */
  bare = 1024.0 * (double)sql_peak_kb(ext_path, NULL, NULL);
  peak = 1024.0 * (double)sql_peak_kb(ext_path, sql, NULL);
  unlink(out);
  limit = (double)in->gguf_header + WRITE_MEMORY_SLACK;
  {
    bench_row row = {0};
    snprintf(row.name, sizeof(row.name), "peak memory: gguf_rewrite (VmHWM)");
    snprintf(row.floor_text, sizeof(row.floor_text), "bare %.1f MB", bare / 1e6);
    snprintf(row.ext_text, sizeof(row.ext_text), "%.1f MB", peak / 1e6);
    snprintf(row.ratio_text, sizeof(row.ratio_text), "+%.1f MB", (peak - bare) / 1e6);
    snprintf(row.target_text, sizeof(row.target_text), "<= header + 64 MiB (%.1f MB)", limit / 1e6);
    snprintf(row.note, sizeof(row.note), "the peak above a bare connection's");
    row.has_target = 1;
    row.met = peak - bare <= limit;
    report_add(&row);
  }
}

/* 2: three shards merged. */
static void run_merge(const bench_inputs *in, sqlite3 *db, const char *dir) {
  char shards[4200], out[4200], sql[9000], *err = NULL, *v;
  char paths[SHARDS][4300];
  copy_arg c = {0};
  ext_arg e = {db, sql, out};
  uint64_t bytes = 0;
  double f, x;
  int k;
  bench_fmt(shards, sizeof(shards), "%s/smollm-3-shards", dir);
  bench_mkdirs(shards);
  for (k = 0; k < SHARDS; k++) {
    bench_fmt(paths[k], sizeof(paths[k]), "%s/model-%05d-of-%05d.safetensors", shards, k + 1,
              SHARDS);
    if (bench_file_size(paths[k]) > 0)
      continue;
    bench_fmt(sql, sizeof(sql),
              "WITH t AS (SELECT name, path, ntile(%d) OVER (ORDER BY offset) AS k "
              "FROM tensors('%s')) SELECT safetensors_write('%s', name, path) FROM t WHERE k = %d",
              SHARDS, in->st_path, paths[k], k + 1);
    if ((v = sql_value(db, sql, NULL, &err)) == NULL)
      bench_die("making the shards: %s", err ? err : "no row");
    sqlite3_free(v);
  }
  /* the index, as transformers writes it: total_size and the weight map */
  bench_fmt(out, sizeof(out), "%s/model.safetensors.index.json", shards);
  if (bench_file_size(out) <= 0) {
    FILE *f;
    bench_fmt(
        sql, sizeof(sql),
        "WITH t AS (SELECT name, nbytes, ntile(%d) OVER (ORDER BY offset) AS k FROM tensors('%s')) "
        "SELECT json_object('metadata', json_object('total_size', sum(nbytes)), 'weight_map', "
        "json_group_object(name, printf('model-%%05d-of-%%05d.safetensors', k, %d))) FROM t",
        SHARDS, in->st_path, SHARDS);
    if ((v = sql_value(db, sql, NULL, &err)) == NULL || (f = fopen(out, "w")) == NULL ||
        fputs(v, f) < 0 || fclose(f) != 0)
      bench_die("writing %s: %s", out, err ? err : "I/O error");
    sqlite3_free(v);
  }
  for (k = 0; k < SHARDS; k++) {
    int fd = open(paths[k], O_RDONLY | O_CLOEXEC);
    unsigned char le[8];
    uint64_t n = 0;
    int b;
    if (fd < 0 || read(fd, le, 8) != 8)
      bench_die_sys(paths[k]);
    close(fd);
    for (b = 7; b >= 0; b--)
      n = n << 8 | le[b];
    c.src[k] = paths[k];
    c.off[k] = 8 + n;
    c.n[k] = (uint64_t)bench_file_size(paths[k]) - 8 - n;
    bytes += c.n[k];
  }
  c.out = out;
  c.n_src = SHARDS;
  c.durable = 1;
  bench_fmt(out, sizeof(out), "%s/merged.safetensors", dir);
  bench_fmt(sql, sizeof(sql), "SELECT safetensors_write('%s', name, path) FROM tensors('%s')", out,
            shards);
  fprintf(stderr, "bench: safetensors_write merging %d shards\n", SHARDS);
  f = median_of(floor_copy, &c);
  x = median_of(ext_write, &e);
  add_row("safetensors_write: merge 3 shards (SmolLM2-shaped)", f, x, bytes,
          "floor: copy_file_range of the shards' data into one file, fsync, rename");
}

void run_write(const char *ext_path, const bench_inputs *in) {
  char dir[4200];
  sqlite3 *db = sql_open(ext_path);
  int wall = bench_wall_clock;
  bench_fmt(dir, sizeof(dir), "%s/write", in->cache);
  bench_mkdirs(dir);
  bench_wall_clock = 1;
  run_rewrite(ext_path, in, db, dir);
  run_merge(in, db, dir);
  bench_wall_clock = wall;
  sqlite3_close(db);
}
