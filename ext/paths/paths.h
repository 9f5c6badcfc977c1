/*
** paths.h: turn the `path` argument of a table or function into the files
** and the models in scope.  Layer: io (file system only, no SQLite, no
** parsing of model headers).
**
** wt_paths_expand() reads the argument as, in this order:
**
**   0. "~" and "~/x" are expanded to $HOME as the shell would.  A URL
**      ("https://", "http://", "hf://": url.h) is read without stat(2):
**      an hf:// repo or folder is its files from the Hub's tree API (its
**      own files as in 1, or with a trailing "/" then two stars every one
**      below it, as in 5; a URL the listing lacks does not exist); part 1
**      of a split as in 2; a ".json" as in 3 (fetched whole); else the URL
**      as one file.  A remote file's format is its name's (no sniffing).
**   1. An existing directory: its model files (below), not entering
**      subdirectories.  Sorted by strcmp() of the path.  A directory
**      without model files gives zero files, not an error.
**   2. An existing regular file named like a part of a split GGUF,
**      "NAME-00001-of-MMMMM.gguf" (llama.cpp's gguf-split convention, five
**      digits each): naming part 1 gives the model of all M parts in part
**      order (a missing part is the model's error); naming any other part
**      reads just that part.
**   3. An existing regular file whose name ends in ".json" and that holds a
**      sharded-safetensors index (a JSON object with a "weight_map"
**      object): the index and its distinct shard files, sorted by name,
**      each relative to the index's directory.  A file named
**      "*.safetensors.index.json" must be a valid index; any other .json
**      that is not one is read as a plain file.
**   4. Anything else that exists (a file, /dev/zero, a FIFO): itself,
**      so that the file layer says what it is.
**   5. A path that does not exist and ends in "**" after a slash, or is
**      "**" alone: the directory before it ("." for "**"), as in 1 but
**      recursively, following symlinked directories and entering each
**      directory once (by device and inode), so that a symlink loop ends.
**      The walk is depth-first in name order (a/x before b).
**   6. A path that does not exist and contains '*', '?' or '[': a glob(3)
**      pattern; its matches that are regular files, and those named like a
**      model that are not directories (a FIFO, a device, a socket, a
**      dangling link or a loop of links: listed with the error that says
**      what they are, never read), sorted by strcmp(), all in scope (the
**      user named them).  No match is an error.
**   7. Anything else (a missing file): itself, for the file layer to report.
**
** A model file of a directory scan is anything but a directory named
** *.safetensors, *.gguf or *.safetensors.index.json (a FIFO, a device, a
** socket, a dangling link or a loop of links too: listed with the error
** that says what it is, never read), or a regular
** file whose first bytes are a model or a known look-alike (a git-LFS
** pointer, an HTML page, a pickle or zip checkpoint: formats/sniff.h).
** README.md, config.json and the like are not model files.
**
** A directory of a Hugging Face hub cache (paths/hf_cache.h: the hub, a
** models--org--name folder, snapshots/, a snapshot or a folder in one) is
** listed by wt_hf_scan(): the model files of every snapshot in it, each a
** file of its revision (a blob two revisions share is a file of each),
** and blobs/ *.incomplete, listed as incomplete downloads and in no model;
** blobs are read through the snapshots' symlinks, never on their own.
**
** Then the files are grouped into models (paths_models.c): an index and
** the shards it names, the parts of a split GGUF, or one file.  A file
** reached by several names (a symlink, a hard link: same device and inode)
** is read once, under its first name; the others are listed as duplicates.
**
** Errors are one sentence without the argument, which the caller puts in
** front.  Limits: WT_PATHS_MAX_FILES files per argument, WT_PATHS_MAX_DIRS
** directories per recursive walk, WT_PATHS_MAX_SHARDS shards and
** WT_PATHS_MAX_INDEX bytes per index, PATH_MAX per path.
*/
#ifndef WT_PATHS_H
#define WT_PATHS_H

#include <stddef.h>
#include <stdint.h>

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

