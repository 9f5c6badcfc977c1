/*
** rewrite.c: gguf_rewrite() and safetensors_rewrite(), SQL functions that
** write a copy of a model file with its metadata edited and every tensor
** byte for byte.  Layer: sql.
**
**   SELECT gguf_rewrite('fixed.gguf', 'model.gguf',
**     json_object('tokenizer.chat_template', CAST(readfile('t.jinja') AS TEXT),
**                 'general.name', 'My model',
**                 'quantize.imatrix.file', NULL));           -- NULL removes a key
**   SELECT safetensors_rewrite('out.safetensors', 'in.safetensors',
**                              json_object('format', 'pt'));
**
** Arguments: the output path, the input (local or remote), the edits (a JSON
** object, rewrite_edits.c; NULL: none) and optionally options as a JSON
** object: "overwrite": 1 lets the output name the input file (it is then
** still a new file renamed over it), "verify": 0 skips the comparison of
** the tensors' bytes.  Returns the output's size in bytes.
**
** What is written: the input's keys in their order, edited in place, new
** ones at the end; the tensors in their order.  The first part of a split
** GGUF brings every part's tensors: the model merged as gguf-split --merge
** writes it (split.count 0).  GGUF: version 3,
** little-endian, the input's alignment (or general.alignment as edited),
** data laid out as ggml writes it (gguf_writer.h).  safetensors: the
** crate's form (safetensors_writer.h) with the input's tensor order, so
** that the data section is the input's.  The output is made by
** write/out_file.h: a temporary file in the output's folder, renamed at the
** end; before that, it is read back and parsed with the strict parser, and
** every key (name, type, value bytes) and every tensor (name, type, shape,
** place, and an XXH3-64 of its bytes against the input's) compared; any
** difference, error or interrupt removes the temporary file and leaves the
** output path as it was.  Output paths are local: a remote one is refused.
*/
#include "rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/source.h"
#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"
#include "formats/safetensors_parser.h"
#include "functions.h"
#include "interrupt.h"
#include "rewrite_edits.h"
#include "rewrite_int.h"
#include "vtab.h"
#include "write/gguf_writer.h"
#include "write/out_file.h"
#include "write/safetensors_writer.h"

SQLITE_EXTENSION_INIT3

#define U(x) ((unsigned long long)(x))

/* Equal byte strings (either may be NULL when empty). */
static int rw_same(const void *a, size_t an, const void *b, size_t bn) {
  return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* wt_out's interrupt check. */
static int rw_interrupted(void *ctx, wt_error *err) {
  rw_job *j = ctx;
  if (!wt_interrupted(j->db))
    return 0;
  j->interrupted = 1;
  wt_fail(err, "interrupted");
  return 1;
}

/* Read the options argument v (a JSON object or NULL). */
int rw_options(rw_job *j, sqlite3_value *v, wt_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = -1;
  j->verify = 1;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  if (sqlite3_prepare_v2(j->db,
                         "SELECT json_extract(?1, '$.overwrite'), json_extract(?1, '$.verify'), "
                         "(SELECT group_concat(key) FROM json_each(?1) "
                         "WHERE key NOT IN ('overwrite', 'verify'))",
                         -1, &st, NULL) != SQLITE_OK) {
    wt_fail(err, "%s", sqlite3_errmsg(j->db));
    goto done;
  }
  sqlite3_bind_value(st, 1, v);
  if (sqlite3_step(st) != SQLITE_ROW) {
    wt_fail(err, "the options: %s", sqlite3_errmsg(j->db));
    goto done;
  }
  if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
    wt_fail(err, "unknown option %s (the options are overwrite and verify)",
            (const char *)sqlite3_column_text(st, 2));
    goto done;
  }
  j->overwrite = sqlite3_column_int(st, 0) != 0;
  if (sqlite3_column_type(st, 1) != SQLITE_NULL)
    j->verify = sqlite3_column_int(st, 1) != 0;
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}

