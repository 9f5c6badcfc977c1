/*
** functions.c: the scalar SQL functions that read files' headers and
** bytes (layer: sql; files through bytes/ and paths/, descriptions from formats/).
**
**   safetensors_blob(path, name [, offset [, length]])  tensor bytes (BLOB)
**   gguf_blob(path, name [, offset [, length]])         tensor bytes (BLOB)
**   tensor_blob(path, name [, offset [, length]])       either format
**   tensor_hash(path, name [, algorithm])               hash of the bytes
**   safetensors_info(path)                              file facts (JSON)
**   gguf_info(path)                                     file facts (JSON)
**   weights_version()                                   version string
**   weights_cache_stats()                               the cache's counters
**   weights_remote([on])                                remote paths on/off
**   weights_mmap([on])                                  tensor bytes mapped/pread
**   weights_mmap_guard()                                the SIGBUS guard's state
**
** For example:
**
**   SELECT length(tensor_blob('build/demo/tiny-llama.gguf', 'output_norm.weight')),
**          tensor_hash('build/demo/tiny-llama.gguf', 'output_norm.weight');
**   256  d60c7ede5fc0a38b26282af8c4d65ec2      (64 F32 values; XXH3-128, as xxhsum -H2)
**
** tensor_compare, which decodes values, is values.c's; both register
** through wt_register_one() (functions.h).
**
** The blob functions copy bytes straight into the result (from the file's
** mapping under the SIGBUS guard, or with pread: weights_mmap()), after
** checking that the range lies inside the tensor and that the result fits
** the connection's SQLITE_LIMIT_LENGTH; tensor_hash streams the bytes
** through the hash (bytes/digest.h) in chunks of WT_READ_CHUNK.  A file
** that got shorter or changed since it was parsed is an error ("file
** changed while in use"), never a signal and never a mix of two versions.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "formats/ggml_ftype.h"
#include "bytes/digest.h"
#include "bytes/mapping.h"
#include "interrupt.h"
#include "paths/models.h"
#include "bytes/source.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* The user data of each registered function. */
/* The last multi-file path a function resolved (one per path argument). */
typedef struct wt_func_memo {
  char *path; /* sqlite3_malloc'd; NULL: empty */
  wt_pathlist list;
} wt_func_memo;

typedef struct wt_func_aux {
  const char *name; /* for messages */
  int format;       /* WT_FORMAT_* of the files it reads; 0 = either */
  wt_cache *cache;
  wt_func_memo memo[2]; /* argument 0, and 2 (tensor_compare's second side) */
} wt_func_aux;

/* ======================= Finding a file and a tensor ======================== */

/* Report an error that names the function and, when known, the path. */
static void wt_func_error(sqlite3_context *ctx, const char *fn, const char *path, const char *msg) {
  wt_cache_note_failure(((const wt_func_aux *)sqlite3_user_data(ctx))->cache);
  wt_result_error(ctx, fn, path, msg);
}

wt_source *wt_func_source(sqlite3_context *ctx, sqlite3_value *arg) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  const char *fn = aux->name;
  const char *path = (const char *)sqlite3_value_text(arg);
  int n = sqlite3_value_bytes(arg);
  wt_source *src;
  wt_error e;
  if (sqlite3_value_type(arg) == SQLITE_NULL) {
    wt_func_error(ctx, fn, NULL, "the path argument is NULL");
    return NULL;
  }
  if (path == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  if (wt_cache_open(aux->cache, path, (size_t)n, aux->format, &src, &e)) {
    wt_func_error(ctx, fn, (int)strlen(path) == n ? path : NULL, e.msg);
    return NULL;
  }
  return src;
}

/* Read an optional 64-bit integer argument; *out keeps its default when
** the argument is absent or NULL.  Returns -1 (error set) when it is not
** an integer. */
static int wt_int_arg(sqlite3_context *ctx, const char *fn, int argc, sqlite3_value **argv, int i,
                      const char *what, sqlite3_int64 *out) {
  if (i >= argc || sqlite3_value_type(argv[i]) == SQLITE_NULL)
    return 0;
  if (sqlite3_value_numeric_type(argv[i]) != SQLITE_INTEGER) {
    char *msg = sqlite3_mprintf("%s must be an integer", what);
    wt_func_error(ctx, fn, NULL, msg ? msg : "bad argument");
    sqlite3_free(msg);
    return -1;
  }
  *out = sqlite3_value_int64(argv[i]);
  return 0;
}

