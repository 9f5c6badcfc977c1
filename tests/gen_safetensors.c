/*
** gen_safetensors.c: writes the project's safetensors test files, valid and
** malformed, into one directory.
**
**   gen_safetensors OUTDIR
**
** Every case of the table cases[] below becomes OUTDIR/<file>.  The program
** also writes OUTDIR/cases.txt, one line per case:
**
**   <file> TAB valid|invalid TAB <note>
**
** "valid" and "invalid" say what the reference reader (the Rust crate
** huggingface/safetensors, SafeTensors::read_metadata) does with the file.
** The note starts with "OK" or with the name of the crate's error variant
** (HeaderTooSmall, HeaderTooLarge, InvalidHeaderLength, InvalidHeader,
** InvalidHeaderDeserialization, InvalidOffset, ValidationOverflow,
** MisalignedSlice, TensorInvalidInfo, MetadataIncompleteBuffer), then says
** what the case tests.  The parentheses at the end of a note name what the
** result comes from upstream:
**
**   read_metadata, Metadata::validate, HashMetadata, TensorInfo, enum Dtype,
**   prepare(), MAX_HEADER_SIZE, test_whitespace_padded_header
**       in safetensors/src/tensor.rs of huggingface/safetensors, commit
**       24b0b285 (read_metadata checks, in order: len < 8, n >
**       MAX_HEADER_SIZE, 8 + n > len, str::from_utf8, serde_json::from_str
**       into HashMetadata, Metadata::validate, then 8 + n + data end != len);
**       "Metadata sorts by data_offsets" is its Deserialize impl for Metadata
**   README     README.md there, section "Format"
**   commit, PR #N, issue #N
**              of huggingface/safetensors
**   serde_json how serde_json (serde-rs/json), through the crate's serde
**              derives, reads the header: strict RFC 8259 JSON, keys compared
**              after unescaping, integers read exactly as u64/usize
**   ml-explore/mlx mlx/io/safetensors.cpp
**              MLX's writer (__metadata__ null, sorted keys, no padding)
**   save_model in bindings/python torch.py
**              bindings/python/py_src/safetensors/torch.py of
**              huggingface/safetensors (metadata keys naming tensors)
**
** A few results were reasoned from serde/serde_json's code rather than seen
** from the crate; their notes say "reasoned, not observed".
**
** File layout written for a normal case:
**
**   bytes [0, 8)       N, u64 little-endian: the header length (after padding),
**                      or the case's own n when it has F_SETN
**   bytes [8, ...)     the header text, padded with spaces if the case asks
**                      (N bytes long unless the case sets its own N)
**   bytes [8+N, EOF)   data_len bytes of tensor data
**
** A case with F_RAW is written as its header bytes alone (no N in front):
** files shorter than 8 bytes and non-safetensors lookalikes.
**
** The output is deterministic.  Byte i of every data section (i counted from
** the start of the data section, not of the file) is (i * 7 + 3) & 255, so a
** test can predict hex() of any blob slice: a tensor whose data_offsets
** begin at B has byte j equal to ((B + j) * 7 + 3) & 255.
**
** Header texts are C string literals, so the exact bytes of each case can be
** read here.  Non-ASCII text is written with \x escapes (UTF-8) to keep this
** source ASCII.  A few headers are too long to write out and are built by a
** function (the case's gen).
*/
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---------------------------------------------------------------------- */
/* A growable byte buffer.                                                */

struct buf {
  char *p;
  size_t len, cap;
};

/* Make room for n more bytes, or exit. */
static void buf_reserve(struct buf *b, size_t n) {
  if (b->len + n <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n)
    cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    fprintf(stderr, "gen_safetensors: out of memory\n");
    exit(1);
  }
  b->p = p;
  b->cap = cap;
}

