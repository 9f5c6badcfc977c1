/*
** compare.h: the scalar function tensor_compare (compare.c; layer: sql).
*/
#ifndef WT_COMPARE_H
#define WT_COMPARE_H

#include "vtab.h"

/* Register tensor_compare(path_a, name_a, path_b, name_b [, unpermute]),
** reading files through cache. */
int wt_register_compare(sqlite3 *db, wt_cache *cache);

#endif
