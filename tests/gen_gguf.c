/*
** gen_gguf.c: writes the GGUF test files of sqlite-weights.
**
**   gen_gguf OUTDIR
**
** Writes one file per case into OUTDIR, plus OUTDIR/cases.txt with one line
** per file: "filename<TAB>valid|invalid<TAB>checklist id and what it tests".
** The ids number the checks of the reference reader, gguf_init_from_reader()
** in src/gguf.cpp of ggml-org/ggml (commit d99724f2), in the order it makes
** them:
**   H1 magic "GGUF"; H2 version (not 0, not byte-swapped, not 1, at most 3);
**   H3 tensor count and H4 KV count (read as int64, not negative, not more
**      than SIZE_MAX / the size of one entry);
**   K1 key length (at most GGUF_MAX_STRING_LENGTH and the bytes left); K2 key
**      not empty; K3 key not seen before; K4 value type (int32; for an array
**      its element type and u64 count); K5 a known type, 0-12 (an array's
**      elements not 9, ARRAY); K6 array count (at most
**      GGUF_MAX_ARRAY_ELEMENTS, its bytes within the bytes left); K7 each
**      string value, as K1; K8 bool (any non-zero byte is true);
**   A1 general.alignment of type UINT32; A2 a non-zero power of two;
**   T1 tensor name (as K1, shorter than GGML_MAX_NAME = 64); T2 name not seen
**      before; T3 n_dims at most GGML_MAX_DIMS = 4; T4 each ne >= 0 as int64;
**      T5 element count below INT64_MAX; T6 type below GGML_TYPE_COUNT; T7 the
**      type has a block size and ne[0] is a multiple of it; T8 byte size
**      within SIZE_MAX; T9 offset (u64, checked by D2);
**   D1 data start (padded to the alignment) within the file; D2 each offset
**      equals the running sum of padded tensor sizes;
**   F1 tensor data within the file, a check of llama.cpp, not of ggml
**      (llama_tensor_weight in src/llama-model-loader.h of ggml-org/llama.cpp).
** Valid files are named ok-*.gguf; invalid ones start with their checklist
** id, except trunc-NN-*, the truncations of one small valid file
** (ok-trunc-base.gguf) at every structural boundary.  The bytes written are
** the same on every run.
**
** Writer API (gw_*): a growable byte buffer that knows the GGUF version
** (1: counts, string lengths, array counts and dimensions are u32; 2 and 3:
** u64) and the byte order (a big-endian file swaps every number of the
** header, the KVs and the tensor infos).
**   bytes:   gw_u8, gw_u16, gw_u32, gw_u64, gw_len (a count, length or
**            dimension in the version's width), gw_raw, gw_strn, gw_str
**   GGUF:    gw_header, gw_key, gw_val (one scalar value), gw_kv_* (a whole
**            KV), gw_arr (key + array header), gw_tinfo (one tensor info),
**            gw_pad (zero padding), gw_data (pattern bytes)
**   tensors: a tspec list is laid out densely by ts_layout() from the ggml
**            type table, then gw_tensors() writes the infos, the padding
**            and the data section
**   output:  gw_save / save_bytes write a file and its cases.txt line.
**
** Tensor data: byte i of the data section (counted from its start; padding
** between and after tensors included) is (i*7+3)&255, so tests can compute
** hex(gguf_blob(...)) of any slice.  Big-endian files hold the same raw
** bytes: the pattern is not a list of numbers and is not swapped.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* GGUF metadata value types. */
enum {
  V_U8 = 0,
  V_I8 = 1,
  V_U16 = 2,
  V_I16 = 3,
  V_U32 = 4,
  V_I32 = 5,
  V_F32 = 6,
  V_BOOL = 7,
  V_STR = 8,
  V_ARR = 9,
  V_U64 = 10,
  V_I64 = 11,
  V_F64 = 12
};

/* ggml tensor types used by name below. */
enum {
  T_F32 = 0,
  T_F16 = 1,
  T_Q4_0 = 2,
  T_Q8_0 = 8,
  T_Q4_K = 12,
  T_I8 = 24,
  T_I32 = 26,
  T_F64 = 28
};

/* ggml types 0-42 (enum ggml_type in include/ggml.h, type_traits in
** src/ggml.c of ggml-org/ggml, commit d99724f2): name, elements and bytes
** per block.  Removed ids keep their historical sizes where they had one
** (31-33, 36: the Q4_0 block); 4, 5, 37 and 38 never had one in GGUF. */
static const struct ggml_type {
  const char *name;
  uint32_t blck;
  uint32_t size;
  int removed;
} ggml_types[] = {
    {"F32", 1, 4, 0},          {"F16", 1, 2, 0},        {"Q4_0", 32, 18, 0},
    {"Q4_1", 32, 20, 0},       {"Q4_2", 0, 0, 1},       {"Q4_3", 0, 0, 1},
    {"Q5_0", 32, 22, 0},       {"Q5_1", 32, 24, 0},     {"Q8_0", 32, 34, 0},
    {"Q8_1", 32, 36, 0},       {"Q2_K", 256, 84, 0},    {"Q3_K", 256, 110, 0},
    {"Q4_K", 256, 144, 0},     {"Q5_K", 256, 176, 0},   {"Q6_K", 256, 210, 0},
    {"Q8_K", 256, 292, 0},     {"IQ2_XXS", 256, 66, 0}, {"IQ2_XS", 256, 74, 0},
    {"IQ3_XXS", 256, 98, 0},   {"IQ1_S", 256, 50, 0},   {"IQ4_NL", 32, 18, 0},
    {"IQ3_S", 256, 110, 0},    {"IQ2_S", 256, 82, 0},   {"IQ4_XS", 256, 136, 0},
    {"I8", 1, 1, 0},           {"I16", 1, 2, 0},        {"I32", 1, 4, 0},
    {"I64", 1, 8, 0},          {"F64", 1, 8, 0},        {"IQ1_M", 256, 56, 0},
    {"BF16", 1, 2, 0},         {"Q4_0_4_4", 32, 18, 1}, {"Q4_0_4_8", 32, 18, 1},
    {"Q4_0_8_8", 32, 18, 1},   {"TQ1_0", 256, 54, 0},   {"TQ2_0", 256, 66, 0},
    {"IQ4_NL_4_4", 32, 18, 1}, {"IQ4_NL_4_8", 0, 0, 1}, {"IQ4_NL_8_8", 0, 0, 1},
    {"MXFP4", 32, 17, 0},      {"NVFP4", 64, 36, 0},    {"Q1_0", 128, 18, 0},
    {"Q2_0", 64, 18, 0},
};
#define N_GGML_TYPES (sizeof(ggml_types) / sizeof(ggml_types[0]))

#define DEFAULT_ALIGN 32

static const char *g_outdir; /* OUTDIR */
static FILE *g_cases;        /* OUTDIR/cases.txt */
static int g_nfiles;

/* Print a message and exit with status 1. */
__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gen_gguf: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* Exit when a generator invariant does not hold (a bug in a case). */
static void need(int cond, const char *what) {
  if (!cond)
    die("internal error: %s", what);
}

/* ==== Byte buffer ==== */

typedef struct gw {
  unsigned char *p;
  size_t n, cap;
  uint32_t version; /* 1: counts, lengths and dims are u32 */
  int be;           /* 1: numbers are big-endian */
} gw;

/* Start an empty buffer for a file of this version and byte order. */
static void gw_init(gw *g, uint32_t version, int be) {
  memset(g, 0, sizeof(*g));
  g->version = version;
  g->be = be;
}

/* Release the buffer's bytes. */
static void gw_free(gw *g) {
  free(g->p);
  memset(g, 0, sizeof(*g));
}

/* Make room for n more bytes. */
static void gw_reserve(gw *g, size_t n) {
  if (g->cap - g->n >= n)
    return;
  size_t cap = g->cap ? g->cap : 256;
  while (cap - g->n < n)
    cap *= 2;
  g->p = realloc(g->p, cap);
  if (!g->p)
    die("out of memory");
  g->cap = cap;
}

/* Append n bytes as they are. */
static void gw_raw(gw *g, const void *p, size_t n) {
  gw_reserve(g, n);
  memcpy(g->p + g->n, p, n);
  g->n += n;
}

