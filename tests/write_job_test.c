/*
** write_job_test.c: unit tests of the writers' pipeline
** (ext/write/write_job.h), linked without SQLite, under AddressSanitizer
** and UBSan.
**
**   build/write_job_test DIR
**
** In the empty folder DIR, a GGUF of three tensors is written through a
** wt_job: one given in memory, one copied by reference from a file written
** here, one made by an encoder in pieces (as a converter's would be).  The
** file must hold, byte for byte, the header the job was given, then each
** tensor's bytes at its place, zeros between: the expected bytes are laid
** out by hand here, not by the job; again with the file's tensor in the
** other byte order (each 4 bytes reversed).  Then jobs that must fail, each
** leaving the target with its old bytes and no temporary file in DIR: an
** encoder that gives too few bytes, one that gives too many, a header that
** says another type or another key value than the job (the read-back
** comparison),
** a source changed after it was opened.  (Interrupts, polled every 64 MiB,
** are tests/write_fail_test.py's.)
** Prints "write_job_test: N passed, M failed"; exits 1 on any failure.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/file.h"
#include "write/gguf_writer.h"
#include "write/write_job.h"

#include "check.h"

#define N_T      3
#define ALIGN    32 /* GGUF's default alignment */
#define OLD      "the old bytes of the target\n"
#define MAX_FILE 4096

static char dir[1024], target[1100], source[1100];

/* The tensors: f32 [5] in memory, f32 [3] from the source file, f32 [7]
** from the encoder. */
static const float mem_vals[5] = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f};
static const float file_vals[3] = {7.0f, 8.0f, 9.0f};
static float enc_vals[7];
static const uint64_t dims[N_T][1] = {{5}, {3}, {7}};

/* The swap of the tensor from the file: 0, or 4 (each F32 reversed). */
static unsigned swap_file;

/* How the encoder misbehaves: 0 not, 1 one byte short, 2 one byte more. */
static int enc_fault;

/* The value the job says test.answer has (the header's is 7). */
static unsigned char key_val[4] = {7, 0, 0, 0};

/* The encoder: tensor 2's bytes in three pieces. */
static int encode(void *ctx, size_t i, wt_job_sink *sink, wt_error *err) {
  const unsigned char *p = (const unsigned char *)enc_vals;
  size_t n = sizeof(enc_vals) - (enc_fault == 1);
  (void)ctx;
  if (i != 2)
    return wt_fail(err, "encoder called for tensor %zu", i);
  if (wt_job_put(sink, p, 5, err) != 0 || wt_job_put(sink, p + 5, 11, err) != 0 ||
      wt_job_put(sink, p + 16, n - 16, err) != 0)
    return -1;
  return enc_fault == 2 ? wt_job_put(sink, p, 1, err) : 0;
}

/* Read path whole into buf (at most MAX_FILE bytes): its size, or -1. */
static long slurp(const char *path, unsigned char *buf) {
  FILE *f = fopen(path, "rb");
  long n;
  if (f == NULL)
    return -1;
  n = (long)fread(buf, 1, MAX_FILE, f);
  fclose(f);
  return n;
}

static int spit(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(p, 1, n, f) == n;
  if (f)
    ok = fclose(f) == 0 && ok;
  return ok ? 0 : -1;
}

/* The names in dir besides the target and the source. */
static int strays(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "target.gguf") &&
        strcmp(e->d_name, "source.bin"))
      n++;
  if (d)
    closedir(d);
  return n;
}

/* The header of the three tensors (type: tensor 0's ggml type), and their
** places. */
static int header(uint32_t type, wt_buf *hdr, uint64_t start[N_T], uint64_t *data) {
  static const unsigned char val[4] = {7, 0, 0, 0};
  gw_kv kv = {{"test.answer", 11}, GGUF_TYPE_UINT32, val, 4};
  gw_tensor t[N_T] = {{{"in_memory", 9}, type, 1, {5}, 0, 0},
                      {{"from_file", 9}, 0, 1, {3}, 0, 0},
                      {{"encoded", 7}, 0, 1, {7}, 0, 0}};
  uint64_t align;
  wt_error err;
  int i;
  if (gguf_write_header(&kv, 1, t, N_T, hdr, &align, data, &err) != 0) {
    printf("header: %s\n", err.msg);
    return -1;
  }
  for (i = 0; i < N_T; i++)
    start[i] = t[i].data_start;
  return 0;
}

