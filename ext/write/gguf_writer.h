/*
** gguf_writer.h: encode a GGUF header (version 3, little-endian, or
** big-endian when asked) from a list of metadata entries and tensor infos: the bytes up to the start of
** the data section, and where each tensor's bytes go in it.  Pure C: no
** SQLite, no file access.  What it writes re-parses with gguf_parse().
** Layer: write (pure C; uses formats/, base/).
**
** The layout is ggml's (ggml/src/gguf.cpp, gguf_write_to_buf, and
** gguf-py's GGUFWriter, llama.cpp at b5000): magic "GGUF", version 3,
** tensor count, KV count, the KVs, the tensor infos, zero padding to the
** alignment; then the tensors' data in tensor-info order, each padded with
** zeros to the alignment (the last one too).  The alignment is the value of
** a general.alignment entry (UINT32, a power of two) or 32.
*/
#ifndef WT_GGUF_WRITER_H
#define WT_GGUF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "formats/gguf_value.h"

/* ggml's limits, which gguf_parse() enforces too. */
#define GW_MAX_DIMS   4
#define GW_MAX_NAME   63
#define GW_MAX_STRING ((uint64_t)1 << 30)
#define GW_MAX_ARRAY  ((uint64_t)1 << 30)
#define GW_ALIGNMENT  32
#define GW_VERSION    3

/* One metadata entry: its value's bytes as GGUF v3 stores them after the
** type tag, little-endian (a STRING: u64 length and bytes; an ARRAY: u32
** element type, u64 count, the elements). */
typedef struct gw_kv {
  wt_str key;
  uint32_t type; /* GGUF_TYPE_* */
  const unsigned char *val;
  size_t val_len;
} gw_kv;

/* One tensor info.  nbytes and data_start are filled in by
** gguf_write_header(). */
typedef struct gw_tensor {
  wt_str name;
  uint32_t type; /* ggml type id */
  int ndim;
  uint64_t dims[GW_MAX_DIMS]; /* ne[0] first */
  uint64_t nbytes;            /* out: the tensor's bytes */
  uint64_t data_start;        /* out: its offset in the data section */
} gw_tensor;

/* Append the header to out: 0 with *alignment and *data_size (the data
** section's bytes, each tensor padded) set, or -1 with err set (a bad
** value, key or tensor, named; out of memory).  On failure out may hold
** part of a header. */
int gguf_write_header(const gw_kv *kv, size_t n_kv, gw_tensor *t, size_t n_t, wt_buf *out,
                      uint64_t *alignment, uint64_t *data_size, wt_error *err);

/* The same in a byte order: be 1 writes every number of the header
** big-endian (the version, counts, lengths, value types, each element of
** a value, dimensions, tensor types and offsets; the values are given
** little-endian as always), as ggml writes a file on a big-endian host
** and llama.cpp's gguf-py/gguf/scripts/gguf_convert_endian.py makes one;
** the parser reads such a file by its version field. */
int gguf_write_header_order(const gw_kv *kv, size_t n_kv, gw_tensor *t, size_t n_t, int be,
                            wt_buf *out, uint64_t *alignment, uint64_t *data_size, wt_error *err);

/* 0 when val[0..n) is exactly one well-formed value of type, else -1 with
** err set (a sentence without the key). */
int gw_value_check(uint32_t type, const unsigned char *val, size_t n, wt_error *err);

/* Append the value of kv, an entry of the parsed model m whose header bytes
** are data, re-encoded as version 3 little-endian (strings' u32 lengths of
** version 1 widened, a big-endian file's numbers swapped; every other byte
** as stored).  0, or -1 on a value past its end or out of memory. */
int gw_value_copy(wt_buf *out, const wt_model *m, const unsigned char *data, const wt_meta *kv);

/* Append a number as a scalar of type (an integer type, BOOL, FLOAT32 or
** FLOAT64): an integer i when !is_real, else the double r.  Returns 1 when
** it does not fit the type (out of range, a fraction or not finite for an
** integer type, BOOL other than 0 or 1, beyond FLOAT32's range), 0 when
** appended, -1 on out of memory. */
int gw_put_number(wt_buf *out, uint32_t type, int is_real, int64_t i, double r);

/* Append a STRING value (u64 length and the bytes). */
int gw_put_string(wt_buf *out, const char *p, size_t n);

#endif
