/*
** catalog.c: the tables that say what a path holds, whatever fails.
** Layer: sql (wt_table_defs for vtab.c).
**
**   weights_files(path)   one row per file in scope: model files, broken
**                         ones, duplicates (another name of a file read
**                         once), and the shards or parts a model names
**                         that are missing
**   weights_models(path)  one row per model in scope: an index and its
**                         shards, the parts of a split GGUF, or one file,
**                         with its totals and what it is (architecture,
**                         kind, base model, context length, quantization:
**                         paths/model_kind.h has the rules)
**
** For example, on the folder that `make demo` writes (one GGUF cut short):
**
**   SELECT model, tensors, params, error FROM weights_models('build/demo')
**   WHERE model GLOB '*.gguf';
**   build/demo/tiny-llama-truncated.gguf  NULL NULL   tensor #0 'token_embd.weight' at
**                                                     byte 5447: data [6624, 24304) runs past
**                                                     the end of the file (6724 bytes)
**   build/demo/tiny-llama.gguf            21  107328
**   build/demo/tiny-qwen2.gguf            21  107328
**
** Everything a row shows was learnt when the file was visited (paths.c
** stats and sniffs each file once; the vtab opens it through the cache):
** no column function reads the file system, except weights_files.verified,
** a whole-file SHA-256 computed only when a query reads that column,
** weights_files.realpath, resolved (realpath(3)) only when read, and the
** five columns of weights_models that say what a model is, which read its
** config.json (and an adapter's adapter_config.json) when first read.
*/
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_ftype.h"
#include "bytes/file_sha256.h"
#include "paths/model_kind.h"
#include "remote/url.h"
#include "tables.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

static const char *const wt_catalog_args[] = {"path"};

/* ---- weights_files(path) ---- */

enum {
  WF_FILE,
  WF_FORMAT,
  WF_SIZE,
  WF_TENSORS,
  WF_ERROR,
  WF_MODEL,
  WF_REALPATH,
  WF_DEV,
  WF_INODE,
  WF_MTIME,
  WF_REVISION,
  WF_VERIFIED,
  WF_NCOLS
};

/* The path of the file that names the model of file f, or NULL. */
static const char *wt_model_name(const wt_pathlist *l, const wt_path_file *f) {
  if (f->model >= l->n_models)
    return NULL;
  return l->files[l->models[f->model].name_file].path;
}

/* Result: a string of the path list, or NULL. */
static void wt_result_opt(sqlite3_context *ctx, const char *z) {
  if (z != NULL)
    sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
}

/* Result of weights_files.verified: 1 when the file's SHA-256 is the one
** its HF blob's name promises, 0 when not, NULL when nothing is promised.
** This is the one column that reads a file in xColumn, on purpose: a
** whole-file hash (10 GB for a large shard) must be paid only by a query
** that asks for it, never by a plain listing, and SQLite calls xColumn
** only for the columns a query uses. */
static int wf_verified(sqlite3_context *ctx, const wt_path_file *f) {
  char hex[65];
  wt_error e;
  if (f->expected_sha256 == NULL || !f->exists)
    return SQLITE_OK;
  if (wt_sha256_file(f->path, hex, &e)) {
    char *msg = sqlite3_mprintf("weights_files(): %s: %s", f->path, e.msg);
    sqlite3_result_error(ctx, msg != NULL ? msg : "out of memory", -1);
    sqlite3_free(msg);
    return SQLITE_ERROR;
  }
  sqlite3_result_int(ctx, strcmp(hex, f->expected_sha256) == 0);
  return SQLITE_OK;
}

/* Column of weights_files(). */
static int wf_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_path_file *f = &c->paths.files[c->cur];
  const char *model = wt_model_name(&c->paths, f);
  switch (col) {
  case WF_FILE:
    sqlite3_result_text(ctx, f->path, -1, SQLITE_TRANSIENT);
    break;
  case WF_FORMAT: {
    int format = c->src != NULL             ? c->src->model.format
                 : f->role == WT_ROLE_INDEX ? WT_FORMAT_SAFETENSORS
                                            : f->format;
    if (format != 0)
      sqlite3_result_text(ctx, wt_format_name(format), -1, SQLITE_STATIC);
    break;
  }
  case WF_SIZE:
    if (c->src != NULL)
      wt_result_u64(ctx, c->src->file.size);
    else if (f->exists && !wt_url_is_remote(f->path, strlen(f->path)))
      wt_result_u64(ctx, f->size); /* a remote file's size is known once it opens */
    break;
  case WF_TENSORS:
    if (c->src != NULL)
      wt_result_u64(ctx, c->src->model.n_tensors);
    break;
  case WF_ERROR:
    if (c->file_error != NULL)
      sqlite3_result_text(ctx, c->file_error, -1, SQLITE_TRANSIENT);
    break;
  case WF_MODEL:
    if (model != NULL)
      sqlite3_result_text(ctx, model, -1, SQLITE_TRANSIENT);
    break;
  case WF_REALPATH: {
    /* resolved when asked for: a listing that does not show it pays no
    ** readlink per path component */
    char *r = f->exists ? realpath(f->path, NULL) : NULL;
    if (r != NULL)
      sqlite3_result_text(ctx, r, -1, free);
    break;
  }
  case WF_DEV:
    if (f->exists)
      wt_result_u64(ctx, f->dev);
    break;
  case WF_INODE:
    if (f->exists)
      wt_result_u64(ctx, f->ino);
    break;
  case WF_MTIME:
    if (f->exists)
      sqlite3_result_double(ctx, (double)f->mtime_ns / 1e9);
    break;
  case WF_REVISION:
    wt_result_opt(ctx, f->revision);
    break;
  case WF_VERIFIED:
    return wf_verified(ctx, f);
  }
  return SQLITE_OK;
}

const wt_table_def wt_weights_files_table = {
    .name = "weights_files",
    .schema = "CREATE TABLE x(file TEXT, format TEXT, size INTEGER, tensors INTEGER, error TEXT,"
              " model TEXT, realpath TEXT, dev INTEGER, inode INTEGER, mtime REAL,"
              " revision TEXT, verified INTEGER, path HIDDEN)",
    .format = 0,
    .n_cols = WF_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_catalog_args,
    .usage = "path",
    .rows = WT_ROWS_FILES,
    .no_file_column = 1,
    .column = wf_column,
};

/* ---- weights_models(path) ---- */

enum {
  WM_MODEL,
  WM_FORMAT,
  WM_FILES,
  WM_FILES_PRESENT,
  WM_TENSORS,
  WM_PARAMS,
  WM_NBYTES,
  WM_ERROR,
  WM_REVISION,
  WM_REFS,
  WM_FILE_TYPE,
  WM_BITS_PER_WEIGHT,
  WM_ARCHITECTURE,
  WM_KIND,
  WM_BASE_MODEL,
  WM_CONTEXT_LENGTH,
  WM_QUANTIZATION,
  WM_NCOLS
};

/* The per-model state of weights_models(): the facts of its headers,
** general.file_type of its first part (GGUF), and what the model is
** (paths/model_kind.h), read when one of those columns is first asked for:
** it may read config.json or adapter_config.json, a request each for a
** remote model, which a listing that does not show them never pays. */
typedef struct wm_state {
  wt_model_facts f;
  int has_file_type;
  int64_t file_type;
  int kind_read;
  wt_model_kind k;
} wm_state;

/* start_file of weights_models(): open and check the model's files. */
static int wm_start(wt_cursor *c, char **pzErr) {
  wm_state *st = sqlite3_malloc(sizeof(*st));
  const wt_path_model *m = &c->paths.models[c->cur];
  (void)pzErr;
  if (st == NULL)
    return SQLITE_NOMEM;
  if (wt_model_check(c->cache, &c->paths, c->cur, 0, &st->f)) {
    sqlite3_free(st);
    return SQLITE_NOMEM;
  }
  st->has_file_type = 0;
  st->kind_read = 0;
  if (m->format == WT_FORMAT_GGUF && m->n_parts > 0 && !st->f.fatal) {
    const char *first = c->paths.files[m->parts[0]].path;
    wt_source *src;
    wt_error e;
    if (wt_cache_open(c->cache, first, strlen(first), WT_FORMAT_GGUF, &src, &e) == 0) {
      st->has_file_type = gguf_file_type(&src->model, src->header, &st->file_type);
      wt_source_release(src);
    }
  }
  c->state = st;
  c->n_rows = 1;
  return SQLITE_OK;
}