/* Run one job over the three tensors; src: the opened source file. */
static int run(const wt_buf *hdr, const uint64_t start[N_T], uint64_t data, const wt_file *src,
               wt_out *out, wt_error *err) {
  wt_job_key key = {{"test.answer", 11}, GGUF_TYPE_UINT32, key_val, 4};
  wt_job_tensor t[N_T];
  const wt_file *sources[1] = {src};
  wt_job j;
  memset(t, 0, sizeof(t));
  memset(&j, 0, sizeof(j));
  t[0] = (wt_job_tensor){.name = {"in_memory", 9},
                         .ndim = 1,
                         .dims = dims[0],
                         .nbytes = sizeof(mem_vals),
                         .data_start = start[0],
                         .from = WT_FROM_MEMORY,
                         .mem = (const unsigned char *)mem_vals};
  t[1] = (wt_job_tensor){.name = {"from_file", 9},
                         .ndim = 1,
                         .dims = dims[1],
                         .nbytes = sizeof(file_vals),
                         .data_start = start[1],
                         .from = WT_FROM_FILE,
                         .file = src,
                         .file_off = 16,
                         .swap = swap_file};
  t[2] = (wt_job_tensor){.name = {"encoded", 7},
                         .ndim = 1,
                         .dims = dims[2],
                         .nbytes = sizeof(enc_vals),
                         .data_start = start[2],
                         .from = WT_FROM_ENCODER,
                         .encode = encode};
  j.path = target;
  j.format = WT_FORMAT_GGUF;
  j.header = (const unsigned char *)hdr->p;
  j.header_len = hdr->n;
  j.data_size = data;
  j.tensors = t;
  j.n_tensors = N_T;
  j.keys = &key;
  j.n_keys = 1;
  j.alignment = ALIGN;
  j.verify = 1;
  j.sources = sources;
  j.n_sources = 1;
  memset(out, 0, sizeof(*out)); /* closed */
  return wt_job_write(&j, out, err);
}

/* A job that must fail with a message holding want, leaving the target. */
static void must_fail(const char *what, int rc, const wt_error *err, const char *want,
                      wt_out *out) {
  unsigned char buf[MAX_FILE];
  long n = slurp(target, buf);
  CHECK(rc != 0, "%s: the job succeeded", what);
  CHECK(rc == 0 || strstr(err->msg, want) != NULL, "%s: error '%s', not '%s'", what, err->msg,
        want);
  CHECK(n == (long)strlen(OLD) && memcmp(buf, OLD, (size_t)n) == 0, "%s: the target changed", what);
  CHECK(strays() == 0, "%s: a temporary file is left", what);
  wt_out_abort(out);
}

