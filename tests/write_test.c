/*
** write_test.c: unit tests of the header encoders (ext/write/), linked
** without SQLite.
**
**   build/write_test [FILE...]
**
** 1. Hand-worked bytes: a GGUF header of one KV and one tensor, and a
**    safetensors header with metadata, escapes and the crate's order,
**    written out by hand below from the formats' specifications.
** 2. Numbers that do not fit their GGUF type are refused; those that fit
**    are encoded little-endian (values by hand).
** 3. Errors: duplicate keys and names, a bad alignment, a long name, a
**    shape that breaks a block.
** 4. Every FILE that parses is re-encoded whole (every KV copied, every
**    tensor kept; safetensors in the crate's order) and parsed back: the
**    same keys, types, values, tensors and data.  A safetensors FILE named
**    on the command line after "--crate" was written by the safetensors
**    crate: its header must come out byte for byte.
** Prints "write_test: N passed, M failed"; exits 1 on any failure.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtype.h"
#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"
#include "formats/safetensors_parser.h"
#include "write/gguf_writer.h"
#include "formats/ggml_type.h"
#include "write/byte_swap.h"
#include "write/safetensors_writer.h"

#include "check.h"

#define S(lit) ((wt_str){(lit), sizeof(lit) - 1})

/* The GGUF header of KV a = UINT32 7 and tensor t, F32 [2], by hand. */
static const unsigned char gguf_expected[96] = {
    'G', 'G', 'U', 'F', 3, 0, 0, 0,      /* magic, version 3 */
    1,   0,   0,   0,   0, 0, 0, 0,      /* 1 tensor */
    1,   0,   0,   0,   0, 0, 0, 0,      /* 1 KV */
    1,   0,   0,   0,   0, 0, 0, 0, 'a', /* key "a" */
    4,   0,   0,   0,   7, 0, 0, 0,      /* UINT32 7 */
    1,   0,   0,   0,   0, 0, 0, 0, 't', /* name "t" */
    1,   0,   0,   0,                    /* n_dims 1 */
    2,   0,   0,   0,   0, 0, 0, 0,      /* ne[0] = 2 */
    0,   0,   0,   0,                    /* F32 */
    0,   0,   0,   0,   0, 0, 0, 0,      /* offset 0; 74 bytes so far, zeros to 96 */
};

static void test_gguf_by_hand(void) {
  static const unsigned char seven[4] = {7, 0, 0, 0};
  gw_kv kv = {S("a"), GGUF_TYPE_UINT32, seven, 4};
  gw_tensor t = {S("t"), 0, 1, {2}, 0, 0};
  wt_buf b = {0};
  wt_error err;
  uint64_t align = 0, data = 0;
  int rc = gguf_write_header(&kv, 1, &t, 1, &b, &align, &data, &err);
  CHECK(rc == 0, "gguf by hand: %s", err.msg);
  CHECK(b.n == sizeof(gguf_expected) && memcmp(b.p, gguf_expected, b.n) == 0,
        "gguf by hand: %zu bytes, not the 96 expected", b.n);
  CHECK(align == 32 && data == 32 && t.nbytes == 8 && t.data_start == 0,
        "gguf by hand: alignment %llu, data %llu, nbytes %llu", (unsigned long long)align,
        (unsigned long long)data, (unsigned long long)t.nbytes);
  free(b.p);
}

/* The same header big-endian: every number swapped, by hand. */
static const unsigned char gguf_expected_be[96] = {
    'G', 'G', 'U', 'F', 0, 0, 0, 3,      /* magic, version 3 */
    0,   0,   0,   0,   0, 0, 0, 1,      /* 1 tensor */
    0,   0,   0,   0,   0, 0, 0, 1,      /* 1 KV */
    0,   0,   0,   0,   0, 0, 0, 1, 'a', /* key "a" */
    0,   0,   0,   4,   0, 0, 0, 7,      /* UINT32 7 */
    0,   0,   0,   0,   0, 0, 0, 1, 't', /* name "t" */
    0,   0,   0,   1,                    /* n_dims 1 */
    0,   0,   0,   0,   0, 0, 0, 2,      /* ne[0] = 2 */
    0,   0,   0,   0,                    /* F32 */
    0,   0,   0,   0,   0, 0, 0, 0,      /* offset 0; zeros to 96 */
};