/* Column of weights_models() that says what the model is. */
static int wm_kind_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  wm_state *st = c->state;
  const wt_model_kind *k = &st->k;
  if (!st->kind_read) {
    if (wt_model_kind_read(c->cache, &c->paths, c->cur, &st->k))
      return SQLITE_NOMEM;
    st->kind_read = 1;
  }
  switch (col) {
  case WM_ARCHITECTURE:
    wt_result_opt(ctx, k->architecture[0] ? k->architecture : NULL);
    break;
  case WM_KIND:
    sqlite3_result_text(ctx, k->kind, -1, SQLITE_STATIC);
    break;
  case WM_BASE_MODEL:
    wt_result_opt(ctx, k->base_model[0] ? k->base_model : NULL);
    break;
  case WM_CONTEXT_LENGTH:
    if (k->has_context_length)
      wt_result_u64(ctx, k->context_length);
    break;
  case WM_QUANTIZATION:
    wt_result_opt(ctx, k->quantization[0] ? k->quantization : NULL);
    break;
  }
  return SQLITE_OK;
}

/* Column of weights_models(). */
static int wm_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wm_state *st = c->state;
  const wt_model_facts *f = &st->f;
  const wt_path_model *m = &c->paths.models[c->cur];
  char ftype[48];
  switch (col) {
  case WM_MODEL:
    sqlite3_result_text(ctx, c->file, -1, SQLITE_TRANSIENT);
    break;
  case WM_FORMAT:
    if (m->format != 0)
      sqlite3_result_text(ctx, wt_format_name(m->format), -1, SQLITE_STATIC);
    break;
  case WM_FILES:
    wt_result_u64(ctx, f->files);
    break;
  case WM_FILES_PRESENT:
    wt_result_u64(ctx, f->files_present);
    break;
  case WM_TENSORS: /* unknown (NULL), not 0, for a model that cannot be read */
    if (!f->fatal)
      wt_result_u64(ctx, f->tensors);
    break;
  case WM_PARAMS:
    if (!f->fatal)
      wt_result_u64(ctx, f->params);
    break;
  case WM_NBYTES:
    if (!f->fatal)
      wt_result_u64(ctx, f->nbytes);
    break;
  case WM_ERROR:
    if (f->error[0] != 0 && f->where != NULL && strcmp(f->where, c->file) != 0)
      sqlite3_result_text(ctx, sqlite3_mprintf("%s: %s", f->where, f->error), -1, sqlite3_free);
    else if (f->error[0] != 0)
      sqlite3_result_text(ctx, f->error, -1, SQLITE_TRANSIENT);
    break;
  case WM_REVISION:
    wt_result_opt(ctx, c->paths.files[m->name_file].revision);
    break;
  case WM_REFS:
    wt_result_opt(ctx, c->paths.files[m->name_file].refs);
    break;
  case WM_FILE_TYPE:
    if (st->has_file_type)
      sqlite3_result_text(ctx, ggml_ftype_text(ftype, sizeof(ftype), st->file_type), -1,
                          SQLITE_TRANSIENT);
    break;
  case WM_BITS_PER_WEIGHT:
    if (!f->fatal && f->unsized == 0 && f->params > 0)
      sqlite3_result_double(ctx, wt_bits_per_weight(f->nbytes, f->params));
    break;
  default:
    return wm_kind_column(c, ctx, col);
  }
  return SQLITE_OK;
}

const wt_table_def wt_weights_models_table = {
    .name = "weights_models",
    .schema = "CREATE TABLE x(model TEXT, format TEXT, files INTEGER, files_present INTEGER,"
              " tensors INTEGER, params INTEGER, nbytes INTEGER, error TEXT, revision TEXT,"
              " refs TEXT, file_type TEXT, bits_per_weight REAL, architecture TEXT, kind TEXT,"
              " base_model TEXT, context_length INTEGER, quantization TEXT, path HIDDEN)",
    .format = 0,
    .n_cols = WM_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = wt_catalog_args,
    .usage = "path",
    .rows = WT_ROWS_MODELS,
    .no_file_column = 1,
    .start_file = wm_start,
    .column = wm_column,
    .end_file = wt_free_state,
};
