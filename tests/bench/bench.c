/*
** bench.c: the benchmark of sqlite-weights against the physical floor
** (`make bench`, issue 6; not part of `make test`).
**
**   build/bench [--ext PATH] [--cache DIR] [--reps N] [--out FILE]
**               [--files auto|dir|list] [--only TEXT] [--clock cpu|wall]
**               [--gguf-tools PATH] [--ggml LIB]
**
**   --ext     the extension to load (default build/weights.so)
**   --cache   where the inputs are generated once (default build/bench-cache)
**   --reps    repetitions per case, medians reported (default 7)
**   --out     the Markdown report (default tests/bench/RESULTS.md; "-": none)
**   --files   how the 1,000-file case names its files: "dir" passes the
**             folder (safetensors('DIR')), "list" joins json_each() of a
**             bound JSON array of the paths, "auto" (default) uses "dir"
**             when the extension accepts a folder, else "list"
**   --only    run only the cases whose name contains TEXT (for profiling)
**   --clock   what is timed: the process's CPU time, user + system (default:
**             a shared machine's other load disturbs it less), or wall time
**   --gguf-tools  antirez's gguf-tools, whose `show` is a whole-process
**             baseline (default: gguf-tools on PATH; without one the row
**             says so)
**   --ggml    ggml's libggml-base.so, whose GGUF parser is another (default:
**             node-llama-cpp's under build/llama, tests/llama_install.sh)
**
** In one run it generates the inputs (gen_smollm.c, gen_llama3.c) unless
** the cache has them, measures each case's floor (bench_floor.c) and the
** extension (bench_sql.c) alternately, prints the table and writes it as
** Markdown (bench_report.c).  Each case has a target, a ratio of the
** extension's time to the floor's time, and is marked met or missed.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MIN_BATCH_SECONDS 0.05

/* One timed case. */
typedef struct bench_case {
  const char *name;
  bench_fn floor;
  void *floor_arg;
  sql_query *ext;
  double max_ratio; /* target: extension time / floor time */
  const char *target;
  uint64_t bytes;    /* bytes read, to show a bandwidth (0: none) */
  const char *check; /* a query whose first value must equal expect */
  const char *expect;
} bench_case;

/* Set while the floor is itself a query on a new connection (run_remote):
** its connection setup is subtracted too. */
static int floor_is_cold;

/* For reference: what SQLite itself takes to return as many rows and
** columns as safetensors() lists (a recursive CTE, no extension). */
#define SQLITE_ALONE                                                                               \
  "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 271) "                 \
  "SELECT 'model.layers.' || i || '.mlp.down_proj.weight', 'BF16', '[' || 576 || ',' || 1536 || "  \
  "']', 2, 884736, i * 1769472, i * 1769472 + 1769472, 30536 + i * 1769472, 1769472 FROM c"

/* Options. */
static const char *ext_path = "build/weights.so";
static const char *cache_dir = "build/bench-cache";
static const char *out_path = "tests/bench/RESULTS.md";
static const char *files_mode = "auto";
static const char *only;
static int reps = 7;
static bench_tools tools = {NULL, "build/llama/node_modules/@node-llama-cpp/linux-x64/bins/"
                                  "linux-x64/libggml-base.so"};

/* The inputs and the connection every warm case runs on. */
static bench_inputs in;
static sqlite3 *db;

/* A query on db, with the extension path for its cold runs. */
static sql_query query(const char *sql, const char *p1, const char *p2) {
  sql_query q = {db, sql, p1, p2, NULL, ext_path};
  return q;
}

/* Is the case selected by --only? */
static int selected(const char *name) {
  return only == NULL || strstr(name, only) != NULL;
}

/* Run fn k times; seconds per run. */
static double timed(bench_fn fn, void *arg, int k) {
  double t0 = bench_now();
  int i;
  for (i = 0; i < k; i++)
    fn(arg);
  return (bench_now() - t0) / k;
}

/* How many runs make a batch of about MIN_BATCH_SECONDS. */
static int batch_size(double once) {
  double k = MIN_BATCH_SECONDS / (once > 1e-9 ? once : 1e-9);
  return k < 1 ? 1 : k > 100000 ? 100000 : (int)k;
}

