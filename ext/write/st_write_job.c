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

#include "byte_swap.h"
#include "safetensors_writer.h"
#include "st_write_job_int.h"
#include "write_job.h"

/* The first room for rows. */
#define STW_FIRST_CAP 64

void stw_rows_free(stw_rows *l) {
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

stw_row *stw_rows_push(stw_rows *l, const char *name, size_t n) {
  stw_row *r;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : STW_FIRST_CAP;
    stw_row *p = realloc(l->v, cap * sizeof(*p));
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

void stw_job_init(stw_job *j, const stw_cancel *cancel) {
  memset(j, 0, sizeof(*j)); /* j->out closed */
  j->cancel = cancel;
}

/* The source of row r's file, opened once and checked to be the file its
** row read (device, inode, size, modification time). */
static wt_source *stw_source(stw_job *j, const stw_row *r, const char *out, wt_error *err) {
  wt_source *src;
  stw_open *p;
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
  if (out != NULL && wt_out_not_input(out, &src->file, NULL, err) != 0) {
    wt_source_release(src);
    return NULL;
  }
  p = realloc(j->open, (j->n_open + 1) * sizeof(*p));
  if (p == NULL) {
    wt_source_release(src);
    wt_fail(err, "out of memory");
    return NULL;
  }
  j->open = p;
  j->open[j->n_open++] = (stw_open){r->path, src};
  return src;
}

/* Where row r's bytes are: tensor t of the job, from memory or a source
** opened once (out: the output, which no source may be). */
static int stw_bytes(stw_job *j, const stw_row *r, const char *out, wt_job_tensor *t,
                     wt_error *err) {
  const wt_tensor *st;
  wt_source *src;
  if (r->blob != NULL) {
    t->from = WT_FROM_MEMORY;
    t->mem = r->blob;
    return 0;
  }
  if ((src = stw_source(j, r, out, err)) == NULL)
    return -1;
  st = wt_source_find_tensor(src, r->name, r->name_len);
  if (st == NULL || st->nbytes != r->nbytes)
    return wt_fail(err, "file changed while in use: %s has no tensor as its row read", r->path);
  t->from = WT_FROM_FILE;
  t->file = &src->file;
  t->file_off = st->offset;
  if (src->model.format == WT_FORMAT_GGUF && src->model.big_endian) {
    /* safetensors is little-endian: each element swapped */
    char q[WT_QUOTE_SIZE];
    unsigned w = wt_swap_width(st->type_id);
    if (w == 0)
      return wt_swap_refuse(err, wt_quote(q, sizeof(q), r->name, r->name_len),
                            st->dtype.n > 0 ? st->dtype.p : "of an unknown type");
    t->swap = w > 1 ? w : 0;
  }
  return 0;
}

/* 1 when source s has metadata entry key with the value v. */
static int stw_has(const wt_source *s, const wt_meta *kv) {
  const wt_meta *z = wt_source_find_meta(s, kv->key.p, kv->key.n);
  return z != NULL && z->value.n == kv->value.n &&
         (kv->value.n == 0 || memcmp(z->value.p, kv->value.p, kv->value.n) == 0);
}

int stw_agreed_meta(stw_job *j, const stw_row *rows, size_t n, const char *out, stw_meta *m,
                    wt_error *err) {
  const wt_source *first = NULL;
  size_t i, k;
  memset(m, 0, sizeof(*m));
  for (i = 0; i < n; i++)
    if (rows[i].blob == NULL && stw_source(j, &rows[i], out, err) == NULL)
      return -1;
  for (k = 0; k < j->n_open && first == NULL; k++)
    if (j->open[k].src->model.format == WT_FORMAT_SAFETENSORS)
      first = j->open[k].src;
  if (first == NULL || first->model.n_meta == 0)
    return 0;
  if ((m->v = calloc(first->model.n_meta, sizeof(*m->v))) == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < first->model.n_meta; i++) { /* in the first file's order */
    const wt_meta *kv = &first->model.meta[i];
    for (k = 0; k < j->n_open; k++)
      if (j->open[k].src->model.format == WT_FORMAT_SAFETENSORS && !stw_has(j->open[k].src, kv))
        break;
    if (k == j->n_open)
      m->v[m->n++] = (sw_meta){kv->key, kv->value};
  }
  return 0;
}

int stw_prepare(stw_job *j, const char *path, const stw_row *rows, size_t n, const stw_meta *m,
                wt_error *err) {
  sw_tensor *t = calloc(n + 1, sizeof(*t));
  wt_job_tensor *jt = calloc(n + 1, sizeof(*jt));
  wt_job_key *keys = calloc(m->n + 1, sizeof(*keys));
  const wt_file **files = NULL;
  wt_buf hdr = {0};
  wt_job job;
  uint64_t data;
  size_t i;
  int rc = -1;
  if (t == NULL || jt == NULL || keys == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < n; i++)
    t[i] = (sw_tensor){
        {rows[i].name, rows[i].name_len}, rows[i].dtype, rows[i].ndim, rows[i].dims, 0, 0, i};
  sw_sort_crate(t, n);
  if (safetensors_write_header(m->v, m->n, t, n, &hdr, &data, err) != 0)
    goto done;
  for (i = 0; i < m->n; i++)
    keys[i] = (wt_job_key){m->v[i].key, 0, (const unsigned char *)m->v[i].value.p, m->v[i].value.n};
  for (i = 0; i < n; i++) { /* in data order */
    const stw_row *r = &rows[t[i].tag];
    jt[i].name = (wt_str){r->name, r->name_len};
    jt[i].type_id = r->dtype;
    jt[i].ndim = r->ndim;
    jt[i].dims = r->dims;
    jt[i].nbytes = r->nbytes;
    jt[i].data_start = t[i].data_start;
    if (stw_bytes(j, r, path, &jt[i], err) != 0)
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
  job.keys = keys;
  job.n_keys = m->n;
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
  free(keys);
  free(files);
  return rc;
}

void stw_job_free(stw_job *j) {
  size_t i;
  wt_out_abort(&j->out);
  for (i = 0; i < j->n_open; i++)
    wt_source_release(j->open[i].src);
  free(j->open);
  j->open = NULL;
  j->n_open = 0;
}

int wt_st_write(const char *out, const stw_row *rows, size_t n, const stw_cancel *cancel,
                uint64_t *size, wt_error *err) {
  stw_meta m = {0};
  stw_job j;
  int rc = -1;
  stw_job_init(&j, cancel);
  if (wt_file_is_remote(out, strlen(out))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  if (stw_agreed_meta(&j, rows, n, out, &m, err) != 0 ||
      stw_prepare(&j, out, rows, n, &m, err) != 0 || wt_out_commit(&j.out, err) != 0)
    goto done;
  *size = j.out.size;
  rc = 0;
done:
  free(m.v);
  stw_job_free(&j);
  return rc;
}
