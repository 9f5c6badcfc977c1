/*
** decode.c: the codec tables, range decoding, and the streaming
** statistics and comparison accumulators.  See decode.h.
**
** Tables.  One row per safetensors dtype (in dtype.c's index order) and
** one per ggml type id (ggml_type.c); a row gives the block geometry, the
** value kind, the native decoder (float or double) and the multi-byte
** fields to swap when the file's byte order is not the host's.  A row
** without a decoder carries the reason it cannot be decoded.  The rows
** are X-macro lists, expanded into constant codec tables (GGUF: once in
** host order, once swapped), so nothing is built at run time.  Names and
** block sizes repeat dtype.c's and ggml_type.c's; decode_test checks that
** they agree.
**
** Range decoding walks the blocks that cover [start, start + count) in
** steps of at most WT_DECODE_CHUNK values through stack buffers: decode
** whole blocks (after swapping a copy when the file's byte order is not
** the host's), then copy the wanted part; a step whose blocks are exactly
** the wanted values is decoded straight into the caller's buffer.
**
** Statistics.  Each chunk of floats is summed in double, in independent
** SIMD lanes (SSE2, or AVX2 when the CPU has it; plain lanes that the
** compiler may vectorize elsewhere), as a shifted one-pass sum: with K
** the running mean (or the chunk's first value), s = sum(x - K) and q =
** sum((x - K)^2) give the chunk's mean K + s/n and M2 = q - s^2/n; chunks
** are merged with Chan's formula.  A chunk whose sums come out NaN or
** infinite holds a NaN or an infinity, and is redone by the careful
** scalar path that counts and skips them.  Double-native values (F64,
** 32- and 64-bit integers) always take the careful path.  Comparison
** works the same way on pairs.
*/
#include "decode.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if WT_AVX2
#include <immintrin.h>
#endif

#include "formats/dtype.h"
#include "formats/ggml_type.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WT_HOST_BE 1
#else
#define WT_HOST_BE 0
#endif

/* Bytes of blocks swapped per step (bounds a step of wide types). */
#define WT_SWAP_BYTES 8192

/* Lanes of the statistics loops. */
#define WT_LANES 8

/* Square root of x >= 0.  With SSE2 the instruction itself, so that the
** module links without libm; elsewhere libm's sqrt (link with -lm). */
#if defined(__SSE2__)
static double wt_sqrt(double x) {
  return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
}
#else
#define wt_sqrt sqrt
#endif

/* The multi-byte fields of a block, swapped when the file's byte order
** is not the host's (quants.md section 1: in a big-endian GGUF file each
** field is byte-swapped; byte arrays are not): offset and width, ending
** with a zero width.  Only the fields a decoder reads are listed (Q8_K's
** bsums are not). */
static const wt_field wt_f_w2[] = {{0, 2}, {0, 0}};           /* 2-byte element, fp16 d */
static const wt_field wt_f_w4[] = {{0, 4}, {0, 0}};           /* 4-byte element, Q8_K d */
static const wt_field wt_f_w8[] = {{0, 8}, {0, 0}};           /* 8-byte element */
static const wt_field wt_f_c64[] = {{0, 4}, {4, 4}, {0, 0}};  /* real, imaginary */
static const wt_field wt_f_p2[] = {{0, 2}, {2, 2}, {0, 0}};   /* d and m, dmin, s or scales_h */
static const wt_field wt_f_q5_0[] = {{0, 2}, {2, 4}, {0, 0}}; /* d, qh */
static const wt_field wt_f_q5_1[] = {{0, 2}, {2, 2}, {4, 4}, {0, 0}}; /* d, m, qh */
static const wt_field wt_f_q2_k[] = {{80, 2}, {82, 2}, {0, 0}};       /* d, dmin */
static const wt_field wt_f_q3_k[] = {{108, 2}, {0, 0}};               /* d */
static const wt_field wt_f_q6_k[] = {{208, 2}, {0, 0}};               /* d */
static const wt_field wt_f_tq1_0[] = {{52, 2}, {0, 0}};               /* d */
static const wt_field wt_f_tq2_0[] = {{64, 2}, {0, 0}};               /* d */

