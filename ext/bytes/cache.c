/*
** cache.c: the per-connection cache of parsed model files.  See cache.h.
**
** Entries are kept in a list, most recently used first; lookups are a
** linear scan, which is cheap for the 64 entries allowed.  The cache holds
** one reference to each source: an evicted source that a cursor or a
** function call still uses stays alive until they release it.
*/
#include "cache.h"
#include "fd.h"
#include "mapping.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct wt_entry {
  struct wt_entry *next;
  wt_source *src;
  uint64_t bytes;   /* what this entry counts against the byte bound */
  uint64_t checked; /* the check (wt_cache_new_check) that last found it unchanged */
} wt_entry;

/* One slot of the path -> id table (open addressing). */
typedef struct wt_path_slot {
  char *path; /* NULL: empty */
  uint64_t hash;
} wt_path_slot;

struct wt_cache {
  int refs;
  wt_path_slot *ids; /* slot i's id is its order of arrival, kept in id[] */
  int64_t *id;
  uint64_t n_ids, cap_ids; /* cap is a power of two, at most half full */
  wt_entry *head;
  uint64_t n_entries, bytes;
  uint64_t hits, misses, values_decoded;
  int remote_off;    /* weights_remote(0) */
  int use_map;       /* weights_mmap(): given to every source handed out */
  int map_headers;   /* GGUF headers parsed in their mapping (1 unless weights_mmap(0)) */
  uint64_t checks;   /* wt_cache_new_check() numbers given */
  uint64_t failures; /* errors its tables and functions reported (wt_cache_note_failure) */
};

wt_cache *wt_cache_new(void) {
  wt_cache *c = calloc(1, sizeof(*c));
  if (c != NULL) {
    c->refs = 1;
    c->use_map = WT_MMAP_DEFAULT;
    c->map_headers = 1;
  }
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
  for (uint64_t i = 0; i < c->cap_ids; i++)
    free(c->ids[i].path);
  free(c->ids);
  free(c->id);
  free(c);
}

