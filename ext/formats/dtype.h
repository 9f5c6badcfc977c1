/*
** dtype.h: the safetensors dtype table: the 22 dtype strings the Rust
** crate accepts (enum Dtype in safetensors/src/tensor.rs of
** huggingface/safetensors, version 0.8) and the bits one element occupies.
** Layer: formats (pure C; uses base/).
*/
#ifndef WT_DTYPE_H
#define WT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_dtype_info {
  const char *name; /* exactly as written in headers: "BF16", "F8_E4M3", ... */
  uint32_t bits;    /* bits per element: 4 for F4, 6 for F6_*, 8..64 */
} st_dtype_info;

#define ST_DTYPE_COUNT 22

/* Index of the dtype named p[0..n), or -1 if the crate does not know it. */
int st_dtype_find(const char *p, size_t n);

/* The entry at index i (0 <= i < ST_DTYPE_COUNT). */
const st_dtype_info *st_dtype_get(int i);

/* Index of a dtype whose name equals p[0..n) ignoring case, or -1; used to
** suggest the right spelling in an error message. */
int st_dtype_find_nocase(const char *p, size_t n);

#endif
