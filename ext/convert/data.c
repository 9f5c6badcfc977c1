/*
** data.c: a conversion's data section, streamed and checked.  See
** data.h.  Layer: convert.
**
** A tensor is made in pieces: the flat ones CV_CHUNK_ELEMS elements at a
** time (a multiple of 32, so a Q8_0 block never straddles two pieces, its
** rows being multiples of 32), a permuted one a head at a time (the rows
** of a head read at once and put in llama.cpp's order: decode/permute.h),
** or a row at a time when a head is larger than CV_CHUNK_MAX_ELEMS.
*/
#include "data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/digest.h"
#include "bytes/source.h"
#include "convert/numbers.h"
#include "decode/permute.h"

/* Where a tensor's bytes go: appended, or rewritten at an offset. */
typedef struct data_sink {
  wt_out *o;
  int append;
  uint64_t at;    /* !append: the next offset */
  wt_digest *dig; /* what was written, hashed */
} data_sink;

static int sink_write(data_sink *s, const void *p, size_t n, wt_error *err) {
  if (wt_digest_update(s->dig, p, n, err) != 0)
    return -1;
  if (s->append)
    return wt_out_write(s->o, p, n, err);
  if (wt_out_write_at(s->o, s->at, p, n, err) != 0)
    return -1;
  s->at += n;
  return 0;
}

/* The caller's interrupt check, between pieces. */
static int data_poll(wt_out *o, wt_error *err) {
  return o->interrupted != NULL && o->interrupted(o->ctx, err) ? -1 : 0;
}

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

/* Elements [e, e + n) of o's checkpoint tensor as float32 into f. */
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

/* Encode f[0..n) as o's type and write it. */
static int data_emit(cv_data *d, const cv_out_tensor *o, float *f, size_t n, data_sink *s,
                     wt_error *err) {
  if (o->plus_one)
    cv_plus_one(f, n, o->src_type == CV_SRC_F16);
  cv_encode((int)o->type, f, n, d->out_buf);
  return sink_write(s, d->out_buf, (size_t)cv_type_bytes((int)o->type, n), err);
}

/* A tensor without a permutation, a piece at a time. */
static int data_flat(cv_data *d, const cv_out_tensor *o, data_sink *s, wt_error *err) {
  uint64_t numel = o->rows * o->cols, e;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0)
    return -1;
  for (e = 0; e < numel; e += CV_CHUNK_ELEMS) {
    size_t n = numel - e < CV_CHUNK_ELEMS ? (size_t)(numel - e) : CV_CHUNK_ELEMS;
    if (data_read(d, o, e, n, d->f32, err) != 0 || data_emit(d, o, d->f32, n, s, err) != 0 ||
        data_poll(s->o, err) != 0)
      return -1;
  }
  return 0;
}

/* A tensor whose rows go in llama.cpp's RoPE order: a head at a time,
** output row i of a head being the head's row wt_qk_source_row(i). */
static int data_permuted(cv_data *d, const cv_out_tensor *o, data_sink *s, wt_error *err) {
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
    if ((whole && data_emit(d, o, d->f32, (size_t)head_elems, s, err) != 0) ||
        data_poll(s->o, err) != 0)
      return -1;
  }
  return 0;
}

/* Convert tensor i into s, its hash into d->hash[i]. */
static int data_convert(cv_data *d, size_t i, data_sink *s, wt_error *err) {
  const cv_out_tensor *o = &d->plan->t[i];
  char hex[WT_DIGEST_HEX_MAX];
  int rc;
  if (wt_digest_begin("xxh3-64", 7, &s->dig, err) != 0)
    return -1;
  rc = o->heads > 0 ? data_permuted(d, o, s, err) : data_flat(d, o, s, err);
  if (rc != 0) {
    wt_digest_free(s->dig);
    return -1;
  }
  if (wt_digest_end(s->dig, hex, err) != 0)
    return -1;
  d->hash[i] = strtoull(hex, NULL, 16);
  return 0;
}

/* 1 when tensor o is its checkpoint's bytes, to copy by reference. */
static int data_is_copy(const cv_out_tensor *o) {
  return o->in != NULL && o->heads == 0 && !o->plus_one &&
         ((o->src_type == CV_SRC_F32 && o->type == CV_GGML_F32) ||
          (o->src_type == CV_SRC_F16 && o->type == CV_GGML_F16) ||
          (o->src_type == CV_SRC_BF16 && o->type == CV_GGML_BF16));
}

