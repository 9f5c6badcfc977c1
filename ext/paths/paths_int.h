/*
** paths_int.h: what the files of path expansion share (paths.c, the
** entry point, calls down to paths_arg.c, paths_walk.c, paths_models.c and
** paths_index.c, which all add to the list of paths_list.c; none calls a
** file that calls it).  Not for other layers: they use paths.h.
** Layer: io, no SQLite.
*/
#ifndef WT_PATHS_INT_H
#define WT_PATHS_INT_H

#include <limits.h>
#include <sys/stat.h>

#include "paths.h"

/* Room for a quoted path of up to 256 bytes in a message. */
#define WT_PATH_QUOTE (256 * 4 + 8)

/* No file (wt_path_file.model of a file not grouped yet). */
#define WT_NONE ((size_t)-1)

/* The list being built. */
typedef struct wt_paths {
  wt_pathlist *out;
  size_t cap;        /* allocated entries of out->files */
  size_t cap_models; /* allocated entries of out->models */
  int format;        /* WT_FORMAT_* the caller reads, or 0 */
  size_t n_sorted;   /* files [0, n_sorted) are sorted by path (wt_paths_lookup) */
  void *added;       /* tsearch() tree of the others, by path (wt_paths_remember) */
  char **tree;       /* a remote folder: every file the Hub's tree API listed, sorted */
  size_t n_tree;     /* (wt_paths_add: a URL not in it does not exist) */
  wt_error *err;
} wt_paths;

/* One safetensors index, read (paths_index.c). */
typedef struct wt_index_doc {
  char **shards; /* the distinct shard paths, joined to the index's folder, sorted */
  size_t n_shards;
  wt_weight *weights; /* sorted by name; .shard indexes shards[] */
  size_t n_weights;
  int has_total_size;
  uint64_t total_size;
} wt_index_doc;

/* Report out of memory. */
int wt_paths_oom(wt_error *err);

/* True when p[0..n) ends with the C string z. */
int wt_paths_ends(const char *p, size_t n, const char *z);

/* qsort() order of paths (char *). */
int wt_paths_cmp(const void *a, const void *b);

/* Write dir, a '/' unless dir is empty or ends in one, and name into buf
** (PATH_MAX bytes).  Sets *len; returns 0, or -1 with err set when the
** result would not fit. */
int wt_paths_join(char *buf, const char *dir, size_t dn, const char *name, size_t nn, size_t *len,
                  wt_error *err);

/* Append path[0..n) to the files, with what stat(2) and its first bytes
** say about it.  Sets *id to its index.  A path that does not
** exist is added with exists == 0. */
int wt_paths_add(wt_paths *x, const char *path, size_t n, size_t *id);

/* wt_paths_add() of a path whose stat(2) the caller has just made (known:
** what it said, so that a directory walk stats each entry once), or NULL. */
int wt_paths_add_stat(wt_paths *x, const char *path, size_t n, const struct stat *known,
                      size_t *id);

/* Remove the file added last (a directory entry that is not a model). */
void wt_paths_drop_last(wt_paths *x);

/* The file whose path is path, or WT_NONE: files [0, n_sorted) and those
** remembered. */
size_t wt_paths_lookup(const wt_paths *x, const char *path);

/* Make file id (not in [0, n_sorted)) one that wt_paths_lookup finds. */
int wt_paths_remember(wt_paths *x, size_t id);

/* True when the name (last component) of path[0..n) is a model name:
** *.safetensors, *.gguf, *.safetensors.index.json. */
int wt_paths_model_name(const char *path, size_t n);

/* True when file f (just added) is a model file of a scan: named like one
** (a dangling symlink too), or its first bytes are a model or a known
** look-alike. */
int wt_paths_is_model_file(const wt_path_file *f);

/* List the files of a Hugging Face cache folder (hub, repo, snapshot) with
** the hf_cache module (paths_walk.c). */
int wt_paths_hf(wt_paths *x, const char *path);

/* List directory dir into the files (paths_walk.c). */
int wt_paths_walk(wt_paths *x, const char *dir, int recursive);

/* Add the files that glob pattern matches: regular files, and what is
** named like a model but not a directory (paths_walk.c). */
int wt_paths_glob(wt_paths *x, const char *pattern);

/* When path[0..n) is named like part K of M of a split GGUF
** ("-0000K-of-0000M.gguf"), return M and set *part to K and *at to where
** the five digits of K start; else return 0 (paths_models.c). */
int wt_split_name(const char *path, size_t n, int *part, size_t *at);

/* Write part number k (0 to 99999) as the five digits at path + at: the
** name of part k of the split GGUF whose part wt_split_name() read. */
void wt_split_part_name(char *path, size_t at, int k);

/* Read path[0..n), an existing regular file, as a safetensors index into
** *doc (the list's arena owns the names).  Returns 0 when it is a valid
** index, 1 when it is not an index (why set), 2 when it is an index (a
** JSON object with a "weight_map" object) with a bad entry (why set). */
int wt_index_read(wt_paths *x, const char *path, size_t n, wt_index_doc *doc, wt_error *why);

/* Free what wt_index_read() allocated (not the names). */
void wt_index_doc_free(wt_index_doc *doc);

/* What a path argument asks for (paths_arg.c): the readings of paths.h. */
#define WT_ARG_URL   1 /* 0: a remote URL (never stat'ed) */
#define WT_ARG_DIR   2 /* 1: an existing directory */
#define WT_ARG_SPLIT 3 /* 2: an existing regular file, part 1 of a split GGUF */
#define WT_ARG_JSON  4 /* 3: an existing regular .json file (an index or not) */
#define WT_ARG_FILE  5 /* 4 and 7: itself, existing or not */
#define WT_ARG_WALK  6 /* 5: a missing path "**" or ending in "/" then "**" */
#define WT_ARG_GLOB  7 /* 6: a missing path with '*', '?' or '[' */

/* What stat(2) said of the argument (wt_paths_classify's st). */
#define WT_STAT_NONE  0 /* it failed: no such path */
#define WT_STAT_DIR   1
#define WT_STAT_REG   2
#define WT_STAT_OTHER 3 /* a FIFO, a device, a socket */

/* The reading (WT_ARG_*) of path[0..n) given st (WT_STAT_*; not looked at
** for a URL).  For WT_ARG_WALK, *root_n is the length of the directory to
** walk: path[0..*root_n), 0 meaning "." ("**" alone); else 0. */
int wt_paths_classify(const char *path, size_t n, int st, size_t *root_n);

/* Expand "~" and "~/x" in buf (n bytes and a NUL, PATH_MAX bytes of room)
** to home as the shell would; anything else is left alone.  Returns 0, or
** -1 with err set when home is NULL or empty or the result does not fit. */
int wt_paths_home(char *buf, size_t *n, const char *home, wt_error *err);

/* Group the files into models, find missing parts, mark duplicates
** (paths_models.c).  direct: the path named an index or part 1 itself. */
int wt_paths_group(wt_paths *x);

#endif