/* Append the low `width` bytes of v in the buffer's byte order. */
static void gw_uint(gw *g, uint64_t v, int width) {
  unsigned char b[8];
  for (int i = 0; i < width; i++)
    b[g->be ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
  gw_raw(g, b, (size_t)width);
}

/* Fixed-width unsigned numbers in the buffer's byte order. */
static void gw_u8(gw *g, uint8_t v) {
  gw_uint(g, v, 1);
}
static void gw_u16(gw *g, uint16_t v) {
  gw_uint(g, v, 2);
}
static void gw_u32(gw *g, uint32_t v) {
  gw_uint(g, v, 4);
}
static void gw_u64(gw *g, uint64_t v) {
  gw_uint(g, v, 8);
}

/* A count, string length, array length or dimension: u32 in v1, else u64. */
static void gw_len(gw *g, uint64_t v) {
  if (g->version == 1) {
    need(v <= UINT32_MAX, "v1 length above u32");
    gw_u32(g, (uint32_t)v);
  } else {
    gw_u64(g, v);
  }
}

/* A GGUF string: length, then the bytes (no NUL). */
static void gw_strn(gw *g, const char *s, size_t n) {
  gw_len(g, n);
  gw_raw(g, s, n);
}

/* A GGUF string from a NUL-terminated C string. */
static void gw_str(gw *g, const char *s) {
  gw_strn(g, s, strlen(s));
}

/* Zero bytes up to the next multiple of align (counted from the file start). */
static void gw_pad(gw *g, uint64_t align) {
  while (g->n % align)
    gw_u8(g, 0);
}

/* The data pattern byte at position i of the data section. */
static unsigned char pattern(uint64_t i) {
  return (unsigned char)((i * 7 + 3) & 255);
}

/* Append pattern bytes until the data section, starting at data_start,
** is `len` bytes long. */
static void gw_data(gw *g, size_t data_start, uint64_t len) {
  need(g->n >= data_start && g->n - data_start <= len, "gw_data position");
  gw_reserve(g, (size_t)(len - (g->n - data_start)));
  while (g->n - data_start < len)
    g->p[g->n] = pattern(g->n - data_start), g->n++;
}

/* ==== GGUF structures ==== */

/* Magic, the buffer's version and the two counts. */
static void gw_header(gw *g, uint64_t n_tensors, uint64_t n_kv) {
  gw_raw(g, "GGUF", 4);
  gw_u32(g, g->version);
  gw_len(g, n_tensors);
  gw_len(g, n_kv);
}

/* A key and its value type: the start of every KV. */
static void gw_key(gw *g, const char *key, uint32_t type) {
  gw_str(g, key);
  gw_u32(g, type);
}

/* One scalar of a fixed-size type (not STRING or ARRAY); floats are passed
** as their bits (f32bits, f64bits). */
static void gw_val(gw *g, uint32_t type, uint64_t bits) {
  switch (type) {
  case V_U8:
  case V_I8:
  case V_BOOL:
    gw_u8(g, (uint8_t)bits);
    break;
  case V_U16:
  case V_I16:
    gw_u16(g, (uint16_t)bits);
    break;
  case V_U32:
  case V_I32:
  case V_F32:
    gw_u32(g, (uint32_t)bits);
    break;
  case V_U64:
  case V_I64:
  case V_F64:
    gw_u64(g, bits);
    break;
  default:
    die("internal error: gw_val type %u", type);
  }
}

/* The bits of a float32 / float64, for gw_val. */
static uint64_t f32bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint64_t f64bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* A whole KV with a fixed-size scalar value. */
static void gw_kv(gw *g, const char *key, uint32_t type, uint64_t bits) {
  gw_key(g, key, type);
  gw_val(g, type, bits);
}

/* A whole KV with a UINT32 value. */
static void gw_kv_u32(gw *g, const char *key, uint32_t v) {
  gw_kv(g, key, V_U32, v);
}

/* A whole KV with a STRING value of n bytes. */
static void gw_kv_strn(gw *g, const char *key, const char *s, size_t n) {
  gw_key(g, key, V_STR);
  gw_strn(g, s, n);
}

/* A whole KV with a STRING value from a C string. */
static void gw_kv_str(gw *g, const char *key, const char *s) {
  gw_kv_strn(g, key, s, strlen(s));
}

/* Key and array header; the caller appends the count elements. */
static void gw_arr(gw *g, const char *key, uint32_t elem_type, uint64_t count) {
  gw_key(g, key, V_ARR);
  gw_u32(g, elem_type);
  gw_len(g, count);
}

/* A whole KV: array of fixed-size scalars. */
static void gw_kv_arr(gw *g, const char *key, uint32_t elem_type, const uint64_t *v, size_t n) {
  gw_arr(g, key, elem_type, n);
  for (size_t i = 0; i < n; i++)
    gw_val(g, elem_type, v[i]);
}

/* A whole KV: array of NUL-terminated strings. */
static void gw_kv_strs(gw *g, const char *key, const char *const *v, size_t n) {
  gw_arr(g, key, V_STR, n);
  for (size_t i = 0; i < n; i++)
    gw_str(g, v[i]);
}

/* A tensor info whose n_dims field may differ from the n_ne dims written. */
static void gw_tinfo_raw(gw *g, const char *name, uint32_t n_dims, const uint64_t *ne, size_t n_ne,
                         uint32_t type, uint64_t offset) {
  gw_str(g, name);
  gw_u32(g, n_dims);
  for (size_t i = 0; i < n_ne; i++)
    gw_len(g, ne[i]);
  gw_u32(g, type);
  gw_u64(g, offset);
}

/* A tensor info: name, n_dims, ne[n_dims], type, offset. */
static void gw_tinfo(gw *g, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                     uint64_t offset) {
  gw_tinfo_raw(g, name, n_dims, ne, n_dims, type, offset);
}

/* ==== Tensor lists ==== */

typedef struct tspec {
  const char *name;
  uint32_t n_dims;
  uint64_t ne[4];
  uint32_t type;
  uint64_t offset; /* relative to the data section; set by ts_layout or by hand */
  uint64_t nbytes; /* set by ts_layout from the type table, or by hand */
} tspec;

/* Bytes of a contiguous tensor from the type table (historical sizes for
** removed ids); -1 if the type has no size or ne[0] is not whole blocks. */
static int type_nbytes(uint32_t type, uint32_t n_dims, const uint64_t *ne, uint64_t *out) {
  if (type >= N_GGML_TYPES || ggml_types[type].blck == 0)
    return -1;
  uint64_t ne0 = n_dims ? ne[0] : 1, rows = 1;
  for (uint32_t j = 1; j < n_dims; j++)
    rows *= ne[j];
  if (ne0 % ggml_types[type].blck)
    return -1;
  *out = ne0 / ggml_types[type].blck * ggml_types[type].size * rows;
  return 0;
}

/* x rounded up to a multiple of align. */
static uint64_t round_up(uint64_t x, uint64_t align) {
  return (x + align - 1) / align * align;
}

/* Give each tensor its byte size (kept as set when the table has none) and
** a dense offset in list order, each padded to align, as ggml writes them. */
static void ts_layout(tspec *t, size_t n, uint64_t align) {
  uint64_t off = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t nb;
    if (type_nbytes(t[i].type, t[i].n_dims, t[i].ne, &nb) == 0)
      t[i].nbytes = nb;
    t[i].offset = off;
    off += round_up(t[i].nbytes, align);
  }
}

/* Write the tensor infos, pad to align, and write the data section up to
** the end of the last tensor (rounded up to align when trailing_pad).
** Returns the data section's start. */
static size_t gw_tensors(gw *g, const tspec *t, size_t n, uint64_t align, int trailing_pad) {
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++) {
    gw_tinfo(g, t[i].name, t[i].n_dims, t[i].ne, t[i].type, t[i].offset);
    if (t[i].offset + t[i].nbytes > end)
      end = t[i].offset + t[i].nbytes;
  }
  gw_pad(g, align);
  size_t start = g->n;
  gw_data(g, start, trailing_pad ? round_up(end, align) : end);
  return start;
}

/* ==== Output ==== */