static void test_gguf_big_endian_by_hand(void) {
  static const unsigned char seven[4] = {7, 0, 0, 0}; /* values are given little-endian */
  gw_kv kv = {S("a"), GGUF_TYPE_UINT32, seven, 4};
  gw_tensor t = {S("t"), 0, 1, {2}, 0, 0};
  wt_buf b = {0};
  wt_error err;
  uint64_t align = 0, data = 0;
  int rc = gguf_write_header_order(&kv, 1, &t, 1, 1, &b, &align, &data, &err);
  CHECK(rc == 0, "gguf big-endian by hand: %s", err.msg);
  CHECK(b.n == sizeof(gguf_expected_be) && memcmp(b.p, gguf_expected_be, b.n) == 0,
        "gguf big-endian by hand: %zu bytes, not the 96 expected", b.n);
  free(b.p);
}

/* Which ggml types change byte order element by element, and how wide:
** exactly F32, F16, BF16, F64, I8, I16, I32, I64; and the swap itself. */
static void test_swap(void) {
  static const unsigned want[GGML_TYPE_TABLE_SIZE + 2] = {
      [0] = 4, [1] = 2, [24] = 1, [25] = 2, [26] = 4, [27] = 8, [28] = 8, [30] = 2};
  unsigned char b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int t, bad = -1;
  for (t = -1; t < GGML_TYPE_TABLE_SIZE + 2; t++)
    if (wt_swap_width(t) != (t >= 0 ? want[t] : 0))
      bad = t;
  CHECK(bad < 0, "wt_swap_width(%d) = %u", bad, wt_swap_width(bad));
  wt_swap_elements(b, 8, 2);
  CHECK(memcmp(b, "\2\1\4\3\6\5\10\7", 8) == 0, "swap by 2");
  wt_swap_elements(b, 8, 4);
  CHECK(memcmp(b, "\3\4\1\2\7\10\5\6", 8) == 0, "swap by 4");
  wt_swap_elements(b, 8, 8);
  CHECK(memcmp(b, "\6\5\10\7\2\1\4\3", 8) == 0, "swap by 8");
  wt_swap_elements(b, 8, 1);
  CHECK(memcmp(b, "\6\5\10\7\2\1\4\3", 8) == 0, "swap by 1: nothing");
}

/* Two tensors and general.alignment 64: the second starts at 64. */
static void test_gguf_alignment(void) {
  static const unsigned char a64[4] = {64, 0, 0, 0}, a48[4] = {48, 0, 0, 0};
  gw_kv kv = {S("general.alignment"), GGUF_TYPE_UINT32, a64, 4};
  gw_tensor t[2] = {{S("x"), 1, 2, {3, 5}, 0, 0}, {S("y"), 2, 1, {64}, 0, 0}}; /* F16, Q4_0 */
  wt_buf b = {0};
  wt_error err;
  uint64_t align = 0, data = 0;
  CHECK(gguf_write_header(&kv, 1, t, 2, &b, &align, &data, &err) == 0, "%s", err.msg);
  /* F16 3x5 = 30 bytes, padded to 64; Q4_0 64 = 2 blocks of 18 bytes = 36, padded to 64 */
  CHECK(align == 64 && t[0].nbytes == 30 && t[1].data_start == 64 && t[1].nbytes == 36 &&
            data == 128 && b.n % 64 == 0,
        "alignment 64: %llu %llu %llu %llu", (unsigned long long)align,
        (unsigned long long)t[1].data_start, (unsigned long long)t[1].nbytes,
        (unsigned long long)data);
  b.n = 0;
  kv.val = a48;
  CHECK(gguf_write_header(&kv, 1, t, 2, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "48 is not a non-zero power of two") != NULL,
        "alignment 48: %s", err.msg);
  free(b.p);
}

