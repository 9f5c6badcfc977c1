/*
** decode.h: turning tensor bytes into numbers.  Pure C, no
** SQLite: the SQL functions tensor_values(), tensor_stats() and
** tensor_compare() are built on this API.
** Layer: decode (pure C; uses base/ and the type tables of formats/).
**
** A codec describes how one storage type decodes: a block of block_bytes
** bytes gives block_values values.  Plain types are blocks of one element
** (BF16: 1 value in 2 bytes); F4 is 2 values per byte, F6 4 values per 3
** bytes, C64 2 values (real, imaginary) per 8-byte element, Q4_K 256
** values per 144 bytes.  Values come out in the tensor's flat order:
** row-major for safetensors, the stored order (ne[0] fastest) for GGUF.
**
** Each codec decodes natively either to float (every type whose values a
** float holds exactly: all float formats up to 32 bits, every ggml block
** type, integers up to 16 bits, BOOL) or to double (F64, I32, U32, I64,
** U64: exact in a double except 64-bit integers beyond 2^53, for which
** wt_decode_range_int() gives the exact value).  wt_decode_range() always
** writes doubles; wt_decode_range_f32() writes floats (rounding the
** double-native types), the fast path for statistics.
**
** GGUF blocks decode as ggml's reference dequantizers do, bit for bit
** (dequantize_row_* in src/ggml-quants.c, ggml-org/ggml commit
** d99724f2): the exact value of each formula rounded
** once to float32.  Two ggml choices are kept: an MXFP4 scale byte of 255
** is 2^127 (the OCP spec says NaN), and NVFP4 gives the block value
** without the per-tensor scale that lives in a separate tensor (the SQL
** layer applies it).  Refused (wt_codec_find says why): the removed ids
** 4, 5 and 31-38, and ids no table knows.
**
** Nothing allocates: decoding goes through stack buffers of
** WT_DECODE_CHUNK values (at most about 60 KB of stack in
** wt_compare_tensors), whatever the tensor's size.  A slice may start
** and end in the middle of a block (the block is decoded, the rest
** skipped).  Codecs are constant tables; everything is thread-safe.
**
** Byte order: safetensors is little-endian.  In a big-endian GGUF file
** every multi-byte field of a block is byte-swapped (as ggml-org/llama.cpp's
** gguf-py/gguf/scripts/gguf_convert_endian.py swaps them: fp16 scales,
** Q5_0/Q5_1's 32-bit qh, Q8_K's float32 scale, IQ4_XS's scales_h, the 16-
** and 32-bit words of the IQ codebook types (decode_iq.c); byte arrays are
** not); codecs carry the offsets and widths of
** those fields and swap a copy of the blocks before decoding, so the
** decoders only ever see host order.  Every decodable type decodes from a
** big-endian file.
**
** Statistics (wt_stats) and comparison (wt_compare) accumulate over
** blocks of decoded values in any number of calls; the helpers
** wt_stats_tensor() and wt_compare_tensors() decode and accumulate in one
** streaming pass.
*/
#ifndef WT_DECODE_H
#define WT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* Values decoded per internal step (a multiple of every block size). */
#define WT_DECODE_CHUNK 2048

/* What the values are: decides how the SQL layer types them. */
#define WT_KIND_FLOAT   0 /* a real number (NaN and infinities possible) */
#define WT_KIND_INT     1 /* a signed integer */
#define WT_KIND_UINT    2 /* an unsigned integer */
#define WT_KIND_BOOL    3 /* 0 or 1 (any non-zero byte is 1) */
#define WT_KIND_COMPLEX 4 /* two floats per element: real, imaginary */

/* Decode nblocks whole blocks from src (host byte order) into out. */
typedef void (*wt_decode_f32_fn)(const unsigned char *src, size_t nblocks, float *out);
typedef void (*wt_decode_f64_fn)(const unsigned char *src, size_t nblocks, double *out);

/* A multi-byte field of a block: offset and width in bytes. */
typedef struct wt_field {
  uint16_t off;
  uint16_t width;
} wt_field;