/* The safetensors dtypes, in dtype.c's index order: index, name, kind,
** values and bytes per block, values per element, float or double
** decoder, and the fields a big-endian host swaps. */
#define ST_TYPES(X)                                                                                \
  X(0, "BOOL", BOOL, 1, 1, 1, wt_dec_bool, NULL, NULL)                                             \
  X(1, "F4", FLOAT, 2, 1, 1, wt_dec_f4, NULL, NULL)                                                \
  X(2, "F6_E2M3", FLOAT, 4, 3, 1, wt_dec_f6_e2m3, NULL, NULL)                                      \
  X(3, "F6_E3M2", FLOAT, 4, 3, 1, wt_dec_f6_e3m2, NULL, NULL)                                      \
  X(4, "U8", UINT, 1, 1, 1, wt_dec_u8, NULL, NULL)                                                 \
  X(5, "I8", INT, 1, 1, 1, wt_dec_i8, NULL, NULL)                                                  \
  X(6, "F8_E5M2", FLOAT, 1, 1, 1, wt_dec_f8_e5m2, NULL, NULL)                                      \
  X(7, "F8_E4M3", FLOAT, 1, 1, 1, wt_dec_f8_e4m3, NULL, NULL)                                      \
  X(8, "F8_E8M0", FLOAT, 1, 1, 1, wt_dec_f8_e8m0, NULL, NULL)                                      \
  X(9, "F8_E4M3FNUZ", FLOAT, 1, 1, 1, wt_dec_f8_e4m3fnuz, NULL, NULL)                              \
  X(10, "F8_E5M2FNUZ", FLOAT, 1, 1, 1, wt_dec_f8_e5m2fnuz, NULL, NULL)                             \
  X(11, "I16", INT, 1, 2, 1, wt_dec_i16, NULL, wt_f_w2)                                            \
  X(12, "U16", UINT, 1, 2, 1, wt_dec_u16, NULL, wt_f_w2)                                           \
  X(13, "F16", FLOAT, 1, 2, 1, wt_dec_f16, NULL, wt_f_w2)                                          \
  X(14, "BF16", FLOAT, 1, 2, 1, wt_dec_bf16, NULL, wt_f_w2)                                        \
  X(15, "I32", INT, 1, 4, 1, NULL, wt_dec_i32, wt_f_w4)                                            \
  X(16, "U32", UINT, 1, 4, 1, NULL, wt_dec_u32, wt_f_w4)                                           \
  X(17, "F32", FLOAT, 1, 4, 1, wt_dec_f32, NULL, wt_f_w4)                                          \
  X(18, "C64", COMPLEX, 2, 8, 2, wt_dec_c64, NULL, wt_f_c64)                                       \
  X(19, "F64", FLOAT, 1, 8, 1, NULL, wt_dec_f64, wt_f_w8)                                          \
  X(20, "I64", INT, 1, 8, 1, NULL, wt_dec_i64, wt_f_w8)                                            \
  X(21, "U64", UINT, 1, 8, 1, NULL, wt_dec_u64, wt_f_w8)

/* The ggml types by id (ggml_type.c): id, name, kind, values and bytes
** per block, float or double decoder, the fields swapped in a big-endian
** file, and why a type without a decoder is refused. */
#define GGUF_TYPES(X)                                                                              \
  X(0, "F32", FLOAT, 1, 4, wt_dec_f32, NULL, wt_f_w4, NULL)                                        \
  X(1, "F16", FLOAT, 1, 2, wt_dec_f16, NULL, wt_f_w2, NULL)                                        \
  X(2, "Q4_0", FLOAT, 32, 18, wt_dec_q4_0, NULL, wt_f_w2, NULL)                                    \
  X(3, "Q4_1", FLOAT, 32, 20, wt_dec_q4_1, NULL, wt_f_p2, NULL)                                    \
  X(4, "Q4_2", FLOAT, 0, 0, NULL, NULL, NULL, WT_REMOVED)                                          \
  X(5, "Q4_3", FLOAT, 0, 0, NULL, NULL, NULL, WT_REMOVED)                                          \
  X(6, "Q5_0", FLOAT, 32, 22, wt_dec_q5_0, NULL, wt_f_q5_0, NULL)                                  \
  X(7, "Q5_1", FLOAT, 32, 24, wt_dec_q5_1, NULL, wt_f_q5_1, NULL)                                  \
  X(8, "Q8_0", FLOAT, 32, 34, wt_dec_q8_0, NULL, wt_f_w2, NULL)                                    \
  X(9, "Q8_1", FLOAT, 32, 36, wt_dec_q8_1, NULL, wt_f_p2, NULL)                                    \
  X(10, "Q2_K", FLOAT, 256, 84, wt_dec_q2_k, NULL, wt_f_q2_k, NULL)                                \
  X(11, "Q3_K", FLOAT, 256, 110, wt_dec_q3_k, NULL, wt_f_q3_k, NULL)                               \
  X(12, "Q4_K", FLOAT, 256, 144, wt_dec_q4_k, NULL, wt_f_p2, NULL)                                 \
  X(13, "Q5_K", FLOAT, 256, 176, wt_dec_q5_k, NULL, wt_f_p2, NULL)                                 \
  X(14, "Q6_K", FLOAT, 256, 210, wt_dec_q6_k, NULL, wt_f_q6_k, NULL)                               \
  X(15, "Q8_K", FLOAT, 256, 292, wt_dec_q8_k, NULL, wt_f_w4, NULL)                                 \
  X(16, "IQ2_XXS", FLOAT, 256, 66, wt_dec_iq2_xxs, NULL, wt_swap_iq2_xxs, NULL)                    \
  X(17, "IQ2_XS", FLOAT, 256, 74, wt_dec_iq2_xs, NULL, wt_swap_iq2_xs, NULL)                       \
  X(18, "IQ3_XXS", FLOAT, 256, 98, wt_dec_iq3_xxs, NULL, wt_swap_iq3_xxs, NULL)                    \
  X(19, "IQ1_S", FLOAT, 256, 50, wt_dec_iq1_s, NULL, wt_swap_iq1_s, NULL)                          \
  X(20, "IQ4_NL", FLOAT, 32, 18, wt_dec_iq4_nl, NULL, wt_f_w2, NULL)                               \
  X(21, "IQ3_S", FLOAT, 256, 110, wt_dec_iq3_s, NULL, wt_swap_iq3_s, NULL)                         \
  X(22, "IQ2_S", FLOAT, 256, 82, wt_dec_iq2_s, NULL, wt_swap_iq2_s, NULL)                          \
  X(23, "IQ4_XS", FLOAT, 256, 136, wt_dec_iq4_xs, NULL, wt_f_p2, NULL)                             \
  X(24, "I8", INT, 1, 1, wt_dec_i8, NULL, NULL, NULL)                                              \
  X(25, "I16", INT, 1, 2, wt_dec_i16, NULL, wt_f_w2, NULL)                                         \
  X(26, "I32", INT, 1, 4, NULL, wt_dec_i32, wt_f_w4, NULL)                                         \
  X(27, "I64", INT, 1, 8, NULL, wt_dec_i64, wt_f_w8, NULL)                                         \
  X(28, "F64", FLOAT, 1, 8, NULL, wt_dec_f64, wt_f_w8, NULL)                                       \
  X(29, "IQ1_M", FLOAT, 256, 56, wt_dec_iq1_m, NULL, wt_swap_iq1_m, NULL)                          \
  X(30, "BF16", FLOAT, 1, 2, wt_dec_bf16, NULL, wt_f_w2, NULL)                                     \
  X(31, "Q4_0_4_4", FLOAT, 32, 18, NULL, NULL, NULL, WT_REMOVED)                                   \
  X(32, "Q4_0_4_8", FLOAT, 32, 18, NULL, NULL, NULL, WT_REMOVED)                                   \
  X(33, "Q4_0_8_8", FLOAT, 32, 18, NULL, NULL, NULL, WT_REMOVED)                                   \
  X(34, "TQ1_0", FLOAT, 256, 54, wt_dec_tq1_0, NULL, wt_f_tq1_0, NULL)                             \
  X(35, "TQ2_0", FLOAT, 256, 66, wt_dec_tq2_0, NULL, wt_f_tq2_0, NULL)                             \
  X(36, "IQ4_NL_4_4", FLOAT, 32, 18, NULL, NULL, NULL, WT_REMOVED)                                 \
  X(37, "IQ4_NL_4_8", FLOAT, 0, 0, NULL, NULL, NULL, WT_REMOVED)                                   \
  X(38, "IQ4_NL_8_8", FLOAT, 0, 0, NULL, NULL, NULL, WT_REMOVED)                                   \
  X(39, "MXFP4", FLOAT, 32, 17, wt_dec_mxfp4, NULL, NULL, NULL)                                    \
  X(40, "NVFP4", FLOAT, 64, 36, wt_dec_nvfp4, NULL, NULL, NULL)                                    \
  X(41, "Q1_0", FLOAT, 128, 18, wt_dec_q1_0, NULL, wt_f_w2, NULL)                                  \
  X(42, "Q2_0", FLOAT, 64, 18, wt_dec_q2_0, NULL, wt_f_w2, NULL)

