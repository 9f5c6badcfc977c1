/*
** gguf_split.h: gguf_split(), a GGUF written as the parts of a split
** model, as llama.cpp's gguf-split writes them.  Layer: sql.
*/
#ifndef WT_GGUF_SPLIT_H
#define WT_GGUF_SPLIT_H

#include <sqlite3ext.h>

/* Register gguf_split (SQLITE_DIRECTONLY) on db. */
int wt_register_gguf_split(sqlite3 *db);

#endif
