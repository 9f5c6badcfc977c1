/*
** tensor_read.c: a tensor's decoder and its bytes, a whole number of
** blocks at a time.  Layer: sql (files through bytes/ and paths/, decoding through
** decode/).  Shared by the tables and functions that decode values
** (values.c, histogram_table.c).  See tensor_read.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "tensor_read.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* NVFP4's per-tensor scale: a weight NAME.weight
** has it in an F32 tensor of one value named NAME.scale (llama.cpp's
** converter and quantizer) or NAME.weight.scale (other converters), in
** the same file.  Returns codec, or copy set up to multiply every value by
** the scale when t has one (a scale tensor of another type or size is not
** applied). */
static const wt_codec *wt_nvfp4_scaled(const wt_source *src, const wt_tensor *t,
                                       const wt_codec *codec, wt_codec *copy) {
  char name[256];
  const wt_tensor *s = NULL;
  const wt_codec *f32;
  unsigned char raw[4];
  float scale;
  wt_error e;
  size_t n = t->name.n;
  if (src->model.format != WT_FORMAT_GGUF || t->type_id != GGML_TYPE_NVFP4 || n + 6 > sizeof(name))
    return codec;
  memcpy(name, t->name.p, n);
  if (n > 7 && memcmp(name + n - 7, ".weight", 7) == 0) {
    memcpy(name + n - 7, ".scale", 6);
    s = wt_source_find_tensor(src, name, n - 1);
  }
  if (s == NULL) {
    memcpy(name, t->name.p, n);
    memcpy(name + n, ".scale", 6);
    s = wt_source_find_tensor(src, name, n + 6);
  }
  f32 = wt_codec_find(WT_FORMAT_GGUF, 0, src->model.big_endian, &e);
  if (s == NULL || s->type_id != 0 || s->numel != 1 || !s->nbytes_known || s->nbytes != 4 ||
      wt_tensor_read(src, s, 0, 4, raw, &e) || wt_decode_range_f32(f32, raw, 4, 0, 1, &scale, &e))
    return codec;
  *copy = *codec;
  copy->scaled = 1;
  copy->scale = scale;
  return copy;
}

const wt_codec *wt_tensor_codec(const char *fn, const wt_source *src, const wt_tensor *t,
                                uint64_t *nvalues, wt_codec *copy, char **pzErr) {
  const wt_codec *codec;
  char q[WT_QUOTE_SIZE], msg[WT_ERROR_MAX + WT_QUOTE_SIZE + 64];
  wt_error e;
  wt_quote(q, sizeof(q), t->name.p, t->name.n);
  if (!t->nbytes_known) {
    *pzErr = wt_error_message(fn, src->path, wt_tensor_unknown_size(t, msg, sizeof(msg)));
    return NULL;
  }
  codec = wt_codec_find(src->model.format, t->type_id, src->model.big_endian, &e);
  if (codec == NULL || wt_codec_count(codec, t->nbytes, nvalues, &e)) {
    snprintf(msg, sizeof(msg), "tensor %s cannot be decoded: %s", q, e.msg);
    *pzErr = wt_error_message(fn, src->path, msg);
    return NULL;
  }
  return wt_nvfp4_scaled(src, t, codec, copy);
}

/* Values per chunk: a multiple of WT_DECODE_CHUNK (so that statistics
** are summed in the same steps whatever the chunking) of about
** WT_READ_CHUNK bytes. */
uint64_t wt_chunk_values(const wt_codec *codec) {
  uint64_t step = WT_DECODE_CHUNK / codec->block_values * codec->block_bytes;
  uint64_t k = WT_READ_CHUNK / step;
  return (k ? k : 1) * WT_DECODE_CHUNK;
}

/* Set up k for tensor t; the buffer holds max_values values.  Returns 0
** or -1 (out of memory). */
int wt_chunk_init(wt_chunk *k, const wt_source *src, const wt_tensor *t, const wt_codec *codec,
                  uint64_t max_values) {
  uint64_t blocks = (max_values + codec->block_values - 1) / codec->block_values;
  memset(k, 0, sizeof(*k));
  k->src = src;
  k->t = t;
  k->codec = codec;
  k->cap = blocks * codec->block_bytes;
  if (k->cap > t->nbytes)
    k->cap = t->nbytes;
  k->buf = malloc(k->cap ? (size_t)k->cap : 1);
  return k->buf == NULL ? -1 : 0;
}

/* Read the blocks holding values [v, v + n) (n > 0, within the tensor and
** the buffer's size in whole blocks) into k, unless they are there. */
int wt_chunk_load(wt_chunk *k, uint64_t v, uint64_t n, wt_error *e) {
  uint64_t bv = k->codec->block_values, bb = k->codec->block_bytes;
  uint64_t b0 = v / bv, b1 = (v + n + bv - 1) / bv, nb;
  if (v >= k->v0 && v + n <= k->v1)
    return 0;
  nb = (b1 - b0) * bb;
  if (nb > k->cap)
    return wt_fail(e, "internal error: %llu bytes asked of a %llu-byte buffer",
                   (unsigned long long)nb, (unsigned long long)k->cap);
  k->v0 = k->v1 = 0;
  if (wt_tensor_read(k->src, k->t, b0 * bb, (size_t)nb, k->buf, e) != 0)
    return -1;
  k->v0 = b0 * bv;
  k->v1 = b1 * bv;
  return 0;
}

/* The bytes in k (whole blocks, from value k->v0), for decode.h. */
uint64_t wt_chunk_nbytes(const wt_chunk *k) {
  return (k->v1 - k->v0) / k->codec->block_values * k->codec->block_bytes;
}
