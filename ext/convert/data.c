/*
** data.c: the bytes of a conversion's tensors.  See data.h.  Layer:
** convert.
**
** A tensor is made in pieces: the flat ones CV_CHUNK_ELEMS elements at a
** time (a multiple of 32, so a Q8_0 block never straddles two pieces, its
** rows being multiples of 32), a permuted one a head at a time (the rows
** of a head read at once and put in llama.cpp's order: decode/permute.h),
** or a row at a time when a head is larger than CV_CHUNK_MAX_ELEMS.
*/
#include "data.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes/digest.h"
#include "bytes/source.h"
#include "convert/numbers.h"
#include "decode/permute.h"

/* Bytes of a BF16 tensor passed through at a time (they stay in the CPU's
** cache between the read, the scan and the write). */
#define CV_PASS_PIECE ((size_t)256 << 10)

/* Make the buffers hold n elements (of any source type). */
static int data_room(cv_data *d, size_t n, wt_error *err) {
  if (n <= d->cap)
    return 0;
  free(d->src_buf);
  free(d->out_buf);
  free(d->f32);
  d->src_buf = malloc(n * 8); /* the widest source type, F64 */
  d->out_buf = malloc(n * 4);
  d->f32 = malloc(n * sizeof(float));
  d->cap = n;
  if (d->src_buf == NULL || d->out_buf == NULL || d->f32 == NULL) {
    d->cap = 0;
    return wt_fail(err, "out of memory");
  }
  return 0;
}

/* What data_decode() puts where: n elements into f, or, for a permuted
** head (per > 0), its rows into f in llama.cpp's order. */
typedef struct decode_arg {
  int type;
  size_t n;
  float *f;
  uint64_t per, cols;
} decode_arg;

/* wt_scan_fn: the checkpoint's bytes p[0..n) decoded into float32.  It
** only decodes (it may run over a mapping, under its guard). */
static int data_decode(void *arg, const unsigned char *p, size_t n, wt_error *err) {
  const decode_arg *a = arg;
  size_t es = cv_src_size(a->type);
  uint64_t i;
  (void)n, (void)err;
  if (a->per == 0) {
    cv_src_to_f32(a->type, p, a->n, a->f);
    return 0;
  }
  for (i = 0; i < a->per; i++)
    cv_src_to_f32(a->type, p + wt_qk_source_row(i, a->per) * a->cols * es, (size_t)a->cols,
                  a->f + i * a->cols);
  return 0;
}

/* Give back the pages of bytes [at, at + n) of f's mapping that the
** conversion is done with: they stay in the page cache, but leave the
** process's resident memory, which so stays bounded whatever the model's
** size (the next piece faults its own pages in). */
static void data_release(const wt_file *f, uint64_t at, size_t n) {
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo = (at + page - 1) / page * page;
  uint64_t hi = (at + n) / page * page;
  if (hi > lo)
    madvise((void *)(f->map + lo), (size_t)(hi - lo), MADV_DONTNEED);
}

/* Run fn over bytes [off, off + n) of o's checkpoint tensor: in place in
** the file's mapping, under its guard (bytes/file.h), for a local file
** that maps (whatever the connection's weights_mmap: the converter reads
** each byte once and decodes it where it lies, which a copy only slows);
** else read into src_buf first. */
static int data_scan(cv_data *d, const cv_out_tensor *o, uint64_t off, size_t n, wt_scan_fn fn,
                     void *arg, wt_error *err) {
  wt_source *src = o->in->src;
  uint64_t at = o->in->t->offset + off;
  if (src->file.remote || n <= WT_AHEAD_SMALL || !wt_file_map(&src->file))
    return wt_tensor_scan(src, o->in->t, off, n, d->src_buf, fn, arg, err);
  if (wt_file_scan_mapped(&src->file, at, n, fn, arg, err) != 0)
    return -1;
  data_release(&src->file, at, n);
  return wt_file_unchanged(&src->file, err);
}

/* Elements [e, e + n) of o's checkpoint tensor (or generated values) as
** float32 into f; per > 0: a whole head of per rows, put in llama.cpp's
** order. */
static int data_read(cv_data *d, const cv_out_tensor *o, uint64_t e, size_t n, uint64_t per,
                     float *f, wt_error *err) {
  size_t es = cv_src_size(o->src_type);
  decode_arg a = {o->src_type, n, f, per, o->cols};
  if (o->extra != NULL) {
    memcpy(f, o->extra->v + e, n * sizeof(float));
    return 0;
  }
  return data_scan(d, o, e * es, n * es, data_decode, &a, err);
}

/* Apply o's shift, encode f[0..n) as o's type and give the bytes. */
static int data_emit(cv_data *d, const cv_out_tensor *o, float *f, size_t n, wt_job_sink *s,
                     wt_error *err) {
  if (o->plus_one)
    cv_plus_one(f, n, o->src_type == CV_SRC_F16);
  cv_encode((int)o->type, f, n, d->out_buf);
  return wt_job_put(s, d->out_buf, (size_t)cv_type_bytes((int)o->type, n), err);
}

/* What data_pass_piece() copies into. */
typedef struct pass_arg {
  unsigned char *dst;
} pass_arg;

