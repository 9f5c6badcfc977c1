/*
** http_tree.h: the model files of an hf:// repo or folder, from
** the Hub's tree API.  remote layer; no SQLite.
**
** hf://ORG/REPO[@REV] and hf://ORG/REPO[@REV]/FOLDER/ (see url.h) are
** listed with GET ENDPOINT/api/models/ORG/REPO/tree/REV[/FOLDER]
** ?recursive=true, following Link rel="next" pages (at most
** WT_TREE_MAX_PAGES, each at most WT_TREE_MAX_BYTES).  The entries of type
** "file" whose path ends in ".safetensors" (safetensors tables) or ".gguf"
** (GGUF tables; both for tensors() and weights_files()) are the files, as
** hf://ORG/REPO[@REV]/PATH, sorted by path.  Remote files are chosen by
** name, not by content: sniffing each would cost a request.
*/
#ifndef WT_HTTP_TREE_H
#define WT_HTTP_TREE_H

#include <stddef.h>

#include "base/model.h"

#define WT_TREE_MAX_PAGES 1000
#define WT_TREE_MAX_BYTES (64 << 20)
#define WT_TREE_MAX_FILES 100000

/* When p[0..n) is an hf:// repo or folder: 1 with *files (n_files
** malloc'd paths in a malloc'd array; free each and the array) set, or -1
** with err set.  0 when it is not one (nothing set). */
int wt_hf_tree(const char *p, size_t n, int format, char ***files, size_t *n_files, wt_error *err);

/* A list of files being built: n malloc'd paths in files[0..cap). */
typedef struct wt_tree {
  char **files;
  size_t n, cap;
} wt_tree;

/* Add to t the files of one page of the listing: body (NUL-terminated), a
** JSON array of entries {"type":..., "path":...}; each entry of type
** "file" whose path ends in a model extension of format (see above) is
** added as prefix + path.  Pure (no I/O): the fuzzer calls it.  0, or -1
** with err set, naming url: body not an array, an entry without a string
** type or path, a model file's path with an empty, "." or ".." part (the
** Hub never lists one), more than WT_TREE_MAX_FILES files. */
int wt_hf_tree_page(wt_tree *t, const char *prefix, const char *body, const char *url, int format,
                    wt_error *err);

/* Free t's paths and array; t is empty after. */
void wt_tree_free(wt_tree *t);

#endif