/* True when the file at the entry's path still is the file it parsed. */
static int wt_cache_fresh(const wt_source *s, const struct stat *st) {
  int64_t mtime_ns = wt_stat_mtime_ns(st);
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

/* Read the header of the source of entry e, which an open kept only the
** description of, recounting the entry's bytes: 0, or -1 (the file changed
** since, or no memory: the caller drops the entry and opens it afresh). */
static int wt_cache_load_header(wt_cache *c, wt_entry *e) {
  wt_error unused;
  if (wt_source_load_header(e->src, &unused) != 0)
    return -1;
  c->bytes -= e->bytes;
  e->bytes = wt_source_bytes(e->src);
  c->bytes += e->bytes;
  return 0;
}

/* wt_cache_find(), with the stat skipped when check is not 0 and the
** entry was found unchanged during that check; open says what the caller
** needs (WT_OPEN_HEADER: the header is read if the entry lacks it). */
static int wt_cache_lookup(wt_cache *c, const char *path, size_t n, int format, uint64_t check,
                           int open, wt_source **out) {
  struct stat st;
  wt_entry *e, *prev = NULL;
  if (c == NULL)
    return 0;
  if (c->remote_off && wt_file_is_remote(path, n))
    return 0; /* wt_cache_open() says why */
  for (e = c->head; e != NULL; prev = e, e = e->next) {
    wt_source *s = e->src;
    if (s->path_len != n || memcmp(s->path, path, n) != 0)
      continue;
    if (format != 0 && s->model.format != format) {
      wt_cache_drop(c, prev); /* asked as another format */
      return 0;
    }
    if (!s->file.remote && (check == 0 || e->checked != check)) {
      /* stat only when there is an entry to check, not for every new file;
      ** a remote source checks its ETag on every response instead */
      if (stat(s->path, &st) != 0 || !wt_cache_fresh(s, &st)) {
        wt_cache_drop(c, prev); /* changed on disk */
        return 0;
      }
      e->checked = check;
    }
    if (open == WT_OPEN_HEADER && s->header == NULL && wt_cache_load_header(c, e) != 0) {
      wt_cache_drop(c, prev); /* changed since the parse, or no memory: open afresh */
      return 0;
    }
    if (prev != NULL) { /* move to the front */
      prev->next = e->next;
      e->next = c->head;
      c->head = e;
    }
    c->hits++;
    s->refs++;
    s->use_map = c->use_map;
    *out = s;
    wt_cache_trim(c); /* a header read may have grown the entry */
    return 1;
  }
  return 0;
}

int wt_cache_holds(const wt_cache *c, const char *path, size_t n) {
  const wt_entry *e;
  for (e = c != NULL ? c->head : NULL; e != NULL; e = e->next) {
    if (e->src->path_len == n && memcmp(e->src->path, path, n) == 0)
      return 1;
  }
  return 0;
}

int wt_cache_find(wt_cache *c, const char *path, size_t n, int format, wt_source **out) {
  return wt_cache_lookup(c, path, n, format, 0, WT_OPEN_HEADER, out);
}

int wt_cache_find_checked(wt_cache *c, const char *path, size_t n, int format, uint64_t check,
                          wt_source **out) {
  return wt_cache_lookup(c, path, n, format, check, WT_OPEN_HEADER, out);
}

uint64_t wt_cache_new_check(wt_cache *c) {
  return ++c->checks;
}

/* Add an entry for s at the front (when out of memory, s is not cached). */
static void wt_cache_insert(wt_cache *c, wt_source *s) {
  wt_entry *e = malloc(sizeof(*e));
  if (e == NULL)
    return;
  e->src = s;
  e->src->refs++;
  e->bytes = wt_source_bytes(s);
  e->checked = 0; /* the next checked lookup stats it */
  e->next = c->head;
  c->head = e;
  c->n_entries++;
  c->bytes += e->bytes;
  wt_cache_trim(c);
}

int wt_cache_open(wt_cache *c, const char *path, size_t n, int format, wt_source **out,
                  wt_error *err) {
  return wt_cache_open_as(c, path, n, format, WT_OPEN_HEADER, out, err);
}

int wt_cache_open_as(wt_cache *c, const char *path, size_t n, int format, int open, wt_source **out,
                     wt_error *err) {
  if (c == NULL)
    return wt_source_open_as(path, n, format, open, 1, out, err);
  if (wt_cache_allow(c, path, n, err) != 0)
    return -1;
  if (wt_cache_lookup(c, path, n, format, 0, open, out))
    return 0;
  c->misses++;
  if (wt_source_open_as(path, n, format, open, c->map_headers, out, err))
    return -1;
  (*out)->use_map = c->use_map;
  wt_cache_insert(c, *out);
  return 0;
}

int wt_cache_allow(const wt_cache *c, const char *path, size_t n, wt_error *err) {
  if (c != NULL && c->remote_off && wt_file_is_remote(path, n))
    return wt_fail(err, "remote access is off for this connection (weights_remote(1) turns it on)");
  return 0;
}

int wt_cache_remote(wt_cache *c, int on) {
  if (on >= 0)
    c->remote_off = !on;
#ifdef WT_REMOTE
  return !c->remote_off;
#else
  return 0;
#endif
}

int wt_cache_mmap(wt_cache *c, int on) {
  if (on >= 0)
    c->use_map = c->map_headers = on;
  return c->use_map && wt_guard_ready(NULL);
}

void wt_cache_adopt(wt_cache *c, wt_source *s) {
  if (c != NULL && !wt_cache_holds(c, s->path, s->path_len))
    wt_cache_insert(c, s);
}

/* FNV-1a hash of a string. */
static uint64_t wt_hash_str(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* Double the id table. */
static int wt_ids_grow(wt_cache *c) {
  uint64_t cap = c->cap_ids ? c->cap_ids * 2 : 64, i;
  wt_path_slot *slots = calloc(cap, sizeof(*slots));
  int64_t *id = calloc(cap, sizeof(*id));
  if (slots == NULL || id == NULL) {
    free(slots);
    free(id);
    return -1;
  }
  for (i = 0; i < c->cap_ids; i++) {
    uint64_t j;
    if (c->ids[i].path == NULL)
      continue;
    for (j = c->ids[i].hash & (cap - 1); slots[j].path != NULL; j = (j + 1) & (cap - 1))
      ;
    slots[j] = c->ids[i];
    id[j] = c->id[i];
  }
  free(c->ids);
  free(c->id);
  c->ids = slots;
  c->id = id;
  c->cap_ids = cap;
  return 0;
}

int64_t wt_cache_path_id(wt_cache *c, const char *path) {
  uint64_t h = wt_hash_str(path), j;
  if (2 * (c->n_ids + 1) > c->cap_ids && wt_ids_grow(c) != 0)
    return -1;
  for (j = h & (c->cap_ids - 1); c->ids[j].path != NULL; j = (j + 1) & (c->cap_ids - 1)) {
    if (c->ids[j].hash == h && strcmp(c->ids[j].path, path) == 0)
      return c->id[j];
  }
  c->ids[j].path = strdup(path);
  if (c->ids[j].path == NULL)
    return -1;
  c->ids[j].hash = h;
  c->id[j] = (int64_t)c->n_ids++;
  return c->id[j];
}

void wt_cache_get_stats(const wt_cache *c, wt_cache_stats *out) {
  out->hits = c->hits;
  out->misses = c->misses;
  out->entries = c->n_entries;
  out->bytes = c->bytes;
  out->values_decoded = c->values_decoded;
}

void wt_cache_count_decoded(wt_cache *c, uint64_t n) {
  if (c != NULL)
    c->values_decoded += n;
}

void wt_cache_note_failure(wt_cache *c) {
  if (c != NULL)
    c->failures++;
}

uint64_t wt_cache_failures(const wt_cache *c) {
  return c != NULL ? c->failures : 0;
}