/* wt_scan_fn: BF16 bytes as the converter leaves them (numbers.h). */
static int data_pass_piece(void *arg, const unsigned char *p, size_t n, wt_error *err) {
  (void)err;
  cv_bf16_quiet(p, n / 2, ((pass_arg *)arg)->dst);
  return 0;
}

/* BF16 kept as BF16, with nothing else to do: its bytes in one pass, read
** where they lie, their signaling NaNs made quiet on the way.  On a
** filesystem without reflinks this moves as many bytes as a copy in the
** kernel would, and the scan for NaNs needs them read anyway. */
static int data_pass(cv_data *d, const cv_out_tensor *o, wt_job_sink *s, wt_error *err) {
  uint64_t off;
  size_t piece = CV_PASS_PIECE;
  pass_arg a;
  if (data_room(d, piece, err) != 0)
    return -1;
  a.dst = d->out_buf;
  for (off = 0; off < o->nbytes; off += piece) {
    size_t k = o->nbytes - off < piece ? (size_t)(o->nbytes - off) : piece;
    if (data_scan(d, o, off, k, data_pass_piece, &a, err) != 0 ||
        wt_job_put(s, d->out_buf, k, err) != 0)
      return -1;
  }
  return 0;
}

/* A tensor without a permutation, a piece at a time. */
static int data_flat(cv_data *d, const cv_out_tensor *o, wt_job_sink *s, wt_error *err) {
  uint64_t numel = o->rows * o->cols, e;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0)
    return -1;
  for (e = 0; e < numel; e += CV_CHUNK_ELEMS) {
    size_t n = numel - e < CV_CHUNK_ELEMS ? (size_t)(numel - e) : CV_CHUNK_ELEMS;
    if (data_read(d, o, e, n, 0, d->f32, err) != 0 || data_emit(d, o, d->f32, n, s, err) != 0)
      return -1;
  }
  return 0;
}

/* A tensor whose rows go in llama.cpp's RoPE order: a head at a time,
** output row i of a head being the head's row wt_qk_source_row(i). */
static int data_permuted(cv_data *d, const cv_out_tensor *o, wt_job_sink *s, wt_error *err) {
  uint64_t per = o->rows / o->heads, head_elems = per * o->cols, h, i;
  size_t cols = (size_t)o->cols;
  int whole = head_elems <= CV_CHUNK_MAX_ELEMS;
  if (o->cols > CV_CHUNK_MAX_ELEMS)
    return wt_fail(err, "rows of %llu elements are too long to convert",
                   (unsigned long long)o->cols);
  if (data_room(d, whole ? (size_t)head_elems : cols, err) != 0)
    return -1;
  for (h = 0; h < o->heads; h++) {
    uint64_t base = h * head_elems;
    if (whole) {
      if (data_read(d, o, base, (size_t)head_elems, per, d->f32, err) != 0 ||
          data_emit(d, o, d->f32, (size_t)head_elems, s, err) != 0)
        return -1;
      continue;
    }
    for (i = 0; i < per; i++) /* a head too large: a row at a time */
      if (data_read(d, o, base + wt_qk_source_row(i, per) * cols, cols, 0, d->f32, err) != 0 ||
          data_emit(d, o, d->f32, cols, s, err) != 0)
        return -1;
  }
  return 0;
}

int cv_data_encode(void *ctx, size_t i, wt_job_sink *sink, wt_error *err) {
  cv_data *d = ctx;
  const cv_out_tensor *o = &d->plan->t[i];
  if (o->heads > 0)
    return data_permuted(d, o, sink, err);
  if (o->in != NULL && o->src_type == CV_SRC_BF16 && o->type == CV_GGML_BF16 && !o->plus_one)
    return data_pass(d, o, sink, err);
  return data_flat(d, o, sink, err);
}

/* wt_scan_fn: add p[0..n) to the digest arg. */
static int data_hash_piece(void *arg, const unsigned char *p, size_t n, wt_error *err) {
  return wt_digest_update(arg, p, n, err);
}

int cv_data_is_copy(cv_data *d, size_t i, int hash, int *copy, wt_error *err) {
  const cv_out_tensor *o = &d->plan->t[i];
  wt_digest *dg;
  uint64_t done;
  size_t piece = CV_CHUNK_ELEMS * 4;
  *copy = o->in != NULL && o->heads == 0 && !o->plus_one &&
          ((o->src_type == CV_SRC_F32 && o->type == CV_GGML_F32) ||
           (o->src_type == CV_SRC_F16 && o->type == CV_GGML_F16));
  if (!*copy || !hash)
    return 0;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0 || wt_digest_begin("xxh3-64", 7, &dg, err) != 0)
    return -1;
  for (done = 0; done < o->nbytes; done += piece) {
    size_t k = o->nbytes - done < piece ? (size_t)(o->nbytes - done) : piece;
    if (data_scan(d, o, done, k, data_hash_piece, dg, err) != 0) {
      wt_digest_free(dg);
      return -1;
    }
  }
  return wt_digest_end(dg, d->hash[i], err);
}

void cv_data_free(cv_data *d) {
  free(d->hash);
  free(d->src_buf);
  free(d->out_buf);
  free(d->f32);
  memset(d, 0, sizeof(*d));
}