/* A value that must be refused, and one that must be encoded as le[]. */
static void expect_number(uint32_t type, int is_real, int64_t i, double r, int fits, const char *le,
                          size_t n) {
  wt_buf b = {0};
  int rc = gw_put_number(&b, type, is_real, i, r);
  if (!fits)
    CHECK(rc == 1 && b.n == 0, "%s %lld/%g should not fit (rc %d)", gguf_type_name(type),
          (long long)i, r, rc);
  else
    CHECK(rc == 0 && b.n == n && memcmp(b.p, le, n) == 0, "%s %lld/%g: rc %d, %zu bytes",
          gguf_type_name(type), (long long)i, r, rc, b.n);
  free(b.p);
}

static void test_numbers(void) {
  expect_number(GGUF_TYPE_UINT8, 0, 255, 0, 1, "\xff", 1);
  expect_number(GGUF_TYPE_UINT8, 0, 256, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_UINT8, 0, -1, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_INT8, 0, -128, 0, 1, "\x80", 1);
  expect_number(GGUF_TYPE_INT8, 0, -129, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_UINT16, 0, 0x1234, 0, 1, "\x34\x12", 2);
  expect_number(GGUF_TYPE_INT16, 0, 32768, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_UINT32, 0, 4294967295LL, 0, 1, "\xff\xff\xff\xff", 4);
  expect_number(GGUF_TYPE_UINT32, 0, 4294967296LL, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_INT32, 0, -2, 0, 1, "\xfe\xff\xff\xff", 4);
  expect_number(GGUF_TYPE_INT32, 1, 0, 7.0, 1, "\x07\0\0\0", 4);
  expect_number(GGUF_TYPE_INT32, 1, 0, 7.5, 0, NULL, 0);
  expect_number(GGUF_TYPE_UINT64, 0, -1, 0, 0, NULL, 0);
  expect_number(GGUF_TYPE_INT64, 1, 0, 9223372036854775808.0, 0, NULL, 0);
  expect_number(GGUF_TYPE_BOOL, 0, 1, 0, 1, "\x01", 1);
  expect_number(GGUF_TYPE_BOOL, 0, 2, 0, 0, NULL, 0);
  /* 1.5f = 0x3fc00000; 1e39 is past FLOAT32's largest finite value */
  expect_number(GGUF_TYPE_FLOAT32, 1, 0, 1.5, 1, "\0\0\xc0\x3f", 4);
  expect_number(GGUF_TYPE_FLOAT32, 1, 0, 1e39, 0, NULL, 0);
  expect_number(GGUF_TYPE_FLOAT32, 0, 3, 0, 1, "\0\0\x40\x40", 4);
  /* 0.1 = 0x3fb999999999999a */
  expect_number(GGUF_TYPE_FLOAT64, 1, 0, 0.1, 1, "\x9a\x99\x99\x99\x99\x99\xb9\x3f", 8);
  expect_number(GGUF_TYPE_STRING, 0, 1, 0, 0, NULL, 0);
}

/* Header errors, each naming what is wrong. */
static void test_gguf_errors(void) {
  static const unsigned char one[4] = {1, 0, 0, 0};
  static const unsigned char str[10] = {2, 0, 0, 0, 0, 0, 0, 0, 'h', 'i'};
  static const unsigned char arr[14] = {0, 0, 0, 0, 3, 0, 0,
                                        0, 0, 0, 0, 0, 1, 2}; /* 3 u8, 2 given */
  gw_kv kv[2] = {{S("k"), GGUF_TYPE_UINT32, one, 4}, {S("k"), GGUF_TYPE_UINT32, one, 4}};
  gw_tensor t[2] = {{S("x"), 0, 1, {1}, 0, 0}, {S("x"), 0, 1, {1}, 0, 0}};
  wt_buf b = {0};
  wt_error err;
  uint64_t align, data;
  CHECK(gguf_write_header(kv, 2, NULL, 0, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "key 'k' appears twice") != NULL,
        "duplicate key: %s", err.msg);
  CHECK(gguf_write_header(kv, 1, t, 2, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "tensor name 'x' appears twice") != NULL,
        "duplicate name: %s", err.msg);
  kv[1] = (gw_kv){S("s"), GGUF_TYPE_STRING, str, 9};
  CHECK(gguf_write_header(kv, 2, NULL, 0, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "key 's' (STRING)") != NULL,
        "short string: %s", err.msg);
  kv[1] = (gw_kv){S("a"), GGUF_TYPE_ARRAY, arr, sizeof(arr)};
  CHECK(gguf_write_header(kv, 2, NULL, 0, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "3 UINT8 values need 3 bytes, 2 given") != NULL,
        "short array: %s", err.msg);
  t[1] = (gw_tensor){
      S("0123456789012345678901234567890123456789012345678901234567890123"), 0, 1, {1}, 0, 0};
  CHECK(gguf_write_header(kv, 1, t, 2, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "name of 64 bytes is longer than ggml's limit of 63") != NULL,
        "long name: %s", err.msg);
  t[1] = (gw_tensor){S("q"), 2, 2, {16, 2}, 0, 0};
  CHECK(gguf_write_header(kv, 1, t, 2, &b, &align, &data, &err) == -1 &&
            strstr(err.msg, "ne[0] = 16 is not a multiple of the Q4_0 block size 32") != NULL,
        "block: %s", err.msg);
  free(b.p);
}

