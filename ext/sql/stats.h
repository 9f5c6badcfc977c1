/*
** stats.h: the table tensor_stats (stats.c; layer: sql).
*/
#ifndef WT_STATS_H
#define WT_STATS_H

#include "vtab.h"

extern const wt_table_def wt_tensor_stats_table;

#endif