/* The tensors of back (the output parsed) against the input's, in the same
** order: name, type, shape, place (data_start[i] in a data section at
** data_offset), and, when verifying, their bytes. */
static int rw_check_tensors(rw_job *j, const wt_model *back, const uint64_t *data_start,
                            wt_error *err) {
  char q[WT_QUOTE_SIZE];
  unsigned char *buf = NULL;
  size_t i;
  int rc = -1, k;
  if (back->n_tensors != j->n_ts)
    return wt_fail(err, "read back: %zu tensors, not %zu", back->n_tensors, j->n_ts);
  if (j->verify && (buf = malloc(WT_OUT_CHUNK)) == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < j->n_ts; i++) {
    const wt_tensor *s = j->ts[i].t, *t = &back->tensors[i];
    const char *name = wt_quote(q, sizeof(q), s->name.p, s->name.n);
    if (t->name.n != s->name.n || memcmp(t->name.p, s->name.p, s->name.n) != 0 ||
        t->type_id != s->type_id || t->ndim != s->ndim || t->nbytes != s->nbytes ||
        (s->ndim > 0 && memcmp(t->dims, s->dims, (size_t)s->ndim * sizeof(*s->dims)) != 0) ||
        t->offset != back->data_offset + data_start[i]) {
      wt_fail(err, "read back: tensor #%zu %s differs from the input's", i, name);
      goto done;
    }
    if (j->verify && wt_out_same_bytes(&j->out, t->offset, &j->ts[i].src->file, s->offset,
                                       s->nbytes, buf, name, err) != 0)
      goto done;
  }
  for (k = 0; k < j->n_parts; k++)
    if (wt_file_unchanged(&j->parts[k]->file, err) != 0)
      goto done;
  rc = 0;
done:
  free(buf);
  return rc;
}

/* Read back the output's first hdr_len bytes (its header) and parse them
** as format, into *back (free it and *bytes). */
static int rw_read_back(rw_job *j, int format, size_t hdr_len, unsigned char **bytes,
                        wt_model *back, wt_error *err) {
  uint64_t need = 0;
  int rc;
  *bytes = malloc(hdr_len + 1);
  if (*bytes == NULL)
    return wt_fail(err, "out of memory");
  if (wt_out_read(&j->out, 0, hdr_len, *bytes, err) != 0)
    return -1;
  rc = format == WT_FORMAT_GGUF
           ? gguf_parse_prefix(*bytes, hdr_len, j->out.size, back, &need, err)
           : safetensors_parse_prefix(*bytes, hdr_len, j->out.size, back, &need, err);
  if (rc == 1)
    return wt_fail(err, "read back: the header needs %llu bytes, not %zu", U(need), hdr_len);
  if (rc != 0) {
    char why[WT_ERROR_MAX];
    memcpy(why, err->msg, sizeof(why));
    return wt_fail(err, "read back: %s", why);
  }
  return 0;
}

/* Copy the tensors' bytes: the input's data section whole when the output
** is one file and lays the tensors out as it does, else tensor by tensor, each
** padded with zeros up to the next one's start (and the last to
** data_size). */
static int rw_copy_data(rw_job *j, const uint64_t *data_start, uint64_t data_size, wt_error *err) {
  const wt_model *m = &j->src->model;
  uint64_t avail = m->file_size - m->data_offset, k;
  size_t i;
  int same = 1;
  for (i = 0; i < j->n_ts && same; i++)
    same = j->whole && data_start[i] == m->tensors[i].data_start;
  if (same) {
    k = avail < data_size ? avail : data_size;
    return wt_out_copy(&j->out, &j->src->file, m->data_offset, k, err) != 0 ||
                   wt_out_zeros(&j->out, data_size - k, err) != 0
               ? -1
               : 0;
  }
  for (i = 0; i < j->n_ts; i++) {
    const wt_tensor *t = j->ts[i].t;
    uint64_t end = i + 1 < j->n_ts ? data_start[i + 1] : data_size;
    if (wt_out_copy(&j->out, &j->ts[i].src->file, t->offset, t->nbytes, err) != 0 ||
        wt_out_zeros(&j->out, end - data_start[i] - t->nbytes, err) != 0)
      return -1;
  }
  return 0;
}

