/*
** fuzz_remote.c: libFuzzer target, a differential of the local and the
** remote source (issue 18): the same bytes opened with wt_source_open()
** as a file (in /dev/shm) and as an http:// URL served by
** tests/fuzz/fake_curl.c in place of libcurl (the real ext/remote/http*.c:
** the first range, the growing header reads, the checks of each
** response), with no network.  The first range is WT_HTTP_FIRST, 4 KiB
** in this build (64 KiB in the module: the Makefile sets it), so that
** most inputs of up to 64 KiB cross it and a run stays cheap.  Input: a byte
** choosing the format asked (detect, safetensors, GGUF), the body-piece
** size and whether 2 x WT_HTTP_FIRST bytes of a pattern follow the bytes
** (so that tensor reads go past the first range, through their own
** requests), then the file.  The local file and the served bytes are kept
** between runs and only the bytes that change are written.
** Checks: both open or both fail with the same message; when both open,
** the same model (format, sizes, every tensor's name, type, shape and
** byte range, every metadata key and value position, the header bytes) and
** the same bytes of the first and last tensor and of the file's end read
** through each source.
** Built by `make fuzz` (seeded with the generated GGUF and safetensors
** files).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "fake_curl.h"
#include "remote/http.h"
#include "bytes/source.h"

#define WT_MAX_IN ((size_t)65536)
#define WT_PAD    ((size_t)(2 * WT_HTTP_FIRST)) /* so that reads go past the first range */

static char local[64];