int main(int argc, char **argv) {
  unsigned char got[MAX_FILE], want[MAX_FILE], src_bytes[64];
  uint64_t start[N_T], data, start16[N_T], data16;
  wt_buf hdr = {0}, hdr_f16 = {0};
  wt_file src;
  wt_out out;
  wt_error err;
  long n;
  int i, rc;
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  snprintf(dir, sizeof(dir), "%s", argv[1]);
  snprintf(target, sizeof(target), "%s/target.gguf", dir);
  snprintf(source, sizeof(source), "%s/source.bin", dir);
  for (i = 0; i < 7; i++)
    enc_vals[i] = (float)i * 0.5f - 1.0f;
  /* the source: 16 bytes of something else, then the tensor's 12 */
  memset(src_bytes, 0xab, sizeof(src_bytes));
  memcpy(src_bytes + 16, file_vals, sizeof(file_vals));
  if (spit(source, src_bytes, 16 + sizeof(file_vals)) != 0 ||
      wt_file_open_local(&src, source, strlen(source), &err) != 0 ||
      header(0, &hdr, start, &data) || header(1, &hdr_f16, start16, &data16)) {
    printf("setup failed: %s\n", err.msg);
    return 1;
  }

  /* 1. the three tensors written: the header, then each at its place */
  spit(target, OLD, strlen(OLD));
  rc = run(&hdr, start, data, &src, &out, &err);
  CHECK(rc == 0, "the job failed: %s", err.msg);
  CHECK(rc != 0 || wt_out_commit(&out, &err) == 0, "commit: %s", err.msg);
  memset(want, 0, sizeof(want));
  memcpy(want, hdr.p, hdr.n);
  /* by hand: 20 bytes at 0, 12 at 32 (the next multiple of 32), 28 at 64;
  ** the data section padded to 96 */
  memcpy(want + hdr.n, mem_vals, sizeof(mem_vals));
  memcpy(want + hdr.n + 32, file_vals, sizeof(file_vals));
  memcpy(want + hdr.n + 64, enc_vals, sizeof(enc_vals));
  CHECK(start[0] == 0 && start[1] == 32 && start[2] == 64 && data == 96,
        "the encoder's places: %llu %llu %llu, %llu bytes", (unsigned long long)start[0],
        (unsigned long long)start[1], (unsigned long long)start[2], (unsigned long long)data);
  n = slurp(target, got);
  CHECK(n == (long)(hdr.n + 96), "the file has %ld bytes, not %zu", n, hdr.n + 96);
  CHECK(n == (long)(hdr.n + 96) && memcmp(got, want, (size_t)n) == 0,
        "the file's bytes are not the header and the tensors at their places");
  CHECK(strays() == 0, "a temporary file is left after the commit");

  /* 1b. the file's tensor in the other byte order: each 4 bytes reversed,
  ** by hand here; the read-back compares them swapped back */
  swap_file = 4;
  rc = run(&hdr, start, data, &src, &out, &err);
  CHECK(rc == 0, "the swapped job failed: %s", err.msg);
  CHECK(rc != 0 || wt_out_commit(&out, &err) == 0, "commit: %s", err.msg);
  n = slurp(target, got);
  for (i = 0; i < (int)sizeof(file_vals); i++)
    want[hdr.n + start[1] + (size_t)i] = ((const unsigned char *)file_vals)[i / 4 * 4 + 3 - i % 4];
  CHECK(n == (long)(hdr.n + 96) && memcmp(got, want, (size_t)n) == 0,
        "the swapped tensor's bytes are not the source's reversed 4 by 4");
  swap_file = 0;

  /* 2. jobs that fail: the target keeps its old bytes */
  CHECK(memcmp(start, start16, sizeof(start)) == 0 && data == data16,
        "an F16 [5] tensor 0 moves the others");
  spit(target, OLD, strlen(OLD));
  enc_fault = 1;
  rc = run(&hdr, start, data, &src, &out, &err);
  must_fail("an encoder one byte short", rc, &err, "gave 27 bytes, not 28", &out);
  enc_fault = 2;
  rc = run(&hdr, start, data, &src, &out, &err);
  must_fail("an encoder one byte over", rc, &err, "1 bytes more than the tensor has", &out);
  enc_fault = 0;
  rc = run(&hdr_f16, start, data, &src, &out, &err);
  must_fail("a header that says F16 where the job says F32", rc, &err,
            "tensor #0 'in_memory' differs from what was asked", &out);
  key_val[0] = 8;
  rc = run(&hdr, start, data, &src, &out, &err);
  must_fail("a key the header does not have", rc, &err, "key 'test.answer' differs", &out);
  key_val[0] = 7;
  /* the source changed after open: its copy is refused */
  src_bytes[0] = 0;
  spit(source, src_bytes, 16 + sizeof(file_vals) + 1);
  rc = run(&hdr, start, data, &src, &out, &err);
  must_fail("a source changed since it was opened", rc, &err, "changed", &out);

  wt_file_close(&src);
  free(hdr.p);
  free(hdr_f16.p);
  remove(target);
  remove(source);
  printf("write_job_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
