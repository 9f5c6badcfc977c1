/*
** gguf_split_job.c: the job of gguf_split(): a GGUF written as the parts of
** a split model, as llama.cpp's gguf-split writes them
** (examples/gguf-split/gguf-split.cpp, split_strategy) (rewrite_job.h).
** Layer: write.
**
** The tensors of the input (a GGUF, or the first part of a split one) go
** into parts in their order: a new part every max_tensors tensors
** (gguf-split's default, 128), or when the next tensor, padded to 32
** bytes, would take the part past max_bytes.  Part K of N is
** PREFIX-0000K-of-0000N.gguf; the first holds every key of the input, the
** others none, and each gets split.no (UINT16, K - 1), split.count
** (UINT16, N) and split.tensors.count (INT32, the tensors of all parts),
** replaced where the input has them, else after the others.  Each part is
** written as gguf_rewrite() writes a file (rewrite_job_int.h: a temporary
** file, tensors copied by reference, read back and compared); only when
** every part is are they renamed into place.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite_job.h"
#include "rewrite_job_int.h"

/* gguf-split's defaults: tensors per part, and the padding it counts. */
#define GS_PAD       32
#define GS_MAX_PARTS 99999
#define GS_N_KEYS    3 /* split.no, split.count, split.tensors.count */

/* The part of each tensor of j (first[k]: part k's first tensor), as
** split_strategy assigns them; the number of parts, or -1. */
static int gs_assign(const rw_job *j, uint64_t max_tensors, uint64_t max_bytes, size_t *first,
                     wt_error *err) {
  uint64_t used = 0;
  size_t i;
  int n = 1;
  first[0] = 0;
  for (i = 0; i < j->n_ts; i++) {
    uint64_t size = (j->ts[i].t->nbytes + GS_PAD - 1) / GS_PAD * GS_PAD;
    int split = max_tensors > 0 ? i > 0 && i % max_tensors == 0 : used + size > max_bytes;
    if (split && i > 0) {
      if (n == GS_MAX_PARTS)
        return wt_fail(err, "more than %d parts", GS_MAX_PARTS);
      first[n++] = i;
      used = 0;
    }
    used += size;
  }
  first[n] = j->n_ts;
  return n;
}

/* The keys of part k of n (of n_ts tensors in all): the first part's are
** the input's; each gets the split keys, numbers of their types. */
static int gs_keys(const rw_job *j, int k, int n, size_t n_ts, rw_list *l, wt_error *err) {
  static const char *const names[GS_N_KEYS] = {"split.no", "split.count", "split.tensors.count"};
  static const uint32_t types[GS_N_KEYS] = {GGUF_TYPE_UINT16, GGUF_TYPE_UINT16, GGUF_TYPE_INT32};
  const int64_t vals[GS_N_KEYS] = {k, n, (int64_t)n_ts};
  int i;
  if (k == 0 && rw_from_model(l, &j->src->model, j->src->header, err) != 0)
    return -1;
  for (i = 0; i < GS_N_KEYS; i++)
    if (rw_set_number(l, names[i], types[i], vals[i], err) != 0)
      return -1;
  return 0;
}

int wt_gguf_split(const wt_rewrite_req *r, wt_rewrite_res *res, wt_error *err) {
  rw_job j;
  wt_out *out = NULL, **po = NULL;
  rw_list *keys = NULL;
  size_t *first = NULL;
  char path[4096];
  int n = 0, k, m, rc = -1;
  memset(&j, 0, sizeof(j));
  j.req = r;
  j.verify = 1;
  res->where = r->out;
  if (wt_file_is_remote(r->out, strlen(r->out))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  if (rw_open_input(&j, r->in, WT_FORMAT_GGUF, res, err) != 0)
    goto done;
  res->where = r->out;
  j.be = j.src->model.big_endian; /* the parts in the input's byte order */
  if ((first = calloc(j.n_ts + 2, sizeof(*first))) == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  if ((n = gs_assign(&j, r->max_tensors, r->max_bytes, first, err)) < 0)
    goto done;
  out = calloc((size_t)n, sizeof(*out)); /* closed */
  po = calloc((size_t)n, sizeof(*po));
  keys = calloc((size_t)n, sizeof(*keys));
  if (out == NULL || po == NULL || keys == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (k = 0; k < n; k++) {
    if (snprintf(path, sizeof(path), "%s-%05d-of-%05d.gguf", r->out, k + 1, n) >=
        (int)sizeof(path)) {
      wt_fail(err, "the prefix is too long");
      goto done;
    }
    for (m = 0; m < j.n_parts; m++)
      if (wt_out_not_input(path, &j.parts[m]->file, NULL, err) != 0)
        goto done;
    if (gs_keys(&j, k, n, j.n_ts, &keys[k], err) != 0 ||
        rw_gguf(&j, j.ts + first[k], first[k + 1] - first[k], 0, path, &keys[k], &out[k], err) != 0)
      goto done;
  }
  for (k = 0; k < n; k++)
    po[k] = &out[k];
  if (wt_out_commit_all(po, (size_t)n, err) != 0) /* polls the interrupt before renaming */
    goto done;
  res->n_parts = n;
  rc = 0;
done:
  for (k = 0; out != NULL && k < n; k++)
    wt_out_abort(&out[k]);
  for (k = 0; keys != NULL && k < n; k++)
    rw_free(&keys[k]);
  free(out);
  free(po);
  free(keys);
  free(first);
  rw_job_free(&j);
  return rc;
}
