/*
** http_tree.h: the model files of an hf:// repo or folder (issue 13), from
** the Hub's tree API.  io layer; no SQLite.
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

/* When p[0..n) is an hf:// repo or folder: 1 with *files (n_files
** malloc'd paths in a malloc'd array; free each and the array) set, or -1
** with err set.  0 when it is not one (nothing set). */
int wt_hf_tree(const char *p, size_t n, int format, char ***files, size_t *n_files, wt_error *err);

#endif
