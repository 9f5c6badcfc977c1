/*
** kv_sink.h: where the converter's parts put GGUF metadata entries.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The converter writes metadata in the order llama.cpp's converter adds
** it.  Each part (the hyperparameters, the vocabulary) hands its entries,
** in that order, to a sink that the caller owns; the sink copies what it
** is given, so a part may reuse its buffers between calls.  A value is
** encoded as gguf_writer.h's gw_kv holds it: the bytes after the type tag,
** GGUF v3 little-endian (a STRING: u64 length and bytes; an ARRAY: u32
** element type, u64 count, the elements).
*/
#ifndef WT_KV_SINK_H
#define WT_KV_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

typedef struct cv_kv_sink {
  void *ctx;
  /* Add one entry; 0, or -1 with err set (out of memory, a key given
  ** twice). */
  int (*add)(void *ctx, const char *key, uint32_t type, const unsigned char *val, size_t n,
             wt_error *err);
} cv_kv_sink;

#endif
