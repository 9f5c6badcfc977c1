/*
** functions.h: registration of the scalar SQL functions (functions.c).
*/
#ifndef WT_FUNCTIONS_H
#define WT_FUNCTIONS_H

#include <sqlite3ext.h>

int wt_register_functions(sqlite3 *db);

#endif
