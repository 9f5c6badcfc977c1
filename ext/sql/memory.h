/*
** memory.h: the tables gguf_memory() and gguf_fit() (memory.c), the memory
** planner in SQL.
*/
#ifndef WT_MEMORY_H
#define WT_MEMORY_H

#include "vtab.h"

extern const wt_table_def wt_gguf_memory_table;
extern const wt_table_def wt_gguf_fit_table;

#endif
