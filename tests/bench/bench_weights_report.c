/*
** bench_weights_report.c: the weights_report() case of the benchmark
** (issue 16): the report of a 100,000-tensor file must return within 2 s.
**
** The file, written once into the cache, has the shape of a large
** mixture-of-experts checkpoint: 100 layers x 333 experts x gate/up/down
** projections (BF16 [4,8], 64 bytes each) plus an embedding, 99,901 tensors
** in all, with a header of about 9 MB.  Each repetition opens a new
** connection (the header is parsed again), runs
** SELECT length(weights_report(?1)), and closes it.  The floor shown beside
** it is the same with SELECT count(*) FROM tensors(?1): listing the file.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define WIDE_LAYERS  100
#define WIDE_EXPERTS 333

/* Write the 100k-tensor file at path unless it is there. */
static void gen_report_input(const char *path) {
  static const char *const proj[] = {"gate_proj", "up_proj", "down_proj"};
  bench_buf h = {0};
  bench_out o;
  char entry[256];
  uint64_t off = 0, n, zero = 0;
  int l, e, p, len;
  if (bench_file_size(path) > 0)
    return;
  fprintf(stderr, "bench: writing %s\n", path);
  bench_put(&h, "{", 1);
  for (l = 0; l < WIDE_LAYERS; l++)
    for (e = 0; e < WIDE_EXPERTS; e++)
      for (p = 0; p < 3; p++) {
        len = snprintf(entry, sizeof(entry),
                       "\"model.layers.%d.mlp.experts.%d.%s.weight\":{\"dtype\":\"BF16\","
                       "\"shape\":[4,8],\"data_offsets\":[%llu,%llu]},",
                       l, e, proj[p], (unsigned long long)off, (unsigned long long)(off + 64));
        bench_put(&h, entry, (size_t)len);
        off += 64;
      }
  len = snprintf(entry, sizeof(entry),
                 "\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[100,8],"
                 "\"data_offsets\":[%llu,%llu]}}",
                 (unsigned long long)off, (unsigned long long)(off + 1600));
  bench_put(&h, entry, (size_t)len);
  off += 1600;
  while (h.n % 8 != 0)
    bench_put(&h, " ", 1);
  n = h.n;
  bench_out_open(&o, path);
  bench_out_write(&o, &n, 8); /* little-endian hosts only, as the rest of the benchmark */
  bench_out_write(&o, h.p, h.n);
  for (; off > 0; off -= 8) /* values 0: the data does not matter here */
    bench_out_write(&o, &zero, 8);
  bench_out_close(&o, 0);
  free(h.p);
}

/* Seconds of one run of sql on path on a new connection; the result is
** checked to be there. */
static double time_cold(const char *ext_path, const char *sql, const char *path) {
  double t0 = bench_now();
  sqlite3 *c = sql_open(ext_path);
  char *err = NULL, *v = sql_value(c, sql, path, &err);
  double t;
  if (v == NULL)
    bench_die("%s: %s", sql, err ? err : "no row");
  sqlite3_free(v);
  sqlite3_close(c);
  t = bench_now() - t0;
  return t;
}

void run_weights_report(const char *ext_path, const char *cache) {
  char path[4300];
  double tr[5], tl[5], r, l;
  bench_row row = {0};
  int i;
  snprintf(path, sizeof(path), "%s/wide-100k.safetensors", cache);
  gen_report_input(path);
  fprintf(stderr, "bench: weights_report() of a 100k-tensor file\n");
  for (i = 0; i < 5; i++) {
    tl[i] = time_cold(ext_path, "SELECT count(*) FROM tensors(?1)", path);
    tr[i] = time_cold(ext_path, "SELECT length(weights_report(?1))", path);
  }
  l = bench_median(tl, 5);
  r = bench_median(tr, 5);
  snprintf(row.name, sizeof(row.name), "weights_report(): 99,901-tensor file, new connection");
  snprintf(row.floor_text, sizeof(row.floor_text), "%.3f s (tensors() listing)", l);
  snprintf(row.ext_text, sizeof(row.ext_text), "%.3f s", r);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.1fx", r / l);
  snprintf(row.target_text, sizeof(row.target_text), "<= 2 s");
  snprintf(row.note, sizeof(row.note),
           "the whole page (every tensor listed, histograms sampled); the floor is listing the "
           "same file with tensors()");
  row.has_target = 1;
  row.met = r <= 2.0;
  report_add(&row);
}
