/*
** bench_convert.c: gguf_convert() against a durable copy of the same bytes
** (`make bench`, issue 32).
**
**   1. The SmolLM2-135M-shaped BF16 checkpoint (gen_smollm.c, 269 MB, in a
**      folder with its config.json and a tokenizer) to BF16: the tensors are copied by
**      reference; against copy_file_range(2) of the whole checkpoint into a
**      new file, fsync(2), rename(2) (`cp` then `sync FILE`).  Target 1.2x.
**   2. The same to Q8_0: every matrix read, quantized and written; the
**      same floor.  Target 1.5x.
**   3. BF16 with "verify": 0 (the header checked, the tensors' bytes not
**      read back), to show what the check costs.
**   4. The peak memory (VmHWM) of 1 and 2 against a bare connection: the
**      target is the output's header plus 64 MiB, whatever the model's size.
** Wall-clock time, medians of WRITE_REPS runs; each output is removed
** after its run.
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define CONVERT_MEMORY_SLACK ((double)(64 << 20))

/* SmolLM2-135M's config.json (HuggingFaceTB/SmolLM2-135M), the keys the
** converter reads. */
static const char SMOLLM_CONFIG[] =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\",\n"
    " \"hidden_size\": 576, \"intermediate_size\": 1536, \"num_hidden_layers\": 30,\n"
    " \"num_attention_heads\": 9, \"num_key_value_heads\": 3, \"vocab_size\": 49152,\n"
    " \"max_position_embeddings\": 8192, \"rms_norm_eps\": 1e-05, \"rope_theta\": 100000,\n"
    " \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\", \"bos_token_id\": 0,\n"
    " \"eos_token_id\": 0}\n";

/* A tokenizer: sentencepiece's ModelProto of three pieces (<unk>
** unknown, <s> and </s> control, scores 0), which the converter pads with
** [PAD3].. to vocab_size (49,152 tokens, about 1 MB of the header); and a
** tokenizer_config.json without add_bos_token (LlamaModel writes it False
** for a vocabulary of 49,152, and c392e50 refuses it twice). */
static const char TOKENIZER_MODEL[] = "\x0a\x0e\x0a\x05<unk>\x15\x00\x00\x00\x00\x18\x02"
                                      "\x0a\x0c\x0a\x03<s>\x15\x00\x00\x00\x00\x18\x03"
                                      "\x0a\x0d\x0a\x04</s>\x15\x00\x00\x00\x00\x18\x03";
static const char TOKENIZER_CONFIG[] =
    "{\"tokenizer_class\": \"LlamaTokenizer\", \"bos_token\": "
    "\"<s>\", \"eos_token\": \"</s>\", \"unk_token\": \"<unk>\"}\n";

/* Write p[0..n) to dir/name. */
static void write_in(const char *dir, const char *name, const char *p, size_t n) {
  char path[4300];
  FILE *f;
  bench_fmt(path, sizeof(path), "%s/%s", dir, name);
  if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
    bench_die_sys(path);
}

/* The checkpoint folder: config.json, the tokenizer and model.safetensors,
** a link to the generated file. */
static void make_folder(const bench_inputs *in, char *dir, size_t n) {
  char path[4300], target[PATH_MAX];
  bench_fmt(dir, n, "%s/convert/SmolLM2-135M", in->cache);
  bench_mkdirs(dir);
  bench_fmt(path, sizeof(path), "%s/model.safetensors", dir);
  unlink(path);
  if (realpath(in->st_path, target) == NULL || symlink(target, path) != 0)
    bench_die_sys(path);
  write_in(dir, "config.json", SMOLLM_CONFIG, sizeof(SMOLLM_CONFIG) - 1);
  write_in(dir, "tokenizer.model", TOKENIZER_MODEL, sizeof(TOKENIZER_MODEL) - 1);
  write_in(dir, "tokenizer_config.json", TOKENIZER_CONFIG, sizeof(TOKENIZER_CONFIG) - 1);
}