/* The crate's header for {"format": "pt"} and tensors a F32 [2], b I64
** [1], and a name with escapes, by hand: I64 sorts before F32. */
static void test_safetensors_by_hand(void) {
  static const uint64_t two[1] = {2}, one[1] = {1};
  static const char expected[] =
      "{\"__metadata__\":{\"format\":\"pt\"},"
      "\"b\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
      "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
      "\"q\\\"\\\\\\n\\u001f\xc3\xa9/\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[16,20]}}";
  sw_meta meta = {S("format"), S("pt")};
  sw_tensor t[3] = {{S("a"), st_dtype_find("F32", 3), 1, two, 0, 0, 0},
                    {S("q\"\\\n\x1f\xc3\xa9/"), st_dtype_find("F32", 3), 0, NULL, 0, 0, 0},
                    {S("b"), st_dtype_find("I64", 3), 1, one, 0, 0, 0}};
  wt_buf b = {0};
  wt_error err;
  uint64_t data = 0, n;
  size_t json = sizeof(expected) - 1, padded = (json + 7) / 8 * 8;
  sw_sort_crate(t, 3);
  CHECK(safetensors_write_header(&meta, 1, t, 3, &b, &data, &err) == 0, "%s", err.msg);
  n = b.n >= 8 ? (uint64_t)(unsigned char)b.p[0] | (uint64_t)(unsigned char)b.p[1] << 8 : 0;
  CHECK(b.n == 8 + padded && n == padded && memcmp(b.p + 8, expected, json) == 0 &&
            strspn(b.p + 8 + json, " ") == padded - json && data == 20,
        "safetensors by hand: %zu bytes: %.*s", b.n, (int)b.n - 8, b.p + 8);
  t[0] = t[1];
  CHECK(safetensors_write_header(NULL, 0, t, 2, &b, &data, &err) == -1 &&
            strstr(err.msg, "appears twice") != NULL,
        "duplicate: %s", err.msg);
  t[0].name = S("bad\xff");
  CHECK(safetensors_write_header(NULL, 0, t, 1, &b, &data, &err) == -1 &&
            strstr(err.msg, "not valid UTF-8") != NULL,
        "utf-8: %s", err.msg);
  free(b.p);
}

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *p = NULL;
  long len;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0 || (p = malloc((size_t)len + 1)) == NULL ||
      fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  if (f)
    fclose(f);
  *n = p ? (size_t)len : 0;
  return p;
}

/* The header of a re-encoded file followed by the tensors' bytes. */
static unsigned char *with_data(wt_buf *b, uint64_t data_size, const wt_model *m,
                                const unsigned char *src, const uint64_t *start, size_t *n) {
  unsigned char *out = calloc(1, b->n + data_size + 1);
  size_t i;
  memcpy(out, b->p, b->n);
  for (i = 0; i < m->n_tensors; i++)
    memcpy(out + b->n + start[i], src + m->tensors[i].offset, m->tensors[i].nbytes);
  *n = b->n + data_size;
  return out;
}