/* Empty a memo. */
static void wt_memo_clear(wt_func_memo *m) {
  sqlite3_free(m->path);
  m->path = NULL;
  wt_pathlist_free(&m->list);
}

/* wt_resolve_tensor() for a path that names several files (argument i).
** The expanded and checked list of the last such path is kept with the
** function, and used again while wt_pathlist_fresh() says it holds (the
** path and its files unchanged: a stat of each), so that a function called
** once per row of a listing (`tensor_hash(t.path, t.name) FROM tensors(p)
** AS t`) parses the index and checks the shards once, not once per row.
** A glob or a recursive walk is expanded on every call. */
static int wt_scope_tensor(sqlite3_context *ctx, int i, const char *p, size_t n, const char *z,
                           size_t zn, wt_source **psrc, const wt_tensor **pt, wt_error *e) {
  wt_func_aux *aux = sqlite3_user_data(ctx);
  wt_func_memo *m = &aux->memo[i > 0];
  if (m->path == NULL || strcmp(m->path, p) != 0 || !wt_pathlist_fresh(&m->list, p)) {
    wt_memo_clear(m);
    if (wt_scope_open(aux->cache, p, n, aux->format, &m->list, e))
      return -1;
    m->path = sqlite3_mprintf("%s", p);
    if (m->path == NULL) {
      wt_pathlist_free(&m->list);
      return wt_fail(e, "out of memory");
    }
  }
  return wt_scope_find_tensor(aux->cache, &m->list, aux->format, z, zn, psrc, pt, e);
}

/* The statement's check number for the cache (wt_cache_find_checked():
** one stat of a cached file per statement).  It is kept as auxiliary data
** under a negative argument number, which SQLite shares between all the
** functions of one prepared statement and drops when the statement is
** reset (sqlite3_get_auxdata() in vdbeapi.c: "Undocumented behavior",
** there for many releases; SQLite's own JSON functions cache parses this
** way): so every execution of a statement gets a new number.  0 (a stat
** on every call) when SQLite keeps no such data. */
#define WT_STMT_AUX (-0x77746368) /* any negative number no other code uses */
static uint64_t wt_stmt_check(sqlite3_context *ctx, wt_cache *cache) {
  uint64_t *p = sqlite3_get_auxdata(ctx, WT_STMT_AUX), check;
  if (p != NULL)
    return *p;
  p = sqlite3_malloc(sizeof(*p));
  if (p == NULL)
    return 0;
  check = *p = wt_cache_new_check(cache);
  sqlite3_set_auxdata(ctx, WT_STMT_AUX, p, sqlite3_free); /* frees p when it fails */
  return check;
}

int wt_func_find_tensor(sqlite3_context *ctx, sqlite3_value **argv, int i, wt_source **psrc,
                        const wt_tensor **pt) {
  sqlite3_value *path = argv[i], *name = argv[i + 1];
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  wt_watch_interrupt(sqlite3_context_db_handle(ctx));
  const char *p = (const char *)sqlite3_value_text(path);
  const char *z = (const char *)sqlite3_value_text(name);
  int n = sqlite3_value_bytes(path);
  wt_error e;
  int rc;
  *psrc = NULL;
  *pt = NULL;
  if (sqlite3_value_type(path) == SQLITE_NULL) {
    wt_func_error(ctx, aux->name, NULL, "the path argument is NULL");
    return -1;
  }
  if (p == NULL || (z == NULL && sqlite3_value_type(name) != SQLITE_NULL)) {
    sqlite3_result_error_nomem(ctx);
    return -1;
  }
  if (z == NULL)
    return 0;
  rc =
      wt_resolve_cached(aux->cache, p, (size_t)n, aux->format, z, (size_t)sqlite3_value_bytes(name),
                        wt_stmt_check(ctx, aux->cache), psrc, pt);
  if (rc != WT_NOT_CACHED) {
    /* the file is in the cache and unchanged: one stat per statement */
  } else if (wt_path_is_plain_file(p, (size_t)n)) {
    rc = wt_resolve_tensor(aux->cache, p, (size_t)n, aux->format, z,
                           (size_t)sqlite3_value_bytes(name), psrc, pt, &e);
  } else {
    rc = wt_scope_tensor(ctx, i, p, (size_t)n, z, (size_t)sqlite3_value_bytes(name), psrc, pt, &e);
  }
  if (rc < 0) {
    wt_func_error(ctx, aux->name, (int)strlen(p) == n ? p : NULL, e.msg);
    *pt = NULL;
  }
  return rc;
}

