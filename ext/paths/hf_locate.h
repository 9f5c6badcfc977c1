/*
** hf_locate.h: what hf_locate.c gives hf_scan.c (internal to the Hugging
** Face cache module: users include hf_cache.h).
*/
#ifndef WT_HF_LOCATE_H
#define WT_HF_LOCATE_H

#include "hf_cache.h"

/* Room for a quoted path in a message. */
#define WT_HF_QUOTE 200

/* Where a located path is (wt_hf_where.scope). */
enum {
  WT_HF_HUB = 1,
  WT_HF_REPO,
  WT_HF_SNAPSHOTS,
  WT_HF_SNAPSHOT,
  WT_HF_BLOBS,
  WT_HF_BLOB,
  WT_HF_OTHER
};

/* A located path: the place, and which part of the cache it is. */
typedef struct wt_hf_where {
  wt_hf_place p;
  int scope; /* WT_HF_* */
} wt_hf_where;

/* Locate path as a part of the cache: 1 with *w filled (free w->p with
** wt_hf_place_free), 0 when it is not in one, -1 when out of memory. */
int wt_hf_where_of(const char *path, wt_hf_where *w);

/* Quote path for a message, into buf of WT_HF_QUOTE bytes. */
const char *wt_hf_q(char *buf, const char *path);

/* "dir/name" in a new string (no doubled slash when dir ends in one),
** or NULL with err set when it is longer than PATH_MAX or out of memory. */
char *wt_hf_join(const char *dir, const char *name, wt_error *err);

/* The kind of repo a folder name stands for ("model", "dataset",
** "space"), with *skip set to the length of its prefix; NULL when the name
** is not a repo folder's. */
const char *wt_hf_kind(const char *name, size_t *skip);

/* The repo id of a folder name's rest (malloc'd): every "--" read as "/". */
char *wt_hf_repo_id(const char *rest);

/* Whether path is a directory (symlinks followed). */
int wt_hf_is_dir(const char *path);

/* Whether dir holds a snapshots/, blobs/ or refs/ directory. */
int wt_hf_repo_shape(const char *dir);

#endif
