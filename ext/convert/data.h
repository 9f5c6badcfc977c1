/*
** data.h: the data section of a conversion, streamed: every tensor of a
** plan read from its checkpoint a bounded chunk at a time, turned into its
** output type and appended to the output, then read back and checked.
** No SQLite.  Layer: convert.
**
** A tensor whose output type is its checkpoint dtype and that no rule
** changes (F32, F16 or BF16 kept as they are, without a permutation or a
** shift) is copied by reference (write/out_file.h: copy_file_range(2),
** in the kernel, from a local file).  Every other one goes through
** float32 (numbers.h), at most CV_CHUNK_ELEMS elements at a time: the
** memory a conversion takes does not grow with the model.
**
** The converter passes BF16 through float32, which makes a signaling NaN
** quiet; a copied BF16 tensor that holds one is re-encoded in place when
** the check finds it (cv_data_check), so that the output is the
** converter's in that case too.
*/
#ifndef WT_CV_DATA_H
#define WT_CV_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "convert/plan.h"
#include "write/out_file.h"

/* Elements converted at a time (the float32 buffer is 4 bytes each; a
** head of a permuted tensor may take more, up to CV_CHUNK_MAX_ELEMS). */
#define CV_CHUNK_ELEMS     ((size_t)1 << 20)
#define CV_CHUNK_MAX_ELEMS ((size_t)4 << 20)

/* What writing a plan's data leaves for the check. */
typedef struct cv_data {
  const cv_plan *plan;
  const uint64_t *start; /* each tensor's offset in the data section */
  uint64_t data_offset;  /* the data section's offset in the file */
  uint64_t data_size;    /* its size, the last tensor padded */
  uint64_t *hash;        /* per tensor: XXH3-64 of what was written (converted tensors) */
  unsigned char *copied; /* per tensor: 1 when copied by reference */
  unsigned char *src_buf, *out_buf;
  float *f32;
  size_t cap; /* elements the buffers hold */
} cv_data;

/* Append the data section of plan p (tensors at start[], a section of
** data_size bytes at data_offset of the file) to o: 0, or -1 with err set
** and *bad the index of the tensor it is about.  d is ready for
** cv_data_check() and cv_data_free() either way. */
int cv_data_write(cv_data *d, wt_out *o, const cv_plan *p, const uint64_t *start,
                  uint64_t data_offset, uint64_t data_size, size_t *bad, wt_error *err);

/* Read every tensor back and compare it with what it must be: a
** converted tensor with the hash of what was written, a copied one with
** its checkpoint bytes (a BF16 one with its signaling NaNs made quiet,
** re-encoded in place when it held any).  0, or -1 with err set and *bad
** set. */
int cv_data_check(cv_data *d, wt_out *o, size_t *bad, wt_error *err);

void cv_data_free(cv_data *d);

#endif