#define WT_REMOVED "it is a removed ggml type whose block layout is not documented"

/* safetensors codecs; fields swapped only on a big-endian host. */
#define ST_CODEC(i, nm, k, bv, bb, ev, f32, f64, fl)                                               \
  {nm, WT_FORMAT_SAFETENSORS, i, WT_KIND_##k, bv, bb, ev, WT_HOST_BE ? fl : NULL, f32, f64, 0, 0},
static const wt_codec st_codecs[ST_DTYPE_COUNT] = {ST_TYPES(ST_CODEC)};

/* GGUF codecs: [0] in host order, [1] byte-swapped. */
#define GGUF_CODEC(swp, i, nm, k, bv, bb, f32, f64, fl, why)                                       \
  {nm, WT_FORMAT_GGUF, i, WT_KIND_##k, bv, bb, 1, swp ? fl : NULL, f32, f64, 0, 0},
#define GGUF_HOST(...) GGUF_CODEC(0, __VA_ARGS__)
#define GGUF_SWAP(...) GGUF_CODEC(1, __VA_ARGS__)
static const wt_codec gguf_codecs[2][GGML_TYPE_TABLE_SIZE] = {{GGUF_TYPES(GGUF_HOST)},
                                                              {GGUF_TYPES(GGUF_SWAP)}};

/* Why a GGUF type is refused (NULL: it is not). */
#define GGUF_WHY(i, nm, k, bv, bb, f32, f64, fl, why) why,
static const char *const gguf_why[GGML_TYPE_TABLE_SIZE] = {GGUF_TYPES(GGUF_WHY)};

const wt_codec *wt_codec_find(int format, int64_t type_id, int big_endian, wt_error *err) {
  const wt_codec *c;
  int swap = (big_endian != 0) != WT_HOST_BE;
  if (format == WT_FORMAT_SAFETENSORS) {
    if (type_id < 0 || type_id >= ST_DTYPE_COUNT) {
      wt_fail(err, "unknown safetensors dtype index %lld", (long long)type_id);
      return NULL;
    }
    return &st_codecs[type_id]; /* always little-endian */
  }
  if (format != WT_FORMAT_GGUF) {
    wt_fail(err, "unknown file format %d", format);
    return NULL;
  }
  if (type_id < 0 || type_id >= GGML_TYPE_TABLE_SIZE) {
    wt_fail(err, "cannot decode ggml type id %lld: no table knows this type", (long long)type_id);
    return NULL;
  }
  c = &gguf_codecs[swap][type_id];
  if (c->f32 == NULL && c->f64 == NULL) {
    wt_fail(err, "cannot decode ggml type %s (id %lld) yet: %s", c->name, (long long)type_id,
            gguf_why[type_id]);
    return NULL;
  }
  return c;
}

int wt_codec_count(const wt_codec *c, uint64_t nbytes, uint64_t *nvalues, wt_error *err) {
  uint64_t nblocks = nbytes / c->block_bytes;
  if (nbytes % c->block_bytes != 0)
    return wt_fail(err, "%s: %llu bytes is not a whole number of %u-byte blocks", c->name,
                   (unsigned long long)nbytes, c->block_bytes);
  if (wt_mul(nblocks, c->block_values, nvalues) != 0)
    return wt_fail(err, "%s: too many values", c->name);
  return 0;
}

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

/* Check that [start, start + count) lies inside the tensor. */
static int check_range(const wt_codec *c, uint64_t nbytes, uint64_t start, uint64_t count,
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

/* The output of a range decode: doubles or floats. */
typedef struct wt_sink {
  double *d;
  float *f;
} wt_sink;

/* Decode a checked range into the sink, step by step. */
static void decode_span(const wt_codec *c, const unsigned char *src, uint64_t start, size_t count,
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
  if (check_range(c, nbytes, start, count, err) != 0)
    return -1;
  decode_span(c, src, start, count, s);
  return 0;
}

int wt_decode_range_f32(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, float *out, wt_error *err) {
  wt_sink s = {NULL, out};
  if (check_range(c, nbytes, start, count, err) != 0)
    return -1;
  decode_span(c, src, start, count, s);
  return 0;
}

int wt_decode_range_int(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, int64_t *out, wt_error *err) {
  size_t i, w = c->block_bytes;
  int sgn = c->kind == WT_KIND_INT, file_be = (c->swap != NULL) != WT_HOST_BE;
  if (c->kind != WT_KIND_INT && c->kind != WT_KIND_UINT && c->kind != WT_KIND_BOOL)
    return wt_fail(err, "%s is not an integer type", c->name);
  if (check_range(c, nbytes, start, count, err) != 0)
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

/* ------------------------------------------------------------------ */
/* Statistics */

void wt_stats_init(wt_stats *st) {
  memset(st, 0, sizeof(*st));
  st->min = st->max = NAN;
}

/* Fold nb finite values with mean mb and squared deviations m2b into the
** moments (Chan et al.); sumsq is the caller's. */
static void stats_fold(wt_stats *st, uint64_t nb, double mb, double m2b) {
  uint64_t n = st->n + nb;
  double delta;
  if (nb == 0)
    return;
  delta = mb - st->mean;
  if (st->n == 0) {
    st->mean = mb;
    st->m2 = m2b;
  } else {
    st->mean += delta * ((double)nb / (double)n);
    st->m2 += m2b + delta * delta * ((double)st->n * (double)nb / (double)n);
  }
  st->n = n;
}

/* Fold a chunk of nb finite values given by its shifted sums: s = sum(x -
** k), q = sum((x - k)^2). */
static void stats_chunk(wt_stats *st, uint64_t nb, double k, double s, double q) {
  double mb = k + s / (double)nb, m2b = q - s * s / (double)nb;
  if (m2b < 0)
    m2b = 0; /* rounding */
  st->sumsq += m2b + (double)nb * mb * mb;
  stats_fold(st, nb, mb, m2b);
}

/* Merge a min/max pair (NaN meaning none yet). */
static void stats_minmax(wt_stats *st, double mn, double mx) {
  if (isnan(st->min) || mn < st->min)
    st->min = mn;
  if (isnan(st->max) || mx > st->max)
    st->max = mx;
}

/* The careful path: counts NaN and infinities and leaves them out. */
static void stats_slow(wt_stats *st, const float *xf, const double *xd, size_t n) {
  double k = NAN, s = 0, q = 0, mn = NAN, mx = NAN;
  uint64_t nf = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    double x = xf ? xf[i] : xd[i];
    st->count++;
    if (isnan(x)) {
      st->nan_count++;
      continue;
    }
    if (x == 0)
      st->zero_count++;
    if (isnan(mn) || x < mn)
      mn = x;
    if (isnan(mx) || x > mx)
      mx = x;
    if (isinf(x)) {
      st->inf_count++;
      continue;
    }
    if (nf == 0)
      k = st->n ? st->mean : x;
    s += x - k;
    q += (x - k) * (x - k);
    nf++;
  }
  if (!isnan(mn))
    stats_minmax(st, mn, mx);
  if (nf)
    stats_chunk(st, nf, k, s, q);
}

/* Sums over a run of floats: s = sum(x - k), q = sum((x - k)^2), the
** min, max and count of zeros.  NaN and infinities make s or q non-finite
** (min and max are then meaningless). */
typedef struct wt_sums {
  double s, q;
  float mn, mx;
  uint64_t zeros;
} wt_sums;

/* Add x[0..n) to r, one value at a time. */
static void sums_scalar(const float *x, size_t n, double k, wt_sums *r) {
  size_t i;
  for (i = 0; i < n; i++) {
    double d = (double)x[i] - k;
    r->s += d;
    r->q += d * d;
    r->mn = x[i] < r->mn ? x[i] : r->mn;
    r->mx = x[i] > r->mx ? x[i] : r->mx;
    r->zeros += x[i] == 0.0f;
  }
}

#if defined(__SSE2__)
/* Add the first multiple of 8 values of x[0..n) to r, 8 a step: 4 double
** lanes for s and q, 4 float lanes for min, max and zeros.  Returns how
** many values it took. */
static size_t sums_vector(const float *restrict x, size_t n, double k, wt_sums *r) {
  __m128d kv = _mm_set1_pd(k), s = _mm_setzero_pd(), q = s, t = s, u = s;
  __m128 mn = _mm_set1_ps(r->mn), mx = _mm_set1_ps(r->mx), zero = _mm_setzero_ps();
  __m128i z = _mm_setzero_si128();
  double ds[2], dq[2];
  float fmn[4], fmx[4];
  int32_t iz[4];
  size_t i;
  int j;
  for (i = 0; i + 8 <= n; i += 8) {
    __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
    __m128d d0 = _mm_sub_pd(_mm_cvtps_pd(a), kv),
            d1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), kv);
    __m128d d2 = _mm_sub_pd(_mm_cvtps_pd(b), kv),
            d3 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(b, b)), kv);
    s = _mm_add_pd(s, _mm_add_pd(d0, d1));
    t = _mm_add_pd(t, _mm_add_pd(d2, d3));
    q = _mm_add_pd(q, _mm_add_pd(_mm_mul_pd(d0, d0), _mm_mul_pd(d1, d1)));
    u = _mm_add_pd(u, _mm_add_pd(_mm_mul_pd(d2, d2), _mm_mul_pd(d3, d3)));
    mn = _mm_min_ps(mn, _mm_min_ps(a, b));
    mx = _mm_max_ps(mx, _mm_max_ps(a, b));
    z = _mm_sub_epi32(z, _mm_castps_si128(_mm_cmpeq_ps(a, zero)));
    z = _mm_sub_epi32(z, _mm_castps_si128(_mm_cmpeq_ps(b, zero)));
  }
  _mm_storeu_pd(ds, _mm_add_pd(s, t));
  _mm_storeu_pd(dq, _mm_add_pd(q, u));
  _mm_storeu_ps(fmn, mn);
  _mm_storeu_ps(fmx, mx);
  _mm_storeu_si128((__m128i *)iz, z);
  r->s += ds[0] + ds[1];
  r->q += dq[0] + dq[1];
  for (j = 0; j < 4; j++) {
    r->mn = fmn[j] < r->mn ? fmn[j] : r->mn;
    r->mx = fmx[j] > r->mx ? fmx[j] : r->mx;
    r->zeros += (uint32_t)iz[j];
  }
  return i;
}
#else
/* Portable version: WT_LANES independent lanes the compiler may
** vectorize. */
static size_t sums_vector(const float *restrict x, size_t n, double k, wt_sums *r) {
  double s[WT_LANES] = {0}, q[WT_LANES] = {0};
  float mn[WT_LANES], mx[WT_LANES];
  uint32_t z[WT_LANES] = {0};
  size_t i, j;
  for (j = 0; j < WT_LANES; j++) {
    mn[j] = r->mn;
    mx[j] = r->mx;
  }
  for (i = 0; i + WT_LANES <= n; i += WT_LANES) {
    for (j = 0; j < WT_LANES; j++) {
      float v = x[i + j];
      double d = (double)v - k;
      s[j] += d;
      q[j] += d * d;
      mn[j] = v < mn[j] ? v : mn[j];
      mx[j] = v > mx[j] ? v : mx[j];
      z[j] += v == 0.0f;
    }
  }
  for (j = 0; j < WT_LANES; j++) {
    r->s += s[j];
    r->q += q[j];
    r->mn = mn[j] < r->mn ? mn[j] : r->mn;
    r->mx = mx[j] > r->mx ? mx[j] : r->mx;
    r->zeros += z[j];
  }
  return i;
}
#endif

