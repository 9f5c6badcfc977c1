/*
** gguf_parser.h: parse the header of a GGUF file (versions 1, 2 and 3,
** either byte order) from its bytes into a validated wt_model.  Pure C, no
** SQLite.
** Layer: formats (pure C; uses base/).
*/
#ifndef WT_GGUF_PARSER_H
#define WT_GGUF_PARSER_H

#include <stdint.h>

#include "base/model.h"

/* Parse data[0..size).  On success returns 0 and fills *out (free it with
** wt_model_free); on failure returns -1 with err set and *out empty.
** Keys and tensor names are copied into the model's arena; metadata
** values are positions in data (wt_meta.value_pos), to be read from the
** same bytes.  For tests only: the module parses prefixes of files
** with gguf_parse_prefix. */
int gguf_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err);

/* The same with only the first avail bytes of a file of size bytes in
** data.  A header's length is not known before it is read: when the parse
** needs bytes past avail it returns 1 with *need set (avail < *need <=
** size): read the first *need bytes (or more) and call again.  *need is
** where the header probably ends, from the counts read so far (an array
** of strings as long as its first elements on average, the items after it
** at typical sizes), so that a large header is read in about two reads;
** the caller must still grow by some factor of its own when an estimate
** falls short.  Messages are those of a parse of the whole file. */
int gguf_parse_prefix(const unsigned char *data, uint64_t avail, uint64_t size, wt_model *out,
                      uint64_t *need, wt_error *err);

/* A parse of a header read in pieces, each call going on from where the
** last one stopped (no byte is parsed twice, but for the item a call
** stopped in): for a reader that reads a large header in several reads. */
typedef struct gguf_prefix gguf_prefix;

/* A new parse: NULL when out of memory.  Free with gguf_prefix_free. */
gguf_prefix *gguf_prefix_new(void);

/* gguf_parse_prefix() going on from the last call on p: data holds the
** same first bytes as that call's (it may have moved), avail at least as
** many, size the same.  After a return of 0 (*out is the model) or -1, p
** is spent: free it.
**
** A call may be abandoned at any read of data (a SIGBUS caught by the
** guard of bytes/mapping.h jumps out of it when the file shrinks under a
** mapping): everything it allocated is reachable from p, which
** gguf_prefix_free() releases, and no lock is held while data is read. */
int gguf_prefix_parse(gguf_prefix *p, const unsigned char *data, uint64_t avail, uint64_t size,
                      wt_model *out, uint64_t *need, wt_error *err);

/* After gguf_prefix_parse() returned 1: the bytes the parse needs to go
** on, at most the *need it returned (an estimate of the header's end). */
uint64_t gguf_prefix_needed(const gguf_prefix *p);

void gguf_prefix_free(gguf_prefix *p);

/* True when the first bytes look like GGUF (magic "GGUF"). */
int gguf_sniff(const unsigned char *data, uint64_t size);

#endif