/* Write bytes to OUTDIR/fname and add its cases.txt line. */
static void save_bytes(const char *fname, const unsigned char *p, size_t n, int valid,
                       const char *what) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", g_outdir, fname);
  FILE *f = fopen(path, "wb");
  if (!f)
    die("%s: %s", path, strerror(errno));
  if ((n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
    die("%s: write failed", path);
  need(strchr(what, '\t') == NULL && strchr(what, '\n') == NULL, "tab in description");
  fprintf(g_cases, "%s\t%s\t%s\n", fname, valid ? "valid" : "invalid", what);
  g_nfiles++;
}

/* Save the whole buffer and free it. */
static void gw_save(gw *g, const char *fname, int valid, const char *what) {
  save_bytes(fname, g->p, g->n, valid, what);
  gw_free(g);
}

/* A copy of base with len bytes at off replaced. */
static void save_patched(const gw *base, size_t off, const void *bytes, size_t len,
                         const char *fname, const char *what) {
  unsigned char *p = malloc(base->n);
  if (!p)
    die("out of memory");
  memcpy(p, base->p, base->n);
  memcpy(p + off, bytes, len);
  save_bytes(fname, p, base->n, 0, what);
  free(p);
}

/* A v3 LE file: one KV, one tensor info from the given fields, padding to
** 32, then data_len pattern bytes.  For the tensor-info cases. */
static void one_tensor(const char *fname, int valid, const char *what, const char *name,
                       uint32_t n_dims, const uint64_t *ne, uint32_t type, uint64_t offset,
                       uint64_t data_len) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 1, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tinfo(&g, name, n_dims, ne, type, offset);
  gw_pad(&g, DEFAULT_ALIGN);
  gw_data(&g, g.n, data_len);
  gw_save(&g, fname, valid, what);
}

/* ==== Valid files ==== */

/* The same small model as v2 and v3 little-endian. */
static void case_v2_v3_le(void) {
  for (uint32_t v = 2; v <= 3; v++) {
    gw g;
    gw_init(&g, v, 0);
    tspec t[] = {{"token_embd.weight", 2, {8, 4}, T_F16, 0, 0},
                 {"output_norm.weight", 1, {8}, T_F32, 0, 0}};
    ts_layout(t, 2, DEFAULT_ALIGN);
    gw_header(&g, 2, 3);
    gw_kv_str(&g, "general.architecture", "llama");
    gw_kv_str(&g, "general.name", "tiny");
    gw_kv_u32(&g, "llama.context_length", 128);
    gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
    if (v == 2)
      gw_save(&g, "ok-v2-le.gguf", 1,
              "H2 version 2 little-endian: 3 KVs, F16 [8,4] at 0 and F32 [8] at 64 (same "
              "content as ok-v3-le)");
    else
      gw_save(&g, "ok-v3-le.gguf", 1,
              "H2 version 3 little-endian: 3 KVs, F16 [8,4] at 0 and F32 [8] at 64");
  }
}

/* Version 3 big-endian: KVs of several types, alignment 64, 2 tensors. */
static void case_v3_be(void) {
  gw g;
  gw_init(&g, 3, 1);
  tspec t[] = {{"a", 2, {4, 2}, T_F32, 0, 0}, {"b", 2, {32, 2}, T_Q8_0, 0, 0}};
  ts_layout(t, 2, 64);
  const uint64_t u16s[] = {1, 256, 65535};
  const char *strs[] = {"a", "bc"};
  gw_header(&g, 2, 13);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_kv_u32(&g, "general.alignment", 64);
  gw_kv(&g, "test.u8", V_U8, 200);
  gw_kv(&g, "test.i16", V_I16, (uint16_t)-2);
  gw_kv(&g, "test.u32", V_U32, 0x01020304);
  gw_kv(&g, "test.i32", V_I32, (uint32_t)-5);
  gw_kv(&g, "test.u64", V_U64, 0x0102030405060708ULL);
  gw_kv(&g, "test.i64", V_I64, (uint64_t)-7);
  gw_kv(&g, "test.f32", V_F32, f32bits(1.5f));
  gw_kv(&g, "test.f64", V_F64, f64bits(-2.25));
  gw_kv(&g, "test.bool", V_BOOL, 1);
  gw_kv_arr(&g, "test.u16s", V_U16, u16s, 3);
  gw_kv_strs(&g, "test.strs", strs, 2);
  gw_tensors(&g, t, 2, 64, 1);
  gw_save(&g, "ok-v3-be.gguf", 1,
          "H2 version 3 big-endian: every header/KV/tensor-info number swapped; general.alignment "
          "u32 64; test.u8 200, test.i16 -2, test.u32 0x01020304, test.i32 -5, test.u64 "
          "0x0102030405060708, test.i64 -7, test.f32 1.5, test.f64 -2.25, test.bool 1, "
          "test.u16s [1,256,65535], test.strs [a,bc]; F32 a [4,2] at 0, Q8_0 b [32,2] at 64; "
          "data raw pattern");
}

/* Version 1: u32 counts, lengths and dims. */
static void case_v1(void) {
  gw g;
  gw_init(&g, 1, 0);
  tspec t[] = {{"token_embd.weight", 2, {4, 3}, T_F32, 0, 0},
               {"output.weight", 1, {4}, T_F16, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  const char *toks[] = {"<unk>", "<s>", "</s>"};
  gw_header(&g, 2, 3);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_kv_u32(&g, "llama.context_length", 128);
  gw_kv_strs(&g, "tokenizer.ggml.tokens", toks, 3);
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-v1.gguf", 1,
          "H2 version 1: u32 counts/string lengths/array count/dims, u64 offsets; 3 KVs incl. a "
          "string array; F32 [4,3] at 0, F16 [4] at 64");
}

/* One KV per scalar type (all 12), with edge values. */
static void case_scalars(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 30);
  gw_kv(&g, "u8.zero", V_U8, 0);
  gw_kv(&g, "u8.max", V_U8, 255);
  gw_kv(&g, "i8.min", V_I8, (uint8_t)-128);
  gw_kv(&g, "i8.max", V_I8, 127);
  gw_kv(&g, "u16.max", V_U16, 65535);
  gw_kv(&g, "i16.min", V_I16, (uint16_t)-32768);
  gw_kv(&g, "u32.max", V_U32, 4294967295u);
  gw_kv(&g, "i32.min", V_I32, (uint32_t)INT32_MIN);
  gw_kv(&g, "u64.max", V_U64, UINT64_MAX);
  gw_kv(&g, "u64.2e63", V_U64, 9223372036854775808ULL);
  gw_kv(&g, "u64.int64max", V_U64, (uint64_t)INT64_MAX);
  gw_kv(&g, "i64.min", V_I64, (uint64_t)INT64_MIN);
  gw_kv(&g, "i64.max", V_I64, (uint64_t)INT64_MAX);
  gw_kv(&g, "f32.nan", V_F32, 0x7FC00000);
  gw_kv(&g, "f32.inf", V_F32, 0x7F800000);
  gw_kv(&g, "f32.neg_inf", V_F32, 0xFF800000);
  gw_kv(&g, "f32.neg_zero", V_F32, 0x80000000);
  gw_kv(&g, "f32.denorm", V_F32, f32bits(1e-45f));
  gw_kv(&g, "f32.pi", V_F32, f32bits(3.14159265f));
  gw_kv(&g, "f64.big", V_F64, f64bits(1e308));
  gw_kv(&g, "f64.third", V_F64, f64bits(1.0 / 3.0));
  gw_kv(&g, "bool.false", V_BOOL, 0);
  gw_kv(&g, "bool.true", V_BOOL, 1);
  gw_kv(&g, "bool.two", V_BOOL, 2);
  gw_kv_str(&g, "str.empty", "");
  gw_kv_str(&g, "str.ascii", "hello");
  gw_kv_strn(&g, "str.invalid_utf8", "a\377\376b\303(", 6); /* 61 FF FE 62 C3 28 */
  gw_kv_strn(&g, "str.nul", "a\0b", 3);
  gw_kv_str(&g, "str.u2581", "\xe2\x96\x81");
  gw_kv_str(&g, "str.u2581_word", "\xe2\x96\x81the");
  gw_save(&g, "ok-scalars.gguf", 1,
          "K4 K8 every scalar type with edge values, no tensors: u8.zero 0, u8.max 255, i8.min "
          "-128, i8.max 127, u16.max 65535, i16.min -32768, u32.max 4294967295, i32.min "
          "-2147483648, u64.max 18446744073709551615, u64.2e63 9223372036854775808, u64.int64max "
          "9223372036854775807, i64.min, i64.max, f32.nan (7FC00000), f32.inf, f32.neg_inf, "
          "f32.neg_zero, f32.denorm 1e-45 (bits 00000001), f32.pi 3.14159265f, f64.big 1e308, "
          "f64.third 1/3, bool.false 0, bool.true 1, bool.two 2 (true per ggml), str.empty '', "
          "str.ascii 'hello', str.invalid_utf8 61 FF FE 62 C3 28, str.nul 61 00 62, str.u2581 E2 "
          "96 81, str.u2581_word E2 96 81 'the'");
}

/* An array of each element type, empty arrays and a 1000-element one. */
static void case_arrays(void) {
  gw g;
  gw_init(&g, 3, 0);
  const uint64_t u8s[] = {0, 1, 255};
  const uint64_t i8s[] = {(uint8_t)-128, 0, 127};
  const uint64_t u16s[] = {0, 65535};
  const uint64_t i16s[] = {(uint16_t)-32768, 32767};
  const uint64_t u32s[] = {0, 4294967295u};
  const uint64_t i32s[] = {(uint32_t)INT32_MIN, INT32_MAX};
  const uint64_t f32s[] = {f32bits(0.5f), f32bits(-1.0f), 0x7F800000, 0x7FC00000};
  const uint64_t bools[] = {0, 1, 2};
  const uint64_t u64s[] = {0, 9223372036854775808ULL, UINT64_MAX};
  const uint64_t i64s[] = {(uint64_t)INT64_MIN, (uint64_t)-1, INT64_MAX};
  const uint64_t f64s[] = {f64bits(1e308), 0x8000000000000000ULL, f64bits(5e-324)};
  gw_header(&g, 0, 15);
  gw_kv_arr(&g, "arr.u8", V_U8, u8s, 3);
  gw_kv_arr(&g, "arr.i8", V_I8, i8s, 3);
  gw_kv_arr(&g, "arr.u16", V_U16, u16s, 2);
  gw_kv_arr(&g, "arr.i16", V_I16, i16s, 2);
  gw_kv_arr(&g, "arr.u32", V_U32, u32s, 2);
  gw_kv_arr(&g, "arr.i32", V_I32, i32s, 2);
  gw_kv_arr(&g, "arr.f32", V_F32, f32s, 4);
  gw_kv_arr(&g, "arr.bool", V_BOOL, bools, 3);
  gw_arr(&g, "arr.str", V_STR, 5);
  gw_str(&g, "a");
  gw_str(&g, "");
  gw_str(&g, "\342\226\201b"); /* octal: a hex escape would swallow the b */
  gw_strn(&g, "x\0y", 3);
  gw_strn(&g, "\xff", 1);
  gw_kv_arr(&g, "arr.u64", V_U64, u64s, 3);
  gw_kv_arr(&g, "arr.i64", V_I64, i64s, 3);
  gw_kv_arr(&g, "arr.f64", V_F64, f64s, 3);
  gw_kv_arr(&g, "arr.empty_u32", V_U32, NULL, 0);
  gw_kv_arr(&g, "arr.empty_str", V_STR, NULL, 0);
  gw_arr(&g, "arr.u32_1000", V_U32, 1000);
  for (uint32_t i = 0; i < 1000; i++)
    gw_u32(&g, i * 3);
  gw_save(
      &g, "ok-arrays.gguf", 1,
      "K4 K6 K8 an array of each element type, no tensors: arr.u8 [0,1,255], arr.i8 "
      "[-128,0,127], arr.u16 [0,65535], arr.i16 [-32768,32767], arr.u32 [0,4294967295], "
      "arr.i32 [-2147483648,2147483647], arr.f32 [0.5,-1,inf,nan], arr.bool [0,1,2], arr.str "
      "['a','',E2 96 81 'b',78 00 79,FF], arr.u64 [0,9223372036854775808,18446744073709551615], "
      "arr.i64 [INT64_MIN,-1,INT64_MAX], arr.f64 [1e308,-0.0,5e-324], arr.empty_u32 [], "
      "arr.empty_str [], arr.u32_1000 [0,3,...,2997] (element i = 3*i)");
}

/* Every ggml type that ggml still accepts, one tensor each. */
static void case_types(void) {
  tspec t[N_GGML_TYPES];
  size_t n = 0;
  for (uint32_t id = 0; id < N_GGML_TYPES; id++) {
    if (ggml_types[id].removed)
      continue;
    tspec s = {ggml_types[id].name, 2, {ggml_types[id].blck * 2, 3}, id, 0, 0};
    t[n++] = s;
  }
  need(n == 35, "35 live types");
  ts_layout(t, n, DEFAULT_ALIGN);
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, n, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, n, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-types.gguf", 1,
          "T6 T7 one tensor per live ggml type id 0-42 (35; not 4,5,31-33,36-38), named by the "
          "upper-case type name (F32, Q4_K, IQ2_XS...), ne = [block size x 2, 3], nbytes = 6 x "
          "bytes per block, dense offsets at alignment 32");
}

/* Removed ids: with a historical size, without one, and unknown id 99. */
static void case_removed_types(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"f32", 1, {8}, T_F32, 0, 0},         {"q4_0_4_4", 2, {64, 3}, 31, 0, 0},
               {"q4_0_4_8", 2, {64, 3}, 32, 0, 0},   {"q4_0_8_8", 2, {64, 3}, 33, 0, 0},
               {"iq4_nl_4_4", 2, {64, 3}, 36, 0, 0}, {"type99", 2, {16, 2}, 99, 0, 64},
               {"f32_after", 1, {8}, T_F32, 0, 0}};
  ts_layout(t, 7, DEFAULT_ALIGN);
  gw_header(&g, 7, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 7, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-removed-types.gguf", 1,
          "T6 T7 readable with removed/unknown type ids: f32 F32 [8] at 0; removed ids 31, 32, "
          "33, 36 with ne [64,3] laid out at their historical size 108 (32/18 blocks) at 32, 160, "
          "288, 416; unknown id 99 [16,2] at 544 (64 bytes reserved); f32_after F32 [8] at 608");

  gw_init(&g, 3, 0);
  tspec r[] = {{"q4_2", 1, {32}, 4, 0, 32},
               {"q4_3", 1, {32}, 5, 0, 32},
               {"iq4_nl_4_8", 1, {32}, 37, 0, 32},
               {"iq4_nl_8_8", 1, {32}, 38, 0, 32},
               {"f32_after", 1, {8}, T_F32, 0, 0}};
  ts_layout(r, 5, DEFAULT_ALIGN);
  gw_header(&g, 5, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, r, 5, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-removed-nosize.gguf", 1,
          "T7 readable with removed ids that never had a GGUF size (block size 0: no division "
          "by it): q4_2 (4), q4_3 (5), iq4_nl_4_8 (37), iq4_nl_8_8 (38), each [32] with 32 "
          "bytes reserved at 0, 32, 64, 96; f32_after F32 [8] at 128");
}

/* Type id 0xFFFFFFFF (-1 as int32): outside the table, so an unknown type. */
static void case_type_negative(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"neg", 1, {8}, 0xFFFFFFFFu, 0, 32}, {"f32_after", 1, {8}, T_F32, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-T6-type-negative.gguf", 1,
          "T6 type id 0xFFFFFFFF (-1 as int32; ggml rejects it, our policy: unknown type, file "
          "readable, size unknown): neg [8] at 0 (32 bytes reserved); f32_after F32 [8] at 32");
}

/* 4-D tensors. */
static void case_dims4(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"a", 4, {2, 3, 4, 5}, T_F32, 0, 0},
               {"b", 4, {32, 2, 3, 4}, T_Q8_0, 0, 0},
               {"c", 4, {1, 1, 1, 7}, T_F16, 0, 0}};
  ts_layout(t, 3, DEFAULT_ALIGN);
  gw_header(&g, 3, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 3, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-dims4.gguf", 1,
          "T3 4-D tensors: a F32 [2,3,4,5] 480 bytes at 0, b Q8_0 [32,2,3,4] 816 bytes at 480, c "
          "F16 [1,1,1,7] 14 bytes at 1312");
}

/* n_dims 0: a scalar of one element. */
static void case_scalar_tensor(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"s", 0, {0}, T_F32, 0, 0}, {"i", 0, {0}, T_I32, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-scalar-tensor.gguf", 1,
          "T3 n_dims 0 (scalar, 1 element): s F32 4 bytes at 0, i I32 4 bytes at 32");
}

