/*
** write_job.c: a model file written, read back and compared before it is
** kept (write_job.h).  Layer: write.
**
** The steps are those every writer took on its own before: out_file.h's
** temporary file, the header, the tensors' bytes copied by reference or
** written, the header read back and parsed with the strict parsers of
** formats/, every key and tensor compared, and the tensors' bytes by
** XXH3-64 against their sources.
*/
#include "write_job.h"

#include <stdlib.h>
#include <string.h>

#include "bytes/digest.h"
#include "formats/gguf_parser.h"
#include "formats/safetensors_parser.h"
#include "gguf_writer.h"

/* The digest of what an encoder gives. */
#define JOB_DIGEST "xxh3-64"

/* What an encoder writes through: the output, and the hash and count of
** the bytes given so far. */
struct wt_job_sink {
  const wt_job *j;
  wt_out *out;
  wt_digest *d;
  uint64_t left;   /* bytes the tensor still needs */
  uint64_t polled; /* bytes given since the last interrupt check */
};

/* Equal byte strings (either may be NULL when empty). */
static int job_same(const void *a, size_t an, const void *b, size_t bn) {
  return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

int wt_job_put(wt_job_sink *s, const void *p, size_t n, wt_error *err) {
  if (n > s->left)
    return wt_fail(err, "the encoder gave %llu bytes more than the tensor has", U(n - s->left));
  if (wt_out_write(s->out, p, n, err) != 0 ||
      (s->d != NULL && wt_digest_update(s->d, p, n, err) != 0))
    return -1;
  s->left -= n;
  s->polled += n;
  if (s->polled >= WT_OUT_POLL && s->j->interrupted != NULL) {
    s->polled = 0;
    if (s->j->interrupted(s->j->ctx, err))
      return -1;
  }
  return 0;
}

/* Encode tensor i at the end of the output; the XXH3-64 of its bytes into
** hex. */
static int job_encode(const wt_job *j, wt_out *out, size_t i, char hex[WT_DIGEST_HEX_MAX],
                      wt_error *err) {
  const wt_job_tensor *t = &j->tensors[i];
  wt_job_sink s = {j, out, NULL, t->nbytes, 0};
  char q[WT_QUOTE_SIZE];
  if (j->verify && wt_digest_begin(JOB_DIGEST, strlen(JOB_DIGEST), &s.d, err) != 0)
    return -1; /* without the check, what is given is not hashed */
  if (t->encode(t->encode_ctx, i, &s, err) != 0) {
    wt_digest_free(s.d);
    return -1;
  }
  if (s.left != 0) {
    wt_digest_free(s.d);
    return wt_fail(err, "the encoder of tensor %s gave %llu bytes, not %llu",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n), U(t->nbytes - s.left),
                   U(t->nbytes));
  }
  return s.d != NULL ? wt_digest_end(s.d, hex, err) : 0;
}

/* The data section: copied whole from j->data_from, or each tensor at its
** place, zeros between and after. */
static int job_data(const wt_job *j, wt_out *out, char (*hex)[WT_DIGEST_HEX_MAX], wt_error *err) {
  char q[WT_QUOTE_SIZE];
  uint64_t pos = 0;
  size_t i;
  if (j->data_from != NULL) {
    uint64_t off = j->data_from_off, size = j->data_from->size;
    uint64_t avail = size > off ? size - off : 0, k = avail < j->data_size ? avail : j->data_size;
    return wt_out_copy(out, j->data_from, off, k, err) != 0 ||
                   wt_out_zeros(out, j->data_size - k, err) != 0
               ? -1
               : 0;
  }
  for (i = 0; i < j->n_tensors; i++) {
    const wt_job_tensor *t = &j->tensors[i];
    int rc;
    if (t->data_start < pos || t->data_start > j->data_size ||
        t->nbytes > j->data_size - t->data_start)
      return wt_fail(err, "tensor %s does not fit the data section after the one before it",
                     wt_quote(q, sizeof(q), t->name.p, t->name.n));
    if (wt_out_zeros(out, t->data_start - pos, err) != 0)
      return -1;
    if (t->from == WT_FROM_FILE)
      rc = wt_out_copy_swapped(out, t->file, t->file_off, t->nbytes, t->swap, err);
    else if (t->from == WT_FROM_MEMORY)
      rc = wt_out_write(out, t->mem, (size_t)t->nbytes, err);
    else if (t->from == WT_FROM_ENCODER && t->encode != NULL)
      rc = job_encode(j, out, i, hex[i], err);
    else
      rc = wt_fail(err, "tensor %s has no bytes to write",
                   wt_quote(q, sizeof(q), t->name.p, t->name.n));
    if (rc != 0)
      return -1;
    pos = t->data_start + t->nbytes;
  }
  return wt_out_zeros(out, j->data_size - pos, err);
}