#if WT_AVX2
/* sums_vector with AVX2 and FMA: 16 values a step, in 4 double lanes for
** s and q, 8 float lanes for min, max and zeros; one dependent add per
** accumulator and step. */
__attribute__((target("avx2,fma"))) static size_t sums_avx2(const float *restrict x, size_t n,
                                                            double k, wt_sums *r) {
  __m256d kv = _mm256_set1_pd(k), s = _mm256_setzero_pd(), q = s, u = s;
  __m256 mn = _mm256_set1_ps(r->mn), mx = _mm256_set1_ps(r->mx), zero = _mm256_setzero_ps();
  __m256i z = _mm256_setzero_si256();
  double ds[4], dq[4];
  float fmn[8], fmx[8];
  int32_t iz[8];
  size_t i;
  int j;
  for (i = 0; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), kv);
    __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), kv);
    __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), kv);
    __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)), kv);
    s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(d0, d1), _mm256_add_pd(d2, d3)));
    q = _mm256_add_pd(q, _mm256_fmadd_pd(d0, d0, _mm256_mul_pd(d1, d1)));
    u = _mm256_add_pd(u, _mm256_fmadd_pd(d2, d2, _mm256_mul_pd(d3, d3)));
    mn = _mm256_min_ps(mn, _mm256_min_ps(a, b));
    mx = _mm256_max_ps(mx, _mm256_max_ps(a, b));
    z = _mm256_sub_epi32(z, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
    z = _mm256_sub_epi32(z, _mm256_castps_si256(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
  }
  _mm256_storeu_pd(ds, s);
  _mm256_storeu_pd(dq, _mm256_add_pd(q, u));
  _mm256_storeu_ps(fmn, mn);
  _mm256_storeu_ps(fmx, mx);
  _mm256_storeu_si256((__m256i *)iz, z);
  r->s += (ds[0] + ds[1]) + (ds[2] + ds[3]);
  r->q += (dq[0] + dq[1]) + (dq[2] + dq[3]);
  for (j = 0; j < 8; j++) {
    r->mn = fmn[j] < r->mn ? fmn[j] : r->mn;
    r->mx = fmx[j] > r->mx ? fmx[j] : r->mx;
    r->zeros += (uint32_t)iz[j];
  }
  return i;
}
#endif

/* The fast path for one chunk of floats; returns 0 if it holds NaN or
** infinities (nothing accumulated then). */
static int stats_fast(wt_stats *st, const float *restrict x, size_t n) {
  double k = st->n ? st->mean : x[0];
  wt_sums r = {0, 0, x[0], x[0], 0};
  size_t i;
  if (isnan(k) || isinf(k))
    return 0;
#if WT_AVX2
  i = wt_cpu_avx2() ? sums_avx2(x, n, k, &r) : sums_vector(x, n, k, &r);
#else
  i = sums_vector(x, n, k, &r);
#endif
  sums_scalar(x + i, n - i, k, &r);
  if (!isfinite(r.s) || !isfinite(r.q))
    return 0;
  st->count += n;
  st->zero_count += r.zeros;
  stats_minmax(st, r.mn, r.mx);
  stats_chunk(st, n, k, r.s, r.q);
  return 1;
}

void wt_stats_add_f32(wt_stats *st, const float *x, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    if (!stats_fast(st, x, m))
      stats_slow(st, x, NULL, m);
    x += m;
    n -= m;
  }
}

