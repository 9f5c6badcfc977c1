/*
** values.h: the table tensor_values (values.c; layer: sql).
*/
#ifndef WT_VALUES_H
#define WT_VALUES_H

#include "vtab.h"

extern const wt_table_def wt_tensor_values_table;

#endif