/* Read back the output's header (its first header_len bytes) and parse it
** as j->format, into *back (free it and *bytes). */
static int job_read_back(const wt_job *j, const wt_out *out, unsigned char **bytes, wt_model *back,
                         wt_error *err) {
  size_t hdr_len = j->header_len;
  uint64_t need = 0;
  int rc;
  *bytes = malloc(hdr_len + 1);
  if (*bytes == NULL)
    return wt_fail(err, "out of memory");
  if (wt_out_read(out, 0, hdr_len, *bytes, err) != 0)
    return -1;
  rc = j->format == WT_FORMAT_GGUF
           ? gguf_parse_prefix(*bytes, hdr_len, out->size, back, &need, err)
           : safetensors_parse_prefix(*bytes, hdr_len, out->size, back, &need, err);
  if (rc == 1)
    return wt_fail(err, "read back: the header needs %llu bytes, not %zu", U(need), hdr_len);
  if (rc != 0) {
    char why[WT_ERROR_MAX];
    memcpy(why, err->msg, sizeof(why));
    return wt_fail(err, "read back: %s", why);
  }
  return 0;
}

/* The keys of back (the output parsed, its header bytes) against j's. */
static int job_check_keys(const wt_job *j, const wt_model *back, const unsigned char *bytes,
                          wt_error *err) {
  char q[WT_QUOTE_SIZE];
  wt_buf v = {0};
  size_t i;
  int ok = 1;
  if (back->n_meta != j->n_keys)
    return wt_fail(err, "read back: %zu keys, not %zu", back->n_meta, j->n_keys);
  for (i = 0; i < j->n_keys && ok; i++) {
    const wt_meta *z = &back->meta[i];
    const wt_job_key *k = &j->keys[i];
    v.n = 0;
    if (back->format == WT_FORMAT_GGUF)
      ok = z->type == k->type && gw_value_copy(&v, back, bytes, z) == 0 &&
           job_same(v.p, v.n, k->val, k->val_len);
    else
      ok = job_same(z->value.p, z->value.n, k->val, k->val_len);
    ok = ok && job_same(z->key.p, z->key.n, k->key.p, k->key.n);
    if (!ok)
      wt_fail(err, "read back: key %s differs from what was asked",
              wt_quote(q, sizeof(q), k->key.p, k->key.n));
  }
  free(v.p);
  return ok ? 0 : -1;
}

/* The n bytes at off of the output against p, a chunk of buf at a time. */
static int job_same_memory(const wt_out *out, uint64_t off, const unsigned char *p, uint64_t n,
                           unsigned char *buf, const char *name, wt_error *err) {
  uint64_t at;
  for (at = 0; at < n; at += WT_OUT_CHUNK) {
    size_t m = n - at < WT_OUT_CHUNK ? (size_t)(n - at) : WT_OUT_CHUNK;
    if (wt_out_read(out, off + at, m, buf, err) != 0)
      return -1;
    if (memcmp(buf, p + at, m) != 0)
      return wt_fail(err, "read back: the bytes of %s differ from those given", name);
  }
  return 0;
}

