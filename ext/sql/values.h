/*
** values.h: the SQL surface over decoded tensor values (values.c).
*/
#ifndef WT_VALUES_H
#define WT_VALUES_H

#include "vtab.h"

extern const wt_table_def wt_tensor_values_table;
extern const wt_table_def wt_tensor_stats_table;

/* The scalar function tensor_compare(path_a, name_a, path_b, name_b). */
void wt_compare_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif
