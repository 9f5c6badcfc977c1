/*
** write_buf.c: appending to a growable byte buffer.  See write_buf.h.
** Layer: write (pure C; uses formats/, base/).
*/
#include "write_buf.h"

#include <stdlib.h>
#include <string.h>

/* The first allocation of a buffer. */
#define WB_FIRST ((size_t)4096)

/* Make room for extra more bytes. */
static int wb_reserve(wt_buf *b, size_t extra) {
  size_t cap;
  char *p;
  if (b->oom)
    return -1;
  if (b->cap - b->n >= extra)
    return 0;
  cap = b->cap ? b->cap : WB_FIRST;
  while (cap - b->n < extra) {
    if (cap > SIZE_MAX / 2) {
      b->oom = 1;
      return -1;
    }
    cap *= 2;
  }
  p = realloc(b->p, cap);
  if (p == NULL) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

int wb_put(wt_buf *b, const void *p, size_t n) {
  if (wb_reserve(b, n) != 0)
    return -1;
  if (n > 0)
    memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

int wb_fill(wt_buf *b, int c, size_t n) {
  if (wb_reserve(b, n) != 0)
    return -1;
  memset(b->p + b->n, c, n);
  b->n += n;
  return 0;
}

int wb_u32(wt_buf *b, uint32_t v) {
  unsigned char le[4];
  int i;
  for (i = 0; i < 4; i++)
    le[i] = (unsigned char)(v >> (8 * i));
  return wb_put(b, le, 4);
}

int wb_u64(wt_buf *b, uint64_t v) {
  unsigned char le[8];
  int i;
  for (i = 0; i < 8; i++)
    le[i] = (unsigned char)(v >> (8 * i));
  return wb_put(b, le, 8);
}

int wb_dec(wt_buf *b, uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[sizeof(digits) - 1 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  return wb_put(b, digits + sizeof(digits) - n, (size_t)n);
}
