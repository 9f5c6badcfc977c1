/*
** model.h: the description a parser produces from a model file.
** Layer: base (no SQLite; every other layer may use it).
**
** Both parsers (safetensors_parser.c, gguf_parser.c) turn the bytes of a
** file's header (in memory the bytes layer owns) into a wt_model: a list
** of tensors and a list of metadata entries, with every number already
** validated.  The SQLite layer
** (vtab.c, tables.c, functions.c) reads only this structure, so adding a
** format means adding a parser, not another copy of the virtual tables.
**
** Nothing here depends on SQLite.  Strings point into the header bytes when
** they can be used as stored, or into the model's arena when they had to
** be decoded (JSON escapes).  None of them is NUL-terminated: always use
** the length.
*/
#ifndef WT_MODEL_H
#define WT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define WT_ERROR_MAX 512

/* A parse error: a complete sentence without the file name, which the
** SQLite layer adds in front. */
typedef struct wt_error {
  char msg[WT_ERROR_MAX];
} wt_error;

/* Format the error message, printf-style.  Returns -1 so that callers can
** write "return wt_fail(err, ...);". */
int wt_fail(wt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A byte string that is not NUL-terminated. */
typedef struct wt_str {
  const char *p;
  size_t n;
} wt_str;

/* One tensor.  dims[] is in the file's own order: row-major (outermost
** first) for safetensors, ne[0]-first for GGUF. */
typedef struct wt_tensor {
  wt_str name;
  wt_str dtype;    /* dtype name; n==0 when the format's table does not know the type */
  int64_t type_id; /* GGUF: the stored ggml type id; safetensors: index in the dtype table */
  int ndim;
  const uint64_t *dims; /* ndim entries */
  uint64_t numel;       /* product of dims (1 for a scalar) */
  uint64_t data_start;  /* first byte, relative to the data section */
  uint64_t data_end;    /* one past the last byte, relative to the data section */
  uint64_t offset;      /* absolute position of the first byte in the file */
  uint64_t nbytes;      /* data_end - data_start; meaningless when !nbytes_known */
  int nbytes_known;     /* 0 for a GGUF type id that no table knows */
} wt_tensor;

/* One metadata entry.  For safetensors, value is the string as decoded
** from JSON.  For GGUF, value_pos is where the value's bytes start in the
** file and the gguf_* fields say how to read them (see gguf_value.h). */
typedef struct wt_meta {
  wt_str key;
  wt_str value;       /* safetensors only */
  uint32_t type;      /* GGUF value type (gguf_value.h) */
  uint32_t elem_type; /* GGUF array element type */
  uint64_t count;     /* GGUF array length */
  uint64_t value_pos; /* GGUF: absolute offset of the value (after the type tag, or
                         after the array's element type and count) */
  uint64_t value_len; /* GGUF: bytes the value occupies from value_pos */
} wt_meta;

/* A parsed file: its format and layout (what gguf_info() and
** safetensors_info() show), its tensors and metadata entries in file
** order, and the arena that owns them.  The fields marked GGUF are 0 for
** safetensors. */
typedef struct wt_model {
  int format; /* WT_FORMAT_* */
  uint64_t file_size;
  uint64_t header_len;  /* safetensors: N; GGUF: bytes up to the end of the tensor infos */
  uint64_t data_offset; /* absolute start of the data section */
  uint32_t version;     /* GGUF version */
  int big_endian;       /* GGUF byte order */
  uint64_t alignment;   /* GGUF alignment */
  wt_tensor *tensors;
  size_t n_tensors;
  wt_meta *meta;
  size_t n_meta;
  struct wt_arena *arena; /* owns tensors, meta, dims and decoded strings */
} wt_model;

#define WT_FORMAT_SAFETENSORS 1
#define WT_FORMAT_GGUF        2

/* Free everything a parser allocated for the model (not the header bytes). */
void wt_model_free(wt_model *m);

/* Bump allocator for a model's descriptions: one free releases all.
** wt_arena_alloc returns zeroed memory, or NULL on overflow or OOM. */
struct wt_arena *wt_arena_new(void);
void *wt_arena_alloc(struct wt_arena *a, size_t n);
void wt_arena_free(struct wt_arena *a);

/* Bytes the arena holds (its blocks). */
size_t wt_arena_size(const struct wt_arena *a);

/* A 64-bit number as printf's %llu takes it (messages print sizes and
** offsets so). */
#define U(x) ((unsigned long long)(x))

/* Checked arithmetic: return 0 and set *r when the result fits. */
static inline int wt_add(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_add_overflow(a, b, r) ? -1 : 0;
}
static inline int wt_mul(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_mul_overflow(a, b, r) ? -1 : 0;
}

/* Write p[0..n) quoted for an error message: printable ASCII and valid
** UTF-8 as they are, quotes, backslashes and other bytes as \xNN, cut at
** a character boundary with "..." so that it fits out_size (a buffer of
** WT_QUOTE_SIZE shows 48 bytes of the name).  The result is always valid
** UTF-8.  Returns out. */
const char *wt_quote(char *out, size_t out_size, const char *p, size_t n);

#define WT_QUOTE_SIZE (48 * 4 + 8)

/* Write t's dims as "[a,b,c]" into buf (for messages and the SQL shape
** columns): in stored order, or outermost first when row_major (a GGUF
** tensor's ne[] reversed, as PyTorch shows shapes).  Cut short if buf is
** too small.  Returns buf. */
const char *wt_shape_text(char *buf, size_t size, const wt_tensor *t, int row_major);

#endif
