/*
** byte_swap.h: tensor bytes from one byte order to the other, element by
** element, for the writers that change it: gguf_rewrite() asked for the
** other byte order, safetensors_write() and safetensors_split() from a
** big-endian GGUF (safetensors is little-endian).  Pure C.
** Layer: write (uses formats/, base/).
**
** Only the types whose elements are plain numbers can be swapped so: F32,
** F16, BF16, F64, I8, I16, I32, I64 (the ggml types of one element per
** block).  A quantized type's blocks mix fields of several widths
** (a 16-bit scale beside bytes of 4-bit pairs): reversing each element's
** bytes does not apply, and the writers refuse it.
*/
#ifndef WT_BYTE_SWAP_H
#define WT_BYTE_SWAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* The bytes of one element of ggml type id t when its tensors change byte
** order by reversing each element's bytes (1, 2, 4 or 8; 1: nothing to
** do), or 0 when they cannot (quantized, unknown). */
unsigned wt_swap_width(int64_t t);

/* Reverse the bytes of each width-byte element of p[0..n) (n a multiple
** of width; width 0 or 1: nothing). */
void wt_swap_elements(unsigned char *p, size_t n, unsigned width);

/* Refuse tensor name (quoted) of type (its name) whose bytes cannot be
** swapped: -1 with err naming the types that can. */
int wt_swap_refuse(wt_error *err, const char *name, const char *type);

#endif
