/*
** tables.h: the table-valued functions defined in tables.c.
** Layer: sql.
*/
#ifndef WT_TABLES_H
#define WT_TABLES_H

#include "vtab.h"

/* Result: an unsigned number as INTEGER, or exact decimal TEXT above 2^63-1
** (SQLite's INTEGER is signed). */
void wt_result_u64(sqlite3_context *ctx, uint64_t v);

/* Result: a name, key or text read from a file: TEXT when p[0..n) is
** valid UTF-8, else a BLOB of its bytes (never TEXT that is not UTF-8,
** which drivers such as Python's sqlite3 refuse to decode). */
void wt_result_name(sqlite3_context *ctx, const char *p, size_t n);

extern const wt_table_def wt_safetensors_table;
extern const wt_table_def wt_safetensors_metadata_table;
extern const wt_table_def wt_gguf_table;
extern const wt_table_def wt_gguf_metadata_table;
extern const wt_table_def wt_gguf_array_table;
extern const wt_table_def wt_tensors_table;
extern const wt_table_def wt_weights_files_table;  /* catalog.c */
extern const wt_table_def wt_weights_models_table; /* catalog.c */

#endif