/* general.alignment 1, 64 and 4096 with sizes that need padding. */
static void case_align(void) {
  static const uint32_t aligns[] = {1, 64, 4096};
  for (size_t k = 0; k < 3; k++) {
    uint32_t al = aligns[k];
    gw g;
    gw_init(&g, 3, 0);
    tspec t[] = {{"a", 1, {3}, T_F32, 0, 0}, {"b", 1, {5}, T_F16, 0, 0}, {"c", 1, {7}, T_I8, 0, 0}};
    ts_layout(t, 3, al);
    gw_header(&g, 3, 2);
    gw_kv_str(&g, "general.architecture", "test");
    gw_kv_u32(&g, "general.alignment", al);
    size_t start = gw_tensors(&g, t, 3, al, 1);
    char fname[64], what[256];
    snprintf(fname, sizeof(fname), "ok-A2-align-%u.gguf", al);
    snprintf(what, sizeof(what),
             "A2 general.alignment u32 %u: data section at %zu; a F32 [3] at 0, b F16 [5] at "
             "%llu, c I8 [7] at %llu",
             al, start, (unsigned long long)t[1].offset, (unsigned long long)t[2].offset);
    gw_save(&g, fname, 1, what);
  }
}

/* Files without tensors. */
static void case_no_tensors(void) {
  gw g;
  gw_init(&g, 3, 0);
  const char *toks[] = {
      "<unk>", "<s>", "</s>", "\xe2\x96\x81the", "\342\226\201a", "\xe2\x96\x81of", "<0x0A>",
      "ing",   "ed",  "s"};
  uint64_t scores[10], types[10];
  for (int i = 0; i < 10; i++) {
    scores[i] = f32bits(-(float)i);
    types[i] = i < 3 ? (i == 0 ? 2 : 3) : (i == 6 ? 6 : 1);
  }
  gw_header(&g, 0, 6);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_kv_str(&g, "tokenizer.ggml.model", "llama");
  gw_kv_strs(&g, "tokenizer.ggml.tokens", toks, 10);
  gw_kv_arr(&g, "tokenizer.ggml.scores", V_F32, scores, 10);
  gw_kv_arr(&g, "tokenizer.ggml.token_type", V_I32, types, 10);
  gw_kv(&g, "tokenizer.ggml.add_bos_token", V_BOOL, 1);
  need(g.n % DEFAULT_ALIGN != 0, "vocab-only end is unaligned");
  gw_save(&g, "ok-vocab-only.gguf", 1,
          "D1 no tensors, vocab-only style: 6 KVs (10 tokens, scores, token_type, a bool), file "
          "ends right after the last KV at an unaligned size, no padding and no data section");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 3);
  gw_kv_str(&g, "general.architecture", "test");
  gw_kv_str(&g, "general.name", "kv only");
  gw_kv_u32(&g, "test.answer", 42);
  need(g.n % DEFAULT_ALIGN != 0, "kv-only end is unaligned");
  gw_pad(&g, DEFAULT_ALIGN);
  gw_save(&g, "ok-kv-only-padded.gguf", 1,
          "D1 no tensors, 3 KVs followed by zero padding to 32 as ggml's writer does (bytes "
          "after the last KV are not a data section)");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 0);
  gw_save(&g, "ok-empty.gguf", 1, "H3 H4 no KVs and no tensors: the 24-byte header only");
}

/* Tensors out of offset order, with a gap. */
static void case_unordered(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {
      {"b", 1, {8}, T_F32, 64, 32}, {"a", 1, {16}, T_F32, 0, 64}, {"c", 1, {4}, T_F32, 192, 16}};
  gw_header(&g, 3, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 3, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-D2-unordered-gap.gguf", 1,
          "D2 (our policy: accepted, ggml rejects) tensors aligned and non-overlapping but not in "
          "offset order, with a gap: b F32 [8] at 64, a F32 [16] at 0, c F32 [4] at 192 (gap "
          "96-192)");
}

/* Zero-size tensors sharing offset 0 with the tensor after them. */
static void case_zero_dim(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"zero", 2, {0, 4}, T_F32, 0, 0},
               {"zero_q", 2, {32, 0}, T_Q4_0, 0, 0},
               {"after", 1, {4}, T_F32, 0, 0}};
  ts_layout(t, 3, DEFAULT_ALIGN);
  need(t[2].offset == 0, "zero-size tensors take no space");
  gw_header(&g, 3, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 3, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-T5-zero-dim.gguf", 1,
          "T5 zero dimensions (0 elements, 0 bytes; no division by zero): zero F32 [0,4], zero_q "
          "Q4_0 [32,0], after F32 [4]; all three at offset 0 as ggml lays them out");
}

/* The last tensor ends the file without trailing padding. */
static void case_no_trailing_pad(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"a", 1, {8}, T_F32, 0, 0}, {"b", 1, {3}, T_F32, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  size_t start = gw_tensors(&g, t, 2, DEFAULT_ALIGN, 0);
  need(g.n == start + 44, "no trailing pad");
  gw_save(&g, "ok-F1-no-trailing-pad.gguf", 1,
          "F1 last tensor without trailing padding: a F32 [8] at 0, b F32 [3] at 32, the file "
          "ends 44 bytes into the data section");
}

/* A 1,000,000-byte tensor for blob range tests. */
static void case_big(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"small", 1, {8}, T_F32, 0, 0}, {"big", 1, {1000000}, T_I8, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-big.gguf", 1,
          "F1 blob ranges: small F32 [8] at 0, big I8 [1000000] (1,000,000 bytes) at 32");
}

/* 300 tensors named blk.N.*. */
static void case_many(void) {
  static char names[300][40];
  static const char *const parts[3] = {"attn_norm.weight", "attn_q.weight", "ffn_up.weight"};
  tspec t[300];
  for (int i = 0; i < 300; i++) {
    snprintf(names[i], sizeof(names[i]), "blk.%d.%s", i / 3, parts[i % 3]);
    tspec s = {names[i], i % 3 ? 2 : 1, {8, 2}, i % 3 == 2 ? T_F16 : T_F32, 0, 0};
    t[i] = s;
  }
  ts_layout(t, 300, DEFAULT_ALIGN);
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 300, 2);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_kv_u32(&g, "llama.block_count", 100);
  gw_tensors(&g, t, 300, DEFAULT_ALIGN, 1);
  gw_save(&g, "ok-many.gguf", 1,
          "H3 300 tensors, blk.N for N = 0-99 at data offset 128*N: blk.N.attn_norm.weight F32 "
          "[8] at +0, blk.N.attn_q.weight F32 [8,2] at +32, blk.N.ffn_up.weight F16 [8,2] at +96");
}

/* A 63-byte tensor name, the longest ggml accepts. */
static void case_name63(void) {
  char name[64];
  memset(name, 'n', 63);
  name[63] = 0;
  uint64_t ne[1] = {8};
  one_tensor("ok-T1-name-63.gguf", 1,
             "T1 tensor name of 63 bytes ('n' x 63), the longest ggml "
             "accepts: F32 [8] at 0",
             name, 1, ne, T_F32, 0, 32);
}

/* ==== Invalid files ==== */

/* Bad magic, with the body of a valid file; and the 2023 pre-release "FUGG". */
static void case_H1(const gw *base) {
  save_patched(base, 0, "GGML", 4, "H1-bad-magic.gguf",
               "H1 magic 'GGML' followed by a valid v3 body (ok-trunc-base)");
  save_patched(base, 0, "\x00\xff\x01G", 4, "H1-bad-magic-binary.gguf",
               "H1 magic bytes 00 FF 01 47 (non-printable) followed by a valid v3 body");
  gw g;
  gw_init(&g, 1, 0);
  gw_raw(&g, "FUGG", 4);
  gw_u32(&g, 1);
  gw_len(&g, 0);
  gw_len(&g, 1);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_save(&g, "H1-FUGG-prerelease.gguf", 0,
          "H1 magic 'FUGG' (2023 pre-release little-endian file, not big-endian GGUF): version 1 "
          "LE, u32 counts, one string KV");
}

/* Versions 0, 4, 0xFFFFFFFF and byte-swapped ones that decode to > 3. */
static void case_H2(const gw *base) {
  save_patched(base, 4, "\x00\x00\x00\x00", 4, "H2-version-0.gguf",
               "H2 version 0 (otherwise the valid v3 body of ok-trunc-base)");
  save_patched(base, 4, "\x04\x00\x00\x00", 4, "H2-version-4.gguf", "H2 version 4 (LE)");
  save_patched(base, 4, "\xff\xff\xff\xff", 4, "H2-version-ffffffff.gguf",
               "H2 version 0xFFFFFFFF (low 16 bits non-zero: not a byte-swapped file)");
  save_patched(base, 4, "\x00\x00\x01\x00", 4, "H2-version-swapped-256.gguf",
               "H2 version bytes 00 00 01 00: LE 0x00010000 has zero low 16 bits, so byte-swapped; "
               "decodes big-endian to 256 > 3");
  save_patched(base, 4, "\x00\x00\x00\x04", 4, "H2-version-be-4.gguf",
               "H2 version bytes 00 00 00 04: byte-swapped, decodes big-endian to 4 > 3");
}