/* One storage type in one byte order.  Read-only, statically allocated:
** a pointer stays valid for the life of the process. */
typedef struct wt_codec {
  const char *name;      /* dtype name: "BF16", "Q4_K", ... */
  int format;            /* WT_FORMAT_SAFETENSORS or WT_FORMAT_GGUF */
  int64_t type_id;       /* dtype index (dtype.h) or ggml type id (ggml_type.h) */
  int kind;              /* WT_KIND_* */
  uint32_t block_values; /* values one block decodes to */
  uint32_t block_bytes;  /* bytes of one block */
  uint32_t elem_values;  /* values per tensor element: 2 for C64, else 1 */
  const wt_field *swap;  /* fields to byte-swap in each block (ends with width 0), or
                            NULL when the file's byte order is the host's */
  wt_decode_f32_fn f32;  /* native float decoder, or NULL */
  wt_decode_f64_fn f64;  /* native double decoder, or NULL */
  int scaled;            /* 0 in the tables; 1 on a copy whose values are multiplied by scale */
  float scale;           /* per-tensor factor (NVFP4's scale tensor), in the native type */
} wt_codec;

/* The codec for a tensor type: format WT_FORMAT_SAFETENSORS with type_id
** the dtype index, or WT_FORMAT_GGUF with the ggml type id; big_endian is
** the file's byte order (GGUF only; ignored for safetensors).  Returns NULL and an error naming the
** type and saying why when the type cannot be decoded. */
const wt_codec *wt_codec_find(int format, int64_t type_id, int big_endian, wt_error *err);

/* Number of values a tensor of nbytes bytes decodes to (numel, or 2 *
** numel for C64).  Returns -1 with an error when nbytes is not a whole
** number of blocks. */
int wt_codec_count(const wt_codec *c, uint64_t nbytes, uint64_t *nvalues, wt_error *err);

/* Decode values [start, start + count) of the tensor whose bytes are
** src[0..nbytes) into out[0..count).  Returns 0, or -1 with an error when
** the range lies outside the tensor or nbytes is not whole blocks. */
int wt_decode_range(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t start,
                    size_t count, double *out, wt_error *err);

/* The same into floats (the double-native types are rounded to float). */
int wt_decode_range_f32(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, float *out, wt_error *err);

/* The same, exactly, for the integer kinds (WT_KIND_INT, WT_KIND_UINT,
** WT_KIND_BOOL): a U64 value above INT64_MAX is stored as its bit pattern
** (cast it back to uint64_t).  An error for any other kind. */
int wt_decode_range_int(const wt_codec *c, const unsigned char *src, uint64_t nbytes,
                        uint64_t start, size_t count, int64_t *out, wt_error *err);

/* ------------------------------------------------------------------ */
/* Statistics of one stream of values.
**
** count counts every value.  NaN values are only counted (nan_count).
** min and max are over the values that are not NaN (so an infinity shows
** there); mean, m2 and sumsq are over the finite values only (n of them):
** infinities are counted in inf_count.  zero_count counts +0 and -0.
** Sums are in double: a shifted one-pass sum inside each chunk of
** WT_DECODE_CHUNK values, Chan's merge across chunks, so the variance
** stays accurate on billions of values and is exactly 0 for a constant
** tensor. */
typedef struct wt_stats {
  uint64_t count;      /* all values */
  uint64_t n;          /* finite values */
  uint64_t nan_count;  /* NaN values */
  uint64_t inf_count;  /* +Inf and -Inf */
  uint64_t zero_count; /* +0 and -0 */
  double min, max;     /* over non-NaN values; NaN when there is none */
  double mean;         /* of the finite values */
  double m2;           /* sum of squared deviations from mean */
  double sumsq;        /* sum of squares (the squared L2 norm) */
  int scaled;          /* 1: m2 and sumsq are kept times 2^-1200, since a value
                          beyond 2^500 was seen (its square could overflow) */
} wt_stats;

/* Derived numbers; NaN where undefined (std of fewer than 1 value). */
typedef struct wt_stats_summary {
  double mean;
  double std;     /* population standard deviation: sqrt(m2 / n) */
  double std_unb; /* sample standard deviation: sqrt(m2 / (n - 1)) */
  double l2;      /* sqrt(sumsq) */
  double rms;     /* sqrt(sumsq / n) */
} wt_stats_summary;

