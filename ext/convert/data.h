/*
** data.h: the bytes of a conversion's tensors, for write/write_job.h.  No
** SQLite.  Layer: convert.
**
** An F32 or F16 tensor kept in its type, with no rule to apply (no
** permutation, no shift), is copied by reference (the job's WT_FROM_FILE:
** copy_file_range(2) from a local file, a reflink where the filesystem
** has them).  Every other one is the job's WT_FROM_ENCODER:
** cv_data_encode() reads it from its checkpoint at most CV_CHUNK_ELEMS
** elements at a time (a head at a time for a permuted one), turns it into
** float32 and then into its output type (numbers.h), and gives the bytes
** to the job as they are made: the memory a conversion takes does not
** grow with the model.
**
** A BF16 tensor kept as BF16 is passed through in one pass (numbers.h,
** cv_bf16_quiet): the converter's float32 round trip makes a signaling NaN
** quiet, so its bytes must be looked at anyway, and looking at them on
** their way to the output costs what a copy in the kernel costs.
**
** The checkpoint is read through its mapping (bytes/file.h, under the
** SIGBUS guard) when it is a local file: each byte is read once and
** decoded where it lies.
*/
#ifndef WT_CV_DATA_H
#define WT_CV_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/digest.h"
#include "convert/plan.h"
#include "write/write_job.h"

/* Elements converted at a time (the float32 buffer is 4 bytes each; a
** head of a permuted tensor may take more, up to CV_CHUNK_MAX_ELEMS). */
#define CV_CHUNK_ELEMS     ((size_t)1 << 20)
#define CV_CHUNK_MAX_ELEMS ((size_t)4 << 20)

/* What the encoder keeps between calls: the plan and its buffers. */
typedef struct cv_data {
  const cv_plan *plan;
  char (*hash)[WT_DIGEST_HEX_MAX]; /* per tensor: its source bytes' XXH3-64 ("": none) */
  unsigned char *src_buf, *out_buf;
  float *f32;
  size_t cap; /* elements the buffers hold */
} cv_data;

/* Whether tensor i of d->plan is copied by reference: *copy 1 or 0; when
** it is and hash is set, d->hash[i] gets the XXH3-64 of its bytes, read
** here through the mapping (the write job compares the copy with it
** rather than read the checkpoint again).  0, or -1 with err set. */
int cv_data_is_copy(cv_data *d, size_t i, int hash, int *copy, wt_error *err);

/* The job's encoder (wt_encode_fn) of tensor i of the plan; ctx is the
** cv_data. */
int cv_data_encode(void *ctx, size_t i, wt_job_sink *sink, wt_error *err);

void cv_data_free(cv_data *d);

#endif
