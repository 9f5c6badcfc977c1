/*
** memory.h: the table gguf_memory() (memory.c), the memory planner in SQL.
*/
#ifndef WT_MEMORY_H
#define WT_MEMORY_H

#include "vtab.h"

extern const wt_table_def wt_gguf_memory_table;

#endif
