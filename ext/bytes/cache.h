/*
** cache.h: a per-connection cache of opened and parsed model files.
**
** `SELECT name, safetensors_blob(path, name) FROM safetensors(path)` would
** otherwise map and parse the file once for the table and once more for
** every row.  The cache keeps recently used sources keyed by the path and
** by the file's identity (device, inode, size, modification time in
** nanoseconds), which is re-checked with stat(2) on every lookup: a file
** that was rewritten, truncated or replaced by a rename is opened afresh,
** never served from an old header.  It is bounded by a number of entries
** and by the bytes its parsed descriptions and headers take; it is freed
** when the connection closes.  No SQLite here.
*/
#ifndef WT_CACHE_H
#define WT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

#define WT_CACHE_MAX_ENTRIES 64
#define WT_CACHE_MAX_BYTES   (512ULL << 20)

typedef struct wt_cache wt_cache;

/* A new, empty cache with one reference, or NULL on OOM. */
wt_cache *wt_cache_new(void);

/* Take and drop references; the last drop frees every entry. */
void wt_cache_ref(wt_cache *c);
void wt_cache_unref(wt_cache *c);

/* Like wt_source_open(), through the cache (c may be NULL: no caching).
** Release the result with wt_source_release(). */
int wt_cache_open(wt_cache *c, const char *path, size_t n, int format, wt_source **out,
                  wt_error *err);

/* wt_cache_open() for a reader that needs what open says (source.h):
** WT_OPEN_DESCRIPTION may hand out a source whose s->header is NULL (a
** local GGUF header parsed in its mapping, unless weights_mmap(0) was
** called on the connection).  Every other way out of the cache
** (wt_cache_open, wt_cache_find, wt_cache_find_checked) reads such an
** entry's header first (wt_source_load_header), or drops the entry and
** opens the file afresh when it changed since. */
int wt_cache_open_as(wt_cache *c, const char *path, size_t n, int format, int open, wt_source **out,
                     wt_error *err);

/* 1 when c holds an entry for path[0..n), fresh or not (no stat). */
int wt_cache_holds(const wt_cache *c, const char *path, size_t n);

/* The cached source of path when there is one and the file is unchanged
** (one stat(2)): 1 with *out set (release it), else 0 (nothing opened; a
** stale entry is dropped).  c may be NULL. */
int wt_cache_find(wt_cache *c, const char *path, size_t n, int format, wt_source **out);

/* wt_cache_find() for a function called once per row: check is a number
** from wt_cache_new_check() that the caller keeps for one SQL statement
** (functions.c), and the stat(2) of the path is made only at the first
** lookup of the entry under that number (0: every time).  So within one
** statement: a file changed in place (same inode) is still caught by the
** fstat(2) after every read (wt_tensor_read(): "file changed while in
** use"); a path renamed over or deleted reads as the old file, its header
** and bytes together, as the table rows of the statement that listed it.
** Every open through wt_cache_open() (a table, a scope check) stats and
** replaces a changed entry, so once a table of a statement has read a
** path's new file, no call returns the old one's bytes; and the next
** statement checks the path again. */
int wt_cache_find_checked(wt_cache *c, const char *path, size_t n, int format, uint64_t check,
                          wt_source **out);

/* A new check number for wt_cache_find_checked() (never 0). */
uint64_t wt_cache_new_check(wt_cache *c);

/* Put source s (opened by the caller, unchanged since: models.c's kept
** sources) in the cache under its path, with a reference of its own,
** unless the cache has an entry for that path.  c may be NULL. */
void wt_cache_adopt(wt_cache *c, wt_source *s);

/* A small number for path, the same for the life of the connection: the
** tables' rowids are (id << 40) | row, so that rows of different files
** never share a rowid (SQLite merges the scans of a WHERE ... OR ... by
** rowid).  Returns -1 when out of memory. */
int64_t wt_cache_path_id(wt_cache *c, const char *path);

/* Counters, for tests and benchmarks.  values_decoded counts the values
** tensor_values() decoded (tests show that idx constraints are used). */
typedef struct wt_cache_stats {
  uint64_t hits, misses, entries, bytes, values_decoded;
} wt_cache_stats;
void wt_cache_get_stats(const wt_cache *c, wt_cache_stats *out);

/* Remote access (http://, https://, hf://) for this connection: on = 1
** allows, 0 refuses (wt_cache_open fails), -1 leaves it.  Returns the
** setting: 0 too when the module was built with REMOTE=0. */
int wt_cache_remote(wt_cache *c, int on);

/* An error that one of the connection's tables or functions reported: a
** count that an aggregate compares between its first row and its final
** step, since SQLite also calls the final step of a statement that failed
** (to free its state) and says nothing of the failure. */
void wt_cache_note_failure(wt_cache *c);
uint64_t wt_cache_failures(const wt_cache *c);

/* Tensor bytes through a mapping (mapping.h) for this connection: on = 1
** maps, 0 reads with pread, -1 leaves it; the default is WT_MMAP_DEFAULT
** (source.h).  Returns whether reads map: 0 too when the guard is off in
** this process (wt_guard_ready()).  Every source the cache hands out
** takes the setting.  Headers that only their description is needed of
** (wt_cache_open_as) are parsed in their mapping until the connection
** sets 0, and again after it sets 1. */
int wt_cache_mmap(wt_cache *c, int on);

/* 0 when path[0..n) may be read on this connection, -1 with err set when
** it is remote and remote access is off (before any request: call it
** before expanding a path too, which may list a remote repo). */
int wt_cache_allow(const wt_cache *c, const char *path, size_t n, wt_error *err);

/* Add n to the values_decoded counter (c may be NULL). */
void wt_cache_count_decoded(wt_cache *c, uint64_t n);

#endif