static void add_row(const char *name, double f, double e, uint64_t bytes, double target,
                    const char *note) {
  bench_row row = {0};
  snprintf(row.name, sizeof(row.name), "%s", name);
  snprintf(row.floor_text, sizeof(row.floor_text), "%.2f s, %.2f GB/s", f, (double)bytes / f / 1e9);
  snprintf(row.ext_text, sizeof(row.ext_text), "%.2f s, %.2f GB/s", e, (double)bytes / e / 1e9);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "%.2fx", e / f);
  if (target > 0) {
    snprintf(row.target_text, sizeof(row.target_text), "<= %.1fx", target);
    row.has_target = 1;
    row.met = e / f <= target;
  }
  snprintf(row.note, sizeof(row.note), "%s", note);
  report_add(&row);
}

/* The peak memory of sql in a fresh process against a bare one; the
** output's header (its data offset) read after one run. */
static void peak_row(const char *ext_path, sqlite3 *db, const char *name, const char *sql,
                     const char *out) {
  char q[4400], *err = NULL, *v;
  double bare = 1024.0 * (double)sql_peak_kb(ext_path, NULL, NULL);
  double peak = 1024.0 * (double)sql_peak_kb(ext_path, sql, NULL), header, limit;
  bench_row row = {0};
  bench_fmt(q, sizeof(q), "SELECT json_extract(gguf_info('%s'), '$.data_offset')", out);
  if ((v = sql_value(db, q, NULL, &err)) == NULL)
    bench_die("%s: %s", q, err ? err : "no row");
  header = atof(v);
  sqlite3_free(v);
  unlink(out);
  limit = header + CONVERT_MEMORY_SLACK;
  snprintf(row.name, sizeof(row.name), "peak memory: %s (VmHWM)", name);
  snprintf(row.floor_text, sizeof(row.floor_text), "bare %.1f MB", bare / 1e6);
  snprintf(row.ext_text, sizeof(row.ext_text), "%.1f MB", peak / 1e6);
  snprintf(row.ratio_text, sizeof(row.ratio_text), "+%.1f MB", (peak - bare) / 1e6);
  snprintf(row.target_text, sizeof(row.target_text), "<= header + 64 MiB (%.1f MB)", limit / 1e6);
  snprintf(row.note, sizeof(row.note), "the peak above a bare connection's; header %.2f MB",
           header / 1e6);
  row.has_target = 1;
  row.met = peak - bare <= limit;
  report_add(&row);
}

void run_convert(const char *ext_path, const bench_inputs *in) {
  char dir[4200], out[4300], bf16[9000], q8[9000], nov[9000];
  sqlite3 *db = sql_open(ext_path);
  ext_arg e = {db, bf16, out};
  copy_arg c = {0};
  double f, x;
  int wall = bench_wall_clock;
  make_folder(in, dir, sizeof(dir));
  bench_fmt(out, sizeof(out), "%s/../converted.gguf", dir);
  bench_fmt(bf16, sizeof(bf16), "SELECT gguf_convert('%s', '%s')", out, dir);
  bench_fmt(q8, sizeof(q8), "SELECT gguf_convert('%s', '%s', json_object('outtype', 'q8_0'))", out,
            dir);
  bench_fmt(nov, sizeof(nov), "SELECT gguf_convert('%s', '%s', json_object('verify', 0))", out,
            dir);
  c = (copy_arg){out, {in->st_path}, {0}, {in->st_size}, 1, 1};
  bench_wall_clock = 1;
  fprintf(stderr, "bench: gguf_convert of the %.0f MB SmolLM2-shaped checkpoint\n",
          (double)in->st_size / 1e6);
  ext_write(&e); /* the checkpoint's pages in the cache, as for the floor's runs */
  f = median_of(floor_copy, &c);
  x = median_of(ext_write, &e);
  add_row("gguf_convert: SmolLM2-shaped BF16 to BF16", f, x, in->st_size, 1.2,
          "floor: copy_file_range of the checkpoint, fsync, rename (cp + sync)");
  e.sql = q8;
  x = median_of(ext_write, &e);
  add_row("gguf_convert: SmolLM2-shaped BF16 to Q8_0", f, x, in->st_size, 1.5,
          "every matrix read, quantized to Q8_0 and written; the same floor");
  e.sql = nov;
  x = median_of(ext_write, &e);
  add_row("gguf_convert to BF16, \"verify\": 0", f, x, in->st_size, 0,
          "the header checked, the tensors' bytes not read back");
  peak_row(ext_path, db, "gguf_convert to BF16", bf16, out);
  peak_row(ext_path, db, "gguf_convert to Q8_0", q8, out);
  bench_wall_clock = wall;
  sqlite3_close(db);
}