void wt_stats_add_f64(wt_stats *st, const double *x, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    stats_slow(st, NULL, x, m);
    x += m;
    n -= m;
  }
}

void wt_stats_merge(wt_stats *a, const wt_stats *b) {
  a->count += b->count;
  a->nan_count += b->nan_count;
  a->inf_count += b->inf_count;
  a->zero_count += b->zero_count;
  if (!isnan(b->min))
    stats_minmax(a, b->min, b->max);
  a->sumsq += b->sumsq;
  stats_fold(a, b->n, b->mean, b->m2);
}

void wt_stats_summarize(const wt_stats *st, wt_stats_summary *out) {
  double n = (double)st->n;
  out->mean = st->n ? st->mean : NAN;
  out->std = st->n ? wt_sqrt(st->m2 > 0 ? st->m2 / n : 0) : NAN;
  out->std_unb = st->n > 1 ? wt_sqrt(st->m2 > 0 ? st->m2 / (n - 1) : 0) : NAN;
  out->l2 = wt_sqrt(st->sumsq);
  out->rms = st->n ? wt_sqrt(st->sumsq / n) : NAN;
}

int wt_stats_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t start,
                    uint64_t count, wt_stats *st, wt_error *err) {
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } buf;
  size_t m = WT_DECODE_CHUNK - (size_t)(start % c->block_values); /* then whole blocks */
  if (check_range(c, nbytes, start, count, err) != 0)
    return -1;
  while (count > 0) {
    wt_sink s = {c->f32 ? NULL : buf.d, c->f32 ? buf.f : NULL};
    if (m > count)
      m = (size_t)count;
    decode_span(c, src, start, m, s);
    if (c->f32)
      wt_stats_add_f32(st, buf.f, m);
    else
      wt_stats_add_f64(st, buf.d, m);
    start += m;
    count -= m;
    m = WT_DECODE_CHUNK;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Comparison */

void wt_compare_init(wt_compare *cmp) {
  memset(cmp, 0, sizeof(*cmp));
}

/* The careful path: pairs with a NaN or an infinity are counted only. */
static void compare_slow(wt_compare *cmp, const float *af, const float *bf, const double *ad,
                         const double *bd, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    double a = af ? af[i] : ad[i], b = bf ? bf[i] : bd[i], d;
    cmp->count++;
    if (!isfinite(a) || !isfinite(b)) {
      cmp->nonfinite++;
      cmp->nan_mismatch += isnan(a) != isnan(b);
      continue;
    }
    d = fabs(a - b);
    cmp->n++;
    cmp->n_equal += a == b;
    cmp->max_abs_diff = d > cmp->max_abs_diff ? d : cmp->max_abs_diff;
    cmp->sum_abs_diff += d;
    cmp->sum_sq_diff += d * d;
    cmp->dot += a * b;
    cmp->norm_a += a * a;
    cmp->norm_b += b * b;
  }
}