void wt_stats_init(wt_stats *st);
void wt_stats_add_f32(wt_stats *st, const float *x, size_t n);
void wt_stats_add_f64(wt_stats *st, const double *x, size_t n);
/* Fold b into a (as if b's values had been added to a).  For tests only. */
void wt_stats_merge(wt_stats *a, const wt_stats *b);
void wt_stats_summarize(const wt_stats *st, wt_stats_summary *out);

/* Decode values [start, start + count) of a tensor and add them to st. */
int wt_stats_tensor(const wt_codec *c, const unsigned char *src, uint64_t nbytes, uint64_t start,
                    uint64_t count, wt_stats *st, wt_error *err);

/* ------------------------------------------------------------------ */
/* Comparison of two streams a and b, value by value.  count counts every
** pair; pairs where either value is NaN or infinite are counted in
** nonfinite (and in nan_mismatch when exactly one of the two is NaN) and
** left out of everything else, which is over the n finite pairs.  Once a
** value beyond 2^500 is seen (its square could overflow) the sums are
** "scaled", kept in units of 2^-600 (sum_abs_diff) and 2^-1200 (the
** sums of products), as wt_stats does; wt_compare_summarize() scales
** back. */
typedef struct wt_compare {
  uint64_t count;        /* all pairs */
  uint64_t n;            /* pairs where both are finite */
  uint64_t nonfinite;    /* pairs where a or b is NaN or infinite */
  uint64_t nan_mismatch; /* pairs where exactly one of a, b is NaN */
  uint64_t n_equal;      /* finite pairs with a == b */
  double max_abs_diff;   /* max |a - b| (0 when n == 0) */
  double sum_abs_diff;   /* sum |a - b| */
  double sum_sq_diff;    /* sum (a - b)^2 */
  double dot;            /* sum a * b */
  double norm_a;         /* sum a^2 */
  double norm_b;         /* sum b^2 */
  int scaled;            /* 1: the sums are in scaled units (see above) */
} wt_compare;

typedef struct wt_compare_summary {
  double max_abs_diff;
  double mean_abs_diff; /* sum_abs_diff / n */
  double rmse;          /* sqrt(sum_sq_diff / n) */
  double cosine;        /* dot / (|a| |b|); NaN when a norm is 0 */
  double rel_l2;        /* |a - b| / |a|; NaN when |a| = 0 */
} wt_compare_summary;

void wt_compare_init(wt_compare *cmp);
void wt_compare_add_f32(wt_compare *cmp, const float *a, const float *b, size_t n);
void wt_compare_add_f64(wt_compare *cmp, const double *a, const double *b, size_t n);
/* Fold b into a (as if b's pairs had been added to a). */
void wt_compare_merge(wt_compare *a, const wt_compare *b);
void wt_compare_summarize(const wt_compare *cmp, wt_compare_summary *out);

/* Decode values [start, start + count) of two tensors (any two codecs)
** side by side and add the pairs to cmp.  Both ranges must exist. */
int wt_compare_tensors(const wt_codec *ca, const unsigned char *srca, uint64_t nbytesa,
                       const wt_codec *cb, const unsigned char *srcb, uint64_t nbytesb,
                       uint64_t start, uint64_t count, wt_compare *cmp, wt_error *err);

/* ------------------------------------------------------------------ */
/* Internal: the block decoders, shared between decode_codecs.c (tables),
** decode_floats.c (plain and small float formats, integers) and
** decode_quants.c (ggml block types).  Each decodes whole blocks whose
** multi-byte fields are in host order. */

/* x86-64 with GCC or clang: kernels for AVX2 (+FMA, F16C) are compiled
** in and chosen at run time when the CPU has them. */
#if defined(__x86_64__) && defined(__GNUC__)
#define WT_AVX2 1
#else
#define WT_AVX2 0
#endif

/* 1 when the CPU has AVX2 and FMA (checked once; F16C comes with them)
** and they are not switched off. */
int wt_cpu_avx2(void);

/* For tests only: use the AVX2 kernels (on = 1, when the CPU has them) or the
** portable ones (on = 0).  Returns whether AVX2 is now used. */
int wt_cpu_set_avx2(int on);

/* Exact fp16 and bf16 conversions (every bit pattern).  wt_bf16_to_f32 is
** for tests only. */
float wt_f16_to_f32(uint16_t h);
float wt_bf16_to_f32(uint16_t h);

