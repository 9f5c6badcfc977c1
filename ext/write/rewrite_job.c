/*
** rewrite_job.c: the job of gguf_rewrite() and safetensors_rewrite(): a
** copy of a model file with its metadata edited and every tensor byte for
** byte (rewrite_job.h).  Layer: write.
**
** What is written: the input's keys in their order, edited in place, new
** ones at the end; the tensors in their order.  The first part of a split
** GGUF brings every part's tensors: the model merged as gguf-split --merge
** writes it (split.count 0).  GGUF: version 3, little-endian, the input's
** alignment (or general.alignment as edited), data laid out as ggml writes
** it (gguf_writer.h).  safetensors: the crate's form (safetensors_writer.h)
** with the input's tensor order, so that the data section is the input's.
** The output is written, read back and compared through write_job.h
** (every key's name, type and value bytes, every tensor's name, type,
** shape, place and, unless verify is 0, an XXH3-64 of its bytes against
** the input's); any difference, error or interrupt removes the temporary
** file and leaves the output path as it was.
*/
#include "rewrite_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_swap.h"
#include "formats/gguf_value.h"
#include "gguf_writer.h"
#include "rewrite_job_int.h"
#include "safetensors_writer.h"
#include "write_job.h"

/* The value of GGUF key name of s as an integer, or -1 when it is not
** there or not an integer. */
static int64_t rw_int_key(const wt_source *s, const char *name) {
  const wt_meta *kv = wt_source_find_meta(s, name, strlen(name));
  gguf_cursor c;
  gguf_scalar v;
  if (kv == NULL || kv->type == GGUF_TYPE_ARRAY || kv->type == GGUF_TYPE_STRING)
    return -1;
  gguf_cursor_init(&c, &s->model, s->header, kv);
  if (gguf_read_scalar(&c, kv->type, &v) != 0 || v.kind != GGUF_SCALAR_INT)
    return -1;
  return v.i;
}

/* Open every part of the input: j->src alone, or, when it is the first
** part of a split GGUF (split.no 0, split.count N > 1, named
** PREFIX-00001-of-0000N.gguf as gguf-split names it), parts 2 to N, whose
** tensors follow its own, as gguf-split --merge reads them.  Fills j->ts. */
static int rw_open_parts(rw_job *j, const char *in, wt_rewrite_res *res, wt_error *err) {
  const wt_model *m = &j->src->model;
  int64_t n = m->format == WT_FORMAT_GGUF ? rw_int_key(j->src, "split.count") : -1;
  char suffix[32], *path = NULL;
  size_t len = strlen(in), i, total = 0;
  int k;
  if (n > 1 && rw_int_key(j->src, "split.no") != 0)
    return wt_fail(err, "part %lld of a split GGUF: give its first part",
                   (long long)rw_int_key(j->src, "split.no") + 1);
  if (n < 2)
    n = 1;
  j->parts = calloc((size_t)n, sizeof(*j->parts));
  if (j->parts == NULL)
    return wt_fail(err, "out of memory");
  j->parts[0] = j->src;
  j->n_parts = 1;
  snprintf(suffix, sizeof(suffix), "-%05d-of-%05d.gguf", 1, (int)n);
  if (n > 1 && (len < strlen(suffix) || strcmp(in + len - strlen(suffix), suffix) != 0))
    return wt_fail(err, "a split GGUF of %lld parts whose first part is not named *%s",
                   (long long)n, suffix);
  if (n > 1 && (path = strdup(in)) == NULL)
    return wt_fail(err, "out of memory");
  for (k = 1; k < n; k++) {
    wt_source *part;
    snprintf(suffix, sizeof(suffix), "-%05d-of-%05d.gguf", k + 1, (int)n);
    memcpy(path + len - strlen(suffix), suffix, strlen(suffix));
    if (wt_source_open(path, len, WT_FORMAT_GGUF, &part, err) != 0) {
      res->where = res->bad_part = path; /* the message names this part, not the first */
      return -1;
    }
    j->parts[j->n_parts++] = part;
    if (rw_int_key(part, "split.no") != k) {
      wt_fail(err, "%s is not part %d of the split (its split.no)", path, k + 1);
      free(path);
      return -1;
    }
  }
  free(path);
  for (k = 0; k < j->n_parts; k++)
    total += j->parts[k]->model.n_tensors;
  j->ts = calloc(total + 1, sizeof(*j->ts));
  if (j->ts == NULL)
    return wt_fail(err, "out of memory");
  for (k = 0; k < j->n_parts; k++)
    for (i = 0; i < j->parts[k]->model.n_tensors; i++)
      j->ts[j->n_ts++] = (rw_tsrc){j->parts[k], &j->parts[k]->model.tensors[i]};
  j->whole = j->n_parts == 1;
  return 0;
}

