/*
** write_buf.h: appending to a growable byte buffer (wt_buf of
** formats/gguf_value.h) in little-endian order, for the header encoders.
** Layer: write (pure C; uses formats/, base/).
**
** Every function returns 0, or -1 and sets b->oom when memory runs out;
** after a failure the buffer keeps what it had and later appends fail too,
** so that a caller may check once at the end.
*/
#ifndef WT_WRITE_BUF_H
#define WT_WRITE_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "formats/gguf_value.h"

/* Append n bytes of p. */
int wb_put(wt_buf *b, const void *p, size_t n);

/* Append a string literal. */
#define WB_LIT(b, lit) wb_put((b), (lit), sizeof(lit) - 1)

/* Append n copies of byte c. */
int wb_fill(wt_buf *b, int c, size_t n);

/* Append v as 4 or 8 little-endian bytes. */
int wb_u32(wt_buf *b, uint32_t v);
int wb_u64(wt_buf *b, uint64_t v);

/* Append the decimal digits of v. */
int wb_dec(wt_buf *b, uint64_t v);

#endif