/* "12.3 us", "4.56 ms", "1.23 s", with GB/s when bytes > 0. */
static void format_time(char *out, size_t n, double s, uint64_t bytes) {
  char t[32];
  if (s < 1e-3)
    snprintf(t, sizeof(t), "%.1f us", s * 1e6);
  else if (s < 1)
    snprintf(t, sizeof(t), "%.2f ms", s * 1e3);
  else
    snprintf(t, sizeof(t), "%.2f s", s);
  if (bytes > 0)
    snprintf(out, n, "%s, %.2f GB/s", t, (double)bytes / s / 1e9);
  else
    snprintf(out, n, "%s", t);
}

/* How a case runs the extension: on a new connection each time (COLD: the
** cache of parsed files starts empty), or repeatedly on one connection
** (WARM: with the case's target; CACHED and INFO: for information, no
** target). */
enum { COLD, WARM, CACHED, INFO };

/* Check, time and report one case. */
static void run_case(const bench_case *c, int mode) {
  double tf[64], te[64], ts[64], f, e, s = 0;
  int kf, ke, ks = 1, r;
  bench_row row = {0};
  if (!selected(c->name))
    return;
  if (c->check != NULL && mode != CACHED) {
    char *err = NULL, *v = sql_value(c->ext->db, c->check, c->ext->p1, &err);
    if (v == NULL || strcmp(v, c->expect) != 0)
      bench_die("%s: check failed: %s gave %s, expected %s", c->name, c->check,
                v ? v : (err ? err : "no row"), c->expect);
    sqlite3_free(v);
  }
  fprintf(stderr, "bench: %s%s\n", c->name, mode == COLD ? ", new connection" : "");
  if (mode != COLD)
    sql_prepare(c->ext);
  /* Warm up (the page cache, the mappings' first use) and calibrate. */
  kf = batch_size(timed(c->floor, c->floor_arg, 1));
  ke = batch_size(timed(mode == COLD ? sql_run_cold : sql_run, c->ext, 1));
  if (mode == COLD)
    ks = batch_size(timed(sql_setup_only, c->ext, 1));
  for (r = 0; r < reps; r++) {
    tf[r] = timed(c->floor, c->floor_arg, kf);
    te[r] = timed(mode == COLD ? sql_run_cold : sql_run, c->ext, ke);
    if (mode == COLD)
      ts[r] = timed(sql_setup_only, c->ext, ks);
  }
  if (mode != COLD)
    sql_finalize(c->ext);
  f = bench_median(tf, reps);
  e = bench_median(te, reps);
  if (mode == COLD) {
    s = bench_median(ts, reps);
    e -= s;
    if (floor_is_cold)
      f -= s;
  }
  row.has_target = mode == COLD || mode == WARM;
  snprintf(row.name, sizeof(row.name), "%s%s", c->name,
           mode == COLD     ? ", new connection"
           : mode == CACHED ? ", again (cached)"
                            : "");
  format_time(row.floor_text, sizeof(row.floor_text), f, c->bytes);
  format_time(row.ext_text, sizeof(row.ext_text), e, c->bytes);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", e / f);
  snprintf(row.target_text, sizeof(row.target_text), "%s", row.has_target ? c->target : "-");
  row.met = e / f <= c->max_ratio;
  if (mode == COLD) {
    char t[32];
    format_time(t, sizeof(t), s, 0);
    snprintf(row.note, sizeof(row.note), "connection setup subtracted: %s", t);
  }
  report_add(&row);
}

/* Peak memory of listing the GGUF, against a connection that runs no
** query; the target is 3x the header size.  VmHWM is in KiB; shown in MB. */
static void run_peak(void) {
  const char *sql = "SELECT * FROM gguf(?1)";
  double bare[3], list[3], b, l, header = (double)in.gguf_header, ratio;
  bench_row row = {0};
  int i;
  if (!selected("peak memory"))
    return;
  fprintf(stderr, "bench: peak memory\n");
  for (i = 0; i < 3; i++) {
    bare[i] = 1024.0 * (double)sql_peak_kb(ext_path, NULL, NULL);
    list[i] = 1024.0 * (double)sql_peak_kb(ext_path, sql, in.gguf_path);
  }
  b = bench_median(bare, 3);
  l = bench_median(list, 3);
  ratio = (l - b) / header;
  snprintf(row.name, sizeof(row.name), "peak memory: list the GGUF (VmHWM)");
  snprintf(row.floor_text, sizeof(row.floor_text), "bare %.1f MB", b / 1e6);
  snprintf(row.ext_text, sizeof(row.ext_text), "%.1f MB", l / 1e6);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx hdr", ratio);
  snprintf(row.target_text, sizeof(row.target_text), "<= 3x header (%.2f MB)", header / 1e6);
  snprintf(row.note, sizeof(row.note),
           "ratio = (peak listing - peak bare) / header size; the header bytes read into "
           "memory (up to 1.125x the header: the buffer grows to where the parser expects the "
           "header to end, or by 1/8) count in the peak");
  row.has_target = 1;
  row.met = ratio <= 3;
  report_add(&row);
}

