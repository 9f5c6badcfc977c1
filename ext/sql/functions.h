/*
** functions.h: registration of the scalar SQL functions (functions.c).
*/
#ifndef WT_FUNCTIONS_H
#define WT_FUNCTIONS_H

#include <sqlite3ext.h>

#include "io/cache.h"

/* Flags of functions that read files: never from a schema (views,
** triggers, defaults) of a database file; and of pure helpers. */
#define WT_FILE_FLAGS (SQLITE_UTF8 | SQLITE_DIRECTONLY)
#define WT_PURE_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* In a function registered by wt_register_functions: open the file named
** by arg through the connection's cache.  On failure sets the error result
** (naming the function) and returns NULL. */
wt_source *wt_func_source(sqlite3_context *ctx, sqlite3_value *arg);

/* In such a function: the tensor named by argv[i + 1] in what argv[i] names (a
** file, an index, part 1 of a split GGUF, a folder: io/models.h), with
** *pt and *psrc set (release it): returns 1.  0 when no file holds it or
** name is NULL (the result untouched); -1 on error (the error result set,
** naming the file, or the models when two hold the name).  The one
** (path, name) -> tensor resolution of every function. */
int wt_func_find_tensor(sqlite3_context *ctx, sqlite3_value **argv, int i, wt_source **psrc,
                        const wt_tensor **pt);

/* Register the scalar functions, reading files through cache. */
int wt_register_functions(sqlite3 *db, wt_cache *cache);

#endif