/* Sums over a run of float pairs, in the order of wt_compare's fields
** from sum_abs_diff: t[0] sum |d|, t[1] sum d^2, t[2] dot, t[3] |a|^2,
** t[4] |b|^2, t[5] max |d|; eq counts equal pairs. */
typedef struct wt_csums {
  double t[6];
  uint64_t eq;
} wt_csums;

/* Add the pairs one at a time. */
static void csums_scalar(const float *a, const float *b, size_t n, wt_csums *r) {
  size_t i;
  for (i = 0; i < n; i++) {
    double x = a[i], y = b[i], d = x - y, ad = fabs(d);
    r->t[0] += ad;
    r->t[1] += d * d;
    r->t[2] += x * y;
    r->t[3] += x * x;
    r->t[4] += y * y;
    r->t[5] = ad > r->t[5] ? ad : r->t[5];
    r->eq += x == y;
  }
}

#if defined(__SSE2__)
/* Add the first multiple of 4 pairs, 4 a step in double lanes.  Returns
** how many pairs it took. */
static size_t csums_vector(const float *restrict a, const float *restrict b, size_t n,
                           wt_csums *r) {
  __m128d acc[6], abs = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  __m128i eq = _mm_setzero_si128();
  double v[2];
  int32_t ie[4];
  size_t i;
  int j;
  for (j = 0; j < 6; j++)
    acc[j] = _mm_setzero_pd();
  for (i = 0; i + 4 <= n; i += 4) {
    __m128 va = _mm_loadu_ps(a + i), vb = _mm_loadu_ps(b + i);
    __m128d a0 = _mm_cvtps_pd(va), a1 = _mm_cvtps_pd(_mm_movehl_ps(va, va));
    __m128d b0 = _mm_cvtps_pd(vb), b1 = _mm_cvtps_pd(_mm_movehl_ps(vb, vb));
    __m128d d0 = _mm_sub_pd(a0, b0), d1 = _mm_sub_pd(a1, b1);
    __m128d e0 = _mm_and_pd(d0, abs), e1 = _mm_and_pd(d1, abs);
    acc[0] = _mm_add_pd(acc[0], _mm_add_pd(e0, e1));
    acc[1] = _mm_add_pd(acc[1], _mm_add_pd(_mm_mul_pd(d0, d0), _mm_mul_pd(d1, d1)));
    acc[2] = _mm_add_pd(acc[2], _mm_add_pd(_mm_mul_pd(a0, b0), _mm_mul_pd(a1, b1)));
    acc[3] = _mm_add_pd(acc[3], _mm_add_pd(_mm_mul_pd(a0, a0), _mm_mul_pd(a1, a1)));
    acc[4] = _mm_add_pd(acc[4], _mm_add_pd(_mm_mul_pd(b0, b0), _mm_mul_pd(b1, b1)));
    acc[5] = _mm_max_pd(acc[5], _mm_max_pd(e0, e1));
    eq = _mm_sub_epi32(eq, _mm_castps_si128(_mm_cmpeq_ps(va, vb)));
  }
  for (j = 0; j < 5; j++) {
    _mm_storeu_pd(v, acc[j]);
    r->t[j] += v[0] + v[1];
  }
  _mm_storeu_pd(v, acc[5]);
  v[0] = v[0] > v[1] ? v[0] : v[1];
  r->t[5] = v[0] > r->t[5] ? v[0] : r->t[5];
  _mm_storeu_si128((__m128i *)ie, eq);
  r->eq += (uint64_t)ie[0] + (uint32_t)ie[1] + (uint32_t)ie[2] + (uint32_t)ie[3];
  return i;
}
#else
/* Portable version: nothing vectorized by hand. */
static size_t csums_vector(const float *restrict a, const float *restrict b, size_t n,
                           wt_csums *r) {
  (void)a;
  (void)b;
  (void)n;
  (void)r;
  return 0;
}
#endif