/* The tensors of back (the output parsed) against j's, in the same order:
** name, type, shape, place; when verifying, their bytes; then the sources
** unchanged. */
static int job_check_tensors(const wt_job *j, const wt_out *out, const wt_model *back,
                             char (*hex)[WT_DIGEST_HEX_MAX], wt_error *err) {
  char q[WT_QUOTE_SIZE], got[WT_DIGEST_HEX_MAX];
  unsigned char *buf = NULL;
  size_t i;
  int rc = -1;
  if (back->n_tensors != j->n_tensors)
    return wt_fail(err, "read back: %zu tensors, not %zu", back->n_tensors, j->n_tensors);
  if (j->verify && (buf = malloc(WT_OUT_CHUNK)) == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < j->n_tensors; i++) {
    const wt_job_tensor *s = &j->tensors[i];
    const wt_tensor *t = &back->tensors[i];
    const char *name = wt_quote(q, sizeof(q), s->name.p, s->name.n);
    if (t->name.n != s->name.n || memcmp(t->name.p, s->name.p, s->name.n) != 0 ||
        t->type_id != s->type_id || t->ndim != s->ndim || t->nbytes != s->nbytes ||
        (s->ndim > 0 && memcmp(t->dims, s->dims, (size_t)s->ndim * sizeof(*s->dims)) != 0) ||
        t->offset != back->data_offset + s->data_start) {
      wt_fail(err, "read back: tensor #%zu %s differs from what was asked", i, name);
      goto done;
    }
    if (!j->verify)
      continue;
    if (s->from == WT_FROM_FILE && s->file_hash == NULL) {
      if (wt_out_same_values(out, t->offset, s->file, s->file_off, s->nbytes, s->swap, buf, name,
                             err) != 0)
        goto done;
    } else if (s->from == WT_FROM_MEMORY) {
      if (job_same_memory(out, t->offset, s->mem, s->nbytes, buf, name, err) != 0)
        goto done;
    } else {
      unsigned swap = s->from == WT_FROM_FILE ? s->swap : 0;
      if (wt_out_digest_swapped(out, NULL, t->offset, s->nbytes, buf, swap, got, err) != 0)
        goto done;
      if (strcmp(got, s->from == WT_FROM_FILE ? s->file_hash : hex[i]) != 0) {
        wt_fail(err, "read back: the bytes of %s differ from those %s (xxh3 %s, not %s)", name,
                s->from == WT_FROM_FILE ? "of the source" : "encoded", got,
                s->from == WT_FROM_FILE ? s->file_hash : hex[i]);
        goto done;
      }
    }
  }
  for (i = 0; i < j->n_sources; i++)
    if (wt_file_unchanged(j->sources[i], err) != 0)
      goto done;
  rc = 0;
done:
  free(buf);
  return rc;
}

int wt_job_write(const wt_job *j, wt_out *out, wt_error *err) {
  char(*hex)[WT_DIGEST_HEX_MAX] = NULL;
  unsigned char *bytes = NULL;
  wt_model back = {0};
  size_t i;
  int rc = -1;
  for (i = 0; i < j->n_tensors && hex == NULL; i++)
    if (j->tensors[i].from == WT_FROM_ENCODER &&
        (hex = calloc(j->n_tensors, sizeof(*hex))) == NULL) {
      wt_fail(err, "out of memory");
      goto done;
    }
  if (wt_out_open(out, j->path, err) != 0)
    goto done;
  out->interrupted = j->interrupted;
  out->ctx = j->ctx;
  if (wt_out_reserve(out, j->header_len + j->data_size, err) != 0 ||
      wt_out_write(out, j->header, j->header_len, err) != 0 || job_data(j, out, hex, err) != 0 ||
      job_read_back(j, out, &bytes, &back, err) != 0 || job_check_keys(j, &back, bytes, err) != 0)
    goto done;
  if (j->alignment != 0 && back.alignment != j->alignment) {
    wt_fail(err, "read back: alignment %llu, not %llu", U(back.alignment), U(j->alignment));
    goto done;
  }
  rc = job_check_tensors(j, out, &back, hex, err);
done:
  wt_model_free(&back);
  free(bytes);
  free(hex);
  if (rc != 0)
    wt_out_abort(out);
  return rc;
}