/* The tensor named by argv[1] in what argv[0] names, with its range
** checks done; NULL (result set: NULL or an error) otherwise.  On success
** *psrc must be released by the caller. */
static const wt_tensor *wt_func_tensor(sqlite3_context *ctx, sqlite3_value **argv,
                                       wt_source **psrc) {
  const char *fn = ((const wt_func_aux *)sqlite3_user_data(ctx))->name;
  const wt_tensor *t;
  *psrc = NULL;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return NULL;
  if (wt_func_find_tensor(ctx, argv, 0, psrc, &t) <= 0)
    t = NULL;
  if (t != NULL && !t->nbytes_known) {
    char msg[WT_ERROR_MAX];
    wt_func_error(ctx, fn, (*psrc)->path, wt_tensor_unknown_size(t, msg, sizeof(msg)));
    t = NULL;
  }
  if (t == NULL) {
    wt_source_release(*psrc);
    *psrc = NULL;
  }
  return t;
}

/* ============================ The blob functions ============================ */

/* Read bytes [offset, offset+length) of tensor t into the result. */
static void wt_blob_result(sqlite3_context *ctx, const char *fn, wt_source *src, const wt_tensor *t,
                           sqlite3_int64 offset, sqlite3_int64 length) {
  sqlite3_int64 limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  char q[WT_QUOTE_SIZE];
  char *msg = NULL;
  void *buf;
  wt_error e;
  if (length > limit) {
    const char *name = wt_quote(q, sizeof(q), t->name.p, t->name.n);
    msg = sqlite3_mprintf("tensor %s: the %lld bytes asked for exceed this connection's "
                          "SQLITE_LIMIT_LENGTH of %lld bytes; read it in pieces with the "
                          "offset and length arguments",
                          name, (long long)length, (long long)limit);
    wt_func_error(ctx, fn, src->path, msg ? msg : "too big");
    sqlite3_free(msg);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    return;
  }
  if (length == 0) {
    sqlite3_result_zeroblob(ctx, 0);
    return;
  }
  buf = sqlite3_malloc64((sqlite3_uint64)length);
  if (buf == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (wt_tensor_read(src, t, (uint64_t)offset, (size_t)length, buf, &e) != 0) {
    sqlite3_free(buf);
    wt_func_error(ctx, fn, src->path, e.msg);
    return;
  }
  sqlite3_result_blob64(ctx, buf, (sqlite3_uint64)length, sqlite3_free);
}

/* safetensors_blob(), gguf_blob(), tensor_blob(): a tensor's bytes. */
static void wt_blob_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *fn = ((const wt_func_aux *)sqlite3_user_data(ctx))->name;
  sqlite3_int64 offset = 0, length = 0;
  int to_end = argc < 4 || sqlite3_value_type(argv[3]) == SQLITE_NULL;
  const wt_tensor *t;
  wt_source *src;
  char q[WT_QUOTE_SIZE], *msg = NULL;
  if (wt_int_arg(ctx, fn, argc, argv, 2, "offset", &offset) ||
      wt_int_arg(ctx, fn, argc, argv, 3, "length", &length))
    return;
  t = wt_func_tensor(ctx, argv, &src);
  if (t == NULL)
    return; /* NULL (no such tensor) or an error, already set */
  if ((offset < 0 || (uint64_t)offset > t->nbytes) ||
      (!to_end && (length < 0 || (uint64_t)length > t->nbytes - (uint64_t)offset)))
    wt_quote(q, sizeof(q), t->name.p, t->name.n); /* for the message below */
  if (offset < 0 || (uint64_t)offset > t->nbytes) {
    msg = sqlite3_mprintf("tensor %s: offset %lld is outside the tensor's %llu bytes", q,
                          (long long)offset, (unsigned long long)t->nbytes);
  } else if (to_end) {
    length = (sqlite3_int64)(t->nbytes - (uint64_t)offset);
  } else if (length < 0 || (uint64_t)length > t->nbytes - (uint64_t)offset) {
    msg = sqlite3_mprintf("tensor %s: offset %lld and length %lld are outside the tensor's %llu "
                          "bytes",
                          q, (long long)offset, (long long)length, (unsigned long long)t->nbytes);
  }
  if (msg != NULL) {
    wt_func_error(ctx, fn, src->path, msg);
    sqlite3_free(msg);
  } else {
    wt_blob_result(ctx, fn, src, t, offset, length);
  }
  wt_source_release(src);
}

