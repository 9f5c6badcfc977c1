/*
** rewrite.h: gguf_rewrite() and safetensors_rewrite(): a model file
** copied to a new file with its metadata edited, tensors byte for byte.
** Layer: sql.
*/
#ifndef WT_REWRITE_H
#define WT_REWRITE_H

#include <sqlite3ext.h>

/* Register the two functions (SQLITE_DIRECTONLY) on db. */
int wt_register_rewrite(sqlite3 *db);

#endif