/* Start the output with its header, copy the data, read it back. */
static int rw_write(rw_job *j, const char *path, const wt_buf *hdr, const uint64_t *data_start,
                    uint64_t data_size, wt_error *err) {
  if (wt_out_open(&j->out, path, err) != 0)
    return -1;
  j->out.interrupted = rw_interrupted;
  j->out.ctx = j;
  if (wt_out_reserve(&j->out, hdr->n + data_size, err) != 0 ||
      wt_out_write(&j->out, hdr->p, hdr->n, err) != 0 ||
      rw_copy_data(j, data_start, data_size, err) != 0)
    return -1;
  return 0;
}

/* The keys of back (the output parsed, its header bytes) against l. */
static int rw_check_keys(const rw_list *l, const wt_model *back, const unsigned char *bytes,
                         wt_error *err) {
  char q[WT_QUOTE_SIZE];
  wt_buf v = {0};
  size_t i;
  int ok = 1;
  if (back->n_meta != l->n)
    return wt_fail(err, "read back: %zu keys, not %zu", back->n_meta, l->n);
  for (i = 0; i < l->n && ok; i++) {
    const wt_meta *z = &back->meta[i];
    wt_str key = rw_key(l, i), val = {(const char *)rw_val(l, i), l->e[i].val_len};
    v.n = 0;
    if (back->format == WT_FORMAT_GGUF)
      ok = z->type == l->e[i].type && gw_value_copy(&v, back, bytes, z) == 0 &&
           rw_same(v.p, v.n, val.p, val.n);
    else
      ok = rw_same(z->value.p, z->value.n, val.p, val.n);
    ok = ok && rw_same(z->key.p, z->key.n, key.p, key.n);
    if (!ok)
      wt_fail(err, "read back: key %s differs from what was asked",
              wt_quote(q, sizeof(q), key.p, key.n));
  }
  free(v.p);
  return ok ? 0 : -1;
}

/* Write the file (header hdr, tensors at start[] in a data section of
** data bytes), read it back and compare it with l and the input
** (alignment: the GGUF alignment asked, 0 for safetensors). */
static int rw_finish(rw_job *j, const char *path, const rw_list *l, const wt_buf *hdr,
                     const uint64_t *start, uint64_t data, uint64_t alignment, wt_error *err) {
  unsigned char *bytes = NULL;
  wt_model back = {0};
  int rc = -1;
  if (rw_write(j, path, hdr, start, data, err) != 0 ||
      rw_read_back(j, j->src->model.format, hdr->n, &bytes, &back, err) != 0 ||
      rw_check_keys(l, &back, bytes, err) != 0)
    goto done;
  if (alignment != 0 && back.alignment != alignment) {
    wt_fail(err, "read back: alignment %llu, not %llu", U(back.alignment), U(alignment));
    goto done;
  }
  rc = rw_check_tensors(j, &back, start, err);
done:
  wt_model_free(&back);
  free(bytes);
  return rc;
}

/* gguf_rewrite's work once the edits are applied to l. */
int rw_gguf(rw_job *j, const char *path, const rw_list *l, wt_error *err) {
  gw_kv *kv = calloc(l->n + 1, sizeof(*kv));
  gw_tensor *t = calloc(j->n_ts + 1, sizeof(*t));
  uint64_t *start = calloc(j->n_ts + 1, sizeof(*start)), align, data;
  wt_buf hdr = {0};
  size_t i;
  int k, rc = -1;
  if (kv == NULL || t == NULL || start == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < l->n; i++)
    kv[i] = (gw_kv){rw_key(l, i), l->e[i].type, rw_val(l, i), l->e[i].val_len};
  for (i = 0; i < j->n_ts; i++) {
    const wt_tensor *s = j->ts[i].t;
    t[i] = (gw_tensor){s->name, (uint32_t)s->type_id, s->ndim, {0}, 0, 0};
    for (k = 0; k < s->ndim; k++)
      t[i].dims[k] = s->dims[k];
  }
  if (gguf_write_header(kv, l->n, t, j->n_ts, &hdr, &align, &data, err) != 0)
    goto done;
  for (i = 0; i < j->n_ts; i++)
    start[i] = t[i].data_start;
  rc = rw_finish(j, path, l, &hdr, start, data, align, err);
done:
  free(hdr.p);
  free(kv);
  free(t);
  free(start);
  return rc;
}