/* What a file is to its model (wt_path_file.role). */
#define WT_ROLE_DATA       1 /* a file whose tensors are read */
#define WT_ROLE_INDEX      2 /* a safetensors index (not read for tensors) */
#define WT_ROLE_DUPLICATE  3 /* another name of a file in scope: read once, as same_as */
#define WT_ROLE_MISSING    4 /* a shard or part that the model names, absent */
#define WT_ROLE_INCOMPLETE 5 /* an HF blobs/ *.incomplete: listed, in no model, never read */

/* One entry of an index's weight_map: a tensor name and the shard that
** should hold it. */
typedef struct wt_weight {
  const char *name; /* NUL-terminated */
  size_t name_len;
  size_t shard; /* index into wt_pathlist.files */
} wt_weight;

/* One file in scope. */
typedef struct wt_path_file {
  char *path; /* as the user sees it */
  int exists; /* stat() succeeded */
  uint64_t size, dev, ino;
  int64_t mtime_ns;
  int format;            /* WT_FORMAT_* from the first bytes, or 0 */
  const char *what;      /* formats/sniff.h's phrase for what the bytes are, or NULL */
  char *error;           /* known without parsing (dangling, missing), or NULL */
  int role;              /* WT_ROLE_* */
  size_t model;          /* index into wt_pathlist.models */
  size_t same_as;        /* WT_ROLE_DUPLICATE: the file read instead */
  char *revision;        /* HF cache: the snapshot (commit) it is in, or NULL */
  char *refs;            /* HF cache: refs pointing at revision ("main,v1"), or NULL */
  char *expected_sha256; /* HF cache: the SHA-256 its blob's name promises, or NULL */
} wt_path_file;

/* One model in scope. */
typedef struct wt_path_model {
  size_t name_file; /* the file that names it: the index, part 1, the file */
  int format;       /* WT_FORMAT_* (by content, else by name), or 0 */
  size_t *parts;    /* the data files (shards, parts, the file), in order */
  size_t n_parts, cap_parts;
  size_t n_present; /* parts that exist */
  char *error;      /* what is wrong with the model as a whole, or NULL */
  int is_index, is_split;
  wt_weight *weights; /* is_index: the weight_map, sorted by name (bytewise;
                         a repeated name keeps its last shard) */
  size_t n_weights;
  int has_total_size; /* is_index: metadata.total_size, read exactly */
  uint64_t total_size;
} wt_path_model;

/* The result of wt_paths_expand(). */
typedef struct wt_pathlist {
  int kind; /* WT_PATHS_* */
  wt_path_file *files;
  size_t n;
  wt_path_model *models; /* in the order of their name files */
  size_t n_models;
  struct wt_arena *arena; /* owns the weight names */
  int reusable;           /* wt_pathlist_fresh() can tell whether it still holds */
  uint64_t arg_dev, arg_ino, arg_size;
  int64_t arg_mtime_ns; /* the identity of the argument (an index, part 1, a folder) */
} wt_pathlist;

/* Expand arg (n bytes) for a table that reads format (WT_FORMAT_SAFETENSORS,
** WT_FORMAT_GGUF, or 0 for either).  Returns 0 with *out filled (possibly
** with zero files), or -1 with err set and *out empty. */
int wt_paths_expand(const char *arg, size_t n, int format, wt_pathlist *out, wt_error *err);

/* True when model m is read by a table of format (0: every model).  In a
** directory scan a model of the other format is out of scope; a path that
** names files directly keeps them all, for the file layer to judge. */
int wt_pathlist_in_scope(const wt_pathlist *l, const wt_path_model *m, int format);

/* The weight_map entry of index model m for tensor name[0..n), or NULL. */
const wt_weight *wt_model_find_weight(const wt_path_model *m, const char *name, size_t n);

/* True when l, from an earlier wt_paths_expand() of the same argument, is
** what it would give now: l is reusable (an index, part 1 of a split, a
** folder listed flat: not a glob or a recursive walk, whose files may
** change anywhere), the argument has the same identity (device, inode,
** size, mtime: a folder's mtime changes when a file is added or removed)
** and so has every file in it (stat(2) of each; missing ones still
** missing).  For callers that keep a list across calls. */
int wt_pathlist_fresh(const wt_pathlist *l, const char *arg);

/* Free everything; safe on a zeroed or already freed list. */
void wt_pathlist_free(wt_pathlist *l);

#endif