/* The JSON array of the many files' paths (they hold no '"' or '\'). */
static char *json_paths(void) {
  bench_buf b = {0};
  int i;
  bench_put(&b, "[", 1);
  for (i = 0; i < in.many_n; i++) {
    if (i > 0)
      bench_put(&b, ",", 1);
    bench_put(&b, "\"", 1);
    bench_put(&b, in.many_files[i], strlen(in.many_files[i]));
    bench_put(&b, "\"", 1);
  }
  bench_put(&b, "]", 2); /* with the NUL */
  return (char *)b.p;
}

/* Does the extension accept a folder as the path? */
static int folder_works(char **err) {
  char *v = sql_value(db, "SELECT count(*) FROM safetensors(?1)", in.many_dir, err);
  int ok = v != NULL && atoi(v) > 0;
  sqlite3_free(v);
  return ok;
}

/* Parse the options; exits on a bad one. */
static void options(int argc, char **argv) {
  int i;
  for (i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL)
      bench_die("%s needs a value (see the top of tests/bench/bench.c)", a);
    if (strcmp(a, "--ext") == 0)
      ext_path = v;
    else if (strcmp(a, "--cache") == 0)
      cache_dir = v;
    else if (strcmp(a, "--reps") == 0)
      reps = atoi(v);
    else if (strcmp(a, "--out") == 0)
      out_path = v;
    else if (strcmp(a, "--files") == 0)
      files_mode = v;
    else if (strcmp(a, "--only") == 0)
      only = v;
    else if (strcmp(a, "--gguf-tools") == 0)
      tools.gguf_tools = v;
    else if (strcmp(a, "--ggml") == 0)
      tools.ggml_lib = v;
    else if (strcmp(a, "--clock") == 0 && (strcmp(v, "cpu") == 0 || strcmp(v, "wall") == 0))
      bench_wall_clock = strcmp(v, "wall") == 0;
    else
      bench_die("unknown option %s (see the top of tests/bench/bench.c)", a);
  }
  if (reps < 1 || reps > 64)
    bench_die("--reps must be 1 to 64");
  if (strcmp(files_mode, "auto") && strcmp(files_mode, "dir") && strcmp(files_mode, "list"))
    bench_die("--files must be auto, dir or list");
}

/* Listing: tensors, keys, values; each on a new connection and again on
** the same one; and what SQLite alone takes for as many rows. */
static void run_listings(void) {
  char n_st[16], n_gg[16], n_keys[16];
  floor_map_arg st_hdr = {in.st_path, 0}, gg_hdr = {in.gguf_path, in.gguf_header};
  sql_query q_st = query("SELECT * FROM safetensors(?1)", in.st_path, NULL);
  sql_query q_gg = query("SELECT * FROM gguf(?1)", in.gguf_path, NULL);
  sql_query q_keys = query("SELECT key, type, count FROM gguf_metadata(?1)", in.gguf_path, NULL);
  sql_query q_vals = query("SELECT sum(length(value)) FROM gguf_metadata(?1)", in.gguf_path, NULL);
  sql_query q_cte = query(SQLITE_ALONE, NULL, NULL);
  size_t i;
  snprintf(n_st, sizeof(n_st), "%d", in.st_n);
  snprintf(n_gg, sizeof(n_gg), "%d", in.gguf_n_tensors);
  snprintf(n_keys, sizeof(n_keys), "%d", in.gguf_n_keys);
  {
    const bench_case cases[] = {
        {"safetensors(): list 272 tensors", floor_st_header, &st_hdr, &q_st, 1.5, "<= 1.5x", 0,
         "SELECT count(*) FROM safetensors(?1)", n_st},
        {"gguf(): list 291 tensors", floor_map_prefix, &gg_hdr, &q_gg, 1.5, "<= 1.5x", 0,
         "SELECT count(*) FROM gguf(?1)", n_gg},
        {"gguf_metadata(): key, type, count", floor_map_prefix, &gg_hdr, &q_keys, 1.5, "<= 1.5x", 0,
         "SELECT count(*) FROM gguf_metadata(?1)", n_keys},
        {"gguf_metadata(): sum(length(value))", floor_map_prefix, &gg_hdr, &q_vals, 4, "<= 4x", 0,
         "SELECT count(*) FROM gguf_metadata(?1)", n_keys},
    };
    const bench_case sqlite_alone = {"SQLite alone: 272 rows x 9 columns",
                                     floor_st_header,
                                     &st_hdr,
                                     &q_cte,
                                     0,
                                     "-",
                                     0,
                                     NULL,
                                     NULL};
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      run_case(&cases[i], COLD);
      run_case(&cases[i], CACHED);
      if (i == 0)
        run_case(&sqlite_alone, INFO);
    }
  }
}

