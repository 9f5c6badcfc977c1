/*
** hash_functions.h: registration of the whole-file hash functions
** (hash_functions.c).
*/
#ifndef WT_HASH_FUNCTIONS_H
#define WT_HASH_FUNCTIONS_H

#include <sqlite3ext.h>

/* Register file_sha256(path) on db. */
int wt_register_hash_functions(sqlite3 *db);

#endif
