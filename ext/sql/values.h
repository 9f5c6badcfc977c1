/*
** values.h: the SQL surface over decoded tensor values (values.c; layer:
** sql): the tables tensor_values and tensor_stats, the function
** tensor_compare.
*/
#ifndef WT_VALUES_H
#define WT_VALUES_H

#include "decode/decode.h"
#include "vtab.h"

extern const wt_table_def wt_tensor_values_table;
extern const wt_table_def wt_tensor_stats_table;

/* Register the scalar function tensor_compare(path_a, name_a, path_b,
** name_b), reading files through cache. */
int wt_register_value_functions(sqlite3 *db, wt_cache *cache);

#endif
