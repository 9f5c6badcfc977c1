/*
** disk_cache.h: remote headers kept on disk, so that a second
** query of the same remote model costs no request (an immutable revision:
** a 40-hex commit in an hf:// path) or one conditional request
** (If-None-Match with the ETag kept: 304 means the kept bytes still hold).
** remote layer; no SQLite.
**
** Where: $SQLITE_WEIGHTS_CACHE_DIR, else $XDG_CACHE_HOME/sqlite-weights,
** else ~/.cache/sqlite-weights (made 0700).  One file per URL, named by
** the XXH3-128 of the URL: a first line "sqlite-weights header cache 1",
** then the URL, the ETag, the file's size and the count of bytes kept,
** one a line, then those bytes (the file's first bytes: its header).
** Written to a temporary file and renamed, so a reader never sees half a
** file; a file that does not read back exactly so is ignored.
**
** Bounded: after each write the oldest files (by modification time; a hit
** touches its file) go until the folder holds at most
** $SQLITE_WEIGHTS_CACHE_MB MiB (default 256).  Off with
** SQLITE_WEIGHTS_CACHE=off (nothing read or written); cleared by removing
** the folder or its *.hdr files.
*/
#ifndef WT_DISK_CACHE_H
#define WT_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* A kept header. */
typedef struct wt_disk_entry {
  char etag[256];
  uint64_t size;        /* of the remote file */
  unsigned char *bytes; /* its first n bytes, malloc'd */
  size_t n;
} wt_disk_entry;

/* 1 unless SQLITE_WEIGHTS_CACHE=off. */
int wt_disk_cache_on(void);

/* The entry kept for url: 0 with e filled (free with wt_disk_entry_free),
** -1 when there is none (or the cache is off). */
int wt_disk_cache_get(const char *url, wt_disk_entry *e);

/* Keep n first bytes of the file at url (size bytes, etag); errors are
** ignored: the cache is only an optimisation. */
void wt_disk_cache_put(const char *url, const char *etag, uint64_t size, const void *bytes,
                       size_t n);

void wt_disk_entry_free(wt_disk_entry *e);

#endif