/* =============================== tensor_hash ================================ */

/* Feed bytes p[0..n) to the digest arg (bytes/file.h: wt_scan_fn). */
static int wt_hash_bytes(void *arg, const unsigned char *p, size_t n, wt_error *err) {
  return wt_digest_update(arg, p, n, err);
}

/* Feed tensor t's bytes to d, in chunks of WT_READ_CHUNK: straight from the
** file's mapping when the source maps and d's update may run in the guard
** (bytes/digest.h: wt_digest_in_place), else read into a buffer.  Returns
** 0, or -1 with err set. */
static int wt_hash_tensor(const wt_source *src, const wt_tensor *t, wt_digest *d, wt_error *err) {
  size_t cap = t->nbytes < WT_READ_CHUNK ? (size_t)t->nbytes : WT_READ_CHUNK;
  unsigned char small[4096], *buf = small;
  uint64_t off = 0;
  int rc = -1;
  if (cap > sizeof(small)) { /* most tensors of a MoE checkpoint: no malloc */
    buf = malloc(cap);
    if (buf == NULL)
      return wt_fail(err, "out of memory");
  }
  while (off < t->nbytes) {
    size_t n = t->nbytes - off < cap ? (size_t)(t->nbytes - off) : cap;
    if (wt_digest_in_place(d) ? wt_tensor_scan(src, t, off, n, buf, wt_hash_bytes, d, err) != 0
                              : wt_tensor_read(src, t, off, n, buf, err) != 0 ||
                                    wt_digest_update(d, buf, n, err) != 0)
      goto done;
    off += n;
  }
  rc = 0;
done:
  if (buf != small)
    free(buf);
  return rc;
}