int rw_open_input(rw_job *j, const char *in, int format, wt_rewrite_res *res, wt_error *err) {
  res->where = in;
  if (wt_source_open(in, strlen(in), format, &j->src, err) != 0 ||
      rw_open_parts(j, in, res, err) != 0)
    return -1;
  return 0;
}

/* Write the file (header hdr, the tensors ts at start[] in a data section
** of data bytes), read it back and compare it with l and the input
** (alignment: the GGUF alignment asked, 0 for safetensors; whole: ts are
** the input's tensors in their order). */
static int rw_write(const rw_job *j, const rw_tsrc *ts, size_t n_ts, int whole, const char *path,
                    const rw_list *l, const wt_buf *hdr, const uint64_t *start, uint64_t data,
                    uint64_t alignment, wt_out *out, wt_error *err) {
  const wt_model *m = &j->src->model;
  wt_job_key *keys = calloc(l->n + 1, sizeof(*keys));
  wt_job_tensor *t = calloc(n_ts + 1, sizeof(*t));
  const wt_file **files = calloc((size_t)j->n_parts + 1, sizeof(*files));
  wt_job job;
  size_t i;
  int k, rc = -1;
  if (keys == NULL || t == NULL || files == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < l->n; i++)
    keys[i] = (wt_job_key){rw_key(l, i), l->e[i].type, rw_val(l, i), l->e[i].val_len};
  for (i = 0; i < n_ts; i++) {
    const wt_tensor *s = ts[i].t;
    unsigned swap = 0;
    if (m->format == WT_FORMAT_GGUF && ts[i].src->model.big_endian != j->be &&
        (swap = wt_swap_width(s->type_id)) == 0) {
      char q[WT_QUOTE_SIZE];
      wt_swap_refuse(err, wt_quote(q, sizeof(q), s->name.p, s->name.n),
                     s->dtype.n > 0 ? s->dtype.p : "of an unknown type");
      goto done;
    }
    t[i] = (wt_job_tensor){.name = s->name,
                           .type_id = s->type_id,
                           .ndim = s->ndim,
                           .dims = s->dims,
                           .nbytes = s->nbytes,
                           .data_start = start[i],
                           .from = WT_FROM_FILE,
                           .file = &ts[i].src->file,
                           .file_off = s->offset,
                           .swap = swap > 1 ? swap : 0};
    /* the input's layout and byte order: copied whole */
    whole = whole && start[i] == s->data_start && t[i].swap == 0;
  }
  for (k = 0; k < j->n_parts; k++)
    files[k] = &j->parts[k]->file;
  memset(&job, 0, sizeof(job));
  job.path = path;
  job.format = m->format;
  job.header = (const unsigned char *)hdr->p;
  job.header_len = hdr->n;
  job.data_size = data;
  job.tensors = t;
  job.n_tensors = n_ts;
  job.keys = keys;
  job.n_keys = l->n;
  job.alignment = alignment;
  job.verify = j->verify;
  job.data_from = whole ? &j->src->file : NULL;
  job.data_from_off = m->data_offset;
  job.sources = files;
  job.n_sources = (size_t)j->n_parts;
  job.interrupted = j->req->interrupted;
  job.ctx = j->req->ctx;
  rc = wt_job_write(&job, out, err);
done:
  free(keys);
  free(t);
  free(files);
  return rc;
}

int rw_gguf(const rw_job *j, const rw_tsrc *ts, size_t n_ts, int whole, const char *path,
            const rw_list *l, wt_out *out, wt_error *err) {
  gw_kv *kv = calloc(l->n + 1, sizeof(*kv));
  gw_tensor *t = calloc(n_ts + 1, sizeof(*t));
  uint64_t *start = calloc(n_ts + 1, sizeof(*start)), align, data;
  wt_buf hdr = {0};
  size_t i;
  int k, rc = -1;
  if (kv == NULL || t == NULL || start == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < l->n; i++)
    kv[i] = (gw_kv){rw_key(l, i), l->e[i].type, rw_val(l, i), l->e[i].val_len};
  for (i = 0; i < n_ts; i++) {
    const wt_tensor *s = ts[i].t;
    t[i] = (gw_tensor){s->name, (uint32_t)s->type_id, s->ndim, {0}, 0, 0};
    for (k = 0; k < s->ndim; k++)
      t[i].dims[k] = s->dims[k];
  }
  if (gguf_write_header_order(kv, l->n, t, n_ts, j->be, &hdr, &align, &data, err) != 0)
    goto done;
  for (i = 0; i < n_ts; i++)
    start[i] = t[i].data_start;
  rc = rw_write(j, ts, n_ts, whole, path, l, &hdr, start, data, align, out, err);
done:
  free(hdr.p);
  free(kv);
  free(t);
  free(start);
  return rc;
}

