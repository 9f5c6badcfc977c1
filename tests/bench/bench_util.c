/*
** bench_util.c: the small helpers of the benchmark program: errors, the
** clock, medians, the byte and word sums that consume data, and writing
** files under a temporary name.  See bench.h.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

volatile uint64_t bench_sink;
int bench_wall_clock;

void bench_die(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "bench: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  exit(1);
}

void bench_fmt(char *out, size_t n, const char *f, ...) {
  va_list ap;
  int k;
  va_start(ap, f);
  k = vsnprintf(out, n, f, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= n)
    bench_die("a path or query is too long");
}

void bench_die_sys(const char *what) {
  bench_die("%s: %s", what, strerror(errno));
}

/* CPU time of the process (user and system, so system calls and page
** faults count) unless bench_wall_clock is set. */
double bench_now(void) {
  struct timespec ts;
  clock_gettime(bench_wall_clock ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort comparison of doubles. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(const double *v, int n) {
  double *s = malloc(sizeof(double) * (size_t)n), m;
  if (s == NULL)
    bench_die("out of memory");
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

/* A plain loop over every byte; gcc -O2 vectorizes it (about 6 GB/s on
** the machine it was written on), but must still load every byte because
** the result is used. */
uint64_t bench_byte_sum(const unsigned char *p, size_t n) {
  uint64_t s = 0;
  size_t i;
  for (i = 0; i < n; i++)
    s += p[i];
  return s;
}

uint64_t bench_word_sum(const unsigned char *p, size_t n) {
  uint64_t s = 0, w;
  size_t i;
  for (i = 0; i + 8 <= n; i += 8) {
    memcpy(&w, p + i, 8);
    s += w;
  }
  return s + bench_byte_sum(p + i, n - i);
}

int64_t bench_file_size(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
  return (int64_t)st.st_size;
}

void bench_mkdirs(const char *path) {
  char p[4200];
  size_t i;
  snprintf(p, sizeof(p), "%s", path);
  for (i = 1; p[i] != 0; i++) {
    if (p[i] == '/') {
      p[i] = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST)
        bench_die_sys(p);
      p[i] = '/';
    }
  }
  if (mkdir(p, 0777) != 0 && errno != EEXIST)
    bench_die_sys(p);
}

/* The file is written as "<path>.partial" and renamed by bench_out_close. */
void bench_out_open(bench_out *o, const char *path) {
  snprintf(o->path, sizeof(o->path), "%s", path);
  snprintf(o->tmp, sizeof(o->tmp), "%s.partial", path);
  o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (o->fd < 0)
    bench_die_sys(o->tmp);
}

void bench_out_write(bench_out *o, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t k = write(o->fd, c, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      bench_die_sys(o->tmp);
    c += k;
    n -= (size_t)k;
  }
}

void bench_out_pwrite(bench_out *o, const void *p, size_t n, uint64_t at) {
  const char *c = p;
  while (n > 0) {
    ssize_t k = pwrite(o->fd, c, n, (off_t)at);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      bench_die_sys(o->tmp);
    c += k;
    n -= (size_t)k;
    at += (uint64_t)k;
  }
}

/* truncate_to: the final size (0: leave it as written).  Extending with
** ftruncate leaves a hole, which takes no disk space. */
void bench_out_close(bench_out *o, uint64_t truncate_to) {
  if (truncate_to > 0 && ftruncate(o->fd, (off_t)truncate_to) != 0)
    bench_die_sys(o->tmp);
  if (close(o->fd) != 0)
    bench_die_sys(o->tmp);
  if (rename(o->tmp, o->path) != 0)
    bench_die_sys(o->path);
}

void bench_put(bench_buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL)
      bench_die("out of memory");
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

void bench_put_u32(bench_buf *b, uint32_t v) {
  unsigned char x[4] = {v, v >> 8, v >> 16, v >> 24};
  bench_put(b, x, 4);
}

void bench_put_u64(bench_buf *b, uint64_t v) {
  bench_put_u32(b, (uint32_t)v);
  bench_put_u32(b, (uint32_t)(v >> 32));
}

uint64_t bench_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}
