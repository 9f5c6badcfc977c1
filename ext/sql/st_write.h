/*
** st_write.h: safetensors_write(), the aggregate that writes the tensors
** of its rows, from any source or given as BLOBs, to one new safetensors
** file.  Layer: sql.
*/
#ifndef WT_ST_WRITE_H
#define WT_ST_WRITE_H

#include <sqlite3ext.h>

#include "bytes/cache.h"

/* Register safetensors_write (SQLITE_DIRECTONLY) on db, reading through
** cache. */
int wt_register_st_write(sqlite3 *db, wt_cache *cache);

#endif