/* safetensors_rewrite's work once the edits are applied to l. */
static int rw_safetensors(const rw_job *j, const char *path, const rw_list *l, wt_out *out,
                          wt_error *err) {
  const wt_model *m = &j->src->model;
  sw_meta *meta = calloc(l->n + 1, sizeof(*meta));
  sw_tensor *t = calloc(m->n_tensors + 1, sizeof(*t));
  uint64_t *start = calloc(m->n_tensors + 1, sizeof(*start)), data;
  wt_buf hdr = {0};
  size_t i;
  int rc = -1;
  if (meta == NULL || t == NULL || start == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < l->n; i++)
    meta[i] = (sw_meta){rw_key(l, i), {(const char *)rw_val(l, i), l->e[i].val_len}};
  for (i = 0; i < m->n_tensors; i++) /* the parser lists them in data order */
    t[i] = (sw_tensor){m->tensors[i].name,
                       (int)m->tensors[i].type_id,
                       m->tensors[i].ndim,
                       m->tensors[i].dims,
                       0,
                       0,
                       i};
  if (safetensors_write_header(meta, l->n, t, m->n_tensors, &hdr, &data, err) != 0)
    goto done;
  for (i = 0; i < m->n_tensors; i++)
    start[i] = t[i].data_start;
  rc = rw_write(j, j->ts, j->n_ts, j->whole, path, l, &hdr, start, data, 0, out, err);
done:
  free(hdr.p);
  free(meta);
  free(t);
  free(start);
  return rc;
}

/* The keys of a merged split GGUF: the first part's, with split.count 0
** (what gguf-split --merge writes: "do not trigger merge if we try to
** merge again the output", llama.cpp examples/gguf-split/gguf-split.cpp). */
static int rw_unsplit(rw_list *l, wt_error *err) {
  size_t i;
  for (i = 0; i < l->n; i++) {
    wt_str k = rw_key(l, i);
    if (k.n == 11 && memcmp(k.p, "split.count", 11) == 0 && l->e[i].type == GGUF_TYPE_UINT16 &&
        l->e[i].val_len == 2) {
      l->vals.p[l->e[i].val_off] = 0;
      l->vals.p[l->e[i].val_off + 1] = 0;
      return 0;
    }
  }
  return wt_fail(err, "split.count is not a UINT16");
}

int wt_rewrite(const wt_rewrite_req *r, wt_rewrite_res *res, wt_error *err) {
  rw_job j;
  rw_list l = {0};
  wt_out out;
  int k, rc = -1;
  memset(&j, 0, sizeof(j));
  memset(&out, 0, sizeof(out));
  j.req = r;
  j.verify = r->verify;
  res->where = r->out;
  if (wt_file_is_remote(r->out, strlen(r->out))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  if (rw_open_input(&j, r->in, r->format, res, err) != 0)
    goto done;
  res->where = r->out;
  j.be = r->byte_order == WT_ORDER_KEEP ? j.src->model.big_endian : r->byte_order == WT_ORDER_BIG;
  if (j.be && r->format != WT_FORMAT_GGUF) {
    wt_fail(err, "safetensors is little-endian: no other byte order can be written");
    goto done;
  }
  for (k = 0; k < j.n_parts && !r->overwrite; k++)
    if (wt_out_not_input(r->out, &j.parts[k]->file, "options '{\"overwrite\": 1}'", err) != 0)
      goto done;
  if (rw_from_model(&l, &j.src->model, j.src->header, err) != 0 ||
      (j.n_parts > 1 && rw_unsplit(&l, err) != 0) ||
      rw_apply(&l, r->format, r->edits, r->n_edits, err) != 0)
    goto done;
  if ((r->format == WT_FORMAT_GGUF ? rw_gguf(&j, j.ts, j.n_ts, j.whole, r->out, &l, &out, err)
                                   : rw_safetensors(&j, r->out, &l, &out, err)) != 0 ||
      wt_out_commit(&out, err) != 0)
    goto done;
  res->size = out.size;
  rc = 0;
done:
  wt_out_abort(&out);
  rw_free(&l);
  rw_job_free(&j);
  return rc;
}

void rw_job_free(rw_job *j) {
  int k;
  for (k = 0; k < j->n_parts; k++)
    if (j->parts[k] != j->src)
      wt_source_release(j->parts[k]);
  free(j->parts);
  free(j->ts);
  if (j->src)
    wt_source_release(j->src);
  memset(j, 0, sizeof(*j));
}

void wt_rewrite_res_free(wt_rewrite_res *res) {
  free(res->bad_part);
  memset(res, 0, sizeof(*res));
}
