/*
** st_write_job.c: the job of safetensors_write(): one new safetensors file
** of tensors given by reference or in memory (st_write_job.h).
** Layer: write.
**
** Rows only say where the bytes are: the file is written here, at the
** end, and tensor bytes never pass through memory when a file holds them
** (write_job.h copies them by reference).  A source file changed since its
** row was read is an error; so is an output that is one of the sources.
*/
#include "st_write_job.h"

#include <stdlib.h>
#include <string.h>

#include "safetensors_writer.h"
#include "st_write_job_int.h"
#include "write_job.h"

/* The first room for rows. */
#define SWR_FIRST_CAP 64

void swr_rows_free(swr_rows *l) {
  size_t i;
  for (i = 0; i < l->n; i++) {
    free(l->v[i].name);
    free(l->v[i].dims);
    free(l->v[i].path);
    free(l->v[i].blob);
  }
  free(l->v);
  memset(l, 0, sizeof(*l));
}

swr_row *swr_rows_push(swr_rows *l, const char *name, size_t n) {
  swr_row *r;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : SWR_FIRST_CAP;
    swr_row *p = realloc(l->v, cap * sizeof(*p));
    if (p == NULL)
      return NULL;
    l->v = p;
    l->cap = cap;
  }
  r = &l->v[l->n];
  memset(r, 0, sizeof(*r));
  r->name_len = n;
  r->name = malloc(n + 1);
  if (r->name == NULL)
    return NULL;
  memcpy(r->name, name, n);
  r->name[n] = 0;
  l->n++; /* freed with the rows from here on */
  return r;
}

void swr_job_init(swr_job *j, const swr_cancel *cancel) {
  memset(j, 0, sizeof(*j));
  j->cancel = cancel;
  j->out.fd = j->out.dirfd = -1;
}

/* The source of row r's file, opened once and checked to be the file its
** row read (device, inode, size, modification time). */
static wt_source *swr_source(swr_job *j, const swr_row *r, const char *out, wt_error *err) {
  wt_source *src;
  swr_open *p;
  size_t i;
  for (i = 0; i < j->n_open; i++)
    if (strcmp(j->open[i].path, r->path) == 0)
      return j->open[i].src;
  if (wt_source_open(r->path, strlen(r->path), 0, &src, err) != 0)
    return NULL;
  if (src->file.dev != r->dev || src->file.ino != r->ino || src->file.size != r->size ||
      src->file.mtime_ns != r->mtime_ns) {
    wt_source_release(src);
    wt_fail(err, "file changed while in use: %s is not the file its rows read", r->path);
    return NULL;
  }
  if (wt_out_is_file(out, &src->file)) {
    wt_source_release(src);
    wt_fail(err, "this is the input file %s: refusing to replace it", r->path);
    return NULL;
  }
  p = realloc(j->open, (j->n_open + 1) * sizeof(*p));
  if (p == NULL) {
    wt_source_release(src);
    wt_fail(err, "out of memory");
    return NULL;
  }
  j->open = p;
  j->open[j->n_open++] = (swr_open){r->path, src};
  return src;
}

/* Where row r's bytes are: tensor t of the job, from memory or a source
** opened once (out: the output, which no source may be). */
static int swr_bytes(swr_job *j, const swr_row *r, const char *out, wt_job_tensor *t,
                     wt_error *err) {
  const wt_tensor *st;
  wt_source *src;
  if (r->blob != NULL) {
    t->from = WT_FROM_MEMORY;
    t->mem = r->blob;
    return 0;
  }
  if ((src = swr_source(j, r, out, err)) == NULL)
    return -1;
  st = wt_source_find_tensor(src, r->name, r->name_len);
  if (st == NULL || st->nbytes != r->nbytes)
    return wt_fail(err, "file changed while in use: %s has no tensor as its row read", r->path);
  t->from = WT_FROM_FILE;
  t->file = &src->file;
  t->file_off = st->offset;
  return 0;
}

int swr_prepare(swr_job *j, const char *path, const swr_row *rows, size_t n, wt_error *err) {
  sw_tensor *t = calloc(n + 1, sizeof(*t));
  wt_job_tensor *jt = calloc(n + 1, sizeof(*jt));
  const wt_file **files = NULL;
  wt_buf hdr = {0};
  wt_job job;
  uint64_t data;
  size_t i;
  int rc = -1;
  if (t == NULL || jt == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < n; i++)
    t[i] = (sw_tensor){
        {rows[i].name, rows[i].name_len}, rows[i].dtype, rows[i].ndim, rows[i].dims, 0, 0, i};
  sw_sort_crate(t, n);
  if (safetensors_write_header(NULL, 0, t, n, &hdr, &data, err) != 0)
    goto done;
  for (i = 0; i < n; i++) { /* in data order */
    const swr_row *r = &rows[t[i].tag];
    jt[i].name = (wt_str){r->name, r->name_len};
    jt[i].type_id = r->dtype;
    jt[i].ndim = r->ndim;
    jt[i].dims = r->dims;
    jt[i].nbytes = r->nbytes;
    jt[i].data_start = t[i].data_start;
    if (swr_bytes(j, r, path, &jt[i], err) != 0)
      goto done;
  }
  if ((files = calloc(j->n_open + 1, sizeof(*files))) == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < j->n_open; i++)
    files[i] = &j->open[i].src->file;
  memset(&job, 0, sizeof(job));
  job.path = path;
  job.format = WT_FORMAT_SAFETENSORS;
  job.header = (const unsigned char *)hdr.p;
  job.header_len = hdr.n;
  job.data_size = data;
  job.tensors = jt;
  job.n_tensors = n;
  job.verify = 1;
  job.sources = files;
  job.n_sources = j->n_open;
  job.interrupted = j->cancel->interrupted;
  job.ctx = j->cancel->ctx;
  rc = wt_job_write(&job, &j->out, err);
done:
  free(hdr.p);
  free(t);
  free(jt);
  free(files);
  return rc;
}

void swr_job_free(swr_job *j) {
  size_t i;
  wt_out_abort(&j->out);
  for (i = 0; i < j->n_open; i++)
    wt_source_release(j->open[i].src);
  free(j->open);
  j->open = NULL;
  j->n_open = 0;
}

int wt_st_write(const char *out, const swr_row *rows, size_t n, const swr_cancel *cancel,
                uint64_t *size, wt_error *err) {
  swr_job j;
  int rc = -1;
  swr_job_init(&j, cancel);
  if (wt_file_is_remote(out, strlen(out))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  if (swr_prepare(&j, out, rows, n, err) != 0 || wt_out_commit(&j.out, err) != 0)
    goto done;
  *size = j.out.size;
  rc = 0;
done:
  swr_job_free(&j);
  return rc;
}
