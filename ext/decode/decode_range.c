/*
** decode_range.c: range decoding (layer: decode), wt_decode_range*()
** of decode.h and the range walk that statistics and comparison share.
**
** A range [start, start + count) is decoded in steps of at most
** WT_DECODE_CHUNK values through stack buffers: decode whole blocks
** (after swapping a copy when the file's byte order is not the host's),
** then copy the wanted part; a step whose blocks are exactly the wanted
** values is decoded straight into the caller's buffer.
*/
#include "decode_internal.h"

#include <string.h>

/* Bytes of blocks swapped per step (bounds a step of wide types). */
#define WT_SWAP_BYTES 8192

/* Byte-swap the fields of nblocks blocks in place. */
static void swap_blocks(const wt_codec *c, unsigned char *p, size_t nblocks) {
  const wt_field *f;
  size_t i;
  for (i = 0; i < nblocks; i++, p += c->block_bytes) {
    for (f = c->swap; f->width; f++) {
      unsigned char *q = p + f->off;
      int a = 0, b = f->width - 1;
      for (; a < b; a++, b--) {
        unsigned char t = q[a];
        q[a] = q[b];
        q[b] = t;
      }
    }
  }
}

/* Blocks decoded per step: whole blocks, at most WT_DECODE_CHUNK values,
** and when swapping at most WT_SWAP_BYTES bytes. */
static size_t step_blocks(const wt_codec *c) {
  size_t nb = WT_DECODE_CHUNK / c->block_values;
  if (c->swap && nb * c->block_bytes > WT_SWAP_BYTES)
    nb = WT_SWAP_BYTES / c->block_bytes;
  return nb;
}

/* Decode nb blocks at src into the native buffer (float or double). */
static void decode_blocks(const wt_codec *c, const unsigned char *src, size_t nb, void *out) {
  unsigned char tmp[WT_SWAP_BYTES];
  size_t i;
  if (c->swap) {
    memcpy(tmp, src, nb * c->block_bytes);
    swap_blocks(c, tmp, nb);
    src = tmp;
  }
  if (c->f32)
    c->f32(src, nb, (float *)out);
  else
    c->f64(src, nb, (double *)out);
  for (i = 0; c->scaled && i < nb * c->block_values; i++) { /* a per-tensor scale (NVFP4) */
    if (c->f32)
      ((float *)out)[i] *= c->scale;
    else
      ((double *)out)[i] *= c->scale;
  }
}

int wt_range_check(const wt_codec *c, uint64_t nbytes, uint64_t start, uint64_t count,
                   wt_error *err) {
  uint64_t total = 0, end;
  if (wt_codec_count(c, nbytes, &total, err) != 0)
    return -1;
  if (wt_add(start, count, &end) != 0 || end > total)
    return wt_fail(err, "%s: values [%llu, %llu + %llu) lie outside the tensor's %llu values",
                   c->name, (unsigned long long)start, (unsigned long long)start,
                   (unsigned long long)count, (unsigned long long)total);
  return 0;
}

void wt_range_decode(const wt_codec *c, const unsigned char *src, uint64_t start, size_t count,
                     wt_sink out) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  size_t maxb = step_blocks(c), bv = c->block_values;
  uint64_t blk = start / bv;
  size_t skip = (size_t)(start % bv);
  int native_f32 = c->f32 != NULL;
  while (count > 0) {
    size_t nb = (skip + count + bv - 1) / bv, take, i;
    const unsigned char *p = src + blk * c->block_bytes;
    if (nb > maxb)
      nb = maxb;
    take = nb * bv - skip;
    if (take > count)
      take = count;
    if (skip == 0 && take == nb * bv && native_f32 == (out.f != NULL)) {
      decode_blocks(c, p, nb, out.f ? (void *)out.f : (void *)out.d); /* straight in */
    } else {
      decode_blocks(c, p, nb, &buf);
      if (out.f && native_f32)
        memcpy(out.f, buf.f + skip, take * sizeof(float));
      else if (out.f)
        for (i = 0; i < take; i++)
          out.f[i] = (float)buf.d[skip + i];
      else if (native_f32)
        for (i = 0; i < take; i++)
          out.d[i] = buf.f[skip + i];
      else
        memcpy(out.d, buf.d + skip, take * sizeof(double));
    }
    if (out.f)
      out.f += take;
    else
      out.d += take;
    count -= take;
    blk += nb;
    skip = 0;
  }
}

int wt_decode_range(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t start,
                    size_t count, double *out, wt_error *err) {
  wt_sink s = {out, NULL};
  if (wt_range_check(c, nbytes, start, count, err) != 0)
    return -1;
  wt_range_decode(c, src, start, count, s);
  return 0;
}

int wt_decode_range_f32(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, float *out, wt_error *err) {
  wt_sink s = {NULL, out};
  if (wt_range_check(c, nbytes, start, count, err) != 0)
    return -1;
  wt_range_decode(c, src, start, count, s);
  return 0;
}

int wt_decode_range_int(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, int64_t *out, wt_error *err) {
  size_t i, w = c->block_bytes;
  int sgn = c->kind == WT_KIND_INT, file_be = (c->swap != NULL) != WT_HOST_BE;
  if (c->kind != WT_KIND_INT && c->kind != WT_KIND_UINT && c->kind != WT_KIND_BOOL)
    return wt_fail(err, "%s is not an integer type", c->name);
  if (wt_range_check(c, nbytes, start, count, err) != 0)
    return -1;
  src += start * w;
  for (i = 0; i < count; i++, src += w) {
    uint64_t u = 0;
    size_t k;
    for (k = 0; k < w; k++) /* value bytes, most significant first */
      u = u << 8 | src[file_be ? k : w - 1 - k];
    if (c->kind == WT_KIND_BOOL)
      u = u != 0;
    else if (sgn && w < 8 && (u >> (8 * w - 1)) != 0)
      u |= ~(uint64_t)0 << (8 * w); /* sign-extend */
    out[i] = (int64_t)u;
  }
  return 0;
}
