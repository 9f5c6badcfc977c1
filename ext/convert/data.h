/*
** data.h: the bytes of a conversion's tensors, for write/write_job.h.  No
** SQLite.  Layer: convert.
**
** A tensor whose output type is its checkpoint dtype and that no rule
** changes (F32, F16 or BF16 kept, no permutation, no shift) is copied by
** reference (the job's WT_FROM_FILE: copy_file_range(2) from a local
** file, a reflink where the filesystem has them).  Every other one is the
** job's WT_FROM_ENCODER: cv_encode_tensor() reads it from its checkpoint,
** at most CV_CHUNK_ELEMS elements at a time (a head at a time for a
** permuted one), turns it into float32 and then into its output type
** (numbers.h), and gives the bytes to the job as they are made: the memory
** a conversion takes does not grow with the model.
**
** The converter passes BF16 through float32, which makes a signaling NaN
** quiet: a BF16 tensor kept as BF16 is copied only when it holds none
** (cv_data_is_copy reads it once to know), else encoded.
*/
#ifndef WT_CV_DATA_H
#define WT_CV_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "convert/plan.h"
#include "write/write_job.h"

/* Elements converted at a time (the float32 buffer is 4 bytes each; a
** head of a permuted tensor may take more, up to CV_CHUNK_MAX_ELEMS). */
#define CV_CHUNK_ELEMS     ((size_t)1 << 20)
#define CV_CHUNK_MAX_ELEMS ((size_t)4 << 20)

/* What the encoder keeps between calls: the plan and its buffers. */
typedef struct cv_data {
  const cv_plan *plan;
  unsigned char *src_buf, *out_buf;
  float *f32;
  size_t cap; /* elements the buffers hold */
} cv_data;

/* Whether tensor i of d->plan is copied by reference: *copy 1 or 0; 0, or
** -1 with err set (its checkpoint could not be read). */
int cv_data_is_copy(cv_data *d, size_t i, int *copy, wt_error *err);

/* The job's encoder (wt_encode_fn) of tensor i of the plan; ctx is the
** cv_data. */
int cv_data_encode(void *ctx, size_t i, wt_job_sink *sink, wt_error *err);

void cv_data_free(cv_data *d);

#endif