#if WT_AVX2
/* csums_vector with AVX2 and FMA: 4 pairs a step in 4 double lanes. */
__attribute__((target("avx2,fma"))) static size_t
csums_avx2(const float *restrict a, const float *restrict b, size_t n, wt_csums *r) {
  __m256d acc[6], abs = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  __m128i eq = _mm_setzero_si128();
  double v[4];
  int32_t ie[4];
  size_t i;
  int j;
  for (j = 0; j < 6; j++)
    acc[j] = _mm256_setzero_pd();
  for (i = 0; i + 4 <= n; i += 4) {
    __m128 va = _mm_loadu_ps(a + i), vb = _mm_loadu_ps(b + i);
    __m256d x = _mm256_cvtps_pd(va), y = _mm256_cvtps_pd(vb), d = _mm256_sub_pd(x, y);
    __m256d e = _mm256_and_pd(d, abs);
    acc[0] = _mm256_add_pd(acc[0], e);
    acc[1] = _mm256_fmadd_pd(d, d, acc[1]);
    acc[2] = _mm256_fmadd_pd(x, y, acc[2]);
    acc[3] = _mm256_fmadd_pd(x, x, acc[3]);
    acc[4] = _mm256_fmadd_pd(y, y, acc[4]);
    acc[5] = _mm256_max_pd(acc[5], e);
    eq = _mm_sub_epi32(eq, _mm_castps_si128(_mm_cmpeq_ps(va, vb)));
  }
  for (j = 0; j < 5; j++) {
    _mm256_storeu_pd(v, acc[j]);
    r->t[j] += (v[0] + v[1]) + (v[2] + v[3]);
  }
  _mm256_storeu_pd(v, acc[5]);
  for (j = 0; j < 4; j++)
    r->t[5] = v[j] > r->t[5] ? v[j] : r->t[5];
  _mm_storeu_si128((__m128i *)ie, eq);
  r->eq += (uint64_t)(uint32_t)ie[0] + (uint32_t)ie[1] + (uint32_t)ie[2] + (uint32_t)ie[3];
  return i;
}
#endif

