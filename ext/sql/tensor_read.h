/*
** tensor_read.h: a tensor's decoder (tensor_read.c), and a buffer of
** whole blocks of one tensor read through the source (pread, or a copy
** from the file's mapping under the SIGBUS guard: bytes/source.h), so that
** values are decoded a chunk at a time and nothing is allocated in
** proportion to a tensor.  The decoders read the buffer, not the mapping:
** decoding in place in the mapping measured slower than decoding the copy,
** which stays in the CPU's L2 cache (tests/bench/RESULTS.md: mapped vs
** pread; Q4_K statistics 1.18x the time, a BF16 histogram 1.09x to 1.23x),
** and it keeps the guarded code to one memcpy.  Layer: sql.
*/
#ifndef WT_TENSOR_READ_H
#define WT_TENSOR_READ_H

#include <stdint.h>

#include "decode/decode.h"
#include "bytes/source.h"

/* The decoder of tensor t of src (fn names the caller in errors): NULL
** with *pzErr set when it cannot be decoded; *nvalues its value count.
** An NVFP4 tensor with a per-tensor scale (an F32 tensor of one value
** named NAME.scale or NAME.weight.scale beside NAME.weight) gets a copy of
** its codec in *copy that applies the scale. */
const wt_codec *wt_tensor_codec(const char *fn, const wt_source *src, const wt_tensor *t,
                                uint64_t *nvalues, wt_codec *copy, char **pzErr);

/* A buffer of whole blocks of one tensor: bytes of values [v0, v1). */
typedef struct wt_chunk {
  const wt_source *src;
  const wt_tensor *t;
  const wt_codec *codec;
  unsigned char *buf;
  uint64_t cap;    /* bytes buf holds: whole blocks */
  uint64_t v0, v1; /* values now in buf */
} wt_chunk;

/* Values per chunk: a multiple of WT_DECODE_CHUNK (so that statistics
** are summed in the same steps whatever the chunking) of about
** WT_READ_CHUNK bytes. */
uint64_t wt_chunk_values(const wt_codec *codec);

/* Set up k for tensor t; the buffer holds max_values values.  Returns 0
** or -1 (out of memory).  Free k->buf with free(). */
int wt_chunk_init(wt_chunk *k, const wt_source *src, const wt_tensor *t, const wt_codec *codec,
                  uint64_t max_values);

/* Read the blocks holding values [v, v + n) (n > 0, within the tensor and
** the buffer's size in whole blocks) into k, unless they are there. */
int wt_chunk_load(wt_chunk *k, uint64_t v, uint64_t n, wt_error *e);

/* The bytes in k (whole blocks, from value k->v0), for decode.h. */
uint64_t wt_chunk_nbytes(const wt_chunk *k);

#endif
