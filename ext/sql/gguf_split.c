/*
** gguf_split.c: gguf_split(prefix, in, limits), a GGUF written as the
** parts of a split model, as llama.cpp's gguf-split writes them
** (examples/gguf-split/gguf-split.cpp, split_strategy).  Layer: sql.
**
**   SELECT gguf_split('out/model', 'model.gguf', '{"max_tensors": 128}');
**   SELECT gguf_split('out/model', 'model.gguf', '{"max_bytes": 2000000000}');
**
** The tensors of in (a GGUF, or the first part of a split one) go into
** parts in their order: a new part every max_tensors tensors (gguf-split's
** default, 128), or when the next tensor, padded to 32 bytes, would take the
** part past max_bytes.  Part K of N is PREFIX-0000K-of-0000N.gguf; the first
** holds every key of the input, the others none, and each gets split.no
** (UINT16, K - 1), split.count (UINT16, N) and split.tensors.count (INT32,
** the tensors of all parts), replaced where the input has them, else after
** the others.  llama.cpp loads the model from its first part.
**
** Each part is written as gguf_rewrite() writes a file (rewrite_int.h: a
** temporary file, tensors copied by reference, read back and compared);
** only when every part is are they renamed into place.  Returns N.
*/
#include "gguf_split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "interrupt.h"
#include "rewrite_int.h"

SQLITE_EXTENSION_INIT3

/* gguf-split's defaults: tensors per part, and the padding it counts. */
#define GS_MAX_TENSORS 128
#define GS_PAD         32
#define GS_MAX_PARTS   99999

/* Read the limits (a JSON object: max_tensors or max_bytes). */
static int gs_limits(sqlite3 *db, sqlite3_value *v, sqlite3_int64 *max_tensors,
                     sqlite3_int64 *max_bytes, wt_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = -1;
  *max_tensors = GS_MAX_TENSORS;
  *max_bytes = 0;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  if (sqlite3_prepare_v2(
          db,
          "SELECT json_extract(?1, '$.max_tensors'), json_extract(?1, '$.max_bytes'), "
          "(SELECT group_concat(key) FROM json_each(?1) "
          "WHERE key NOT IN ('max_tensors', 'max_bytes'))",
          -1, &st, NULL) != SQLITE_OK) {
    wt_fail(err, "%s", sqlite3_errmsg(db));
    goto done;
  }
  sqlite3_bind_value(st, 1, v);
  if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 2) != SQLITE_NULL ||
      (sqlite3_column_type(st, 0) != SQLITE_NULL) == (sqlite3_column_type(st, 1) != SQLITE_NULL)) {
    wt_fail(err, "the limits are a JSON object of one of max_tensors and max_bytes");
    goto done;
  }
  *max_tensors = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
  *max_bytes = sqlite3_column_int64(st, 1);
  if (*max_tensors < 0 || *max_bytes < 0 || (*max_tensors == 0 && *max_bytes == 0)) {
    wt_fail(err, "the limit must be positive");
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}