/* Tensor and KV counts near 2^32, 2^63 and 2^64 in a 24-byte file. */
static void case_H3_H4(void) {
  static const struct {
    uint64_t v;
    const char *tag, *desc;
  } counts[] = {
      {1ULL << 32, "2e32", "2^32 (0 if truncated to u32)"},
      {1ULL << 63, "2e63", "2^63 (negative as int64)"},
      {UINT64_MAX, "2e64m1", "2^64-1 (-1 as int64)"},
  };
  for (int which = 0; which < 2; which++) {
    for (size_t k = 0; k < 3; k++) {
      gw g;
      gw_init(&g, 3, 0);
      gw_header(&g, which ? 0 : counts[k].v, which ? counts[k].v : 0);
      char fname[64], what[160];
      snprintf(fname, sizeof(fname), "%s-%s-count-%s.gguf", which ? "H4" : "H3",
               which ? "kv" : "tensor", counts[k].tag);
      snprintf(what, sizeof(what), "%s %s count %s in a 24-byte file (header only)",
               which ? "H4" : "H3", which ? "KV" : "tensor", counts[k].desc);
      gw_save(&g, fname, 0, what);
    }
  }
}

/* Key lengths past the end of the file. */
static void case_K1(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_u64(&g, 1000);
  gw_raw(&g, "general.ar", 10);
  gw_save(&g, "K1-key-len-past-eof.gguf", 0, "K1 key length 1000 with 10 bytes left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_u64(&g, UINT64_MAX);
  gw_raw(&g, "abc", 3);
  gw_u32(&g, V_U32);
  gw_u32(&g, 1);
  gw_save(&g, "K1-key-len-2e64m1.gguf", 0, "K1 key length 2^64-1 (wraps to 0 if 1 is added)");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_u64(&g, 21);
  gw_raw(&g, "general.architecture", 20);
  gw_save(&g, "K1-key-len-remaining-plus-1.gguf", 0,
          "K1 key length 21 with exactly 20 bytes left (off by one)");
}

/* An empty key. */
static void case_K2(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_kv_str(&g, "general.architecture", "test");
  gw_kv_u32(&g, "", 1);
  gw_save(&g, "K2-empty-key.gguf", 0, "K2 second KV has an empty key (length 0), u32 value 1");
}

/* The same key twice. */
static void case_K3(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 3);
  gw_kv_str(&g, "general.architecture", "llama");
  gw_kv_u32(&g, "llama.block_count", 1);
  gw_kv_str(&g, "general.architecture", "gpt2");
  gw_save(&g, "K3-duplicate-key.gguf", 0,
          "K3 general.architecture twice ('llama' then 'gpt2'), another key between them");
}

/* Invalid value and element types. */
static void case_K5(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_kv_str(&g, "general.architecture", "test");
  gw_key(&g, "bad.type13", 13);
  gw_u32(&g, 0);
  gw_save(&g, "K5-value-type-13.gguf", 0, "K5 KV bad.type13 has value type 13");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_kv_str(&g, "general.architecture", "test");
  gw_key(&g, "bad.type_neg", 0xFFFFFFFFu);
  gw_u32(&g, 0);
  gw_save(&g, "K5-value-type-ffffffff.gguf", 0,
          "K5 KV bad.type_neg has value type 0xFFFFFFFF (-1 as int32)");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_kv_str(&g, "general.architecture", "test");
  gw_arr(&g, "bad.nested", V_ARR, 2);
  for (int i = 0; i < 2; i++) { /* inner arrays as gguf-py writes them */
    gw_u32(&g, V_U32);
    gw_u64(&g, 2);
    gw_u32(&g, 1);
    gw_u32(&g, 2);
  }
  gw_save(&g, "K5-array-of-arrays.gguf", 0,
          "K5 bad.nested: array with element type 9 (ARRAY), 2 inner u32 arrays encoded as "
          "gguf-py writes them (elem type, count, values); ggml rejects nested arrays");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_kv_str(&g, "general.architecture", "test");
  gw_arr(&g, "bad.elem13", 13, 1);
  gw_u32(&g, 0);
  gw_save(&g, "K5-array-elem-type-13.gguf", 0, "K5 bad.elem13: array with element type 13");
}

/* Array counts that do not fit in the file or overflow count*size. */
static void case_K6(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_arr(&g, "bad.count", V_U32, 1000);
  for (uint32_t i = 0; i < 3; i++)
    gw_u32(&g, i);
  gw_save(&g, "K6-array-count-past-eof.gguf", 0,
          "K6 u32 array with count 1000 and 3 elements (12 bytes) left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_arr(&g, "bad.count", V_U8, (1ULL << 30) + 1);
  gw_raw(&g, "abcdefgh", 8);
  gw_save(&g, "K6-array-count-2e30p1.gguf", 0,
          "K6 u8 array with count 2^30+1 (above ggml's 2^30 element limit) and 8 bytes left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_arr(&g, "bad.count", V_U64, 1ULL << 62);
  gw_u64(&g, 1);
  gw_u64(&g, 2);
  gw_save(&g, "K6-array-count-2e62-u64.gguf", 0,
          "K6 u64 array with count 2^62: count*8 = 2^65 wraps to 0; 16 bytes left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_arr(&g, "bad.count", V_STR, 1ULL << 61);
  gw_str(&g, "a");
  gw_save(&g, "K6-array-count-2e61-str.gguf", 0,
          "K6 string array with count 2^61: count*8 (minimum bytes per string) wraps to 0; one "
          "string left");
}

/* Strings (array elements and values) running past the end. */
static void case_K7(void) {
  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_arr(&g, "bad.strs", V_STR, 2);
  gw_str(&g, "ab");
  gw_u64(&g, 1000);
  gw_raw(&g, "cdefg", 5);
  gw_save(&g, "K7-array-string-past-eof.gguf", 0,
          "K7 string array of 2: second element has length 1000 with 5 bytes left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 1);
  gw_key(&g, "bad.str", V_STR);
  gw_u64(&g, 100);
  gw_raw(&g, "hello", 5);
  gw_save(&g, "K7-string-value-past-eof.gguf", 0,
          "K7 string value of length 100 with 5 bytes left");

  gw_init(&g, 3, 0);
  gw_header(&g, 0, 2);
  gw_key(&g, "bad.str", V_STR);
  gw_u64(&g, UINT64_MAX);
  gw_raw(&g, "hello", 5);
  gw_kv_u32(&g, "after", 1);
  gw_save(&g, "K7-string-len-2e64m1.gguf", 0,
          "K7 string value of length 2^64-1 (wraps to 0 if 1 is added), a KV after it");
}

/* A v3 file with one KV written by kv(), one F32 [8] tensor at 0 and
** alignment 32 used for the layout. */
static void alignment_file(const char *fname, const char *what, void (*kv)(gw *)) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"a", 1, {8}, T_F32, 0, 0}};
  ts_layout(t, 1, DEFAULT_ALIGN);
  gw_header(&g, 1, 2);
  gw_kv_str(&g, "general.architecture", "test");
  kv(&g);
  gw_tensors(&g, t, 1, DEFAULT_ALIGN, 1);
  gw_save(&g, fname, 0, what);
}

/* The general.alignment KVs of the A1/A2 cases. */
static void kv_align_u64(gw *g) {
  gw_kv(g, "general.alignment", V_U64, 32);
}
static void kv_align_str(gw *g) {
  gw_kv_str(g, "general.alignment", "32");
}
static void kv_align_arr(gw *g) {
  const uint64_t v[] = {32};
  gw_kv_arr(g, "general.alignment", V_U32, v, 1);
}
static void kv_align_0(gw *g) {
  gw_kv_u32(g, "general.alignment", 0);
}
static void kv_align_3(gw *g) {
  gw_kv_u32(g, "general.alignment", 3);
}
static void kv_align_48(gw *g) {
  gw_kv_u32(g, "general.alignment", 48);
}

/* general.alignment of the wrong type or not a power of two. */
static void case_A1_A2(void) {
  alignment_file("A1-alignment-u64.gguf", "A1 general.alignment is UINT64 32", kv_align_u64);
  alignment_file("A1-alignment-string.gguf", "A1 general.alignment is STRING '32'", kv_align_str);
  alignment_file("A1-alignment-array.gguf", "A1 general.alignment is an array of u32 [32]",
                 kv_align_arr);
  alignment_file("A2-alignment-0.gguf", "A2 general.alignment u32 0", kv_align_0);
  alignment_file("A2-alignment-3.gguf", "A2 general.alignment u32 3 (not a power of two)",
                 kv_align_3);
  alignment_file("A2-alignment-48.gguf",
                 "A2 general.alignment u32 48 (multiple of 8 but not a power of two)", kv_align_48);
}

/* Tensor names: 64 bytes, and a length past the end. */
static void case_T1(void) {
  char name[65];
  memset(name, 'n', 64);
  name[64] = 0;
  uint64_t ne[1] = {8};
  one_tensor("T1-name-64.gguf", 0, "T1 tensor name of 64 bytes ('n' x 64; ggml's limit is 63)",
             name, 1, ne, T_F32, 0, 32);

  gw g;
  gw_init(&g, 3, 0);
  gw_header(&g, 1, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_u64(&g, 100);
  gw_raw(&g, "blk.0.attn_output.weight.blk.0.attn_norm", 40);
  gw_save(&g, "T1-name-len-past-eof.gguf", 0,
          "T1 tensor name length 100 with 40 bytes left (48 bytes after the KVs: more than the "
          "24-byte minimum tensor info, so only the name length check catches it)");
}

/* The same tensor name twice. */
static void case_T2(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"w", 1, {8}, T_F32, 0, 0}, {"w", 1, {8}, T_F32, 0, 0}};
  ts_layout(t, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "T2-duplicate-tensor-name.gguf", 0,
          "T2 two tensors named 'w' (F32 [8] at 0 and at 32)");
}