/* tensor_hash(path, name [, algorithm]): the hash (bytes/digest.h; default
** xxh3-128) of the tensor's bytes as lower-case hex, the canonical
** big-endian form that xxhsum, sha1sum and sha256sum print. */
static void wt_hash_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *fn = ((const wt_func_aux *)sqlite3_user_data(ctx))->name;
  const char *algo = "xxh3-128";
  size_t algo_n = 8;
  wt_source *src;
  const wt_tensor *t;
  wt_digest *d = NULL;
  wt_error e;
  char hex[WT_DIGEST_HEX_MAX];
  if (argc > 2) {
    if (sqlite3_value_type(argv[2]) != SQLITE_TEXT) {
      wt_func_error(ctx, fn, NULL, "the algorithm must be text, one of " WT_DIGEST_NAMES);
      return;
    }
    algo = (const char *)sqlite3_value_text(argv[2]);
    algo_n = (size_t)sqlite3_value_bytes(argv[2]);
    if (algo == NULL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (wt_digest_begin(algo, algo_n, &d, &e) != 0) { /* before any file is read */
    wt_func_error(ctx, fn, NULL, e.msg);
    return;
  }
  t = wt_func_tensor(ctx, argv, &src);
  if (t == NULL) {
    wt_digest_free(d);
    return;
  }
  if (wt_hash_tensor(src, t, d, &e) != 0) {
    wt_digest_free(d);
    wt_func_error(ctx, fn, src->path, e.msg);
  } else if (wt_digest_end(d, hex, &e) != 0) {
    wt_func_error(ctx, fn, src->path, e.msg);
  } else {
    sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
  }
  wt_source_release(src);
}

/* ====================== safetensors_info and gguf_info ====================== */

/* ",\"file_type\":...,\"bits_per_weight\":..." for *_info(): GGUF's
** general.file_type by name (and id), read from header; the bits per
** weight of the tensors (nbytes bytes for params weights, none of unknown
** size), null when it cannot be computed.  sqlite3_malloc'd. */
static char *wt_info_identity(const wt_model *m, const unsigned char *header, uint64_t params,
                              uint64_t nbytes, uint64_t unsized) {
  double bpw = unsized == 0 ? wt_bits_per_weight(nbytes, params) : -1;
  char ftype[48], bits[40] = "null";
  int64_t id;
  if (bpw >= 0)
    snprintf(bits, sizeof(bits), "%.17g", bpw);
  if (m->format != WT_FORMAT_GGUF)
    return sqlite3_mprintf(",\"bits_per_weight\":%s", bits);
  if (!gguf_file_type(m, header, &id))
    return sqlite3_mprintf(",\"file_type\":null,\"file_type_id\":null,\"bits_per_weight\":%s",
                           bits);
  return sqlite3_mprintf(",\"file_type\":\"%s\",\"file_type_id\":%lld,\"bits_per_weight\":%s",
                         ggml_ftype_text(ftype, sizeof(ftype), id), (long long)id, bits);
}

/* The facts of one file as a JSON object (sqlite3_malloc'd).  For a
** model of several files, tensor_count is the model's (what the tables
** list), file_tensor_count this file's, files how many there are. */
static char *wt_info_json(const wt_model *m, const unsigned char *header, const wt_model_facts *f) {
  char more[128] = "", *id, *z;
  uint64_t tensors = f != NULL ? f->tensors : m->n_tensors;
  uint64_t params = 0, nbytes = 0, unsized = 0;
  size_t i;
  if (f != NULL) {
    snprintf(more, sizeof(more), ",\"files\":%llu,\"file_tensor_count\":%llu",
             (unsigned long long)f->files, (unsigned long long)m->n_tensors);
    params = f->params;
    nbytes = f->nbytes;
    unsized = f->unsized;
  } else {
    for (i = 0; i < m->n_tensors; i++) {
      params += m->tensors[i].numel;
      if (m->tensors[i].nbytes_known)
        nbytes += m->tensors[i].nbytes;
      else
        unsized++;
    }
  }
  id = wt_info_identity(m, header, params, nbytes, unsized);
  if (id == NULL)
    return NULL;
  if (m->format == WT_FORMAT_GGUF)
    z = sqlite3_mprintf("{\"version\":%u,\"byte_order\":\"%s\",\"tensor_count\":%llu,"
                        "\"kv_count\":%llu,\"alignment\":%llu,\"data_offset\":%llu,"
                        "\"file_size\":%llu%s%s}",
                        m->version, m->big_endian ? "big" : "little", (unsigned long long)tensors,
                        (unsigned long long)m->n_meta, (unsigned long long)m->alignment,
                        (unsigned long long)m->data_offset, (unsigned long long)m->file_size, more,
                        id);
  else
    z = sqlite3_mprintf("{\"file_size\":%llu,\"header_length\":%llu,\"data_offset\":%llu,"
                        "\"tensor_count\":%llu,\"metadata_count\":%llu%s%s}",
                        (unsigned long long)m->file_size, (unsigned long long)m->header_len,
                        (unsigned long long)m->data_offset, (unsigned long long)tensors,
                        (unsigned long long)m->n_meta, more, id);
  sqlite3_free(id);
  return z;
}

/* safetensors_info() and gguf_info(): the facts of a file, or of the
** first file of the one model that an index, part 1 or a folder names. */
static void wt_info_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  const char *path = (const char *)sqlite3_value_text(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  wt_model_facts facts;
  wt_source *src;
  wt_pathlist l;
  wt_error e;
  size_t mi;
  char *z;
  (void)argc;
  wt_watch_interrupt(sqlite3_context_db_handle(ctx));
  if (path == NULL || wt_path_is_plain_file(path, n)) {
    src = wt_func_source(ctx, argv[0]);
    if (src == NULL)
      return;
    z = wt_info_json(&src->model, src->header, NULL);
  } else {
    const wt_path_model *m;
    const char *first;
    if (wt_resolve_model(aux->cache, path, n, aux->format, &l, &mi, &facts, &e)) {
      wt_func_error(ctx, aux->name, path, e.msg);
      return;
    }
    m = &l.models[mi];
    first = l.files[m->parts[0]].path;
    if (wt_cache_open(aux->cache, first, strlen(first), aux->format, &src, &e)) {
      wt_func_error(ctx, aux->name, first, e.msg);
      wt_pathlist_free(&l);
      return;
    }
    z = wt_info_json(&src->model, src->header, m->n_parts > 1 || m->is_index ? &facts : NULL);
    wt_pathlist_free(&l);
  }
  if (z == NULL)
    sqlite3_result_error_nomem(ctx);
  else
    sqlite3_result_text(ctx, z, -1, sqlite3_free);
  wt_source_release(src);
}

/* ========================== The module's own state ========================== */

/* weights_version(): the version this module was built as. */
static void wt_version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, WEIGHTS_VERSION, -1, SQLITE_STATIC);
}

