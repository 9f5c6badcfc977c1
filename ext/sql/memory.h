/*
** memory.h: the tables gguf_memory() and gguf_fit() (memory.c), the memory
** planner in SQL, and gguf_memory_architectures().
*/
#ifndef WT_MEMORY_H
#define WT_MEMORY_H

#include "vtab.h"

extern const wt_table_def wt_gguf_memory_table;
extern const wt_table_def wt_gguf_fit_table;

/* Register gguf_memory_architectures(). */
int wt_register_memory_functions(sqlite3 *db);

#endif
