/*
** st_split.h: safetensors_split(), a model written as a sharded
** safetensors checkpoint with its index.  Layer: sql.
*/
#ifndef WT_ST_SPLIT_H
#define WT_ST_SPLIT_H

#include <sqlite3ext.h>

#include "bytes/cache.h"

/* Register safetensors_split (SQLITE_DIRECTONLY) on db, reading through
** cache. */
int wt_register_st_split(sqlite3 *db, wt_cache *cache);

#endif