/* weights_cache_stats(): the connection's header cache counters as JSON. */
static void wt_cache_stats_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  wt_cache_stats st;
  (void)argc;
  (void)argv;
  wt_cache_get_stats(aux->cache, &st);
  sqlite3_result_text(ctx,
                      sqlite3_mprintf("{\"hits\":%llu,\"misses\":%llu,\"entries\":%llu,"
                                      "\"bytes\":%llu,\"values_decoded\":%llu}",
                                      (unsigned long long)st.hits, (unsigned long long)st.misses,
                                      (unsigned long long)st.entries, (unsigned long long)st.bytes,
                                      (unsigned long long)st.values_decoded),
                      -1, sqlite3_free);
}

/* The argument of a per-connection switch (weights_remote, weights_mmap):
** *on 0 or 1, or -1 when absent or NULL (the setting is read): 0; -1 with
** the error result set for anything but 0 and 1 (2, 'x', 0.5). */
static int wt_switch_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv, int *on) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  sqlite3_int64 v;
  char msg[WT_ERROR_MAX];
  *on = -1;
  if (argc == 0 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return 0;
  v = sqlite3_value_int64(argv[0]);
  if (sqlite3_value_numeric_type(argv[0]) == SQLITE_INTEGER && (v == 0 || v == 1)) {
    *on = (int)v;
    return 0;
  }
  snprintf(msg, sizeof(msg), "give 0 (off) or 1 (on), or nothing to read the setting, not %.40s",
           (const char *)sqlite3_value_text(argv[0]));
  wt_func_error(ctx, aux->name, NULL, msg);
  return -1;
}

/* weights_remote([on]): turn remote paths on (1) or off (0) for this
** connection; returns the setting (0 in a build without REMOTE). */
static void wt_remote_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  int on;
  if (wt_switch_arg(ctx, argc, argv, &on) == 0)
    sqlite3_result_int(ctx, wt_cache_remote(aux->cache, on));
}

/* weights_mmap([on]): read tensor bytes through a mapping (1) or with
** pread (0) on this connection; returns whether reads map, 0 too when the
** guard is off in this process (weights_mmap_guard() says why). */
static void wt_mmap_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const wt_func_aux *aux = sqlite3_user_data(ctx);
  int on;
  if (wt_switch_arg(ctx, argc, argv, &on) == 0)
    sqlite3_result_int(ctx, wt_cache_mmap(aux->cache, on));
}

