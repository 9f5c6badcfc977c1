/*
** gguf_dump.c: print what gguf_parse() makes of GGUF files.  A scratch tool
** for working on the GGUF parser, and a repro/seed tool for fuzzing it.
** No SQLite: it maps each file with plain open/mmap and calls the parser.
**
** Build (from the project root): make build/gguf_dump
**
** Usage: gguf_dump [-a] [-q] [-b N] FILE...
**
**   (default)  the model (version, byte order, alignment, header_len,
**              data_offset), every KV (index, key, type, count, value_pos,
**              value_len, then the scalar or the array's JSON, cut to 200
**              bytes) and every tensor (name, type, dims in GGUF order,
**              numel, relative data range, absolute offset, nbytes)
**   -a         print arrays' JSON in full
**   -q         quiet: one line per file, "FILE: ok" or "FILE: error: MSG"
**   -b N       benchmark: parse each file N times, print the best time and
**              the time of just reading every header byte (a checksum)
**
** Every value is read and every array rendered, whatever is printed, and
** the model is checked against invariants that any accepted file must
** satisfy (tensor data inside the file, value ranges inside the header);
** a violation aborts, so the tool doubles as a fuzzing oracle.
**
** Exit status: 0 when every file parsed, 1 when one was rejected, 2 on a
** usage or I/O error.
**
** Built with clang -fsanitize=fuzzer -DGGUF_DUMP_FUZZ it is a libFuzzer
** target instead (parse, render, check invariants; no output).
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"

#define PREVIEW 200

static int opt_all, opt_quiet;

/* Abort with a message: the parser accepted something it should not have. */
static void invariant(int ok, const char *what, size_t i) {
  if (!ok) {
    fprintf(stderr, "INVARIANT VIOLATED: %s (entry %zu)\n", what, i);
    abort();
  }
}

/* Print bytes as a C-style quoted string. */
static void print_str(const char *p, size_t n, size_t max) {
  size_t i;
  putchar('"');
  for (i = 0; i < n && i < max; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      printf("\\x%02x", c);
    else
      putchar(c);
  }
  putchar('"');
  if (i < n)
    printf("... (%zu bytes)", n);
}

/* Read (and unless quiet print) the value of one KV. */
static void dump_kv(const wt_model *m, const unsigned char *data, size_t i) {
  const wt_meta *kv = &m->meta[i];
  gguf_cursor c;
  gguf_scalar s;
  invariant(kv->value_pos <= m->header_len && kv->value_len <= m->header_len - kv->value_pos,
            "value inside the header", i);
  invariant(gguf_type_name(kv->type) != NULL, "valid type", i);
  if (!opt_quiet) {
    printf("kv #%zu ", i);
    print_str(kv->key.p, kv->key.n, 1000);
    if (kv->type == GGUF_TYPE_ARRAY)
      printf(" ARRAY[%s] count %llu", gguf_type_name(kv->elem_type), (unsigned long long)kv->count);
    else
      printf(" %s", gguf_type_name(kv->type));
    printf(" @%llu+%llu: ", (unsigned long long)kv->value_pos, (unsigned long long)kv->value_len);
  }
  if (kv->type == GGUF_TYPE_ARRAY) {
    wt_buf b = {0};
    int rc = gguf_render_array_json(m, data, kv, &b);
    invariant(rc == 0, "array renders", i);
    invariant(b.n >= 2 && b.p[0] == '[' && b.p[b.n - 1] == ']', "array JSON brackets", i);
    if (!opt_quiet) {
      size_t n = opt_all || b.n <= PREVIEW ? b.n : PREVIEW;
      fwrite(b.p, 1, n, stdout);
      if (n < b.n)
        printf("... (%zu bytes of JSON)", b.n);
    }
    free(b.p);
  } else {
    gguf_cursor_init(&c, m, data, kv);
    invariant(gguf_read_scalar(&c, kv->type, &s) == 0, "scalar reads", i);
    invariant(c.pos == c.end, "scalar fills its value", i);
    if (!opt_quiet) {
      switch (s.kind) {
      case GGUF_SCALAR_INT:
        printf("%lld", (long long)s.i);
        break;
      case GGUF_SCALAR_BIGUINT:
        printf("%llu", (unsigned long long)s.u);
        break;
      case GGUF_SCALAR_REAL:
        printf("%.17g", s.r);
        break;
      default:
        print_str(s.s.p, s.s.n, opt_all ? (size_t)-1 : PREVIEW);
        if (!s.s_utf8)
          printf(" (not UTF-8)");
      }
    }
  }
  if (!opt_quiet)
    putchar('\n');
}

