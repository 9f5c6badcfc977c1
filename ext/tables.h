/*
** tables.h: the table-valued functions defined in tables.c.
*/
#ifndef WT_TABLES_H
#define WT_TABLES_H

#include "vtab.h"

extern const wt_table_def wt_safetensors_table;
extern const wt_table_def wt_safetensors_metadata_table;
extern const wt_table_def wt_gguf_table;
extern const wt_table_def wt_gguf_metadata_table;
extern const wt_table_def wt_gguf_array_table;
extern const wt_table_def wt_tensors_table;
extern const wt_table_def wt_weights_files_table;

#endif