/* weights_mmap_guard(): 'ready' while the process's SIGBUS guard
** (bytes/mapping.h) is on (installing it at the first call), else why it
** is off. */
static void wt_mmap_guard_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *why = NULL;
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, wt_guard_ready(&why) ? "ready" : why, -1, SQLITE_STATIC);
}

/* =============================== Registration =============================== */

/* Destructor of a registration's user data. */
static void wt_func_aux_free(void *p) {
  wt_func_aux *a = p;
  wt_memo_clear(&a->memo[0]);
  wt_memo_clear(&a->memo[1]);
  wt_cache_unref(a->cache);
  sqlite3_free(a);
}

/* The user data of a function that reads through cache, or NULL. */
static wt_func_aux *wt_func_aux_new(const char *name, int format, wt_cache *cache) {
  wt_func_aux *a = sqlite3_malloc(sizeof(*a));
  if (a == NULL)
    return NULL;
  memset(a, 0, sizeof(*a));
  a->name = name;
  a->format = format;
  a->cache = cache;
  wt_cache_ref(cache);
  return a;
}

int wt_register_one(sqlite3 *db, const char *name, int format, int n_arg, int flags,
                    void (*fn)(sqlite3_context *, int, sqlite3_value **), wt_cache *cache) {
  wt_func_aux *a = wt_func_aux_new(name, format, cache);
  if (a == NULL)
    return SQLITE_NOMEM;
  return sqlite3_create_function_v2(db, name, n_arg, flags, a, fn, 0, 0, wt_func_aux_free);
}

wt_cache *wt_func_cache(sqlite3_context *ctx) {
  return ((const wt_func_aux *)sqlite3_user_data(ctx))->cache;
}

int wt_register_aggregate(sqlite3 *db, const char *name, int format, int n_arg,
                          void (*step)(sqlite3_context *, int, sqlite3_value **),
                          void (*final)(sqlite3_context *), wt_cache *cache) {
  wt_func_aux *a = wt_func_aux_new(name, format, cache);
  if (a == NULL)
    return SQLITE_NOMEM;
  return sqlite3_create_function_v2(db, name, n_arg, WT_FILE_FLAGS, a, 0, step, final,
                                    wt_func_aux_free);
}

int wt_register_functions(sqlite3 *db, wt_cache *cache) {
  static const struct {
    const char *name;
    int min_args, max_args;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
    int format;
    int flags;
  } funcs[] = {
      {"safetensors_blob", 2, 4, wt_blob_func, WT_FORMAT_SAFETENSORS, WT_FILE_FLAGS},
      {"gguf_blob", 2, 4, wt_blob_func, WT_FORMAT_GGUF, WT_FILE_FLAGS},
      {"tensor_blob", 2, 4, wt_blob_func, 0, WT_FILE_FLAGS},
      {"tensor_hash", 2, 3, wt_hash_func, 0, WT_FILE_FLAGS},
      {"safetensors_info", 1, 1, wt_info_func, WT_FORMAT_SAFETENSORS, WT_FILE_FLAGS},
      {"gguf_info", 1, 1, wt_info_func, WT_FORMAT_GGUF, WT_FILE_FLAGS},
      {"weights_version", 0, 0, wt_version_func, 0, WT_PURE_FLAGS},
      {"weights_cache_stats", 0, 0, wt_cache_stats_func, 0, SQLITE_UTF8},
      {"weights_remote", 0, 1, wt_remote_func, 0, SQLITE_UTF8 | SQLITE_DIRECTONLY},
      {"weights_mmap", 0, 1, wt_mmap_func, 0, SQLITE_UTF8 | SQLITE_DIRECTONLY},
      {"weights_mmap_guard", 0, 0, wt_mmap_guard_func, 0, SQLITE_UTF8},
  };
  size_t i;
  int n, rc = SQLITE_OK;
  for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]) && rc == SQLITE_OK; i++) {
    for (n = funcs[i].min_args; n <= funcs[i].max_args && rc == SQLITE_OK; n++)
      rc = wt_register_one(db, funcs[i].name, funcs[i].format, n, funcs[i].flags, funcs[i].fn,
                           cache);
  }
  return rc;
}