/* Catalogue the 1,000 files, by folder or by a list (see --files). */
static void run_many(void) {
  char n_many[32], *paths = NULL;
  sql_query q = query("SELECT count(*), sum(nbytes) FROM safetensors(?1)", in.many_dir, NULL);
  const char *check = "SELECT count(*) || '|' || sum(nbytes) FROM safetensors(?1)";
  char *err = NULL;
  if (!selected("1,000 files"))
    return;
  snprintf(n_many, sizeof(n_many), "%d|%llu", in.many_tensors, (unsigned long long)in.many_bytes);
  if (strcmp(files_mode, "list") == 0 || !folder_works(&err)) {
    if (strcmp(files_mode, "dir") == 0)
      bench_die("--files dir: the extension does not accept a folder: %s", err ? err : "?");
    report_note("1,000 files: %s, so the case joined json_each(?1) of a JSON array of the "
                "1,000 paths",
                strcmp(files_mode, "list") == 0 ? "--files list"
                : err                           ? err
                                                : "no rows");
    paths = json_paths();
    q.sql = "SELECT count(*), sum(nbytes) FROM json_each(?1) f, safetensors(f.value)";
    q.p1 = paths;
    check = "SELECT count(*) || '|' || sum(nbytes) FROM json_each(?1) f, safetensors(f.value)";
  }
  sqlite3_free(err);
  {
    const bench_case c = {"1,000 files: count(*), sum(nbytes)",
                          floor_many,
                          &in,
                          &q,
                          1.5,
                          "<= 1.5x",
                          0,
                          check,
                          n_many};
    run_case(&c, COLD);
    run_case(&c, CACHED);
  }
  free(paths);
}

/* Tensor bytes as blobs, consumed by the benchmark. */
static void run_blobs(void) {
  sql_query q_one =
      query("SELECT safetensors_blob(?1, 'model.embed_tokens.weight')", in.st_path, NULL);
  sql_query q_all =
      query("SELECT safetensors_blob(path, name) FROM safetensors(?1)", in.st_path, NULL);
  size_t i;
  {
    const bench_case cases[] = {
        {"safetensors_blob(): 56.6 MB embedding", floor_pread_one, &in, &q_one, 1.25,
         "<= 1.25x (>= 0.8x GB/s)", in.st_embed->nbytes, NULL, NULL},
        {"safetensors_blob(): all 272 tensors", floor_pread_all, &in, &q_all, 1.25,
         "<= 1.25x (>= 0.8x GB/s)", in.st_size - in.st_header, NULL, NULL},
    };
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      run_case(&cases[i], WARM);
  }
}

/* A function once per row of a 100,000-tensor listing (issue 12): linear
** in the tensor count when a name lookup is O(1). */
static void run_wide(void) {
  sql_query q_blob =
      query("SELECT name, safetensors_blob(path, name) FROM safetensors(?1)", in.wide_path, NULL);
  sql_query q_hash =
      query("SELECT name, tensor_hash(path, name) FROM safetensors(?1)", in.wide_path, NULL);
  sql_query q_list = query("SELECT name, offset, nbytes FROM safetensors(?1)", in.wide_path, NULL);
  uint64_t bytes = (uint64_t)in.wide_n * in.wide_tensors[0].nbytes;
  size_t i;
  const bench_case cases[] = {
      {"safetensors_blob() per row, 100,000 tensors", floor_wide, &in, &q_blob, 2, "<= 2x", bytes,
       NULL, NULL},
      {"tensor_hash() per row, 100,000 tensors", floor_wide, &in, &q_hash, 2, "<= 2x", bytes, NULL,
       NULL},
      {"safetensors(): list 100,000 tensors", floor_wide, &in, &q_list, 0, "-", bytes, NULL, NULL},
  };
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    run_case(&cases[i], i < 2 ? WARM : INFO);
}