/* safetensors_rewrite's work once the edits are applied to l. */
static int rw_safetensors(rw_job *j, const char *path, const rw_list *l, wt_error *err) {
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
  rc = rw_finish(j, path, l, &hdr, start, data, 0, err);
done:
  free(hdr.p);
  free(meta);
  free(t);
  free(start);
  return rc;
}

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
int rw_open_parts(rw_job *j, const char *in, wt_error *err) {
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
      j->bad_part = path; /* the message names this part, not the first */
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

/* Report err, naming the function and path; an interrupt as one. */
void rw_error(sqlite3_context *ctx, const rw_job *j, const char *path, const char *msg) {
  char *z;
  if (j->interrupted) {
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    return;
  }
  z = wt_error_message(j->fn, j->bad_part != NULL ? j->bad_part : path, msg);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, z, -1);
  sqlite3_free(z);
}

/* gguf_rewrite(out, in, edits [, options]) and safetensors_rewrite(...). */
static void rw_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int format = *(const int *)sqlite3_user_data(ctx);
  const char *out = (const char *)sqlite3_value_text(argv[0]);
  const char *in = (const char *)sqlite3_value_text(argv[1]);
  const char *edits = (const char *)sqlite3_value_text(argv[2]);
  rw_job j;
  rw_list l = {0};
  wt_error e;
  const char *where = out;
  int k;
  memset(&j, 0, sizeof(j));
  j.out.fd = j.out.dirfd = -1;
  j.fn = format == WT_FORMAT_GGUF ? "gguf_rewrite" : "safetensors_rewrite";
  j.db = sqlite3_context_db_handle(ctx);
  wt_watch_interrupt(j.db);
  if (out == NULL || in == NULL) {
    wt_fail(&e, "the output and input paths may not be NULL");
    goto fail;
  }
  if (wt_file_is_remote(out, strlen(out))) {
    wt_fail(&e, "the output must be a local path");
    goto fail;
  }
  if (rw_options(&j, argc > 3 ? argv[3] : NULL, &e) != 0)
    goto fail;
  where = in;
  if (wt_source_open(in, strlen(in), format, &j.src, &e) != 0)
    goto fail;
  if (rw_open_parts(&j, in, &e) != 0)
    goto fail;
  where = out;
  for (k = 0; k < j.n_parts; k++)
    if (!j.overwrite && wt_out_is_file(out, &j.parts[k]->file)) {
      wt_fail(&e, "this is the input file: refusing to replace it (options '{\"overwrite\": 1}' "
                  "allow it)");
      goto fail;
    }
  if (rw_from_model(&l, &j.src->model, j.src->header, &e) != 0 ||
      (j.n_parts > 1 && rw_unsplit(&l, &e) != 0) ||
      (edits != NULL && rw_apply(&l, format, j.db, edits, &e) != 0))
    goto fail;
  if ((format == WT_FORMAT_GGUF ? rw_gguf(&j, out, &l, &e) : rw_safetensors(&j, out, &l, &e)) !=
          0 ||
      wt_out_commit(&j.out, &e) != 0)
    goto fail;
  sqlite3_result_int64(ctx, (sqlite3_int64)j.out.size);
  goto done;
fail:
  rw_error(ctx, &j, where, e.msg);
done:
  rw_free(&l);
  rw_job_free(&j);
}

void rw_job_free(rw_job *j) {
  int k;
  wt_out_abort(&j->out);
  for (k = 0; k < j->n_parts; k++)
    if (j->parts[k] != j->src)
      wt_source_release(j->parts[k]);
  free(j->parts);
  free(j->ts);
  free(j->bad_part);
  if (j->src)
    wt_source_release(j->src);
  memset(j, 0, sizeof(*j));
  j->out.fd = j->out.dirfd = -1;
}

int wt_register_rewrite(sqlite3 *db) {
  static const int gguf = WT_FORMAT_GGUF, st = WT_FORMAT_SAFETENSORS;
  int rc = SQLITE_OK, n;
  for (n = 3; n <= 4 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function_v2(db, "gguf_rewrite", n, WT_FILE_FLAGS, (void *)&gguf, rw_func, 0,
                                    0, 0);
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "safetensors_rewrite", n, WT_FILE_FLAGS, (void *)&st,
                                      rw_func, 0, 0, 0);
  }
  return rc;
}