/* Tensor a of the file src and z of its re-encoding out: the same name,
** type, shape and bytes. */
static int same_tensor(const wt_tensor *a, const unsigned char *src, const wt_tensor *z,
                       const unsigned char *out) {
  return a->name.n == z->name.n && memcmp(a->name.p, z->name.p, a->name.n) == 0 &&
         a->type_id == z->type_id && a->ndim == z->ndim &&
         (a->ndim == 0 || memcmp(a->dims, z->dims, (size_t)a->ndim * 8) == 0) &&
         a->nbytes == z->nbytes && memcmp(src + a->offset, out + z->offset, a->nbytes) == 0;
}

/* A GGUF file re-encoded whole in a byte order (be) and parsed back. */
static void roundtrip_gguf(const char *path, const unsigned char *src, const wt_model *m, int be) {
  gw_kv *kv = calloc(m->n_meta + 1, sizeof(*kv));
  gw_tensor *t = calloc(m->n_tensors + 1, sizeof(*t));
  uint64_t *start = calloc(m->n_tensors + 1, sizeof(*start));
  wt_buf vals = {0}, b = {0};
  size_t *at = calloc(m->n_meta + 1, sizeof(*at)), i, n = 0;
  uint64_t align, data;
  wt_model back = {0};
  wt_error err;
  unsigned char *out = NULL;
  int j, ok = 1;
  for (i = 0; i < m->n_meta; i++) {
    at[i] = vals.n;
    CHECK(gw_value_copy(&vals, m, src, &m->meta[i]) == 0, "%s: copy kv #%zu", path, i);
  }
  for (i = 0; i < m->n_meta; i++) {
    size_t end = i + 1 < m->n_meta ? at[i + 1] : vals.n;
    kv[i] = (gw_kv){m->meta[i].key, m->meta[i].type, (unsigned char *)vals.p + at[i], end - at[i]};
  }
  for (i = 0; i < m->n_tensors; i++) {
    t[i] = (gw_tensor){
        m->tensors[i].name, (uint32_t)m->tensors[i].type_id, m->tensors[i].ndim, {0}, 0, 0};
    for (j = 0; j < t[i].ndim; j++)
      t[i].dims[j] = m->tensors[i].dims[j];
  }
  for (i = 0; i < m->n_tensors && m->tensors[i].nbytes_known; i++)
    ;
  if (gguf_write_header_order(kv, m->n_meta, t, m->n_tensors, be, &b, &align, &data, &err) != 0) {
    /* a tensor of a type no table knows has no size to write */
    CHECK(i < m->n_tensors && strstr(err.msg, "has no known size") != NULL, "%s: write: %s", path,
          err.msg);
    goto done;
  }
  for (i = 0; i < m->n_tensors; i++)
    start[i] = t[i].data_start;
  out = with_data(&b, data, m, src, start, &n);
  if (gguf_parse(out, n, &back, &err) != 0) {
    CHECK(0, "%s: re-parse: %s", path, err.msg);
    goto done;
  }
  ok = back.n_meta == m->n_meta && back.n_tensors == m->n_tensors && back.version == 3 &&
       back.big_endian == be && back.alignment == m->alignment;
  for (i = 0; ok && i < m->n_meta; i++) {
    wt_buf again = {0};
    const wt_meta *a = &m->meta[i], *z = &back.meta[i];
    ok = a->key.n == z->key.n && memcmp(a->key.p, z->key.p, a->key.n) == 0 && a->type == z->type &&
         a->elem_type == z->elem_type && a->count == z->count &&
         gw_value_copy(&again, &back, out, z) == 0 && again.n == kv[i].val_len &&
         memcmp(again.p, kv[i].val, again.n) == 0;
    free(again.p);
  }
  for (i = 0; ok && i < m->n_tensors; i++) {
    ok = same_tensor(&m->tensors[i], src, &back.tensors[i], out);
  }
  CHECK(ok, "%s: the re-encoded %s-endian file differs at entry %zu", path, be ? "big" : "little",
        i);
  wt_model_free(&back);
done:
  free(out);
  free(kv);
  free(t);
  free(start);
  free(at);
  free(vals.p);
  free(b.p);
}