/* tensor_stats() (issue 8), when this build has it. */
static void run_stats(void) {
  floor_words_arg w_bf16 = {in.st_path, in.st_embed->offset, in.st_embed->nbytes};
  floor_words_arg w_q4k = {in.gguf_path, in.gguf_q4k.offset, in.gguf_q4k.nbytes};
  floor_words_arg w_iq = {in.iq_path, in.iq2xxs.offset, in.iq2xxs.nbytes};
  sql_query q_bf16 = query("SELECT * FROM tensor_stats(?1, ?2)", in.st_path, in.st_embed->name);
  sql_query q_q4k = query("SELECT * FROM tensor_stats(?1, ?2)", in.gguf_path, in.gguf_q4k.name);
  sql_query q_iq = query("SELECT * FROM tensor_stats(?1, ?2)", in.iq_path, in.iq2xxs.name);
  size_t i;
  if (!selected("tensor_stats"))
    return;
  if (!sql_has_function(db, "tensor_stats")) {
    report_note("tensor_stats(): not in this build (issue 8), its two cases were skipped");
    return;
  }
  {
    const bench_case cases[] = {
        {"tensor_stats(): BF16 embedding", floor_words, &w_bf16, &q_bf16, 1 / 0.3,
         "<= 3.33x (>= 0.3x GB/s)", w_bf16.nbytes, NULL, NULL},
        {"tensor_stats(): Q4_K token_embd", floor_words, &w_q4k, &q_q4k, 1 / 0.15,
         "<= 6.67x (>= 0.15x GB/s)", w_q4k.nbytes, NULL, NULL},
        {"tensor_stats(): IQ2_XXS ffn_down", floor_words, &w_iq, &q_iq, 1 / 0.05,
         "<= 20x (>= 0.05x GB/s)", w_iq.nbytes, NULL, NULL},
    };
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      run_case(&cases[i], WARM);
  }
}

/* tensor_histogram() (issue 15), when this build has it: the default
** range (a min/max pass, then the bins) and a given range (the bins only). */
static void run_histogram(void) {
  floor_words_arg w_bf16 = {in.st_path, in.st_embed->offset, in.st_embed->nbytes};
  sql_query q_auto =
      query("SELECT * FROM tensor_histogram(?1, ?2, 64)", in.st_path, in.st_embed->name);
  sql_query q_range = query("SELECT * FROM tensor_histogram(?1, ?2, 64, -0.25, 0.25)", in.st_path,
                            in.st_embed->name);
  size_t i;
  if (!selected("tensor_histogram"))
    return;
  if (!sql_has_function(db, "tensor_histogram")) {
    report_note("tensor_histogram(): not in this build (issue 15), its cases were skipped");
    return;
  }
  {
    const bench_case cases[] = {
        {"tensor_histogram(): BF16 embedding, 64 bins", floor_words, &w_bf16, &q_auto, 1 / 0.3,
         "<= 3.33x (>= 0.3x GB/s)", w_bf16.nbytes, NULL, NULL},
        {"tensor_histogram(): same, range given", floor_words, &w_bf16, &q_range, 1 / 0.3,
         "<= 3.33x (>= 0.3x GB/s)", w_bf16.nbytes, NULL, NULL},
    };
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      run_case(&cases[i], WARM);
  }
}

