/*
** functions.h: the scalar SQL functions of functions.c, and what every
** scalar function that reads files uses (layer: sql): its flags, opening
** its path argument through the cache, registering it.
*/
#ifndef WT_FUNCTIONS_H
#define WT_FUNCTIONS_H

#include <sqlite3ext.h>

#include "bytes/cache.h"

/* Flags of functions that read files: never from a schema (views,
** triggers, defaults) of a database file; and of pure helpers. */
#define WT_FILE_FLAGS (SQLITE_UTF8 | SQLITE_DIRECTONLY)
#define WT_PURE_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* In a function registered by wt_register_functions: open the file named
** by arg through the connection's cache.  On failure sets the error result
** (naming the function) and returns NULL. */
wt_source *wt_func_source(sqlite3_context *ctx, sqlite3_value *arg);

/* In such a function: the tensor named by argv[i + 1] in what argv[i] names (a
** file, an index, part 1 of a split GGUF, a folder: paths/models.h), with
** *pt and *psrc set (release it): returns 1.  0 when no file holds it or
** name is NULL (the result untouched); -1 on error (the error result set,
** naming the file, or the models when two hold the name).  The one
** (path, name) -> tensor resolution of every function. */
int wt_func_find_tensor(sqlite3_context *ctx, sqlite3_value **argv, int i, wt_source **psrc,
                        const wt_tensor **pt);

/* Register fn as the function name with n_arg arguments (flags:
** WT_FILE_FLAGS or WT_PURE_FLAGS); wt_func_source() in fn opens files of
** format (WT_FORMAT_*, 0 for either) through cache. */
int wt_register_one(sqlite3 *db, const char *name, int format, int n_arg, int flags,
                    void (*fn)(sqlite3_context *, int, sqlite3_value **), wt_cache *cache);

/* The connection's cache of a function registered with wt_register_one()
** or wt_register_aggregate(). */
wt_cache *wt_func_cache(sqlite3_context *ctx);

/* The same for an aggregate (step, final), always with WT_FILE_FLAGS:
** wt_func_find_tensor() works in its step. */
int wt_register_aggregate(sqlite3 *db, const char *name, int format, int n_arg,
                          void (*step)(sqlite3_context *, int, sqlite3_value **),
                          void (*final)(sqlite3_context *), wt_cache *cache);

/* Register the scalar functions of functions.c, reading files through
** cache (tensor_compare is values.c's). */
int wt_register_functions(sqlite3 *db, wt_cache *cache);

#endif
