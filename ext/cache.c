/*
** cache.c: the per-connection cache of parsed model files.  See cache.h.
**
** Entries are kept in a list, most recently used first; lookups are a
** linear scan, which is cheap for the 64 entries allowed.  The cache holds
** one reference to each source: an evicted source that a cursor or a
** function call still uses stays alive until they release it.
*/
#include "cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct wt_entry {
  struct wt_entry *next;
  wt_source *src;
  uint64_t bytes; /* what this entry counts against the byte bound */
} wt_entry;

struct wt_cache {
  int refs;
  wt_entry *head;
  uint64_t n_entries, bytes;
  uint64_t hits, misses;
};

wt_cache *wt_cache_new(void) {
  wt_cache *c = calloc(1, sizeof(*c));
  if (c != NULL)
    c->refs = 1;
  return c;
}

void wt_cache_ref(wt_cache *c) {
  c->refs++;
}

/* Remove the entry after prev (or the head when prev is NULL). */
static void wt_cache_drop(wt_cache *c, wt_entry *prev) {
  wt_entry *e = prev ? prev->next : c->head;
  if (prev)
    prev->next = e->next;
  else
    c->head = e->next;
  c->n_entries--;
  c->bytes -= e->bytes;
  wt_source_release(e->src);
  free(e);
}

void wt_cache_unref(wt_cache *c) {
  if (c == NULL || --c->refs > 0)
    return;
  while (c->head != NULL)
    wt_cache_drop(c, NULL);
  free(c);
}

/* True when the file at the entry's path still is the file it parsed. */
static int wt_cache_fresh(const wt_source *s, const struct stat *st) {
  int64_t mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  return (uint64_t)st->st_dev == s->file.dev && (uint64_t)st->st_ino == s->file.ino &&
         (uint64_t)st->st_size == s->file.size && mtime_ns == s->file.mtime_ns;
}

/* Evict least recently used entries until the bounds hold. */
static void wt_cache_trim(wt_cache *c) {
  while (c->head != NULL &&
         (c->n_entries > WT_CACHE_MAX_ENTRIES || c->bytes > WT_CACHE_MAX_BYTES)) {
    wt_entry *prev = NULL, *e = c->head;
    while (e->next != NULL) {
      prev = e;
      e = e->next;
    }
    wt_cache_drop(c, prev);
  }
}

int wt_cache_open(wt_cache *c, const char *path, size_t n, int format, wt_source **out,
                  wt_error *err) {
  struct stat st;
  wt_entry *e, *prev = NULL;
  if (c == NULL)
    return wt_source_open(path, n, format, out, err);
  if (memchr(path, 0, n) == NULL && path[n] == 0 && stat(path, &st) == 0) {
    for (e = c->head; e != NULL; prev = e, e = e->next) {
      wt_source *s = e->src;
      if (s->path_len != n || memcmp(s->path, path, n) != 0)
        continue;
      if (!wt_cache_fresh(s, &st) || (format != 0 && s->model.format != format)) {
        wt_cache_drop(c, prev); /* changed on disk, or asked as another format */
        break;
      }
      if (prev != NULL) { /* move to the front */
        prev->next = e->next;
        e->next = c->head;
        c->head = e;
      }
      c->hits++;
      s->refs++;
      *out = s;
      return 0;
    }
  }
  c->misses++;
  if (wt_source_open(path, n, format, out, err))
    return -1;
  e = malloc(sizeof(*e));
  if (e == NULL)
    return 0; /* not cached, still usable */
  e->src = *out;
  e->src->refs++;
  e->bytes = wt_source_bytes(*out);
  e->next = c->head;
  c->head = e;
  c->n_entries++;
  c->bytes += e->bytes;
  wt_cache_trim(c);
  return 0;
}

void wt_cache_get_stats(const wt_cache *c, wt_cache_stats *out) {
  out->hits = c->hits;
  out->misses = c->misses;
  out->entries = c->n_entries;
  out->bytes = c->bytes;
}
