/*
** gguf_internal.h: what the files of the GGUF parser share and nobody else
** uses (layer: formats).  The public API is gguf_parser.h.
**
** gguf_parser.c reads the file header and drives the parse; gguf_read.c
** reads numbers and strings at the cursor and words the errors;
** gguf_kv.c reads the key-value section and general.alignment;
** gguf_unique.c rejects repeated keys and tensor names; gguf_tensors.c
** reads the tensor infos and places their data.
*/
#ifndef WT_GGUF_INTERNAL_H
#define WT_GGUF_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "base/model.h"
#include "base/utf8.h"
#include "byte_load.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GG_HOST_BE 1
#else
#define GG_HOST_BE 0
#endif

#define GG_MAX_STRING ((uint64_t)1 << 30) /* ggml GGUF_MAX_STRING_LENGTH */
#define GG_MAX_ARRAY  ((uint64_t)1 << 30) /* ggml GGUF_MAX_ARRAY_ELEMENTS */
#define GG_MAX_DIMS   4                   /* ggml GGML_MAX_DIMS */
#define GG_MAX_NAME   63                  /* ggml GGML_MAX_NAME - 1 */
#define GG_ALIGNMENT  32                  /* ggml GGUF_DEFAULT_ALIGNMENT */
#define GG_QUOTE_SIZE WT_QUOTE_SIZE

/* Typical sizes, for the estimate of a header's end (gg_estimate): a
** key-value pair with a key of 26 bytes and a 4-byte value, a tensor info
** with a name of 22 bytes and 2 dimensions (Llama-3's "blk.31.ffn_down.weight"). */
#define GG_TYPICAL_KV     48
#define GG_TYPICAL_TENSOR 64

/* What is being read, for messages. */
enum { GG_HEADER, GG_KV, GG_TENSOR };

/* The parser's state: the bytes, a cursor, the byte order and width of
** lengths, and the item being read. */
typedef struct gg_parser {
  const unsigned char *d;
  uint64_t size;  /* the file's size: every check and message is against it */
  uint64_t avail; /* bytes of the file in d (<= size) */
  uint64_t need;  /* set when a read went past avail: the bytes to ask for */
  uint64_t pos;   /* always <= size */
  int swap;       /* numbers must be byte-swapped on this host */
  unsigned len;   /* width of lengths, counts and dims: 4 in v1, else 8 */
  wt_model *m;
  wt_error *err;
  int kind;       /* GG_HEADER, GG_KV or GG_TENSOR */
  uint64_t index; /* of the KV or tensor */
  wt_str name;    /* its key or name once read (p == NULL before) */
  /* for the estimate of where the header ends (gg_estimate) */
  uint64_t kv_left, tensors_left; /* items after the one being read */
  uint64_t item_end;              /* where the item being read ends, estimated (0: unknown) */
  /* where a parse of a prefix stopped, so that the next goes on from there */
  int stage;                /* GG_STAGE_* */
  uint64_t i;               /* the key-value pair or tensor the stage is at */
  uint64_t n_kv, n_tensors; /* the counts, once read */
  uint64_t *dims;           /* the tensors' dimensions, once allocated */
  uint64_t *key_at;         /* where each pair starts (its key's length), for messages */
  uint64_t *name_at;        /* where each tensor info starts (its name's length) */
  uint64_t arr_start;       /* an array of strings stopped in: its first element's byte, */
  uint64_t arr_i, arr_pos;  /* and the element and byte it stopped at (arr_i 0: none) */
} gg_parser;

/* The stages of a parse. */
enum { GG_STAGE_HEADER, GG_STAGE_KVS, GG_STAGE_TENSORS };

/* =================== Messages and reading (gguf_read.c) =================== */

/* Fail with "<item> at byte <at>: <message>".  Returns -1. */
__attribute__((format(printf, 3, 4))) int gg_fail(gg_parser *g, uint64_t at, const char *fmt, ...);

/* Fail with "truncated: <item> <what> at byte <at> runs past the end of
** the file (<size> bytes)".  Returns -1. */
__attribute__((format(printf, 3, 4))) int gg_truncated(gg_parser *g, uint64_t at, const char *fmt,
                                                       ...);

/* Fail because an allocation of n entries of what failed. */
int gg_oom(gg_parser *g, const char *what, uint64_t n);

/* 0 when the first end bytes of the file are in memory; else -1 with
** g->need set, so that the caller reads more and parses again.  Every
** byte the parser looks at goes through here (after the checks against
** the file size), so a parse of a prefix fails the same way as a parse
** of the whole file, or asks for more. */
static inline int gg_need(gg_parser *g, uint64_t end) {
  if (end <= g->avail)
    return 0;
  g->need = end;
  return -1;
}

/* Read the u32 field what at the cursor. */
int gg_u32(gg_parser *g, const char *what, uint32_t *v);

/* Read the u64 field what at the cursor. */
int gg_u64(gg_parser *g, const char *what, uint64_t *v);

/* Read a length, count or dimension (u32 in v1, u64 after). */
int gg_len(gg_parser *g, const char *what, uint64_t *v);

/* Read a string whose length is at the cursor; s points into the file.
** what names it in messages ("key"), what_len names its length field. */
int gg_string(gg_parser *g, const char *what, const char *what_len, wt_str *s);

/* gg_string(), with the string copied into the model's arena: keys and
** tensor names, so that the model never points into the bytes parsed (see
** gguf_parser.h). */
int gg_string_copy(gg_parser *g, const char *what, const char *what_len, wt_str *s);

/* ======================== Sections (one file each) ======================== */

/* gguf_kv.c: read KV number i into kv. */
int gg_kv(gg_parser *g, uint64_t i, wt_meta *kv);

/* gguf_kv.c: apply general.alignment if present: UINT32 (A1), non-zero
** power of two (A2).  Keys are unique by now. */
int gg_alignment(gg_parser *g);

/* gguf_unique.c: reject a file whose keys (K3, kind GG_KV) or tensor names
** (T2, kind GG_TENSOR) are not unique, naming the first repeat in file
** order. */
int gg_unique(gg_parser *g, int kind);

/* gguf_tensors.c: read tensor info number i into t; dims has room for 4
** values. */
int gg_tensor(gg_parser *g, uint64_t i, wt_tensor *t, uint64_t *dims);

/* gguf_tensors.c: place the data section after the tensor infos (D1). */
int gg_data_section(gg_parser *g);

/* gguf_tensors.c: check tensor i's offset against the offset policy of
** gguf_parser.c and set its absolute offset and end. */
int gg_place(gg_parser *g, size_t i);

/* gguf_tensors.c: reject known-size tensors whose data overlap. */
int gg_no_overlap(gg_parser *g);

#endif
