/*
** paths.h: turn the `path` argument of a table into the sorted list of
** files to read.  No SQLite here.
**
** wt_paths_expand() reads the argument as, in this order:
**
**   1. An existing directory: its regular files (symlinks to files count)
**      whose first bytes are a model of the wanted format (safetensors,
**      GGUF, or either when format is 0), chosen by content, not by name;
**      subdirectories are not entered.  Sorted by strcmp() of the path.
**      A directory without model files gives zero files, not an error.
**   2. An existing regular file named like the first part of a split GGUF,
**      "NAME-00001-of-MMMMM.gguf" (llama.cpp's gguf-split convention, five
**      digits each): all M parts in part order; a missing part is an error.
**      Naming any other part reads just that part.
**   3. An existing regular file whose name ends in ".json" and that holds a
**      sharded-safetensors index (a JSON object with a "weight_map"
**      object): the distinct shard files of weight_map, sorted by name
**      (part order for the usual "model-00001-of-00003.safetensors"
**      names), each relative to the index's directory, plus the weight_map
**      itself.  A file named "*.safetensors.index.json" must be a valid
**      index; any other .json that is not one is read as a plain file.
**   4. Anything else that exists (a file, /dev/zero, a FIFO): itself,
**      unchanged, so that the file layer says what it is.
**   5. A path that does not exist and ends in a slash and two stars
**      ("models/" then "**"): the directory before them, as in 1 but
**      recursively, following symlinked directories and entering each
**      directory once (by device and inode), so that a symlink loop ends.
**      The walk is depth-first in name order; a subdirectory that cannot
**      be read is an error, one that vanished meanwhile is skipped.
**   6. A path that does not exist and contains '*', '?' or '[': a glob(3)
**      pattern; its matches that are regular files, sorted by strcmp(), with
**      no content check (the user named them).  No match is an error.
**   7. Anything else (a missing file): itself, for the file layer to report.
**
** Errors are one sentence without the argument, which the caller puts in
** front.  Limits: WT_PATHS_MAX_FILES files per argument,
** WT_PATHS_MAX_DIRS directories per recursive walk, WT_PATHS_MAX_SHARDS
** shards and WT_PATHS_MAX_INDEX bytes per index, PATH_MAX per path.
*/
#ifndef WT_PATHS_H
#define WT_PATHS_H

#include <stddef.h>

#include "base/model.h"

#define WT_PATHS_MAX_FILES  100000
#define WT_PATHS_MAX_DIRS   100000
#define WT_PATHS_MAX_SHARDS 10000
#define WT_PATHS_MAX_INDEX  (256 * 1024 * 1024)

/* How the argument was read (wt_pathlist.kind). */
#define WT_PATHS_FILE  1 /* one path, passed through as given */
#define WT_PATHS_DIR   2 /* a directory, flat or recursive */
#define WT_PATHS_GLOB  3 /* a glob pattern */
#define WT_PATHS_INDEX 4 /* a sharded-safetensors index */
#define WT_PATHS_SPLIT 5 /* the first part of a split GGUF */

/* One entry of an index's weight_map: a tensor name and the shard that
** should hold it. */
typedef struct wt_weight {
  const char *name; /* as decoded from JSON: may hold NUL; NUL-terminated too */
  size_t name_len;
  size_t shard; /* index into wt_pathlist.files */
} wt_weight;

/* The result of wt_paths_expand(). */
typedef struct wt_pathlist {
  int kind;     /* WT_PATHS_* */
  char **files; /* n malloc'd NUL-terminated paths */
  size_t n;
  wt_weight *weights;     /* WT_PATHS_INDEX only: the weight_map, sorted by name */
  size_t n_weights;       /* (bytewise, a repeated name keeps its last shard) */
  struct wt_arena *arena; /* owns the weight names */
} wt_pathlist;

/* Expand arg (n bytes) for a table that reads format (WT_FORMAT_SAFETENSORS,
** WT_FORMAT_GGUF, or 0 for either).  Returns 0 with *out filled (possibly
** with zero files), or -1 with err set and *out empty. */
int wt_paths_expand(const char *arg, size_t n, int format, wt_pathlist *out, wt_error *err);

/* The weight_map entry for tensor name[0..n), or NULL. */
const wt_weight *wt_pathlist_find(const wt_pathlist *l, const char *name, size_t n);

/* Free everything; safe on a zeroed or already freed list. */
void wt_pathlist_free(wt_pathlist *l);

#endif
