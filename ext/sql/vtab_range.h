/*
** vtab_range.h: the idx range hook of the virtual-table module (vtab.c):
** the range column's constraints, from xBestIndex to xFilter
** (vtab_range.c).  Layer: sql.
*/
#ifndef WT_VTAB_RANGE_H
#define WT_VTAB_RANGE_H

#include "vtab.h"

/* Give xFilter the usable constraints on def's range column, after the n
** arguments; idxStr names their operators ('=', '<', 'l' for <=, '>', 'g'
** for >=, 'I' for an IN taken whole).  Returns how many. */
int wt_best_range(const wt_table_def *def, sqlite3_index_info *info, int n);

/* Fill c->range from the range constraints ops[i] with values argv[i]:
** SQLITE_OK, or an error code. */
int wt_filter_range(wt_cursor *c, const char *ops, int argc, sqlite3_value **argv);

#endif
