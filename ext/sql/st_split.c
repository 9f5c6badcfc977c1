/*
** st_split.c: safetensors_split(folder, source, max_shard_bytes), a model
** written as a sharded safetensors checkpoint, as transformers'
** save_pretrained() writes one.  Layer: sql.
**
**   SELECT safetensors_split('out/', 'model.safetensors', 100000000);   -- shards of <= 100 MB
**   SELECT safetensors_split('merged/', 'sharded-model/', 1e15);       -- one file again
**
** The tensors of source (any path the tables take, listed by tensors())
** go into shards in their listed order, a new shard starting when the next
** tensor would take the current one past max_shard_bytes (a tensor larger
** than that gets a shard of its own), as huggingface_hub's
** split_torch_state_dict_into_shards() does.  The shards are named
** model-00001-of-0000N.safetensors, written by safetensors_write()'s code
** (the crate's form, tensors copied by reference, read back and compared),
** with model.safetensors.index.json beside them: {"metadata":
** {"total_size": bytes of every tensor}, "weight_map": {name: shard}}, keys
** sorted, indented by 2, as transformers writes it.  One shard is written
** as model.safetensors, without an index.  Returns the number of files
** written.
**
** The folder is made when it does not exist (its parent must).  Every
** shard is written and checked in a temporary file first; only when all of
** them are are they renamed into place, the index last.  A failure before
** that leaves the folder as it was (one made by the call is removed).  Shards of an earlier split
** with other names are not removed: give a new or empty folder.
*/
#include "st_split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "functions.h"
#include "interrupt.h"
#include "st_write_int.h"
#include "vtab.h"
#include "write/write_buf.h"

SQLITE_EXTENSION_INIT3

/* One tensor of the source: its name and path (copies), size, shard. */
typedef struct sts_item {
  sqlite3_value *name, *path;
  sqlite3_int64 nbytes;
  int shard;
} sts_item;

/* The list of tensors. */
typedef struct sts_list {
  sts_item *v;
  size_t n, cap;
} sts_list;

static void sts_list_free(sts_list *l) {
  size_t i;
  for (i = 0; i < l->n; i++) {
    sqlite3_value_free(l->v[i].name);
    sqlite3_value_free(l->v[i].path);
  }
  free(l->v);
}

/* List the tensors of source and give each its shard: the count of
** shards, or -1 with err set. */
static int sts_assign(sqlite3 *db, sqlite3_value *source, sqlite3_int64 max, sts_list *l,
                      wt_error *err) {
  sqlite3_stmt *st = NULL;
  sqlite3_int64 used = 0;
  int shard = 0, rc;
  if (sqlite3_prepare_v2(db, "SELECT name, path, nbytes FROM tensors(?1)", -1, &st, NULL) !=
      SQLITE_OK)
    return wt_fail(err, "%s", sqlite3_errmsg(db));
  sqlite3_bind_value(st, 1, source);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    sts_item *it;
    sqlite3_int64 n = sqlite3_column_int64(st, 2);
    if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 256;
      sts_item *p = realloc(l->v, cap * sizeof(*p));
      if (p == NULL)
        break;
      l->v = p;
      l->cap = cap;
    }
    if (shard == 0 || (used > 0 && used + n > max)) {
      shard++;
      used = 0;
    }
    used += n;
    it = &l->v[l->n];
    it->name = sqlite3_value_dup(sqlite3_column_value(st, 0));
    it->path = sqlite3_value_dup(sqlite3_column_value(st, 1));
    it->nbytes = n;
    it->shard = shard;
    l->n++;
    if (it->name == NULL || it->path == NULL)
      break;
  }
  if (rc != SQLITE_DONE) {
    wt_fail(err, "%s", rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  return shard;
}

/* Append s as a JSON string as Python's json.dumps() writes it (ASCII:
** other characters as \uXXXX). */
static void sts_json_string(wt_buf *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  WB_LIT(b, "\"");
  while (*p) {
    unsigned c = *p, n = 1, k;
    char esc[32];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      wb_put(b, p++, 1);
      continue;
    }
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      wb_put(b, esc, 2);
      p++;
      continue;
    }
    if (c >= 0xf0)
      c &= 0x07, n = 4;
    else if (c >= 0xe0)
      c &= 0x0f, n = 3;
    else if (c >= 0xc0)
      c &= 0x1f, n = 2;
    for (k = 1; k < n && p[k]; k++)
      c = c << 6 | (p[k] & 0x3f);
    p += k;
    if (c >= 0x10000) { /* a surrogate pair */
      unsigned hi = 0xd800 + ((c - 0x10000) >> 10), lo = 0xdc00 + ((c - 0x10000) & 0x3ff);
      snprintf(esc, sizeof(esc), "\\u%04x\\u%04x", hi, lo);
      wb_put(b, esc, 12);
    } else {
      esc[0] = '\\', esc[1] = 'u';
      for (k = 0; k < 4; k++)
        esc[2 + k] = hex[(c >> (12 - 4 * k)) & 15];
      wb_put(b, esc, 6);
    }
  }
  WB_LIT(b, "\"");
}

static int sts_name_cmp(const void *a, const void *b) {
  return strcmp((const char *)sqlite3_value_text(((const sts_item *)a)->name),
                (const char *)sqlite3_value_text(((const sts_item *)b)->name));
}

/* The index of l (sorted by name here) with shard file names base[k]. */
static int sts_index(sts_list *l, char **base, wt_buf *b) {
  sqlite3_int64 total = 0;
  size_t i;
  for (i = 0; i < l->n; i++)
    total += l->v[i].nbytes;
  qsort(l->v, l->n, sizeof(*l->v), sts_name_cmp);
  WB_LIT(b, "{\n  \"metadata\": {\n    \"total_size\": ");
  wb_dec(b, (uint64_t)total);
  WB_LIT(b, "\n  },\n  \"weight_map\": {");
  for (i = 0; i < l->n; i++) {
    if (i > 0)
      WB_LIT(b, ",");
    WB_LIT(b, "\n    ");
    sts_json_string(b, (const char *)sqlite3_value_text(l->v[i].name));
    WB_LIT(b, ": ");
    sts_json_string(b, base[l->v[i].shard - 1]);
  }
  WB_LIT(b, "\n  }\n}\n");
  return b->oom ? -1 : 0;
}

/* safetensors_split(folder, source, max_shard_bytes). */
static void sts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *folder = (const char *)sqlite3_value_text(argv[0]);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_int64 max = sqlite3_value_int64(argv[2]);
  sts_list l = {0};
  swr_state **shard = NULL;
  swr_job *job = NULL;
  char **base = NULL, path[4096];
  wt_buf index = {0};
  wt_out iout;
  wt_error e;
  size_t i;
  int n = 0, k, created = 0, failed_in_row = 0;
  (void)argc;
  memset(&iout, 0, sizeof(iout));
  iout.fd = iout.dirfd = -1;
  wt_watch_interrupt(db);
  if (folder == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL ||
      sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER || max <= 0) {
    wt_fail(&e, "give a folder, a source and a positive number of bytes");
    goto fail;
  }
  if (wt_file_is_remote(folder, strlen(folder))) {
    wt_fail(&e, "the output must be a local path");
    goto fail;
  }
  if ((n = sts_assign(db, argv[1], max, &l, &e)) < 0)
    goto fail;
  if (mkdir(folder, 0777) == 0)
    created = 1; /* as save_pretrained() makes it; removed again on failure */
  else if (errno != EEXIST) {
    wt_fail(&e, "cannot create the folder: %s", strerror(errno));
    goto fail;
  }
  if (n == 0) {
    wt_fail(&e, "no tensors: nothing to write");
    goto fail;
  }
  shard = calloc((size_t)n, sizeof(*shard));
  job = calloc((size_t)n, sizeof(*job));
  base = calloc((size_t)n, sizeof(*base));
  if (shard == NULL || job == NULL || base == NULL)
    goto nomem;
  for (k = 0; k < n; k++) {
    char name[64];
    if (n == 1)
      snprintf(name, sizeof(name), "model.safetensors");
    else
      snprintf(name, sizeof(name), "model-%05d-of-%05d.safetensors", k + 1, n);
    base[k] = strdup(name);
    shard[k] = calloc(1, sizeof(**shard));
    if (snprintf(path, sizeof(path), "%s/%s", folder, name) >= (int)sizeof(path)) {
      wt_fail(&e, "the folder path is too long");
      goto fail;
    }
    if (base[k] == NULL || shard[k] == NULL || (shard[k]->out = strdup(path)) == NULL)
      goto nomem;
    shard[k]->fn = "safetensors_split";
    job[k].db = db;
    job[k].out.fd = job[k].out.dirfd = -1;
  }
  for (i = 0; i < l.n; i++) {
    swr_state *s = shard[l.v[i].shard - 1];
    swr_row *r = swr_push(ctx, s, l.v[i].name);
    if (r == NULL || swr_from_path(ctx, s, l.v[i].name, l.v[i].path, r) != 0) {
      failed_in_row = 1; /* the error result is set */
      goto fail;
    }
  }
  for (k = 0; k < n; k++)
    if (swr_prepare(&job[k], shard[k], &e) != 0)
      goto fail;
  if (n > 1) {
    if (sts_index(&l, base, &index) != 0 ||
        snprintf(path, sizeof(path), "%s/model.safetensors.index.json", folder) >=
            (int)sizeof(path)) {
      wt_fail(&e, "out of memory");
      goto fail;
    }
    if (wt_out_open(&iout, path, &e) != 0 || wt_out_write(&iout, index.p, index.n, &e) != 0)
      goto fail;
  }
  if (wt_interrupted(db)) {
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    failed_in_row = 1;
    goto fail;
  }
  for (k = 0; k < n; k++)
    if (wt_out_commit(&job[k].out, &e) != 0)
      goto fail;
  if (n > 1 && wt_out_commit(&iout, &e) != 0)
    goto fail;
  sqlite3_result_int(ctx, n + (n > 1));
  created = 0;
  goto cleanup;
nomem:
  wt_fail(&e, "out of memory");
fail:
  for (k = 0; job != NULL && k < n && !failed_in_row; k++)
    if (job[k].interrupted) { /* a copy stopped by sqlite3_interrupt() */
      sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
      failed_in_row = 1;
    }
  if (!failed_in_row) {
    char *z = wt_error_message("safetensors_split", folder, e.msg);
    if (z == NULL) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_error(ctx, z, -1);
      sqlite3_free(z);
    }
  }
cleanup:
  wt_out_abort(&iout);
  for (k = 0; k < n; k++) {
    if (job)
      swr_job_free(&job[k]);
    if (shard)
      swr_free(shard[k]);
    if (base)
      free(base[k]);
  }
  free(job);
  free(shard);
  free(base);
  free(index.p);
  sts_list_free(&l);
  if (created)
    rmdir(folder);
}

int wt_register_st_split(sqlite3 *db, wt_cache *cache) {
  return wt_register_one(db, "safetensors_split", 0, 3, WT_FILE_FLAGS, sts_func, cache);
}
