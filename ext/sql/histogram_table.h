/*
** histogram_table.h: the table tensor_histogram() (histogram_table.c).
*/
#ifndef WT_HISTOGRAM_TABLE_H
#define WT_HISTOGRAM_TABLE_H

#include "vtab.h"

extern const wt_table_def wt_tensor_histogram_table;

#endif