int cv_data_write(cv_data *d, wt_out *o, const cv_plan *p, const uint64_t *start,
                  uint64_t data_offset, uint64_t data_size, size_t *bad, wt_error *err) {
  size_t i;
  memset(d, 0, sizeof(*d));
  d->plan = p;
  d->start = start;
  d->data_offset = data_offset;
  d->data_size = data_size;
  d->hash = calloc(p->n + 1, sizeof(*d->hash));
  d->copied = calloc(p->n + 1, 1);
  if (d->hash == NULL || d->copied == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < p->n; i++) {
    const cv_out_tensor *t = &p->t[i];
    uint64_t end = i + 1 < p->n ? start[i + 1] : data_size;
    data_sink s = {o, 1, 0, NULL};
    *bad = i;
    if (data_is_copy(t)) {
      d->copied[i] = 1;
      if (wt_out_copy(o, &t->in->src->file, t->in->t->offset, t->nbytes, err) != 0)
        return -1;
    } else if (data_convert(d, i, &s, err) != 0) {
      return -1;
    }
    if (wt_out_zeros(o, end - start[i] - t->nbytes, err) != 0)
      return -1;
  }
  *bad = p->n;
  return 0;
}

/* ================================ the check =============================== */

/* Quiet the signaling NaNs of n BF16 values at p: 1 when there were any. */
static int bf16_quiet(unsigned char *p, size_t n) {
  size_t i;
  int any = 0;
  for (i = 0; i < n; i++) {
    unsigned h = p[2 * i] | (unsigned)p[2 * i + 1] << 8;
    if ((h & 0x7fffu) > 0x7f80u && !(h & 0x40u)) {
      p[2 * i] |= 0x40;
      any = 1;
    }
  }
  return any;
}

/* XXH3-64 of n bytes at off of the output, or of tensor o's checkpoint
** bytes (src non-zero; quiet: with BF16 signaling NaNs made quiet, *had
** set when there were some). */
static int data_hash(cv_data *d, wt_out *out, const cv_out_tensor *o, int src, uint64_t off,
                     uint64_t n, int quiet, int *had, uint64_t *h, wt_error *err) {
  char hex[WT_DIGEST_HEX_MAX];
  wt_digest *dg;
  uint64_t done = 0;
  size_t piece = CV_CHUNK_ELEMS * 4;
  if (data_room(d, CV_CHUNK_ELEMS, err) != 0 || wt_digest_begin("xxh3-64", 7, &dg, err) != 0)
    return -1;
  while (done < n) {
    size_t k = n - done < piece ? (size_t)(n - done) : piece;
    int rc = src ? wt_tensor_read(o->in->src, o->in->t, done, k, d->src_buf, err)
                 : wt_out_read(out, off + done, k, d->src_buf, err);
    if (rc == 0 && quiet && bf16_quiet(d->src_buf, k / 2))
      *had = 1;
    if (rc != 0 || wt_digest_update(dg, d->src_buf, k, err) != 0) {
      wt_digest_free(dg);
      return -1;
    }
    done += k;
  }
  if (wt_digest_end(dg, hex, err) != 0)
    return -1;
  *h = strtoull(hex, NULL, 16);
  return 0;
}

/* Check copied tensor i; a BF16 one with signaling NaNs is converted
** again in place. */
static int data_check_copy(cv_data *d, wt_out *o, size_t i, wt_error *err) {
  const cv_out_tensor *t = &d->plan->t[i];
  uint64_t off = d->data_offset + d->start[i], want, got;
  int bf16 = t->type == CV_GGML_BF16, had = 0;
  data_sink s = {o, 0, off, NULL};
  if (data_hash(d, o, t, 1, 0, t->nbytes, bf16, &had, &want, err) != 0 ||
      data_hash(d, o, t, 0, off, t->nbytes, 0, NULL, &got, err) != 0)
    return -1;
  if (got == want)
    return 0;
  if (had) { /* the copy holds the signaling NaNs: convert as the converter does */
    if (data_convert(d, i, &s, err) != 0 ||
        data_hash(d, o, t, 0, off, t->nbytes, 0, NULL, &got, err) != 0)
      return -1;
    if (got == d->hash[i])
      return 0;
  }
  return wt_fail(err, "read back: the bytes of tensor %s differ from the checkpoint's", t->name);
}

int cv_data_check(cv_data *d, wt_out *o, size_t *bad, wt_error *err) {
  size_t i;
  for (i = 0; i < d->plan->n; i++) {
    const cv_out_tensor *t = &d->plan->t[i];
    uint64_t got;
    *bad = i;
    if (d->copied[i]) {
      if (data_check_copy(d, o, i, err) != 0)
        return -1;
    } else if (data_hash(d, o, t, 0, d->data_offset + d->start[i], t->nbytes, 0, NULL, &got, err) !=
               0) {
      return -1;
    } else if (got != d->hash[i]) {
      return wt_fail(err, "read back: the bytes of tensor %s differ from what was written",
                     t->name);
    }
    if (data_poll(o, err) != 0)
      return -1;
  }
  *bad = d->plan->n;
  return 0;
}

void cv_data_free(cv_data *d) {
  free(d->hash);
  free(d->copied);
  free(d->src_buf);
  free(d->out_buf);
  free(d->f32);
  memset(d, 0, sizeof(*d));
}