/* n_dims above 4. */
static void case_T3(void) {
  gw g;
  gw_init(&g, 3, 0);
  const uint64_t ne[5] = {4, 1, 1, 1, 1};
  gw_header(&g, 1, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tinfo(&g, "t", 5, ne, T_F32, 0);
  gw_pad(&g, DEFAULT_ALIGN);
  gw_data(&g, g.n, 32);
  gw_save(&g, "T3-n-dims-5.gguf", 0, "T3 n_dims 5: F32 [4,1,1,1,1], 32 data bytes");

  gw_init(&g, 3, 0);
  gw_header(&g, 1, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tinfo_raw(&g, "t", 0xFFFFFFFFu, ne, 4, T_F32, 0);
  gw_pad(&g, DEFAULT_ALIGN);
  gw_data(&g, g.n, 32);
  gw_save(&g, "T3-n-dims-ffffffff.gguf", 0,
          "T3 n_dims 0xFFFFFFFF followed by 4 dims, a type, an offset and 32 data bytes");
}

/* Dimensions that are negative as int64. */
static void case_T4(void) {
  uint64_t a[1] = {1ULL << 63};
  one_tensor("T4-ne-2e63.gguf", 0, "T4 I8 tensor with ne [2^63] (negative as int64)", "t", 1, a,
             T_I8, 0, 32);
  uint64_t b[2] = {8, UINT64_MAX};
  one_tensor("T4-ne-2e64m1.gguf", 0, "T4 I8 tensor with ne [8, 2^64-1] (-1 as int64)", "t", 2, b,
             T_I8, 0, 32);
}

/* Element counts that overflow int64 or uint64. */
static void case_T5(void) {
  uint64_t a[4] = {INT64_MAX, 2, 1, 1};
  one_tensor("T5-nelements-int64max-x2.gguf", 0,
             "T5 I8 ne [INT64_MAX,2,1,1]: 2^64-2 elements, negative as int64 (the reference's "
             "hole, llama.cpp #27203); 32 data bytes",
             "t", 4, a, T_I8, 0, 32);
  uint64_t b[2] = {1ULL << 32, 1ULL << 32};
  one_tensor("T5-nelements-2e32-x-2e32.gguf", 0,
             "T5 I8 ne [2^32,2^32]: 2^64 elements wraps u64 to 0; 32 data bytes", "t", 2, b, T_I8,
             0, 32);
}

/* ne[0] not a multiple of the block size. */
static void case_T7(void) {
  uint64_t a[2] = {100, 1};
  one_tensor("T7-q4k-ne0-100.gguf", 0,
             "T7 Q4_K (block 256) with ne [100,1]: ne[0] not a multiple of the block size", "t", 2,
             a, T_Q4_K, 0, 256);
  uint64_t b[1] = {0};
  one_tensor("T7-q4_0-scalar.gguf", 0,
             "T7 Q4_0 (block 32) with n_dims 0: 1 element, not a whole block", "t", 0, b, T_Q4_0, 0,
             32);
}

/* Byte sizes that overflow uint64 while the element count fits. */
static void case_T8(void) {
  uint64_t a[1] = {1ULL << 62};
  one_tensor("T8-nbytes-f32-2e62.gguf", 0,
             "T8 F32 ne [2^62]: element count fits int64, bytes 2^64 wraps to 0; 32 data bytes",
             "t", 1, a, T_F32, 0, 32);
  uint64_t b[1] = {(1ULL << 61) + 1};
  one_tensor("T8-nbytes-f64-wraps-to-8.gguf", 0,
             "T8 F64 ne [2^61+1]: bytes 2^64+8 wraps to 8, and 32 data bytes follow", "t", 1, b,
             T_F64, 0, 32);
}

/* The padded data section start is past the end of the file. */
static void case_D1(void) {
  gw g;
  gw_init(&g, 3, 0);
  uint64_t ne[1] = {4};
  gw_header(&g, 1, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tinfo(&g, "t", 1, ne, T_F32, 0);
  need(g.n % DEFAULT_ALIGN != 0, "D1 infos end unaligned");
  gw_save(&g, "D1-data-start-past-eof.gguf", 0,
          "D1 one F32 [4] tensor; the file ends right after the tensor infos, before the "
          "padded data section start");
}

/* Offsets that break alignment or overlap. */
static void case_D2(void) {
  uint64_t ne[1] = {8};
  one_tensor("D2-offset-unaligned.gguf", 0,
             "D2 F32 [8] at offset 4: not a multiple of the alignment 32; the data is in the file",
             "t", 1, ne, T_F32, 4, 64);

  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"a", 1, {16}, T_F32, 0, 64}, {"b", 1, {16}, T_F32, 32, 64}};
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tensors(&g, t, 2, DEFAULT_ALIGN, 1);
  gw_save(&g, "D2-overlap.gguf", 0,
          "D2 two tensors overlapping: a F32 [16] at 0 (bytes 0-63), b F32 [16] at 32");
}

/* Tensor data outside the file. */
static void case_F1(void) {
  gw g;
  gw_init(&g, 3, 0);
  tspec t[] = {{"a", 1, {8}, T_F32, 0, 32}, {"b", 1, {8}, T_F32, 4096, 32}};
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  gw_tinfo(&g, t[0].name, 1, t[0].ne, T_F32, t[0].offset);
  gw_tinfo(&g, t[1].name, 1, t[1].ne, T_F32, t[1].offset);
  gw_pad(&g, DEFAULT_ALIGN);
  gw_data(&g, g.n, 64);
  gw_save(&g, "F1-data-past-eof.gguf", 0,
          "F1 a F32 [8] at 0 is in the file; b F32 [8] at 4096 is past the end (64 data bytes)");

  uint64_t ne[1] = {16};
  one_tensor("F1-offset-overflow.gguf", 0,
             "F1 F32 [16] (64 bytes) at offset 2^64-32: offset+size wraps to 32; 64 data bytes",
             "t", 1, ne, T_F32, UINT64_MAX - 31, 64);
  one_tensor("F1-offset-2e63.gguf", 0,
             "F1 F32 [16] at offset 2^63 (negative as int64); 64 data bytes", "t", 1, ne, T_F32,
             1ULL << 63, 64);

  gw_init(&g, 3, 0);
  tspec u[] = {{"a", 1, {8}, T_F32, 0, 0}, {"b", 1, {64}, T_F32, 0, 0}};
  ts_layout(u, 2, DEFAULT_ALIGN);
  gw_header(&g, 2, 1);
  gw_kv_str(&g, "general.architecture", "test");
  size_t start = gw_tensors(&g, u, 2, DEFAULT_ALIGN, 1);
  g.n = start + 32 + 100;
  gw_save(&g, "F1-truncated-mid-data.gguf", 0,
          "F1 a F32 [8] at 0, b F32 [64] (256 bytes) at 32; the file ends 100 bytes into b");
}

/* Positions in the small base file where the truncations cut. */
enum {
  M_MID_MAGIC,
  M_MAGIC,
  M_MID_VERSION,
  M_VERSION,
  M_MID_TCOUNT,
  M_MID_KVCOUNT,
  M_KVCOUNT,
  M_MID_KEYLEN,
  M_MID_KEY,
  M_KEY_END,
  M_MID_STRVAL,
  M_MID_VALUE,
  M_MID_ARRHDR,
  M_MID_ARRELEM,
  M_MID_TNAME,
  M_MID_NDIMS,
  M_MID_DIMS,
  M_MID_TYPE,
  M_MID_OFFSET,
  M_INFOS_END,
  M_DATA_START,
  M_MID_DATA,
  N_MARKS
};

/* The small valid v3 file that the truncations and the H1/H2 patches use,
** recording the cut positions in mark[]. */
static void build_base(gw *g, size_t *mark) {
  gw_init(g, 3, 0);
  mark[M_MID_MAGIC] = 2;
  mark[M_MAGIC] = 4;
  mark[M_MID_VERSION] = 6;
  mark[M_VERSION] = 8;
  mark[M_MID_TCOUNT] = 12;
  mark[M_MID_KVCOUNT] = 20;
  mark[M_KVCOUNT] = 24;
  gw_header(g, 1, 3);

  mark[M_MID_KEYLEN] = g->n + 4;
  mark[M_MID_KEY] = g->n + 8 + 10;
  gw_str(g, "general.architecture");
  mark[M_KEY_END] = g->n;
  gw_u32(g, V_STR);
  mark[M_MID_STRVAL] = g->n + 8 + 2;
  gw_str(g, "llama");

  gw_key(g, "llama.block_count", V_U32);
  mark[M_MID_VALUE] = g->n + 2;
  gw_u32(g, 1);

  const uint64_t ids[] = {10, 20, 30};
  gw_key(g, "tokenizer.ids", V_ARR);
  mark[M_MID_ARRHDR] = g->n + 4 + 4;
  gw_u32(g, V_U32);
  gw_len(g, 3);
  mark[M_MID_ARRELEM] = g->n + 4 + 2;
  for (int i = 0; i < 3; i++)
    gw_u32(g, (uint32_t)ids[i]);

  mark[M_MID_TNAME] = g->n + 8 + 6;
  gw_str(g, "output.weight");
  mark[M_MID_NDIMS] = g->n + 2;
  gw_u32(g, 2);
  mark[M_MID_DIMS] = g->n + 8 + 3;
  gw_u64(g, 4);
  gw_u64(g, 2);
  mark[M_MID_TYPE] = g->n + 1;
  gw_u32(g, T_F32);
  mark[M_MID_OFFSET] = g->n + 4;
  gw_u64(g, 0);
  mark[M_INFOS_END] = g->n;
  gw_pad(g, DEFAULT_ALIGN);
  mark[M_DATA_START] = g->n;
  mark[M_MID_DATA] = g->n + 16;
  gw_data(g, g->n, 32);
  need(mark[M_INFOS_END] < mark[M_DATA_START], "base infos end unaligned");
}

/* The base file, and its truncations at every structural boundary. */
static void case_truncations(const gw *base, const size_t *mark) {
  static const struct {
    int mark;
    const char *where, *what;
  } cuts[] = {
      {-1, "empty", "H1 empty file (0 bytes)"},
      {M_MID_MAGIC, "mid-magic", "H1 2 bytes: 'GG'"},
      {M_MAGIC, "after-magic", "H2 cut after the magic: no version"},
      {M_MID_VERSION, "mid-version", "H2 cut in the middle of the version"},
      {M_VERSION, "after-version", "H3 cut after the version: no tensor count"},
      {M_MID_TCOUNT, "mid-tensor-count", "H3 cut in the middle of the tensor count"},
      {M_MID_KVCOUNT, "mid-kv-count", "H4 cut in the middle of the KV count"},
      {M_KVCOUNT, "after-kv-count", "K1 cut after the KV count (3 KVs announced, none present)"},
      {M_MID_KEYLEN, "mid-key-length", "K1 cut in the middle of the first key's length"},
      {M_MID_KEY, "mid-key", "K1 cut in the middle of the first key's bytes"},
      {M_KEY_END, "before-value-type", "K4 cut after the first key, before its value type"},
      {M_MID_STRVAL, "mid-string-value", "K7 cut in the middle of the first (string) value"},
      {M_MID_VALUE, "mid-value", "K4 cut in the middle of the second (u32) value"},
      {M_MID_ARRHDR, "mid-array-header", "K6 cut in the middle of the array's count"},
      {M_MID_ARRELEM, "mid-array-element", "K6 cut in the middle of the array's second element"},
      {M_MID_TNAME, "mid-tensor-name", "T1 cut in the middle of the tensor name"},
      {M_MID_NDIMS, "mid-n-dims", "T3 cut in the middle of n_dims"},
      {M_MID_DIMS, "mid-dims", "T4 cut in the middle of the second dimension"},
      {M_MID_TYPE, "mid-type", "T6 cut in the middle of the tensor type"},
      {M_MID_OFFSET, "mid-offset", "T9 cut in the middle of the tensor offset"},
      {M_INFOS_END, "before-padding",
       "D1 cut right after the tensor infos: the padded data section start is past the end"},
      {M_DATA_START, "before-data",
       "F1 cut at the data section start: padding present, no tensor data"},
      {M_MID_DATA, "mid-data", "F1 cut 16 bytes into the only tensor's 32 data bytes"},
  };
  for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
    size_t n = cuts[i].mark < 0 ? 0 : mark[cuts[i].mark];
    need(n < base->n, "cut inside the base file");
    char fname[80], what[200];
    snprintf(fname, sizeof(fname), "trunc-%02zu-%s.gguf", i, cuts[i].where);
    snprintf(what, sizeof(what), "%s (ok-trunc-base cut to %zu bytes)", cuts[i].what, n);
    save_bytes(fname, base->p, n, 0, what);
  }
}