/* The part of each tensor of j (first[k]: part k's first tensor), as
** split_strategy assigns them; the number of parts, or -1. */
static int gs_assign(const rw_job *j, sqlite3_int64 max_tensors, sqlite3_int64 max_bytes,
                     size_t *first, wt_error *err) {
  uint64_t used = 0;
  size_t i;
  int n = 1;
  first[0] = 0;
  for (i = 0; i < j->n_ts; i++) {
    uint64_t size = (j->ts[i].t->nbytes + GS_PAD - 1) / GS_PAD * GS_PAD;
    int split = max_tensors > 0 ? i > 0 && i % (uint64_t)max_tensors == 0
                                : used + size > (uint64_t)max_bytes;
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

/* gguf_split(prefix, in [, limits]). */
static void gs_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *prefix = (const char *)sqlite3_value_text(argv[0]);
  const char *in = (const char *)sqlite3_value_text(argv[1]);
  sqlite3_int64 max_tensors, max_bytes;
  rw_job j, *part = NULL;
  rw_list *keys = NULL;
  size_t *first = NULL;
  char path[4096], edit[256];
  wt_error e;
  const char *where = prefix;
  int n = 0, k, m;
  memset(&j, 0, sizeof(j));
  j.out.fd = j.out.dirfd = -1;
  j.fn = "gguf_split";
  j.db = sqlite3_context_db_handle(ctx);
  wt_watch_interrupt(j.db);
  if (prefix == NULL || in == NULL) {
    wt_fail(&e, "the prefix and the input may not be NULL");
    goto fail;
  }
  if (wt_file_is_remote(prefix, strlen(prefix))) {
    wt_fail(&e, "the output must be a local path");
    goto fail;
  }
  if (gs_limits(j.db, argc > 2 ? argv[2] : NULL, &max_tensors, &max_bytes, &e) != 0)
    goto fail;
  where = in;
  if (wt_source_open(in, strlen(in), WT_FORMAT_GGUF, &j.src, &e) != 0 ||
      rw_open_parts(&j, in, &e) != 0)
    goto fail;
  where = prefix;
  j.verify = 1;
  if ((first = calloc(j.n_ts + 2, sizeof(*first))) == NULL) {
    wt_fail(&e, "out of memory");
    goto fail;
  }
  if ((n = gs_assign(&j, max_tensors, max_bytes, first, &e)) < 0)
    goto fail;
  part = calloc((size_t)n, sizeof(*part));
  keys = calloc((size_t)n, sizeof(*keys));
  if (part == NULL || keys == NULL) {
    wt_fail(&e, "out of memory");
    goto fail;
  }
  for (k = 0; k < n; k++) {
    part[k] = j; /* the same input; its own slice of tensors and output */
    part[k].ts = j.ts + first[k];
    part[k].n_ts = first[k + 1] - first[k];
    part[k].whole = 0;
    memset(&part[k].out, 0, sizeof(part[k].out));
    part[k].out.fd = part[k].out.dirfd = -1;
    snprintf(edit, sizeof(edit),
             "{\"split.no\": {\"type\": \"UINT16\", \"value\": %d}, \"split.count\": {\"type\": "
             "\"UINT16\", \"value\": %d}, \"split.tensors.count\": {\"type\": \"INT32\", "
             "\"value\": %zu}}",
             k, n, j.n_ts);
    if (snprintf(path, sizeof(path), "%s-%05d-of-%05d.gguf", prefix, k + 1, n) >=
        (int)sizeof(path)) {
      wt_fail(&e, "the prefix is too long");
      goto fail;
    }
    for (m = 0; m < j.n_parts; m++)
      if (wt_out_is_file(path, &j.parts[m]->file)) {
        wt_fail(&e, "%s is an input file: refusing to replace it", path);
        goto fail;
      }
    if ((k == 0 && rw_from_model(&keys[0], &j.src->model, j.src->header, &e) != 0) ||
        rw_apply(&keys[k], WT_FORMAT_GGUF, j.db, edit, &e) != 0 ||
        rw_gguf(&part[k], path, &keys[k], &e) != 0)
      goto fail;
  }
  if (wt_interrupted(j.db)) {
    j.interrupted = 1;
    goto fail;
  }
  for (k = 0; k < n; k++)
    if (wt_out_commit(&part[k].out, &e) != 0)
      goto fail;
  sqlite3_result_int(ctx, n);
  goto done;
fail:
  for (k = 0; part != NULL && k < n; k++) /* a copy stopped by sqlite3_interrupt() */
    j.interrupted |= part[k].interrupted;
  rw_error(ctx, &j, where, e.msg);
done:
  for (k = 0; part != NULL && k < n; k++)
    wt_out_abort(&part[k].out);
  for (k = 0; keys != NULL && k < n; k++)
    rw_free(&keys[k]);
  free(part);
  free(keys);
  free(first);
  rw_job_free(&j);
}

int wt_register_gguf_split(sqlite3 *db) {
  int rc = sqlite3_create_function_v2(db, "gguf_split", 2, WT_FILE_FLAGS, 0, gs_func, 0, 0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "gguf_split", 3, WT_FILE_FLAGS, 0, gs_func, 0, 0, 0);
  return rc;
}