/* Start tests/http_server.py serving dir on 127.0.0.1: its pid, and its
** port in *port; -1 when it cannot be started. */
static pid_t start_server(const char *dir, int *port) {
  int fd[2];
  pid_t pid;
  char line[32] = {0};
  FILE *f;
  if (pipe(fd) != 0)
    return -1;
  pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl("/usr/bin/python3", "python3", "tests/http_server.py", dir, "--lifetime", "3600",
          (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  f = fdopen(fd[0], "r");
  if (pid < 0 || f == NULL || fgets(line, sizeof(line), f) == NULL || (*port = atoi(line)) <= 0) {
    if (f != NULL)
      fclose(f);
    if (pid > 0)
      kill(pid, SIGKILL);
    return -1;
  }
  fclose(f);
  return pid;
}

/* The Llama-3-8B-shaped GGUF listed over HTTP from a server on loopback
** (issue 13), against the same listing of the local file, both on a new
** connection each time; in wall-clock time (the server is another
** process).  Without the disk cache every open reads the 7.8 MB header
** (2 requests); with it, one conditional request (304). */
static void run_remote(void) {
  char dir[4200], url[4400], n_gg[16], *slash, *v, *err = NULL;
  int port, wall = bench_wall_clock;
  pid_t pid;
  if (!selected("remote"))
    return;
  v = sql_value(db, "SELECT weights_remote()", NULL, &err);
  sqlite3_free(err);
  if (v == NULL || strcmp(v, "1") != 0) {
    report_note("remote: not measured (a module built with REMOTE=0)");
    sqlite3_free(v);
    return;
  }
  sqlite3_free(v);
  snprintf(dir, sizeof(dir), "%s", in.gguf_path);
  slash = strrchr(dir, '/');
  *slash = 0;
  pid = start_server(dir, &port);
  if (pid < 0) {
    report_note("remote: not measured (tests/http_server.py did not start)");
    return;
  }
  snprintf(url, sizeof(url), "http://127.0.0.1:%d/files/%s", port, slash + 1);
  snprintf(n_gg, sizeof(n_gg), "%d", in.gguf_n_tensors);
  bench_wall_clock = floor_is_cold = 1;
  {
    sql_query q_local = query("SELECT * FROM gguf(?1)", in.gguf_path, NULL);
    sql_query q_remote = query("SELECT * FROM gguf(?1)", url, NULL);
    bench_case c = {"remote gguf(): list 291 tensors over loopback HTTP, no disk cache",
                    sql_run_cold,
                    &q_local,
                    &q_remote,
                    2,
                    "<= 2x",
                    0,
                    "SELECT count(*) FROM gguf(?1)",
                    n_gg};
    setenv("SQLITE_WEIGHTS_CACHE", "off", 1);
    run_case(&c, COLD);
    unsetenv("SQLITE_WEIGHTS_CACHE");
    snprintf(dir, sizeof(dir), "%s/remote-cache", in.cache);
    setenv("SQLITE_WEIGHTS_CACHE_DIR", dir, 1);
    c.name = "remote gguf(): the same, header in the disk cache (304)";
    c.max_ratio = 1.5;
    c.target = "<= 1.5x";
    run_case(&c, COLD);
    unsetenv("SQLITE_WEIGHTS_CACHE_DIR");
  }
  bench_wall_clock = wall;
  floor_is_cold = 0;
  report_note("remote: the floor of each remote case is the same listing of the local file on a "
              "new connection; wall-clock time, server and client on this machine");
  kill(pid, SIGTERM);
  waitpid(pid, NULL, 0);
}

int main(int argc, char **argv) {
  char versions[128], *err = NULL, *v;
  if (argc > 1 && strcmp(argv[1], "--peak-child") == 0)
    return sql_peak_child(argc - 2, argv + 2);
  options(argc, argv);
  snprintf(in.cache, sizeof(in.cache), "%s/v1", cache_dir);
  bench_mkdirs(in.cache);
  gen_smollm(&in, 1);
  gen_many(&in, 1);
  gen_llama3(&in, 1);
  gen_wide(&in, 1);
  gen_iq2xxs(&in, 1);
  db = sql_open(ext_path);
  v = sql_value(db, "SELECT weights_version()", NULL, &err);
  snprintf(versions, sizeof(versions), "SQLite %s, sqlite-weights %s", sqlite3_libversion(),
           v ? v : "?");
  sqlite3_free(v);
  sqlite3_free(err);

  if (selected("whole process"))
    run_processes(ext_path, &in, &tools, reps * 3);
  run_listings();
  run_many();
  run_blobs();
  run_wide();
  run_peak();
  run_stats();
  if (selected("weights_report") && sql_has_function(db, "weights_report"))
    run_weights_report(ext_path, in.cache);
  run_histogram();
  run_mmap(&in, ext_path, reps, only);
  run_remote();
  if (selected("write") && sql_has_function(db, "gguf_rewrite"))
    run_write(ext_path, &in);
  if (selected("convert") && sql_has_function(db, "gguf_convert"))
    run_convert(ext_path, &in);

  report_note("header sizes: safetensors %.1f KB; GGUF %.2f MB, in a %.2f GB file (%.0fx): "
              "the listing floors read only the header, so a listing within its target does "
              "not grow with the file's size",
              (double)in.st_header / 1e3, (double)in.gguf_header / 1e6, (double)in.gguf_size / 1e9,
              (double)in.gguf_size / (double)in.gguf_header);
  report_note("%d repetitions per case, medians of %s; %s", reps,
              bench_wall_clock ? "wall-clock time" : "the process's CPU time (user + system)",
              versions);
  report_print();
  if (strcmp(out_path, "-") != 0 && only == NULL) {
    report_write_markdown(out_path, &in, versions);
    printf("written to %s\n", out_path);
  }
  sqlite3_close(db);
  return 0;
}