/* Append n bytes. */
static void buf_put(struct buf *b, const void *data, size_t n) {
  if (n == 0)
    return;
  buf_reserve(b, n);
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

/* Append a NUL-terminated string. */
static void buf_puts(struct buf *b, const char *s) {
  buf_put(b, s, strlen(s));
}

/* Append n copies of byte c. */
static void buf_fill(struct buf *b, char c, size_t n) {
  if (n == 0)
    return;
  buf_reserve(b, n);
  memset(b->p + b->len, c, n);
  b->len += n;
}

/* Append printf-style formatted text. */
__attribute__((format(printf, 2, 3))) static void buf_printf(struct buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fprintf(stderr, "gen_safetensors: vsnprintf failed\n");
    exit(1);
  }
  buf_reserve(b, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* ---------------------------------------------------------------------- */
/* The dtypes of the crate (enum Dtype, increasing alignment order).      */

struct dtype {
  const char *name;
  unsigned bits;
};

static const struct dtype dtypes[] = {
    {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
    {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
    {"I64", 64},        {"U64", 64},
};
#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

/* ---------------------------------------------------------------------- */
/* Header builders for the cases too long to write out.  Each appends the */
/* header text to h and returns the length of the data section.           */

/* All 22 dtypes in one file, laid out as the crate's writer does: metadata
** first, tensors sorted by dtype descending, shape [2,2], no gaps.  The
** tensor is named after its dtype. */
static uint64_t gen_all_dtypes(struct buf *h) {
  uint64_t off = 0;
  buf_puts(h, "{\"__metadata__\":{\"format\":\"pt\"}");
  for (size_t i = N_DTYPES; i-- > 0;) {
    uint64_t size = dtypes[i].bits * 4 / 8;
    buf_printf(h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[2,2],\"data_offsets\":[%llu,%llu]}",
               dtypes[i].name, dtypes[i].name, (unsigned long long)off,
               (unsigned long long)(off + size));
    off += size;
  }
  buf_puts(h, "}");
  return off;
}

/* 100 tensors "t000".."t099"; tensor i is F32 of shape [i+1], in order. */
static uint64_t gen_100_tensors(struct buf *h) {
  uint64_t off = 0;
  buf_puts(h, "{");
  for (int i = 0; i < 100; i++) {
    uint64_t size = 4 * (uint64_t)(i + 1);
    buf_printf(h, "%s\"t%03d\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%llu,%llu]}",
               i ? "," : "", i, i + 1, (unsigned long long)off, (unsigned long long)(off + size));
    off += size;
  }
  buf_puts(h, "}");
  return off;
}

/* One U8 [4] tensor "x" with an ignored field "deep" nested depth levels of
** arrays, the innermost holding the number 1. */
static uint64_t gen_nested(struct buf *h, int depth) {
  buf_puts(h, "{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"deep\":");
  buf_fill(h, '[', (size_t)depth);
  buf_puts(h, "1");
  buf_fill(h, ']', (size_t)depth);
  buf_puts(h, ",\"data_offsets\":[0,4]}}");
  return 4;
}

/* Nesting 100 deep in an ignored field: depth 102 with the two enclosing
** objects, below serde_json's recursion limit of 128. */
static uint64_t gen_nested_100(struct buf *h) {
  return gen_nested(h, 100);
}

/* Nesting 5000 deep in an ignored field: past serde_json's limit. */
static uint64_t gen_nested_5000(struct buf *h) {
  return gen_nested(h, 5000);
}

/* A metadata value of 1,200,000 bytes ("abc...z" repeated), so the header
** is larger than 1 MiB, plus one U8 [4] tensor. */
static uint64_t gen_long_metadata(struct buf *h) {
  buf_puts(h, "{\"__metadata__\":{\"format\":\"pt\",\"long\":\"");
  for (int i = 0; i < 1200000; i++) {
    char c = (char)('a' + i % 26);
    buf_put(h, &c, 1);
  }
  buf_puts(h, "\"},\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}");
  return 4;
}

/* ---------------------------------------------------------------------- */
/* The cases.                                                             */

enum {
  F_RAW = 1,       /* write hdr as the whole file, no N in front */
  F_SETN = 2,      /* write n as N instead of the header length */
  F_LEADING = 4,   /* pad with spaces before the JSON instead of after it */
  F_UNALIGNED = 8, /* sanity check: N must not be a multiple of 8 */
};

struct stcase {
  const char *file;              /* file name inside OUTDIR */
  int valid;                     /* what the crate says: 1 valid, 0 invalid */
  const char *hdr;               /* header bytes (may hold NULs: see hdr_len) */
  size_t hdr_len;                /* length of hdr */
  uint64_t (*gen)(struct buf *); /* builds the header instead of hdr; returns data length */
  uint64_t data_len;             /* bytes of data pattern after the header (when no gen) */
  unsigned flags;                /* F_* */
  uint64_t n;                    /* N written when F_SETN */
  unsigned align;                /* pad with spaces until (8 + N) % align == 0; 0: no padding */
  const char *note;              /* crate result, then what the case tests */
};

/* The header field of a case from a string literal; sizeof keeps NULs. */
#define HDR(s) .hdr = (s), .hdr_len = sizeof(s) - 1

/* One tensor entry "name":{"dtype":...,"shape":...,"data_offsets":[b,e]}. */
#define T(name, dt, shape, b, e)                                                                   \
  "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":[" #b "," #e "]}"

/* A one-dtype file: tensor "x" of shape [4], size bytes. */
#define DT(dt, size)                                                                               \
  {                                                                                                \
    .file = "ok_dtype_" dt ".safetensors", .valid = 1, HDR("{" T("x", dt, "[4]", 0, size) "}"),    \
    .data_len = size, .note = "OK: dtype " dt " shape [4] = " #size " bytes (enum Dtype)"          \
  }

/* The header of a file with one U8 [4] tensor "x" at [0,4]. */
#define X4 T("x", "U8", "[4]", 0, 4)

/* The table is laid out by hand: one tensor entry per line. */
/* clang-format off */
static const struct stcase cases[] = {
    /* ---- valid: every dtype ---- */
    DT("BOOL", 4),
    DT("F4", 2),
    DT("F6_E2M3", 3),
    DT("F6_E3M2", 3),
    DT("U8", 4),
    DT("I8", 4),
    DT("F8_E5M2", 4),
    DT("F8_E4M3", 4),
    DT("F8_E8M0", 4),
    DT("F8_E4M3FNUZ", 4),
    DT("F8_E5M2FNUZ", 4),
    DT("I16", 8),
    DT("U16", 8),
    DT("F16", 8),
    DT("BF16", 8),
    DT("I32", 16),
    DT("U32", 16),
    DT("F32", 16),
    DT("C64", 32),
    DT("F64", 32),
    DT("I64", 32),
    DT("U64", 32),
    {.file = "ok_all_dtypes.safetensors",
     .valid = 1,
     .gen = gen_all_dtypes,
     .align = 8,
     .note = "OK: all 22 dtypes, shape [2,2], named by dtype, writer layout (metadata first, dtype "
             "descending, padded to 8) (enum Dtype; prepare())"},

    /* ---- valid: shapes ---- */
    {.file = "ok_scalar_i64.safetensors",
     .valid = 1,
     HDR("{" T("step", "I64", "[]", 0, 8) "}"),
     .data_len = 8,
     .note = "OK: scalar shape [] = 1 element, I64 8 bytes (Metadata::validate: the product starts "
             "at 1)"},
    {.file = "ok_zero_size_between.safetensors",
     .valid = 1,
     HDR("{" T("a", "F32", "[1]", 0, 4) ","
             T("empty", "F32", "[2,0]", 4, 4) ","
             T("b", "F32", "[1]", 4, 8) "}"),
     .data_len = 8,
     .note = "OK: zero-size F32 [2,0] at [4,4] between two tensors (Metadata::validate)"},
    {.file = "ok_zero_size_same_offset.safetensors",
     .valid = 1,
     HDR("{" T("a", "U8", "[2]", 0, 2) ","
             T("e1", "F16", "[0]", 2, 2) ","
             T("e2", "I64", "[3,0]", 2, 2) ","
             T("b", "U8", "[2]", 2, 4) "}"),
     .data_len = 4,
     .note = "OK: two zero-size tensors e1, e2 both at [2,2] (their order is not defined) "
             "(Metadata sorts by data_offsets)"},
    {.file = "ok_zero_size_only.safetensors",
     .valid = 1,
     HDR("{" T("e", "F32", "[0]", 0, 0) "}"),
     .data_len = 0,
     .note = "OK: the only tensor is empty, data section of 0 bytes; its blob is x'' "
             "(Metadata::validate)"},
    {.file = "ok_shape_zero_u64max.safetensors",
     .valid = 1,
     HDR("{" T("x", "F32", "[0,18446744073709551615]", 0, 0) "}"),
     .data_len = 0,
     .note = "OK: shape [0,18446744073709551615]: product hits 0 first, no overflow; the dim does "
             "not fit in int64 (Metadata::validate: checked_mul from 1)"},
    {.file = "ok_shape_2p53_plus_1.safetensors",
     .valid = 1,
     HDR("{" T("x", "U8", "[9007199254740993,0]", 0, 0) "}"),
     .data_len = 0,
     .note = "OK: dim 9007199254740993 = 2^53+1 must be kept exactly (a double gives ...992) "
             "(serde_json reads a u64 exactly)"},
    {.file = "ok_4d.safetensors",
     .valid = 1,
     HDR("{" T("conv", "F16", "[2,3,4,5]", 0, 240) "}"),
     .data_len = 240,
     .note = "OK: 4-D F16 [2,3,4,5] = 240 bytes"},
    {.file = "ok_20d.safetensors",
     .valid = 1,
     HDR("{" T("x", "F32", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", 0, 4) "}"),
     .data_len = 4,
     .note = "OK: 20-dimensional shape of twenty 1s, no rank limit (TensorInfo.shape: Vec<usize>)"},
    {.file = "ok_large_1mb.safetensors",
     .valid = 1,
     HDR("{" T("head", "F32", "[3]", 0, 12) ","
             T("big", "U8", "[1000,1000]", 12, 1000012) ","
             T("tail", "I16", "[2]", 1000012, 1000016) "}"),
     .data_len = 1000016,
     .align = 8,
     .note = "OK: U8 [1000,1000] tensor 'big' of 1,000,000 bytes at data offset 12, for blob range "
             "tests"},
    {.file = "ok_100_tensors.safetensors",
     .valid = 1,
     .gen = gen_100_tensors,
     .note = "OK: 100 tensors t000..t099, tensor i F32 [i+1], 20200 data bytes"},

    /* ---- valid: empty files and metadata ---- */
    {.file = "ok_empty_header.safetensors",
     .valid = 1,
     HDR("{}"),
     .data_len = 0,
     .note = "OK: {} with N=2, a 10-byte file, 0 tensors (read_metadata)"},
    {.file = "ok_metadata_only.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":{\"format\":\"pt\",\"note\":\"no tensors\"}}"),
     .data_len = 0,
     .note = "OK: metadata only (format=pt, note=no tensors), 0 tensors (read_metadata)"},
    {.file = "ok_metadata_null.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":null," X4 "}"),
     .data_len = 4,
     .note = "OK: __metadata__ null (MLX writes it): no metadata rows (HashMetadata: Option; "
             "ml-explore/mlx mlx/io/safetensors.cpp)"},
    {.file = "ok_metadata_empty.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":{}," X4 "}"),
     .data_len = 4,
     .note = "OK: __metadata__ {}: no metadata rows (HashMetadata: Option<HashMap>)"},
    {.file = "ok_metadata_after_tensors.safetensors",
     .valid = 1,
     HDR("{" X4 ",\"__metadata__\":{\"format\":\"pt\",\"lm_head.weight\":\"x\"}}"),
     .data_len = 4,
     .note = "OK: __metadata__ after the tensors; its key lm_head.weight looks like a tensor name "
             "(save_model) but is metadata (HashMetadata; save_model in bindings/python torch.py)"},
    {.file = "ok_metadata_json_in_string.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":{\"format\":\"pt\","
         "\"ss_tag_frequency\":\"{\\\"img\\\": {\\\"cat\\\": 3, \\\"dog\\\": 1}}\","
         "\"ss_network_args\":\"{\\\"conv_dim\\\": \\\"4\\\"}\","
         "\"shape_like\":\"[1, 2, 3]\"}," X4 "}"),
     .data_len = 4,
     .note = "OK: metadata values that are JSON text in strings (kohya ss_*), e.g. "
             "ss_tag_frequency = {\"img\": {\"cat\": 3, \"dog\": 1}} (README: metadata values are "
             "strings)"},
    {.file = "ok_metadata_non_ascii.safetensors",
     .valid = 1,
     /* caf\u00e9 -> "na\u00efve"; raw UTF-8 key U+6A21 U+578B -> raw "U+1F600 emoji";
        "esc" -> tab, LF, quote, backslash, slash; "pair" -> surrogate pair = U+1F600 */
     HDR("{\"__metadata__\":{\"caf\\u00e9\":\"na\\u00efve\","
         "\"\xe6\xa8\xa1\xe5\x9e\x8b\":\"\xf0\x9f\x98\x80 emoji\","
         "\"esc\":\"tab\\tnl\\nquote\\\"bs\\\\slash\\/\","
         "\"pair\":\"\\ud83d\\ude00\"}," X4 "}"),
     .data_len = 4,
     .note = "OK: non-ASCII metadata: escaped caf\\u00e9=na\\u00efve, raw UTF-8 key and value, "
             "escapes \\t \\n \\\" \\\\ \\/, surrogate pair \\ud83d\\ude00 (serde_json string "
             "escapes)"},
    {.file = "ok_metadata_value_nul.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":{\"k\":\"v\\u0000w\",\"k\\u00002\":\"x\"}," X4 "}"),
     .data_len = 4,
     .note = "OK: \\u0000 inside a metadata value (k = 'v' NUL 'w') and key ('k' NUL '2'): serde "
             "strings hold NUL; length-carrying strings needed (serde_json: NUL in a String)"},
    {.file = "ok_metadata_long_value.safetensors",
     .valid = 1,
     .gen = gen_long_metadata,
     .note = "OK: metadata value 'long' of 1,200,000 bytes (abc..z repeated): header > 1 MiB, keys "
             "and values of unbounded length (MAX_HEADER_SIZE is 100,000,000)"},
    {.file = "ok_escaped_metadata_key.safetensors",
     .valid = 1,
     HDR("{\"\\u005f_metadata__\":{\"format\":\"pt\"}," X4 "}"),
     .data_len = 4,
     .note = "OK: key \"\\u005f_metadata__\" is __metadata__ after unescaping: format=pt, 1 tensor "
             "(serde_json unescapes keys)"},

    {.file = "ok_metadata_dup_key.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}," X4 "}"),
     .data_len = 4,
     .note = "OK: metadata key k twice: one entry k=2 (HashMap<String,String>, last wins; "
             "reasoned, not observed) (HashMetadata: HashMap<String, String>)"},

    /* ---- valid: layout and whitespace ---- */
    {.file = "ok_mlx_key_order.safetensors",
     .valid = 1,
     HDR("{\"__metadata__\":null,"
         "\"a\":{\"data_offsets\":[4,12],\"dtype\":\"F32\",\"shape\":[2]},"
         "\"b\":{\"data_offsets\":[12,16],\"dtype\":\"U8\",\"shape\":[4]},"
         "\"c\":{\"data_offsets\":[0,4],\"dtype\":\"I32\",\"shape\":[1]}}"),
     .data_len = 16,
     .flags = F_UNALIGNED,
     .note = "OK: MLX style: keys sorted, fields sorted, JSON order a,b,c but offset order c,a,b, "
             "no padding (ml-explore/mlx mlx/io/safetensors.cpp; Metadata sorts by data_offsets)"},
    {.file = "ok_padded_spaces.safetensors",
     .valid = 1,
     HDR("{" T("a", "F32", "[2]", 0, 8) "," T("b", "I64", "[1]", 8, 16) "}"),
     .data_len = 16,
     .align = 8,
     .note = "OK: header padded with trailing spaces to a multiple of 8, as the crate's writer "
             "does (prepare(): pads to 8 with spaces)"},
    {.file = "ok_unaligned.safetensors",
     .valid = 1,
     HDR("{" T("a", "F32", "[2]", 0, 8) "," T("b", "I64", "[1]", 8, 16) "}"),
     .data_len = 16,
     .flags = F_UNALIGNED,
     .note = "OK: header length not a multiple of 8, data section unaligned (pre-0.3.1 writers, "
             "MLX) (read_metadata: no alignment check)"},
    {.file = "ok_leading_ws.safetensors",
     .valid = 1,
     HDR(" \t\n\r{" X4 "}"),
     .data_len = 4,
     .note = "OK: leading whitespace space, tab, LF, CR before the object (serde_json skips JSON "
             "whitespace; commit 96305fc)"},
    {.file = "ok_leading_ws_page_aligned.safetensors",
     .valid = 1,
     HDR("{" X4 "}"),
     .data_len = 4,
     .flags = F_LEADING,
     .align = 4096,
     .note = "OK: leading spaces pad the header so the data section starts at byte 4096 (0.8 "
             "intent) (commit 96305fc, PR #686)"},
    {.file = "ok_trailing_ws.safetensors",
     .valid = 1,
     HDR("{" X4 "} \t\n\r"),
     .data_len = 4,
     .note = "OK: trailing whitespace space, tab, LF, CR after the object (README: trailing "
             "whitespace; test_whitespace_padded_header)"},
    {.file = "ok_pretty_printed.safetensors",
     .valid = 1,
     HDR("{\n  \"__metadata__\" : {\r\n\t\"format\" : \"pt\"\n  } ,\n  \"x\" : {\n    \"dtype\" : "
         "\"U8\" ,\n    \"shape\" : [ 4 ] ,\n    \"data_offsets\" : [ 0 , 4 ]\n  }\n}\n"),
     .data_len = 4,
     .note = "OK: whitespace between every token (indented JSON, CRLF, tabs)"},

    /* ---- valid: ignored fields and names ---- */
    {.file = "ok_unknown_fields.safetensors",
     .valid = 1,
     HDR("{\"x\":{\"foo\":1,"
         "\"nested\":{\"dtype\":\"I64\",\"shape\":[9,9,9],\"data_offsets\":[100,200],"
         "\"deep\":[[1,2],[3,[4,{\"k\":-5.5e-3}]]]},"
         "\"dtype\":\"F32\","
         "\"arr\":[true,false,null,1e308,-0.0,\"data_offsets\",{}],"
         "\"shape\":[2],"
         "\"s\":\"\\\"shape\\\":[7],\\\"data_offsets\\\":[5,6]\","
         "\"data_offsets\":[0,8],"
         "\"data_offsets_old\":[0,999]},"
         "\"y\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[8,12],\"z\":{}}}"),
     .data_len = 12,
     .note = "OK: unknown fields in tensors are ignored, even nested objects/arrays holding "
             "dtype/shape/data_offsets keys, numbers and strings that look like fields: x F32 [2] "
             "[0,8], y U8 [4] [8,12] (TensorInfo: serde ignores unknown fields)"},
    {.file = "ok_nested_ignored_100.safetensors",
     .valid = 1,
     .gen = gen_nested_100,
     .note = "OK: an ignored field nested 100 arrays deep (depth 102 in all, below serde_json's "
             "limit of 128; reasoned, not observed)"},
    {.file = "ok_tensor_as_array.safetensors",
     .valid = 1,
     HDR("{\"x\":[\"U8\",[4],[0,4]]}"),
     .data_len = 4,
     .note =
         "OK: tensor written as a JSON array [dtype, shape, data_offsets]: serde derive accepts "
         "a struct as a sequence of its fields (reasoned from serde, not observed; a strict "
         "reader may reject it)"},
    {.file = "ok_escaped_names.safetensors",
     .valid = 1,
     HDR("{" T("\\u0041", "U8", "[1]", 0, 1) ","
             T("\\u00e9x", "U8", "[1]", 1, 2) ","
             T("q\\\"\\\\\\/\\t", "U8", "[1]", 2, 3) "}"),
     .data_len = 3,
     .note = "OK: escaped names: \\u0041 = 'A', \\u00e9x = 'e-acute x', q\\\"\\\\\\/\\t = 'q\"\\/' "
             "+ TAB (serde_json unescapes keys)"},
    {.file = "ok_name_empty.safetensors",
     .valid = 1,
     HDR("{" T("", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "OK: tensor named '' (HashMetadata: any String key)"},
    {.file = "ok_name_emoji.safetensors",
     .valid = 1,
     HDR("{" T("\xf0\x9f\x98\x80", "U8", "[1]", 0, 1) ","
             T("w\xc3\xa9\xf0\x9f\x98\x80", "U8", "[1]", 1, 2) ","
             T("\\ud83d\\ude00x", "U8", "[1]", 2, 3) "}"),
     .data_len = 3,
     .note = "OK: names U+1F600, 'w' U+00E9 U+1F600 (raw UTF-8) and U+1F600 'x' (escaped surrogate "
             "pair) (serde_json: surrogate pairs)"},
    {.file = "ok_name_nul.safetensors",
     .valid = 1,
     HDR("{" T("a\\u0000b", "U8", "[4]", 0, 4) "," T("a", "U8", "[4]", 4, 8) "}"),
     .data_len = 8,
     .note = "OK: name 'a' NUL 'b' (\\u0000) next to 'a': two tensors; cutting names at NUL merges "
             "them and fails (serde_json: NUL in a String)"},
    {.file = "ok_name_near_metadata.safetensors",
     .valid = 1,
     HDR("{" T("__metadata", "U8", "[1]", 0, 1) ","
             T("__metadata__ ", "U8", "[1]", 1, 2) ","
             T("__METADATA__", "U8", "[1]", 2, 3) "}"),
     .data_len = 3,
     .note = "OK: tensors '__metadata', '__metadata__ ' and '__METADATA__' are tensors, not "
             "metadata"},
    {.file = "ok_dup_identical.safetensors",
     .valid = 1,
     HDR("{" X4 "," X4 "}"),
     .data_len = 4,
     .note = "OK: the same tensor entry twice: 1 tensor (HashMap, last wins) (HashMetadata: "
             "HashMap, last wins)"},
    {.file = "ok_dup_last_wins.safetensors",
     .valid = 1,
     HDR("{" T("x", "F32", "[2]", 0, 8) "," T("x", "I32", "[2]", 0, 8) "}"),
     .data_len = 8,
     .note = "OK: 'x' twice, F32 then I32, same offsets: 1 tensor, dtype I32 (last wins) "
             "(HashMetadata: HashMap)"},
    {.file = "ok_dup_escaped_identical.safetensors",
     .valid = 1,
     HDR("{" T("A", "U8", "[4]", 0, 4) "," T("\\u0041", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "OK: 'A' and '\\u0041' are the same key after unescaping: 1 tensor A (serde_json "
             "unescapes keys)"},

    /* ---- invalid: header length (read_metadata, before the JSON) ---- */
    {.file = "bad_header_too_small_0b.safetensors",
     .valid = 0,
     HDR(""),
     .flags = F_RAW,
     .note = "HeaderTooSmall: empty file (read_metadata: len < 8)"},
    {.file = "bad_header_too_small_1b.safetensors",
     .valid = 0,
     HDR("{"),
     .flags = F_RAW,
     .note = "HeaderTooSmall: 1-byte file (read_metadata: len < 8)"},
    {.file = "bad_header_too_small_7b.safetensors",
     .valid = 0,
     HDR("\x02\0\0\0\0\0\0"),
     .flags = F_RAW,
     .note = "HeaderTooSmall: 7-byte file, a cut N (read_metadata: len < 8)"},
    {.file = "bad_header_too_large_100000001.safetensors",
     .valid = 0,
     HDR("{}"),
     .flags = F_SETN,
     .n = 100000001,
     .note = "HeaderTooLarge: N = 100,000,001, checked before the file length (read_metadata: n > "
             "MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_u64max.safetensors",
     .valid = 0,
     HDR("{}"),
     .flags = F_SETN,
     .n = UINT64_MAX,
     .note = "HeaderTooLarge: N = 2^64-1 (8+N overflows) (read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_sign_bit.safetensors",
     .valid = 0,
     HDR("{}"),
     .flags = F_SETN,
     .n = 0x8000000000000002ull,
     .note = "HeaderTooLarge: N = 2^63+2, negative if read as int64 (read_metadata: n > "
             "MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_2p32_plus_2.safetensors",
     .valid = 0,
     HDR("{}"),
     .flags = F_SETN,
     .n = 0x100000002ull,
     .note = "HeaderTooLarge: N = 2^32+2; read as 32 bits it would be 2 and the file valid "
             "(read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_lookalike_gguf.safetensors",
     .valid = 0,
     HDR("GGUF\x03\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"),
     .flags = F_RAW,
     .note = "HeaderTooLarge: a GGUF v3 file (magic GGUF, version 3, 0 tensors, 0 KVs) "
             "(read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_lookalike_lfs.safetensors",
     .valid = 0,
     HDR("version https://git-lfs.github.com/spec/v1\n"
         "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
         "size 123\n"),
     .flags = F_RAW,
     .note = "HeaderTooLarge: a git-LFS pointer text ('version ' = 0x206E6F6973726576) "
             "(read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_lookalike_html.safetensors",
     .valid = 0,
     HDR("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>"
         "<body><h1>Not Found</h1></body></html>\n"),
     .flags = F_RAW,
     .note = "HeaderTooLarge: an HTML error page (read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_lookalike_zip.safetensors",
     .valid = 0,
     HDR("PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x10\0\0\0archive/data.pkl"),
     .flags = F_RAW,
     .note = "HeaderTooLarge: a zip local file header (torch .pt/.bin since 1.6) (read_metadata: n "
             "> MAX_HEADER_SIZE)"},
    {.file = "bad_header_too_large_lookalike_pickle.safetensors",
     .valid = 0,
     HDR("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02M\xe9\x03."),
     .flags = F_RAW,
     .note = "HeaderTooLarge: a legacy torch pickle (protocol 2, magic 0x1950a86a20f9469cfc6c) "
             "(read_metadata: n > MAX_HEADER_SIZE)"},
    {.file = "bad_invalid_header_length_100000000.safetensors",
     .valid = 0,
     HDR("{}"),
     .flags = F_SETN,
     .n = 100000000,
     .note = "InvalidHeaderLength: N = 100,000,000 exactly (allowed) but the file is 10 bytes "
             "(read_metadata: 8 + n > len)"},
    {.file = "bad_invalid_header_length_plus1.safetensors",
     .valid = 0,
     HDR("{" X4 "}"),
     .data_len = 4,
     .flags = F_SETN,
     .n = sizeof("{" X4 "}") - 1 + 5,
     .note = "InvalidHeaderLength: 8+N is the file size + 1 (N counts the data too, plus one) "
             "(read_metadata: 8 + n > len)"},
    {.file = "bad_invalid_header_length_8b.safetensors",
     .valid = 0,
     HDR(""),
     .flags = F_SETN,
     .n = 2,
     .note = "InvalidHeaderLength: an 8-byte file saying N = 2 (read_metadata: 8 + n > len)"},

    /* ---- invalid: UTF-8 (read_metadata: str::from_utf8) ---- */
    {.file = "bad_utf8_in_key.safetensors",
     .valid = 0,
     HDR("{" T("x\xff", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeader: byte 0xFF in a tensor name (read_metadata: str::from_utf8)"},
    {.file = "bad_utf8_in_metadata_value.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":\"\xe2\x82\"}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeader: a cut 3-byte sequence E2 82 in a metadata value (read_metadata: "
             "str::from_utf8)"},
    {.file = "bad_utf8_overlong.safetensors",
     .valid = 0,
     HDR("{" T("\xc0\xaf", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeader: overlong encoding C0 AF of '/' in a name (read_metadata: "
             "str::from_utf8)"},
    {.file = "bad_utf8_surrogate_bytes.safetensors",
     .valid = 0,
     HDR("{" T("\xed\xa0\x80", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeader: ED A0 80, a UTF-16 surrogate encoded in UTF-8 (CESU-8) "
             "(read_metadata: str::from_utf8)"},
    {.file = "bad_utf8_above_10ffff.safetensors",
     .valid = 0,
     HDR("{" T("\xf4\x90\x80\x80", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeader: F4 90 80 80 encodes U+110000, above U+10FFFF (read_metadata: "
             "str::from_utf8)"},
    {.file = "bad_utf8_in_padding.safetensors",
     .valid = 0,
     HDR("{" X4 "}  \xff"),
     .data_len = 4,
     .note = "InvalidHeader: byte 0xFF after the object: the whole N bytes are checked before the "
             "JSON (read_metadata: str::from_utf8)"},

    /* ---- invalid: JSON syntax (serde_json::from_str into HashMetadata) ---- */
    {.file = "bad_json_empty_n0.safetensors",
     .valid = 0,
     HDR(""),
     .note = "InvalidHeaderDeserialization: N = 0, empty header, an 8-byte file (EOF while "
             "parsing) (serde_json::from_str)"},
    {.file = "bad_json_lone_high_surrogate.safetensors",
     .valid = 0,
     HDR("{" T("\\ud800", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: lone surrogate escape \\ud800 in a name (serde_json: "
             "lone surrogate)"},
    {.file = "bad_json_lone_low_surrogate.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":\"\\udc00\"}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: lone low surrogate \\udc00 in a metadata value "
             "(serde_json: lone surrogate)"},
    {.file = "bad_json_high_surrogate_then_char.safetensors",
     .valid = 0,
     HDR("{" T("\\ud800\\u0041", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: \\ud800 followed by \\u0041, not a low surrogate "
             "(serde_json: lone surrogate)"},
    {.file = "bad_json_trailing_comma_object.safetensors",
     .valid = 0,
     HDR("{" X4 ",}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: trailing comma in the object "
             "(serde_json: strict JSON)"},
    {.file = "bad_json_trailing_comma_array.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[4,]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: trailing comma in shape [4,] "
             "(serde_json: strict JSON)"},
    {.file = "bad_json_comment_block.safetensors",
     .valid = 0,
     HDR("{/* c */" X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: /* comment */ (serde_json: strict JSON)"},
    {.file = "bad_json_comment_line.safetensors",
     .valid = 0,
     HDR("{// c\n" X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: // comment (serde_json: strict JSON)"},
    {.file = "bad_json_single_quotes.safetensors",
     .valid = 0,
     HDR("{'x':{'dtype':'U8','shape':[4],'data_offsets':[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: single-quoted strings (serde_json: strict JSON)"},
    {.file = "bad_json_unquoted_key.safetensors",
     .valid = 0,
     HDR("{x:{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: a key that is not a string (serde_json: strict JSON)"},
    {.file = "bad_json_unterminated_object.safetensors",
     .valid = 0,
     HDR("{" X4),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: the root object is not closed (EOF)"},
    {.file = "bad_json_unterminated_string.safetensors",
     .valid = 0,
     HDR("{\"x"),
     .note = "InvalidHeaderDeserialization: a string not closed at the end of the header"},
    {.file = "bad_json_root_array.safetensors",
     .valid = 0,
     HDR("[]"),
     .note = "InvalidHeaderDeserialization: root is an array (HashMetadata is a map)"},
    {.file = "bad_json_root_string.safetensors",
     .valid = 0,
     HDR("\"{}\""),
     .note = "InvalidHeaderDeserialization: root is a string (HashMetadata is a map)"},
    {.file = "bad_json_root_number.safetensors",
     .valid = 0,
     HDR("12"),
     .note = "InvalidHeaderDeserialization: root is a number (HashMetadata is a map)"},
    {.file = "bad_json_root_null.safetensors",
     .valid = 0,
     HDR("null"),
     .note = "InvalidHeaderDeserialization: root is null (HashMetadata is a map)"},
    {.file = "bad_json_trailing_chars.safetensors",
     .valid = 0,
     HDR("{" X4 "}x"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: non-whitespace 'x' after the object (trailing "
             "characters) (serde_json::from_str: trailing characters)"},
    {.file = "bad_json_two_objects.safetensors",
     .valid = 0,
     HDR("{" X4 "}{}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: a second object after the first (serde_json::from_str: "
             "trailing characters)"},
    {.file = "bad_json_nul_padding.safetensors",
     .valid = 0,
     HDR("{" X4 "}\0\0\0"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: NUL padding after the object (serde_json: JSON "
             "whitespace only)"},
    {.file = "bad_json_formfeed_before.safetensors",
     .valid = 0,
     HDR("\f{" X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: form feed before the object is not JSON whitespace "
             "(serde_json: JSON whitespace only)"},
    {.file = "bad_json_bom_before.safetensors",
     .valid = 0,
     HDR("\xef\xbb\xbf{" X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: UTF-8 BOM before the object (serde_json: JSON "
             "whitespace only)"},
    {.file = "bad_json_nbsp_after.safetensors",
     .valid = 0,
     HDR("{" X4 "}\xc2\xa0"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: U+00A0 no-break space after the object (valid UTF-8, "
             "not JSON whitespace)"},
    {.file = "bad_json_raw_tab_in_name.safetensors",
     .valid = 0,
     HDR("{" T("a\tb", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: raw TAB byte inside a string (control characters must "
             "be escaped)"},
    {.file = "bad_json_raw_nul_in_name.safetensors",
     .valid = 0,
     HDR("{" T("a\0b", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: raw NUL byte inside a string (valid UTF-8, invalid "
             "JSON)"},
    {.file = "bad_json_invalid_escape.safetensors",
     .valid = 0,
     HDR("{" T("\\x41", "U8", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: invalid escape \\x41 in a name"},
    {.file = "bad_json_nan_in_ignored.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"foo\":NaN}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: NaN in an ignored field (ignored fields must still be "
             "JSON)"},
    {.file = "bad_json_plus_in_ignored.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"foo\":+1}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: +1 in an ignored field"},
    {.file = "bad_json_number_out_of_range.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"foo\":1e400}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: 1e400 in an ignored field: valid JSON, but serde_json "
             "reads it as f64 and fails (number out of range; reasoned, not observed)"},
    {.file = "bad_json_deep_nesting_5000.safetensors",
     .valid = 0,
     .gen = gen_nested_5000,
     .note = "InvalidHeaderDeserialization: an ignored field nested 5000 arrays deep (serde_json "
             "recursion limit 128; the flattened map buffers ignored fields too; reasoned, not "
             "observed)"},
    {.file = "bad_json_broken_0_4_2.safetensors",
     .valid = 0,
     HDR("{},\"__metadata__\":{\"format\":\"pt\"}}"),
     .note = "InvalidHeaderDeserialization: the broken safetensors 0.4.2/0.4.3 form "
             "{},\"__metadata__\":{...}} (trailing characters) (issues #466, #601)"},

    /* ---- invalid: tensor fields (serde_json::from_str into HashMetadata) ---- */
    {.file = "bad_missing_dtype.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"shape\":[4],\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: missing field dtype (TensorInfo: required field)"},
    {.file = "bad_missing_dtype_uppercase_key.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"DTYPE\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: DTYPE is not dtype: missing field dtype (TensorInfo: "
             "field names are case-sensitive)"},
    {.file = "bad_missing_shape.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: missing field shape (TensorInfo: required field)"},
    {.file = "bad_missing_data_offsets.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: missing field data_offsets "
             "(TensorInfo: required field)"},
    {.file = "bad_tensor_not_object.safetensors",
     .valid = 0,
     HDR("{\"x\":4}"),
     .note = "InvalidHeaderDeserialization: a tensor value that is a number"},
    {.file = "bad_tensor_null.safetensors",
     .valid = 0,
     HDR("{\"x\":null}"),
     .note = "InvalidHeaderDeserialization: a tensor value that is null"},
    {.file = "bad_dtype_lowercase_f32.safetensors",
     .valid = 0,
     HDR("{" T("x", "f32", "[1]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: unknown dtype 'f32' (case-sensitive) (enum Dtype)"},
    {.file = "bad_dtype_e8m0.safetensors",
     .valid = 0,
     HDR("{" T("x", "E8M0", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: unknown dtype 'E8M0' (huggingface.js spelling) (enum "
             "Dtype)"},
    {.file = "bad_dtype_torch_name.safetensors",
     .valid = 0,
     HDR("{" T("x", "F8_E4M3FN", "[4]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: unknown dtype 'F8_E4M3FN' (torch's name for F8_E4M3) "
             "(enum Dtype)"},
    {.file = "bad_dtype_not_string.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":4,\"shape\":[4],\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: dtype is a number (4 = U8's index)"},
    {.file = "bad_shape_null.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "null", 0, 1) "}"),
     .data_len = 1,
     .note = "InvalidHeaderDeserialization: shape null (TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_shape_not_array.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "4", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: shape 4, a number instead of an array"},
    {.file = "bad_shape_float.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[1.0]", 0, 1) "}"),
     .data_len = 1,
     .note = "InvalidHeaderDeserialization: shape [1.0] (TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_shape_negative.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[-1]", 0, 1) "}"),
     .data_len = 1,
     .note = "InvalidHeaderDeserialization: shape [-1] (TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_shape_string.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[\"1\"]", 0, 1) "}"),
     .data_len = 1,
     .note = "InvalidHeaderDeserialization: shape [\"1\"] (TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_shape_exponent_4e0.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[4e0]", 0, 4) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: shape [4e0] (a float in JSON terms) (TensorInfo.shape: "
             "Vec<usize>)"},
    {.file = "bad_shape_leading_zero.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[01]", 0, 1) "}"),
     .data_len = 1,
     .note = "InvalidHeaderDeserialization: shape [01], leading zero (serde_json: strict JSON)"},
    {.file = "bad_shape_exponent_1e3.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[1e3]", 0, 1000) "}"),
     .data_len = 1000,
     .note = "InvalidHeaderDeserialization: shape [1e3] with 1000 bytes (TensorInfo.shape: "
             "Vec<usize>)"},
    {.file = "bad_shape_negative_zero.safetensors",
     .valid = 0,
     HDR("{" T("x", "F32", "[-0]", 0, 0) "}"),
     .note = "InvalidHeaderDeserialization: shape [-0] (serde_json reads -0 as a float) "
             "(TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_shape_above_u64.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[0,18446744073709551616]", 0, 0) "}"),
     .note = "InvalidHeaderDeserialization: dim 18446744073709551616 = 2^64 (wrapped to 0 it would "
             "be valid) (TensorInfo.shape: Vec<usize>)"},
    {.file = "bad_offsets_above_u64.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[0]", 0, 18446744073709551616) "}"),
     .note = "InvalidHeaderDeserialization: data_offsets end 2^64 (wrapped to 0 it would be valid) "
             "(TensorInfo.data_offsets: (usize, usize))"},
    {.file = "bad_offsets_float.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[4]", 0, 4.0) "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: data_offsets [0,4.0] (TensorInfo.data_offsets: (usize, "
             "usize))"},
    {.file = "bad_offsets_len1.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0]}}"),
     .note = "InvalidHeaderDeserialization: data_offsets of length 1 (TensorInfo.data_offsets: "
             "(usize, usize))"},
    {.file = "bad_offsets_len3.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: data_offsets of length 3 (invalid length 3, expected 2 "
             "elements) (TensorInfo.data_offsets: (usize, usize))"},
    {.file = "bad_duplicate_field_dtype.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: duplicate field dtype, even with the same value (serde "
             "derive: duplicate field)"},
    {.file = "bad_duplicate_field_escaped.safetensors",
     .valid = 0,
     HDR("{\"x\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],"
         "\"data\\u005foffsets\":[0,4]}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: duplicate field data_offsets, spelled "
             "data\\u005foffsets the second time (keys compare unescaped) (serde_json unescapes "
             "keys)"},

    /* ---- invalid: __metadata__ (serde_json::from_str into HashMetadata) ---- */
    {.file = "bad_duplicate_metadata.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"a\":\"1\"}," X4 ",\"__metadata__\":{\"b\":\"2\"}}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: duplicate field __metadata__ (serde derive: duplicate "
             "field)"},
    {.file = "bad_duplicate_metadata_escaped.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{},\"\\u005f_metadata__\":{}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: __metadata__ and \\u005f_metadata__, the same key "
             "after unescaping (serde_json unescapes keys)"},
    {.file = "bad_metadata_value_int.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"format\":\"pt\",\"epoch\":3}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: metadata value 3, not a string (issue #278) "
             "(HashMetadata: HashMap<String, String>)"},
    {.file = "bad_metadata_value_null.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":null}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: metadata value null (HashMetadata: HashMap<String, "
             "String>)"},
    {.file = "bad_metadata_value_object.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":{\"a\":\"b\"}}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: metadata value {\"a\":\"b\"} (HashMetadata: "
             "HashMap<String, String>)"},
    {.file = "bad_metadata_value_array.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":[\"a\"]}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: metadata value [\"a\"] (HashMetadata: HashMap<String, "
             "String>)"},
    {.file = "bad_metadata_value_bool.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":{\"k\":true}," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: metadata value true"},
    {.file = "bad_metadata_not_object.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":\"format=pt\"," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: __metadata__ is a string, not an object"},
    {.file = "bad_metadata_array.safetensors",
     .valid = 0,
     HDR("{\"__metadata__\":[]," X4 "}"),
     .data_len = 4,
     .note = "InvalidHeaderDeserialization: __metadata__ is an array"},

    /* ---- invalid: validation (Metadata::validate) ---- */
    {.file = "bad_invalid_offset_hole.safetensors",
     .valid = 0,
     HDR("{" T("a", "U8", "[4]", 0, 4) "," T("b", "U8", "[4]", 8, 12) "}"),
     .data_len = 12,
     .note = "InvalidOffset: b at [8,12] leaves a hole after a [0,4] (invalid offset for tensor b) "
             "(Metadata::validate)"},
    {.file = "bad_invalid_offset_overlap.safetensors",
     .valid = 0,
     HDR("{" T("a", "F32", "[2]", 0, 8) "," T("b", "F32", "[2]", 4, 12) "}"),
     .data_len = 12,
     .note = "InvalidOffset: b [4,12] overlaps a [0,8] (tensor b) (Metadata::validate)"},
    {.file = "bad_invalid_offset_not_zero.safetensors",
     .valid = 0,
     HDR("{" T("a", "U8", "[4]", 4, 8) "}"),
     .data_len = 8,
     .note = "InvalidOffset: the first tensor starts at 4, not 0 (tensor a) (Metadata::validate)"},
    {.file = "bad_invalid_offset_end_before_begin.safetensors",
     .valid = 0,
     HDR("{" T("a", "U8", "[4]", 0, 4) "," T("b", "U8", "[2]", 4, 2) "}"),
     .data_len = 4,
     .note = "InvalidOffset: b [4,2], end < begin (tensor b) (Metadata::validate)"},
    {.file = "bad_invalid_offset_zero_size_past_end.safetensors",
     .valid = 0,
     HDR("{" T("a", "U8", "[4]", 0, 4) "," T("e", "U8", "[0]", 8, 8) "}"),
     .data_len = 4,
     .note = "InvalidOffset: empty tensor e at [8,8] when the data ends at 4 (tensor e) "
             "(Metadata::validate)"},
    {.file = "bad_invalid_offset_dup_name.safetensors",
     .valid = 0,
     HDR("{" T("a", "U8", "[4]", 0, 4) "," T("a", "U8", "[4]", 4, 8) "}"),
     .data_len = 8,
     .note = "InvalidOffset: 'a' twice at [0,4] then [4,8]; last wins, leaving a hole at 0 (tensor "
             "a) (HashMetadata: HashMap; issue #401)"},
    {.file = "bad_validation_overflow_shape.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[18446744073709551615,2,0]", 0, 0) "}"),
     .note = "ValidationOverflow: shape [2^64-1,2,0] overflows before reaching 0 (left to right) "
             "(Metadata::validate: checked_mul from 1)"},
    {.file = "bad_validation_overflow_product.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[4294967296,4294967296]", 0, 0) "}"),
     .note = "ValidationOverflow: shape [2^32,2^32], element count 2^64"},
    {.file = "bad_validation_overflow_bits_u8.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[2305843009213693952]", 0, 0) "}"),
     .note = "ValidationOverflow: U8 [2^61]: 2^61 bytes fit in u64 but 2^61 * 8 bits do not (the "
             "crate counts bits) (Metadata::validate: checked_mul by the bit size)"},
    {.file = "bad_validation_overflow_bits_f32.safetensors",
     .valid = 0,
     HDR("{" T("x", "F32", "[4611686018427387904]", 0, 0) "}"),
     .note = "ValidationOverflow: F32 [2^62]: elements * 32 bits overflow (Metadata::validate: "
             "checked_mul by the bit size)"},
    {.file = "bad_misaligned_f4_3.safetensors",
     .valid = 0,
     HDR("{" T("x", "F4", "[3]", 0, 2) "}"),
     .data_len = 2,
     .note = "MisalignedSlice: F4 [3] = 12 bits, not a whole number of bytes (Metadata::validate: "
             "nbits % 8)"},
    {.file = "bad_misaligned_f6_e3m2_2.safetensors",
     .valid = 0,
     HDR("{" T("x", "F6_E3M2", "[2]", 0, 2) "}"),
     .data_len = 2,
     .note = "MisalignedSlice: F6_E3M2 [2] = 12 bits (Metadata::validate: nbits % 8)"},
    {.file = "bad_tensor_invalid_info_size.safetensors",
     .valid = 0,
     HDR("{" T("x", "F32", "[2]", 0, 4) "}"),
     .data_len = 4,
     .note = "TensorInvalidInfo: F32 [2] needs 8 bytes, data_offsets give 4 (Metadata::validate)"},
    {.file = "bad_tensor_invalid_info_end_u64max.safetensors",
     .valid = 0,
     HDR("{" T("x", "U8", "[4]", 0, 18446744073709551615) "}"),
     .data_len = 4,
     .note = "TensorInvalidInfo: U8 [4] with data_offsets [0,2^64-1] (Metadata::validate)"},

    /* ---- invalid: coverage (read_metadata: the file length) ---- */
    {.file = "bad_incomplete_polyglot.safetensors",
     .valid = 0,
     HDR("{" X4 "}"),
     .data_len = 20,
     .note = "MetadataIncompleteBuffer: 16 bytes after the last tensor (polyglot) (read_metadata: "
             "8 + n + data end != len)"},
    {.file = "bad_incomplete_empty_trailing.safetensors",
     .valid = 0,
     HDR("{}"),
     .data_len = 1,
     .note = "MetadataIncompleteBuffer: {} and one byte after it (coverage is checked with no "
             "tensors too)"},
    {.file = "bad_incomplete_truncated.safetensors",
     .valid = 0,
     HDR("{" T("x", "F32", "[4]", 0, 16) "}"),
     .data_len = 10,
     .note = "MetadataIncompleteBuffer: the last tensor is cut short, 10 of 16 bytes "
             "(read_metadata: 8 + n + data end != len)"},
    {.file = "bad_incomplete_header_only.safetensors",
     .valid = 0,
     HDR("{" T("x", "F32", "[4]", 0, 16) "}"),
     .data_len = 0,
     .note = "MetadataIncompleteBuffer: the file stops right after the header (a cut download)"},
};
/* clang-format on */
#define N_CASES (sizeof cases / sizeof cases[0])

/* ---------------------------------------------------------------------- */
/* Writing.                                                               */

/* Write n bytes to f, or exit naming path. */
static void put(FILE *f, const char *path, const void *p, size_t n) {
  if (n && fwrite(p, 1, n, f) != n) {
    fprintf(stderr, "gen_safetensors: write %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

/* Write len bytes of the data pattern: byte i is (i * 7 + 3) & 255. */
static void put_data(FILE *f, const char *path, uint64_t len) {
  unsigned char chunk[4096];
  uint64_t i = 0;
  while (i < len) {
    size_t n = len - i < sizeof chunk ? (size_t)(len - i) : sizeof chunk;
    for (size_t j = 0; j < n; j++)
      chunk[j] = (unsigned char)(((i + j) * 7 + 3) & 255);
    put(f, path, chunk, n);
    i += n;
  }
}

/* Build the header of case c into h (padding included); return the data
** length. */
static uint64_t build_header(const struct stcase *c, struct buf *h) {
  uint64_t data_len = c->data_len;
  if (c->gen)
    data_len = c->gen(h);
  else
    buf_put(h, c->hdr, c->hdr_len);
  if (c->align) {
    size_t pad = (c->align - (8 + h->len) % c->align) % c->align;
    if (pad && (c->flags & F_LEADING)) {
      buf_reserve(h, pad);
      memmove(h->p + pad, h->p, h->len);
      memset(h->p, ' ', pad);
      h->len += pad;
    } else {
      buf_fill(h, ' ', pad);
    }
  }
  return data_len;
}

/* Write the file of case c into dir. */
static void write_case(const char *dir, const struct stcase *c) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  struct buf h = {0};
  uint64_t data_len = build_header(c, &h);
  uint64_t n = (c->flags & F_SETN) ? c->n : h.len;
  if ((c->flags & F_UNALIGNED) && n % 8 == 0) {
    fprintf(stderr, "gen_safetensors: %s: header length %llu is a multiple of 8\n", c->file,
            (unsigned long long)n);
    exit(1);
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "gen_safetensors: open %s: %s\n", path, strerror(errno));
    exit(1);
  }
  if (!(c->flags & F_RAW)) {
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
      le[i] = (unsigned char)(n >> (8 * i));
    put(f, path, le, 8);
  }
  put(f, path, h.p, h.len);
  put_data(f, path, data_len);
  if (fclose(f) != 0) {
    fprintf(stderr, "gen_safetensors: close %s: %s\n", path, strerror(errno));
    exit(1);
  }
  free(h.p);
}

/* Write OUTDIR/cases.txt: file, valid|invalid, note; one line per case. */
static void write_index(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  struct buf b = {0};
  for (size_t i = 0; i < N_CASES; i++)
    buf_printf(&b, "%s\t%s\t%s\n", cases[i].file, cases[i].valid ? "valid" : "invalid",
               cases[i].note);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "gen_safetensors: open %s: %s\n", path, strerror(errno));
    exit(1);
  }
  put(f, path, b.p, b.len);
  if (fclose(f) != 0) {
    fprintf(stderr, "gen_safetensors: close %s: %s\n", path, strerror(errno));
    exit(1);
  }
  free(b.p);
}

/* Check the table: unique file names without tabs, notes on one line. */
static void check_table(void) {
  for (size_t i = 0; i < N_CASES; i++) {
    if (strpbrk(cases[i].file, "\t\n/") || strpbrk(cases[i].note, "\t\n")) {
      fprintf(stderr, "gen_safetensors: case %s: tab, newline or slash in name or note\n",
              cases[i].file);
      exit(1);
    }
    for (size_t j = 0; j < i; j++)
      if (strcmp(cases[i].file, cases[j].file) == 0) {
        fprintf(stderr, "gen_safetensors: case %s listed twice\n", cases[i].file);
        exit(1);
      }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_safetensors OUTDIR\n");
    return 2;
  }
  const char *dir = argv[1];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "gen_safetensors: mkdir %s: %s\n", dir, strerror(errno));
    return 1;
  }
  check_table();
  for (size_t i = 0; i < N_CASES; i++)
    write_case(dir, &cases[i]);
  write_index(dir);
  return 0;
}
