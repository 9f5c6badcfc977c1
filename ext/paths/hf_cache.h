/*
** hf_cache.h: what a path means inside a Hugging Face hub cache
** (hf_locate.c), and the files it covers (hf_scan.c).  Pure C, file
** system only (no SQLite, no file content read): the paths layer.
**
** A hub cache is the folder that huggingface_hub fills (by default
** ~/.cache/huggingface/hub, or $HF_HUB_CACHE), found here by its
** structure wherever it is (the layout huggingface_hub writes:
** src/huggingface_hub/file_download.py and its "Understand caching" guide):
**
**   HUB/models--ORG--NAME/          one repo folder per repo ("datasets--",
**       blobs/SHA256 or GITSHA1     "spaces--" for the other kinds); the
**       blobs/ETAG[.X].incomplete   content, named by its ETag; a partial
**       snapshots/COMMIT/PATH       download; one folder per revision, each
**       refs/main, refs/refs/pr/1   file a symlink to its blob (or the file
**                                   itself); branch/tag -> COMMIT
**
** A repo folder is a directory named "models--", "datasets--" or
** "spaces--" followed by the id (every "/" written "--") that holds a
** snapshots/, blobs/ or refs/ directory.  A hub is a directory that holds
** at least one repo folder.
**
** wt_hf_locate() tells whether a path is the hub, a repo folder or inside
** one.  The path is read as written (repeated slashes and "." parts
** dropped); when that does not show a repo folder (a relative path such
** as "." from inside a snapshot, a "..", a symlink to a snapshot), the
** path's directory is resolved with realpath() and read again, and root
** and repo_dir are then absolute.  Only the repo folder (or the hub) must
** exist: what follows it is read from the path's text.
**
** wt_hf_scan() lists the files a path covers:
**   the hub            every repo folder, as below, in name order
**   a repo folder      every file of every snapshot, and blobs/X.incomplete
**   REPO/snapshots     every file of every snapshot
**   a snapshot, or a   its files, recursively (real directories only: a
**   folder inside one  symlink to a directory is not followed, so no loop)
**   a file in one      that file
**   REPO/blobs         every blob (revision NULL), REPO/blobs/X: that blob
**   anything else in   (refs/, .no_exist/, trees/): no entries
**   a repo folder
** Entries are sorted by path (strcmp), so those of one repo, and of one
** revision, are together: repo folder, then blobs/ (the incomplete ones)
** before snapshots/, then revision, then the path inside the snapshot.
** A path that does not exist is an error.  A symlink is resolved with realpath(); one that does not
** resolve (the blob is gone, a loop) is listed with blob NULL.  Regular
** files and symlinks are listed; other kinds of files are not.
**
** Errors are one sentence that names the directory or file that failed.
** A directory that cannot be read is an error; one that vanished during
** the scan is skipped.  Limits: WT_HF_MAX_ENTRIES entries, folders and
** names per folder, PATH_MAX bytes per path, WT_HF_MAX_DEPTH levels of
** folders in a snapshot, WT_HF_MAX_REFS refs per repo.
**
** wt_sha256_file() (file_sha256.h) hashes a blob to compare it with
** expected_sha256.
*/
#ifndef WT_HF_CACHE_H
#define WT_HF_CACHE_H

#include <stddef.h>

#include "base/model.h"
#include "bytes/file_sha256.h"

#define WT_HF_MAX_ENTRIES 1000000
#define WT_HF_MAX_DEPTH   64
#define WT_HF_MAX_REFS    10000

/* What a path is inside a hub cache.  Every string is malloc'd. */
typedef struct wt_hf_place {
  char *root;       /* the hub folder */
  char *repo_dir;   /* the models--ORG--NAME folder; NULL when the path is the hub */
  const char *kind; /* "model", "dataset" or "space" (static); NULL for the hub */
  char *repo_id;    /* "ORG/NAME" (or "NAME"); NULL for the hub */
  char *revision;   /* the snapshot folder's name when the path is inside
                       snapshots/REV (the folder itself included), else NULL */
} wt_hf_place;

/* Whether path is the hub, a repo folder or inside one: 1 with *out
** filled, 0 (not in a cache, or a path too long to tell) with *out zeroed,
** -1 when out of memory. */
int wt_hf_locate(const char *path, wt_hf_place *out);

/* Free the strings of p and zero it; safe on a zeroed place. */
void wt_hf_place_free(wt_hf_place *p);

/* One file of a scan.  Every string is malloc'd. */
typedef struct wt_hf_entry {
  char *path;            /* the path given to wt_hf_scan() joined with the rest, as
                            "PATH/snapshots/REV/sub/file" for a repo folder; for an
                            .incomplete blob, the blob's path */
  char *blob;            /* realpath() of the file it resolves to; NULL when dangling */
  char *repo_id;         /* "ORG/NAME" */
  const char *kind;      /* "model", "dataset" or "space" (static) */
  char *revision;        /* the snapshot folder's name (a commit hash); NULL for blobs */
  char *refs;            /* names of the refs (as "main", "v1.0", "refs/pr/1") whose
                            file holds revision, sorted, comma-separated; or NULL */
  char *expected_sha256; /* the blob's file name (the symlink target's, when dangling)
                            when it is 64 lower-case hex digits, else NULL; NULL for
                            an incomplete blob */
  int incomplete;        /* 1 for blobs/X.incomplete (a partial download), else 0 */
} wt_hf_entry;

/* The result of wt_hf_scan(). */
typedef struct wt_hf_list {
  wt_hf_entry *e;
  size_t n;
} wt_hf_list;

/* List every file in the scope of path (see above).  Returns 0 with *out
** filled (maybe with no entries), or -1 with err set and *out empty; a
** path that is not in a hub cache is an error. */
int wt_hf_scan(const char *path, wt_hf_list *out, wt_error *err);

/* Free everything; safe on a zeroed or already freed list. */
void wt_hf_list_free(wt_hf_list *l);

#endif
