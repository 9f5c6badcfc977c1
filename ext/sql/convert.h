/*
** convert.h: gguf_convert(), the SQL function over convert/convert.h.
** Layer: sql.
*/
#ifndef WT_SQL_CONVERT_H
#define WT_SQL_CONVERT_H

#include <sqlite3ext.h>

#include "bytes/cache.h"

/* Register gguf_convert(out, source [, options]) on db, reading through
** cache. */
int wt_register_convert(sqlite3 *db, wt_cache *cache);

#endif