/* Write every case into argv[1] and its cases.txt. */
int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_gguf OUTDIR\n");
    return 2;
  }
  g_outdir = argv[1];
  if (mkdir(g_outdir, 0777) != 0 && errno != EEXIST)
    die("%s: %s", g_outdir, strerror(errno));
  char path[4096];
  snprintf(path, sizeof(path), "%s/cases.txt", g_outdir);
  g_cases = fopen(path, "w");
  if (!g_cases)
    die("%s: %s", path, strerror(errno));

  gw base;
  size_t mark[N_MARKS];
  build_base(&base, mark);
  save_bytes("ok-trunc-base.gguf", base.p, base.n, 1,
             "H2 the small v3 file that the trunc-*, H1 and H2 cases cut or patch: 3 KVs "
             "(general.architecture 'llama', llama.block_count u32 1, tokenizer.ids u32 "
             "[10,20,30]), output.weight F32 [4,2] at 0");

  case_v2_v3_le();
  case_v3_be();
  case_v1();
  case_scalars();
  case_arrays();
  case_types();
  case_removed_types();
  case_type_negative();
  case_dims4();
  case_scalar_tensor();
  case_align();
  case_no_tensors();
  case_unordered();
  case_zero_dim();
  case_no_trailing_pad();
  case_big();
  case_many();
  case_name63();

  case_H1(&base);
  case_H2(&base);
  case_H3_H4();
  case_K1();
  case_K2();
  case_K3();
  case_K5();
  case_K6();
  case_K7();
  case_A1_A2();
  case_T1();
  case_T2();
  case_T3();
  case_T4();
  case_T5();
  case_T7();
  case_T8();
  case_D1();
  case_D2();
  case_F1();
  case_truncations(&base, mark);
  gw_free(&base);

  if (fclose(g_cases) != 0)
    die("%s: write failed", path);
  printf("gen_gguf: %d files in %s\n", g_nfiles, g_outdir);
  return 0;
}