/* A safetensors file re-encoded in the crate's order and parsed back;
** crate: the original was written by the crate, so the headers match. */
static void roundtrip_safetensors(const char *path, const unsigned char *src, const wt_model *m,
                                  int crate) {
  sw_meta *meta = calloc(m->n_meta + 1, sizeof(*meta));
  sw_tensor *t = calloc(m->n_tensors + 1, sizeof(*t));
  uint64_t *start = calloc(m->n_tensors + 1, sizeof(*start)), data;
  wt_buf b = {0};
  wt_model back = {0}, order = *m;
  wt_error err;
  unsigned char *out = NULL;
  size_t i, n = 0;
  int ok;
  for (i = 0; i < m->n_meta; i++)
    meta[i] = (sw_meta){m->meta[i].key, m->meta[i].value};
  for (i = 0; i < m->n_tensors; i++)
    t[i] = (sw_tensor){m->tensors[i].name,
                       (int)m->tensors[i].type_id,
                       m->tensors[i].ndim,
                       m->tensors[i].dims,
                       0,
                       0,
                       i};
  sw_sort_crate(t, m->n_tensors);
  if (safetensors_write_header(meta, m->n_meta, t, m->n_tensors, &b, &data, &err) != 0) {
    CHECK(0, "%s: write: %s", path, err.msg);
    goto done;
  }
  if (crate)
    CHECK(b.n == m->data_offset && memcmp(b.p, src, b.n) == 0,
          "%s: not the crate's header:\n  %.*s\n  %.*s", path, (int)b.n - 8, b.p + 8,
          (int)m->data_offset - 8, src + 8);
  for (i = 0; i < m->n_tensors; i++)
    start[t[i].tag] = t[i].data_start;
  out = with_data(&b, data, &order, src, start, &n);
  if (safetensors_parse(out, n, &back, &err) != 0) {
    CHECK(0, "%s: re-parse: %s", path, err.msg);
    goto done;
  }
  ok = back.n_meta == m->n_meta && back.n_tensors == m->n_tensors;
  for (i = 0; ok && i < m->n_meta; i++)
    ok = m->meta[i].key.n == back.meta[i].key.n && m->meta[i].value.n == back.meta[i].value.n &&
         memcmp(m->meta[i].key.p, back.meta[i].key.p, m->meta[i].key.n) == 0 &&
         memcmp(m->meta[i].value.p, back.meta[i].value.p, m->meta[i].value.n) == 0;
  for (i = 0; ok && i < m->n_tensors; i++) {
    /* back is in data order, which is t's */
    ok = same_tensor(&m->tensors[t[i].tag], src, &back.tensors[i], out);
  }
  CHECK(ok, "%s: the re-encoded file differs at entry %zu", path, i);
  wt_model_free(&back);
done:
  free(out);
  free(meta);
  free(t);
  free(start);
  free(b.p);
}

int main(int argc, char **argv) {
  int i, crate = 0, files = 0;
  test_gguf_by_hand();
  test_gguf_big_endian_by_hand();
  test_swap();
  test_gguf_alignment();
  test_numbers();
  test_gguf_errors();
  test_safetensors_by_hand();
  for (i = 1; i < argc; i++) {
    size_t n;
    unsigned char *src;
    wt_model m = {0};
    wt_error err;
    if (strcmp(argv[i], "--crate") == 0) {
      crate = 1;
      continue;
    }
    src = read_file(argv[i], &n);
    CHECK(src != NULL, "cannot read %s", argv[i]);
    if (src == NULL)
      continue;
    if (gguf_sniff(src, n) && gguf_parse(src, n, &m, &err) == 0) {
      roundtrip_gguf(argv[i], src, &m, 0);
      roundtrip_gguf(argv[i], src, &m, 1);
      files++;
    } else if (!gguf_sniff(src, n) && safetensors_parse(src, n, &m, &err) == 0) {
      roundtrip_safetensors(argv[i], src, &m, crate);
      files++;
    }
    wt_model_free(&m);
    free(src);
  }
  printf("write_test: %d passed, %d failed (%d files re-encoded)\n", passed, failed, files);
  return failed ? 1 : 0;
}