/* Check (and unless quiet print) one tensor. */
static void dump_tensor(const wt_model *m, size_t i) {
  const wt_tensor *t = &m->tensors[i];
  int j;
  invariant(t->ndim >= 0 && t->ndim <= 4, "ndim in 0..4", i);
  invariant(t->offset == m->data_offset + t->data_start, "offset = data_offset + data_start", i);
  invariant(t->offset <= m->file_size, "tensor starts inside the file", i);
  if (t->nbytes_known) {
    invariant(t->data_end == t->data_start + t->nbytes, "data_end = data_start + nbytes", i);
    invariant(t->nbytes <= m->file_size - t->offset, "tensor data inside the file", i);
    invariant(t->data_start % m->alignment == 0, "aligned", i);
  }
  if (opt_quiet)
    return;
  printf("tensor #%zu ", i);
  print_str(t->name.p, t->name.n, 1000);
  if (t->dtype.n)
    printf(" %.*s", (int)t->dtype.n, t->dtype.p);
  else
    printf(" unknown");
  printf(" (type %lld) ne [", (long long)t->type_id);
  for (j = 0; j < t->ndim; j++)
    printf("%s%llu", j ? ", " : "", (unsigned long long)t->dims[j]);
  printf("] numel %llu data [%llu, %llu) offset %llu nbytes ", (unsigned long long)t->numel,
         (unsigned long long)t->data_start, (unsigned long long)t->data_end,
         (unsigned long long)t->offset);
  if (t->nbytes_known)
    printf("%llu\n", (unsigned long long)t->nbytes);
  else
    printf("unknown\n");
}

/* Parse, check, and print one mapped file.  Returns 0 or 1. */
static int dump(const char *name, const unsigned char *data, uint64_t size) {
  wt_model m;
  wt_error err;
  size_t i;
  if (gguf_parse(data, size, &m, &err) != 0) {
    invariant(m.arena == NULL && m.tensors == NULL && m.meta == NULL, "empty model on error", 0);
    printf("%s: error: %s\n", name, err.msg);
    return 1;
  }
  invariant(m.header_len <= m.data_offset && m.data_offset <= size, "data section in file", 0);
  invariant(m.alignment > 0 && (m.alignment & (m.alignment - 1)) == 0, "alignment", 0);
  if (opt_quiet)
    printf("%s: ok\n", name);
  else
    printf("file: %s\nformat: GGUF v%u, %s-endian, %llu bytes\nalignment: %llu\n"
           "header_len: %llu\ndata_offset: %llu\nkvs: %zu\ntensors: %zu\n",
           name, m.version, m.big_endian ? "big" : "little", (unsigned long long)m.file_size,
           (unsigned long long)m.alignment, (unsigned long long)m.header_len,
           (unsigned long long)m.data_offset, m.n_meta, m.n_tensors);
  for (i = 0; i < m.n_meta; i++)
    dump_kv(&m, data, i);
  for (i = 0; i < m.n_tensors; i++)
    dump_tensor(&m, i);
  wt_model_free(&m);
  return 0;
}

#ifdef GGUF_DUMP_FUZZ
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  opt_quiet = 1;
  if (freopen("/dev/null", "w", stdout) == NULL)
    return 0;
  dump("fuzz", data, size);
  return 0;
}
#else

/* Seconds on a monotonic clock. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps the checksum loop from being optimized away. */
static volatile unsigned bench_sink;

/* Time n parses of the file against n checksums of its header bytes. */
static int bench(const char *name, const unsigned char *data, uint64_t size, int n) {
  double best_parse = 1e30, best_touch = 1e30;
  uint64_t header = 0;
  int k;
  for (k = 0; k < n; k++) {
    wt_model m;
    wt_error err;
    double t0 = now(), t1;
    if (gguf_parse(data, size, &m, &err) != 0) {
      printf("%s: error: %s\n", name, err.msg);
      return 1;
    }
    t1 = now() - t0;
    header = m.header_len;
    wt_model_free(&m);
    if (t1 < best_parse)
      best_parse = t1;
  }
  for (k = 0; k < n; k++) {
    double t0 = now(), t1;
    unsigned sum = 0;
    uint64_t i;
    for (i = 0; i < header; i++)
      sum += data[i];
    bench_sink += sum;
    t1 = now() - t0;
    if (t1 < best_touch)
      best_touch = t1;
  }
  printf("%s: header %llu bytes: parse %.3f ms, touch every byte %.3f ms, ratio %.2f\n", name,
         (unsigned long long)header, best_parse * 1e3, best_touch * 1e3, best_parse / best_touch);
  return 0;
}

int main(int argc, char **argv) {
  int i, rc = 0, bench_n = 0;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-a") == 0)
      opt_all = 1;
    else if (strcmp(argv[i], "-q") == 0)
      opt_quiet = 1;
    else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc)
      bench_n = atoi(argv[++i]);
    else
      break;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: %s [-a] [-q] [-b N] FILE...\n", argv[0]);
    return 2;
  }
  for (; i < argc; i++) {
    struct stat st;
    const unsigned char *data = NULL;
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
      perror(argv[i]);
      return 2;
    }
    if (st.st_size > 0) {
      void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        perror(argv[i]);
        return 2;
      }
      data = p;
    }
    if (bench_n > 0)
      rc |= bench(argv[i], data, (uint64_t)st.st_size, bench_n);
    else
      rc |= dump(argv[i], data, (uint64_t)st.st_size);
    fflush(stdout);
    if (data)
      munmap((void *)data, (size_t)st.st_size);
    close(fd);
  }
  return rc;
}
#endif
