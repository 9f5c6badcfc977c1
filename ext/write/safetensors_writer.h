/*
** safetensors_writer.h: encode a safetensors header from metadata and a
** tensor table: the 8-byte length and the JSON, and where each tensor's
** bytes go in the data section.  Pure C: no SQLite, no file access.  What
** it writes re-parses with safetensors_parse().
** Layer: write (pure C; uses formats/, base/).
**
** The form is the reference crate's (safetensors 0.5, safetensors/src/
** tensor.rs, prepare() and Metadata's Serialize): compact JSON,
** "__metadata__" first when there is metadata, then the tensors in data
** order as {"dtype":..,"shape":[..],"data_offsets":[begin,end]}, offsets
** dense from 0, the JSON padded with spaces to a multiple of 8 bytes (so the
** data starts 8-aligned).  Strings are escaped as serde_json escapes them:
** '"' and '\' with a backslash, \b \f \n \r \t, other bytes below 0x20 as
** \u00xx; everything else as it is (UTF-8, which is required).
*/
#ifndef WT_SAFETENSORS_WRITER_H
#define WT_SAFETENSORS_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "formats/gguf_value.h"

/* The JSON's length is padded to a multiple of this. */
#define SW_HEADER_ALIGN 8

/* One __metadata__ entry (a string to a string, as every writer has it). */
typedef struct sw_meta {
  wt_str key, value;
} sw_meta;

/* One tensor.  nbytes and data_start are filled in by
** safetensors_write_header(). */
typedef struct sw_tensor {
  wt_str name;
  int dtype; /* index in the dtype table (formats/dtype.h) */
  int ndim;
  const uint64_t *dims; /* outermost first */
  uint64_t nbytes;      /* out */
  uint64_t data_start;  /* out: offset in the data section */
  size_t tag;           /* the caller's, untouched (e.g. where the bytes come from) */
} sw_tensor;

/* Sort t as the crate orders what it writes: by dtype, the wider first
** (descending order of the crate's Dtype enum, which is the table's
** order), then by name bytewise. */
void sw_sort_crate(sw_tensor *t, size_t n);

/* Append the header to out, the tensors in the order given: 0 with
** *data_size set, or -1 with err set (invalid UTF-8, a duplicate or
** reserved name, a shape whose bytes are not whole, out of memory). */
int safetensors_write_header(const sw_meta *meta, size_t n_meta, sw_tensor *t, size_t n_t,
                             wt_buf *out, uint64_t *data_size, wt_error *err);

#endif
