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

#include "bytes/source.h"
#include "convert/numbers.h"
#include "decode/permute.h"

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

/* Elements [e, e + n) of o's checkpoint tensor (or generated values) as
** float32 into f. */
static int data_read(cv_data *d, const cv_out_tensor *o, uint64_t e, size_t n, float *f,
                     wt_error *err) {
  size_t es = cv_src_size(o->src_type);
  if (o->extra != NULL) {
    memcpy(f, o->extra->v + e, n * sizeof(float));
    return 0;
  }
  if (wt_tensor_read(o->in->src, o->in->t, e * es, n * es, d->src_buf, err) != 0)
    return -1;
  cv_src_to_f32(o->src_type, d->src_buf, n, f);
  return 0;
}

/* Apply o's shift, encode f[0..n) as o's type and give the bytes. */
static int data_emit(cv_data *d, const cv_out_tensor *o, float *f, size_t n, wt_job_sink *s,
                     wt_error *err) {
  if (o->plus_one)
    cv_plus_one(f, n, o->src_type == CV_SRC_F16);
  cv_encode((int)o->type, f, n, d->out_buf);
  return wt_job_put(s, d->out_buf, (size_t)cv_type_bytes((int)o->type, n), err);
}

/* A tensor without a permutation, a piece at a time. */
static int data_flat(cv_data *d, const cv_out_tensor *o, wt_job_sink *s, wt_error *err) {
  uint64_t numel = o->rows * o->cols, e;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0)
    return -1;
  for (e = 0; e < numel; e += CV_CHUNK_ELEMS) {
    size_t n = numel - e < CV_CHUNK_ELEMS ? (size_t)(numel - e) : CV_CHUNK_ELEMS;
    if (data_read(d, o, e, n, d->f32, err) != 0 || data_emit(d, o, d->f32, n, s, err) != 0)
      return -1;
  }
  return 0;
}

/* A tensor whose rows go in llama.cpp's RoPE order: a head at a time,
** output row i of a head being the head's row wt_qk_source_row(i). */
static int data_permuted(cv_data *d, const cv_out_tensor *o, wt_job_sink *s, wt_error *err) {
  uint64_t per = o->rows / o->heads, head_elems = per * o->cols, h, i;
  size_t es = cv_src_size(o->src_type), cols = (size_t)o->cols;
  int whole = head_elems <= CV_CHUNK_MAX_ELEMS;
  if (o->cols > CV_CHUNK_MAX_ELEMS)
    return wt_fail(err, "rows of %llu elements are too long to convert",
                   (unsigned long long)o->cols);
  if (data_room(d, whole ? (size_t)head_elems : cols, err) != 0)
    return -1;
  for (h = 0; h < o->heads; h++) {
    uint64_t base = h * head_elems;
    if (whole && wt_tensor_read(o->in->src, o->in->t, base * es, (size_t)head_elems * es,
                                d->src_buf, err) != 0)
      return -1;
    for (i = 0; i < per; i++) {
      uint64_t src_row = wt_qk_source_row(i, per);
      float *f = d->f32 + (whole ? i * cols : 0);
      if (whole)
        cv_src_to_f32(o->src_type, d->src_buf + src_row * cols * es, cols, f);
      else if (data_read(d, o, base + src_row * cols, cols, f, err) != 0 ||
               data_emit(d, o, f, cols, s, err) != 0)
        return -1;
    }
    if (whole && data_emit(d, o, d->f32, (size_t)head_elems, s, err) != 0)
      return -1;
  }
  return 0;
}

int cv_data_encode(void *ctx, size_t i, wt_job_sink *sink, wt_error *err) {
  cv_data *d = ctx;
  const cv_out_tensor *o = &d->plan->t[i];
  return o->heads > 0 ? data_permuted(d, o, sink, err) : data_flat(d, o, sink, err);
}

/* 1 when the n BF16 values at p hold a signaling NaN. */
static int bf16_signaling(const unsigned char *p, size_t n) {
  size_t i;
  int any = 0;
  for (i = 0; i < n; i++) {
    unsigned h = p[2 * i] | (unsigned)p[2 * i + 1] << 8;
    any |= (h & 0x7fffu) > 0x7f80u && !(h & 0x40u);
  }
  return any;
}

int cv_data_is_copy(cv_data *d, size_t i, int *copy, wt_error *err) {
  const cv_out_tensor *o = &d->plan->t[i];
  uint64_t done;
  size_t piece = CV_CHUNK_ELEMS * 4;
  *copy = o->in != NULL && o->heads == 0 && !o->plus_one &&
          ((o->src_type == CV_SRC_F32 && o->type == CV_GGML_F32) ||
           (o->src_type == CV_SRC_F16 && o->type == CV_GGML_F16) ||
           (o->src_type == CV_SRC_BF16 && o->type == CV_GGML_BF16));
  if (!*copy || o->type != CV_GGML_BF16)
    return 0;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0)
    return -1;
  for (done = 0; done < o->nbytes && *copy; done += piece) {
    size_t k = o->nbytes - done < piece ? (size_t)(o->nbytes - done) : piece;
    if (wt_tensor_read(o->in->src, o->in->t, done, k, d->src_buf, err) != 0)
      return -1;
    *copy = !bf16_signaling(d->src_buf, k / 2);
  }
  return 0;
}

void cv_data_free(cv_data *d) {
  free(d->src_buf);
  free(d->out_buf);
  free(d->f32);
  memset(d, 0, sizeof(*d));
}
