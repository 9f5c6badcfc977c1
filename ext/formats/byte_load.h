/*
** byte_load.h: 2, 4 and 8-byte numbers loaded from any alignment, swapped
** when the file's byte order is not the host's.  Shared by the GGUF parser
** (gguf_*.c), its value reader (gguf_value.c) and the safetensors readers.  Pure C, no SQLite.
*/
#ifndef WT_BYTE_LOAD_H
#define WT_BYTE_LOAD_H

#include <stdint.h>
#include <string.h>

/* The u16 at p, byte-swapped if swap is set. */
static inline uint16_t wt_load16(const unsigned char *p, int swap) {
  uint16_t v;
  memcpy(&v, p, 2);
  return swap ? __builtin_bswap16(v) : v;
}

/* The u32 at p, byte-swapped if swap is set. */
static inline uint32_t wt_load32(const unsigned char *p, int swap) {
  uint32_t v;
  memcpy(&v, p, 4);
  return swap ? __builtin_bswap32(v) : v;
}

/* The u64 at p, byte-swapped if swap is set. */
static inline uint64_t wt_load64(const unsigned char *p, int swap) {
  uint64_t v;
  memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}

/* The little-endian u64 at p, whatever the host's byte order (the header
** length of a safetensors file). */
static inline uint64_t wt_load_le64(const unsigned char *p) {
  uint64_t n = 0;
  int i;
  for (i = 0; i < 8; i++)
    n |= (uint64_t)p[i] << (8 * i);
  return n;
}

#endif