void wt_dec_f32(const unsigned char *src, size_t n, float *out);
void wt_dec_f16(const unsigned char *src, size_t n, float *out);
void wt_dec_bf16(const unsigned char *src, size_t n, float *out);
void wt_dec_c64(const unsigned char *src, size_t n, float *out);
void wt_dec_f64(const unsigned char *src, size_t n, double *out);
void wt_dec_bool(const unsigned char *src, size_t n, float *out);
void wt_dec_u8(const unsigned char *src, size_t n, float *out);
void wt_dec_i8(const unsigned char *src, size_t n, float *out);
void wt_dec_u16(const unsigned char *src, size_t n, float *out);
void wt_dec_i16(const unsigned char *src, size_t n, float *out);
void wt_dec_u32(const unsigned char *src, size_t n, double *out);
void wt_dec_i32(const unsigned char *src, size_t n, double *out);
void wt_dec_u64(const unsigned char *src, size_t n, double *out);
void wt_dec_i64(const unsigned char *src, size_t n, double *out);
void wt_dec_f8_e4m3(const unsigned char *src, size_t n, float *out);
void wt_dec_f8_e5m2(const unsigned char *src, size_t n, float *out);
void wt_dec_f8_e4m3fnuz(const unsigned char *src, size_t n, float *out);
void wt_dec_f8_e5m2fnuz(const unsigned char *src, size_t n, float *out);
void wt_dec_f8_e8m0(const unsigned char *src, size_t n, float *out);
void wt_dec_f6_e2m3(const unsigned char *src, size_t n, float *out);
void wt_dec_f6_e3m2(const unsigned char *src, size_t n, float *out);
void wt_dec_f4(const unsigned char *src, size_t n, float *out);

void wt_dec_q4_0(const unsigned char *src, size_t n, float *out);
void wt_dec_q4_1(const unsigned char *src, size_t n, float *out);
void wt_dec_q5_0(const unsigned char *src, size_t n, float *out);
void wt_dec_q5_1(const unsigned char *src, size_t n, float *out);
void wt_dec_q8_0(const unsigned char *src, size_t n, float *out);
void wt_dec_q8_1(const unsigned char *src, size_t n, float *out);
void wt_dec_q2_k(const unsigned char *src, size_t n, float *out);
void wt_dec_q3_k(const unsigned char *src, size_t n, float *out);
void wt_dec_q4_k(const unsigned char *src, size_t n, float *out);
void wt_dec_q5_k(const unsigned char *src, size_t n, float *out);
void wt_dec_q6_k(const unsigned char *src, size_t n, float *out);
void wt_dec_q8_k(const unsigned char *src, size_t n, float *out);
void wt_dec_iq4_nl(const unsigned char *src, size_t n, float *out);
void wt_dec_iq4_xs(const unsigned char *src, size_t n, float *out);
void wt_dec_tq1_0(const unsigned char *src, size_t n, float *out);
void wt_dec_tq2_0(const unsigned char *src, size_t n, float *out);
void wt_dec_mxfp4(const unsigned char *src, size_t n, float *out);
void wt_dec_nvfp4(const unsigned char *src, size_t n, float *out);
void wt_dec_q1_0(const unsigned char *src, size_t n, float *out);
void wt_dec_q2_0(const unsigned char *src, size_t n, float *out);

/* The codebook types (decode_iq.c), with the fields each swaps. */
void wt_dec_iq2_xxs(const unsigned char *src, size_t n, float *out);
void wt_dec_iq2_xs(const unsigned char *src, size_t n, float *out);
void wt_dec_iq2_s(const unsigned char *src, size_t n, float *out);
void wt_dec_iq3_xxs(const unsigned char *src, size_t n, float *out);
void wt_dec_iq3_s(const unsigned char *src, size_t n, float *out);
void wt_dec_iq1_s(const unsigned char *src, size_t n, float *out);
void wt_dec_iq1_m(const unsigned char *src, size_t n, float *out);
extern const wt_field wt_swap_iq2_xxs[], wt_swap_iq2_xs[], wt_swap_iq2_s[], wt_swap_iq3_xxs[],
    wt_swap_iq3_s[], wt_swap_iq1_s[], wt_swap_iq1_m[];

#endif
