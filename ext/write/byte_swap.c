/*
** byte_swap.c: tensor bytes from one byte order to the other (byte_swap.h).
** Layer: write.
**
** Which types: those of one element per block in formats/ggml_type.c's
** table, whose element is one number (ggml's own byte swap of a big-endian
** GGUF, gguf-py/gguf/scripts/gguf_convert_endian.py in ggml-org/llama.cpp,
** swaps these as arrays of their width; its quantized cases are each a
** layout of its own, not supported here).
*/
#include "byte_swap.h"

#include "formats/ggml_type.h"

/* The types that can, for messages. */
#define WT_SWAP_TYPES "F32, F16, BF16, F64, I8, I16, I32 and I64"

unsigned wt_swap_width(int64_t t) {
  const ggml_type_info *ti = ggml_type_get(t);
  if (ti == NULL || ti->removed || ti->block_size != 1)
    return 0;
  return ti->type_size;
}

void wt_swap_elements(unsigned char *p, size_t n, unsigned width) {
  size_t i;
  unsigned k;
  if (width < 2)
    return;
  for (i = 0; i + width <= n; i += width)
    for (k = 0; k < width / 2; k++) {
      unsigned char c = p[i + k];
      p[i + k] = p[i + width - 1 - k];
      p[i + width - 1 - k] = c;
    }
}

int wt_swap_refuse(wt_error *err, const char *name, const char *type) {
  return wt_fail(err,
                 "tensor %s is %s, which cannot change byte order element by element "
                 "(" WT_SWAP_TYPES " can)",
                 name, type);
}