static int same_str(wt_str a, wt_str b) {
  return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* Abort unless a and b describe the same model. */
static void same_model(const wt_source *x, const wt_source *y) {
  const wt_model *a = &x->model, *b = &y->model;
  size_t i;
  uint64_t h;
  if (a->format != b->format || a->file_size != b->file_size || a->header_len != b->header_len ||
      a->data_offset != b->data_offset || a->version != b->version ||
      a->big_endian != b->big_endian || a->alignment != b->alignment ||
      a->n_tensors != b->n_tensors || a->n_meta != b->n_meta)
    abort();
  for (i = 0; i < a->n_tensors; i++) {
    const wt_tensor *s = &a->tensors[i], *t = &b->tensors[i];
    if (!same_str(s->name, t->name) || !same_str(s->dtype, t->dtype) || s->type_id != t->type_id ||
        s->ndim != t->ndim || s->numel != t->numel || s->offset != t->offset ||
        s->nbytes_known != t->nbytes_known || (s->nbytes_known && s->nbytes != t->nbytes) ||
        (s->ndim > 0 && memcmp(s->dims, t->dims, (size_t)s->ndim * sizeof(*s->dims)) != 0))
      abort();
  }
  for (i = 0; i < a->n_meta; i++) {
    const wt_meta *s = &a->meta[i], *t = &b->meta[i];
    if (!same_str(s->key, t->key) || !same_str(s->value, t->value) || s->type != t->type ||
        s->elem_type != t->elem_type || s->count != t->count || s->value_pos != t->value_pos ||
        s->value_len != t->value_len)
      abort();
  }
  h = x->header_avail < y->header_avail ? x->header_avail : y->header_avail;
  if (memcmp(x->header, y->header, (size_t)h) != 0)
    abort();
}

/* Abort unless tensor i reads the same (or fails the same) through both. */
static void same_bytes(const wt_source *x, const wt_source *y, size_t i) {
  const wt_tensor *t = &x->model.tensors[i];
  unsigned char p[256], q[256];
  wt_error e1, e2;
  size_t n;
  int r1, r2;
  if (!t->nbytes_known || t->nbytes == 0)
    return;
  n = t->nbytes < sizeof(p) ? (size_t)t->nbytes : sizeof(p);
  r1 = wt_tensor_read(x, t, t->nbytes - n, n, p, &e1);
  r2 = wt_tensor_read(y, &y->model.tensors[i], t->nbytes - n, n, q, &e2);
  if (r1 != r2 || (r1 == 0 && memcmp(p, q, n) != 0) || (r1 != 0 && strcmp(e1.msg, e2.msg) != 0))
    abort();
}

/* Abort unless the last bytes of the file and, when padded, bytes across
** the end of the first range read the same through both byte sources. */
static void same_tail(const wt_source *x, const wt_source *y) {
  unsigned char p[300], q[300];
  wt_error e1, e2;
  uint64_t size = x->model.file_size;
  size_t n = size < sizeof(p) ? (size_t)size : sizeof(p);
  int r1 = wt_file_read_at(&x->file, size - n, n, p, &e1);
  int r2 = wt_file_read_at(&y->file, size - n, n, q, &e2);
  if (r1 != 0 || r2 != 0 || memcmp(p, q, n) != 0)
    abort();
  if (size < WT_HTTP_FIRST + sizeof(p))
    return;
  /* across the end of the first range */
  r1 = wt_file_read_at(&x->file, WT_HTTP_FIRST - 150, sizeof(p), p, &e1);
  r2 = wt_file_read_at(&y->file, WT_HTTP_FIRST - 150, sizeof(p), q, &e2);
  if (r1 != 0 || r2 != 0 || memcmp(p, q, sizeof(p)) != 0)
    abort();
}

/* Pattern byte at file offset o: what the padding holds there. */
static unsigned char pattern(size_t o) {
  return (unsigned char)(o * 131 + (o >> 12));
}

/* Make the local file and fake_curl's bytes the input (n bytes) followed by
** pad bytes of the pattern.  Both are kept between runs and only what
** changed is written: the input's bytes, the pattern back where a longer
** input was, the pattern where the file grows. */
static void set_bytes(const uint8_t *in, size_t n, size_t pad) {
  static unsigned char *buf;
  static size_t dirty, file_len;
  static int fd = -1;
  size_t i, from, total = n + pad, w = n > dirty ? n : dirty;
  if (buf == NULL) {
    if ((buf = malloc(WT_MAX_IN + WT_PAD)) == NULL)
      abort();
    for (i = 0; i < WT_MAX_IN + WT_PAD; i++)
      buf[i] = pattern(i);
    snprintf(local, sizeof(local), "/dev/shm/fuzz_remote.%d", (int)getpid());
    setenv("SQLITE_WEIGHTS_CACHE", "off", 1);
    if ((fd = open(local, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
      abort();
  }
  for (i = n; i < dirty; i++)
    buf[i] = pattern(i);
  memcpy(buf, in, n);
  dirty = n;
  if (w > total)
    w = total;
  if (pwrite(fd, buf, w, 0) != (ssize_t)w || ftruncate(fd, (off_t)total) != 0)
    abort();
  from = w > file_len ? w : file_len; /* [w, file_len) holds the pattern already */
  if (total > from && pwrite(fd, buf + from, total - from, (off_t)from) != (ssize_t)(total - from))
    abort();
  file_len = total;
  fake_curl_data = buf;
  fake_curl_size = total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char url[] = "http://127.0.0.1:9/x";
  wt_source *a = NULL, *b = NULL;
  wt_error e1, e2;
  int r1, r2, format;
  wt_remote_register(); /* remote paths go to the HTTP source, as in the module */
  if (size < 1 || size - 1 > WT_MAX_IN)
    return 0;
  format = data[0] % 3;
  fake_curl_piece = (size_t)1 << (data[0] >> 4); /* 1 B to 32 KiB a callback */
  if (data[0] & 8) { /* past the first range: a pattern after the bytes */
    set_bytes(data + 1, size - 1, WT_PAD);
    if (fake_curl_piece < 256)
      fake_curl_piece = 256;
  } else {
    set_bytes(data + 1, size - 1, 0);
  }
  r1 = wt_source_open(local, strlen(local), format, &a, &e1);
  r2 = wt_source_open(url, strlen(url), format, &b, &e2);
  if (r1 != r2 || (r1 != 0 && strcmp(e1.msg, e2.msg) != 0)) {
    fprintf(stderr, "local: %d %s\nremote: %d %s\n", r1, r1 ? e1.msg : "ok", r2,
            r2 ? e2.msg : "ok");
    abort();
  }
  if (r1 == 0) {
    same_model(a, b);
    same_tail(a, b);
    if (a->model.n_tensors > 0) {
      same_bytes(a, b, 0);
      same_bytes(a, b, a->model.n_tensors - 1);
    }
    wt_source_release(a);
    wt_source_release(b);
  }
  return 0;
}
