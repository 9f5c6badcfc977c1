/*
** functions.h: registration of the scalar SQL functions (functions.c).
*/
#ifndef WT_FUNCTIONS_H
#define WT_FUNCTIONS_H

#include <sqlite3ext.h>

#include "cache.h"

/* Flags of functions that read files: never from a schema (views,
** triggers, defaults) of a database file; and of pure helpers. */
#define WT_FILE_FLAGS (SQLITE_UTF8 | SQLITE_DIRECTONLY)
#define WT_PURE_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* Register the scalar functions, reading files through cache. */
int wt_register_functions(sqlite3 *db, wt_cache *cache);

#endif
