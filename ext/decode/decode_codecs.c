/*
** decode_codecs.c: the codec tables (layer: decode).  One row per
** safetensors dtype (in dtype.c's index order) and one per ggml type id
** (ggml_type.c); a row gives the block geometry, the value kind, the
** native decoder (float or double) and the multi-byte fields to swap when
** the file's byte order is not the host's.  A row without a decoder
** carries the reason it cannot be decoded.  The rows are X-macro lists,
** expanded into constant codec tables (GGUF: once in host order, once
** swapped), so nothing is built at run time.  Names and block sizes repeat
** dtype.c's and ggml_type.c's; decode_test checks that they agree.
** wt_codec_find() and wt_codec_count() are declared in decode.h.
*/
#include "decode_internal.h"

#include "formats/dtype.h"
#include "formats/ggml_type.h"

/* The multi-byte fields of a block, swapped when the file's byte order
** is not the host's (in a big-endian GGUF file each field is byte-swapped,
** byte arrays are not: ggml-org/llama.cpp's
** gguf-py/gguf/scripts/gguf_convert_endian.py): offset and width, ending
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
