/*
** models.h: the models of a path, opened and checked.  Layer: io (uses the
** cache and the parsers through source.h; no SQLite).
**
** paths.h says which files and models a path argument names without
** reading their headers; this layer opens them (through the connection's
** cache) and says what is wrong:
**   - a part (shard, split part, the file) that is missing or does not parse;
**   - a tensor that an index's weight_map places in a shard that does not
**     hold it;
**   - a tensor name that two parts of one model both hold;
**   - metadata.total_size of an index that differs from the bytes of the
**     tensors of its shards (reported, but not fatal: see wt_model_facts).
** Tables use wt_scope_check() before their first row, so that a table over
** several files fails naming the file, never reading part of a model;
** functions use wt_resolve_tensor() to find a name in every path the
** tables take.
*/
#ifndef WT_MODELS_H
#define WT_MODELS_H

#include "bytes/cache.h"
#include "paths.h"

/* What the headers of one model's files say. */
typedef struct wt_model_facts {
  uint64_t files, files_present, tensors, params, nbytes;
  uint64_t unsized;         /* tensors whose byte size is unknown (not in nbytes) */
  int fatal;                /* the model cannot be read (error names why) */
  int n_failing;            /* files of it that fail (at least 1 when fatal) */
  const char *where;        /* the file the error is about (in the list) */
  char error[WT_ERROR_MAX]; /* "" when nothing is wrong */
} wt_model_facts;

/* The sources a scope check opened, kept for the reads that follow (a
** table's rows), so that a folder of more files than the cache holds is
** not parsed twice.  Bounded: at most WT_KEEP_MAX_BYTES of parsed headers
** (past it a file is parsed again when its rows come), and a kept source
** that nothing else uses (the cache evicted it) is parked
** (wt_source_park(): its descriptor closed until bytes are read), so that
** a folder of 10,000 files never holds 10,000 descriptors.  A zeroed wt_scope_keep is empty. */
#define WT_KEEP_MAX_BYTES (256ULL << 20)
#define WT_KEEP_MAX_OPEN  64
typedef struct wt_scope_keep {
  wt_source **src; /* by file index of the list; NULL: not kept */
  size_t n;        /* slots (the list's file count) */
  size_t n_open;   /* kept sources whose descriptor is open */
  size_t park_at;  /* n_open at which to park again */
  uint64_t bytes;  /* what the kept sources take */
} wt_scope_keep;

/* Release every kept source. */
void wt_scope_keep_free(wt_scope_keep *k);

/* The kept source of file i of the list, or NULL (still kept). */
const wt_source *wt_scope_kept(const wt_scope_keep *k, size_t i);

/* Take the kept source of file i (NULL when none is kept; else release
** it), given back to the cache too. */
wt_source *wt_scope_take(wt_scope_keep *k, wt_cache *cache, size_t i);

/* Open every part of model m of l through cache, as format (0: the
** model's own), and check it (above).  Returns 0 with *out filled
** (out->error says what is wrong), -1 when out of memory. */
int wt_model_check(wt_cache *cache, const wt_pathlist *l, size_t m, int format,
                   wt_model_facts *out);

/* Check every model of l that a table of format reads, opening its files
** as open says (bytes/source.h: WT_OPEN_HEADER, or WT_OPEN_DESCRIPTION for
** a table that reads no header bytes).  Returns how many files fail (0:
** all good); the first failure's file and message are in *where and err.
** keep (NULL: none) keeps the sources opened. */
int wt_scope_check(wt_cache *cache, const wt_pathlist *l, int format, int open, wt_scope_keep *keep,
                   const char **where, wt_error *err);

/* Expand path[0..n) for a reader of format and check every model in scope
** (wt_scope_check): 0 with *l filled (free it), or -1 with err set, naming
** the first failing file and how many others fail. */
int wt_scope_open(wt_cache *cache, const char *path, size_t n, int format, wt_pathlist *l,
                  wt_error *err);

/* Find tensor name[0..nn) in the models of l (from wt_scope_open()): as
** wt_resolve_tensor(). */
int wt_scope_find_tensor(wt_cache *cache, const wt_pathlist *l, int format, const char *name,
                         size_t nn, wt_source **src, const wt_tensor **t, wt_error *err);

/* Find tensor name[0..nn) in what path[0..n) names (a file, an index, part
** 1 of a split, a folder), read as format (0: either).  Returns 1 with
** *src (release it) and *t set, 0 when no file holds it, -1 with err set
** (a file in scope fails, or two models hold the name). */
int wt_resolve_tensor(wt_cache *cache, const char *path, size_t n, int format, const char *name,
                      size_t nn, wt_source **src, const wt_tensor **t, wt_error *err);

/* wt_resolve_tensor()'s fast path, for a function called once per row:
** when path[0..n) is, by its name, possibly one plain file and the cache
** holds it unchanged (wt_cache_find_checked() under check: one stat(2)
** per statement, nothing opened otherwise), 1 with *src (release it) and
** *t set, or 0 when it has no such tensor; else WT_NOT_CACHED (then call
** wt_resolve_tensor()). */
#define WT_NOT_CACHED (-2)
int wt_resolve_cached(wt_cache *cache, const char *path, size_t n, int format, const char *name,
                      size_t nn, uint64_t check, wt_source **src, const wt_tensor **t);

/* The one model that path[0..n) names for a reader of format: 0 with *l
** (free it), *m and *facts set, or -1 with err set (a file in scope fails,
** or the path holds no model or several). */
int wt_resolve_model(wt_cache *cache, const char *path, size_t n, int format, wt_pathlist *l,
                     size_t *m, wt_model_facts *facts, wt_error *err);

/* Open ahead, at once (remote/http.h), the remote files of the next items of a
** walk: ids[from..n) (ids NULL: from..n themselves), file ids, or model ids
** when models (then only models in scope of format, unless format < 0),
** stopping at WT_HTTP_PARALLEL files; local files and files the cache
** or keep (NULL: none) holds are skipped.  Returns the index after the last item covered
** (always past from), where the walk calls it again. */
size_t wt_open_ahead(wt_cache *cache, const wt_scope_keep *keep, const wt_pathlist *l,
                     const size_t *ids, size_t from, size_t n, int models, int format);

/* True when path[0..n) is one plain file (not a folder, an index, part 1
** of a split, a pattern): what the functions read directly. */
int wt_path_is_plain_file(const char *path, size_t n);

#endif