/* The fast path for one chunk of floats; returns 0 (nothing added) if a
** value is NaN or infinite. */
static int compare_fast(wt_compare *cmp, const float *restrict a, const float *restrict b,
                        size_t n) {
  wt_csums r;
  size_t i;
  memset(&r, 0, sizeof(r));
#if WT_AVX2
  i = wt_cpu_avx2() ? csums_avx2(a, b, n, &r) : csums_vector(a, b, n, &r);
#else
  i = csums_vector(a, b, n, &r);
#endif
  csums_scalar(a + i, b + i, n - i, &r);
  /* a NaN or infinity makes the squares (non-negative) NaN or infinite */
  if (!isfinite(r.t[1] + r.t[3] + r.t[4]))
    return 0;
  cmp->count += n;
  cmp->n += n;
  cmp->n_equal += r.eq;
  cmp->sum_abs_diff += r.t[0];
  cmp->sum_sq_diff += r.t[1];
  cmp->dot += r.t[2];
  cmp->norm_a += r.t[3];
  cmp->norm_b += r.t[4];
  cmp->max_abs_diff = r.t[5] > cmp->max_abs_diff ? r.t[5] : cmp->max_abs_diff;
  return 1;
}

void wt_compare_add_f32(wt_compare *cmp, const float *a, const float *b, size_t n) {
  while (n > 0) {
    size_t m = n < WT_DECODE_CHUNK ? n : WT_DECODE_CHUNK;
    if (!compare_fast(cmp, a, b, m))
      compare_slow(cmp, a, b, NULL, NULL, m);
    a += m;
    b += m;
    n -= m;
  }
}

void wt_compare_add_f64(wt_compare *cmp, const double *a, const double *b, size_t n) {
  compare_slow(cmp, NULL, NULL, a, b, n);
}

void wt_compare_summarize(const wt_compare *cmp, wt_compare_summary *out) {
  double n = (double)cmp->n, den = wt_sqrt(cmp->norm_a) * wt_sqrt(cmp->norm_b);
  out->max_abs_diff = cmp->max_abs_diff;
  out->mean_abs_diff = cmp->n ? cmp->sum_abs_diff / n : NAN;
  out->rmse = cmp->n ? wt_sqrt(cmp->sum_sq_diff / n) : NAN;
  out->cosine = den > 0 ? cmp->dot / den : NAN;
  out->rel_l2 = cmp->norm_a > 0 ? wt_sqrt(cmp->sum_sq_diff) / wt_sqrt(cmp->norm_a) : NAN;
  if (out->cosine > 1)
    out->cosine = 1; /* rounding of identical streams */
  else if (out->cosine < -1)
    out->cosine = -1;
}

int wt_compare_tensors(const wt_codec *ca, const unsigned char *srca, uint64_t nbytesa,
                       const wt_codec *cb, const unsigned char *srcb, uint64_t nbytesb,
                       uint64_t start, uint64_t count, wt_compare *cmp, wt_error *err) {
  int wide = ca->f64 != NULL || cb->f64 != NULL;
  union {
    float f[WT_DECODE_CHUNK];
    double d[WT_DECODE_CHUNK];
  } a, b;
  if (check_range(ca, nbytesa, start, count, err) != 0 ||
      check_range(cb, nbytesb, start, count, err) != 0)
    return -1;
  while (count > 0) {
    size_t m = count < WT_DECODE_CHUNK ? (size_t)count : WT_DECODE_CHUNK;
    wt_sink sa = {wide ? a.d : NULL, wide ? NULL : a.f};
    wt_sink sb = {wide ? b.d : NULL, wide ? NULL : b.f};
    decode_span(ca, srca, start, m, sa);
    decode_span(cb, srcb, start, m, sb);
    if (wide)
      wt_compare_add_f64(cmp, a.d, b.d, m);
    else
      wt_compare_add_f32(cmp, a.f, b.f, m);
    start += m;
    count -= m;
  }
  return 0;
}
