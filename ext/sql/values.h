/*
** values.h: the SQL surface over decoded tensor values (values.c).
*/
#ifndef WT_VALUES_H
#define WT_VALUES_H

#include "decode/decode.h"
#include "vtab.h"

extern const wt_table_def wt_tensor_values_table;
extern const wt_table_def wt_tensor_stats_table;

/* The decoder of tensor t of src (fn names the caller in errors): NULL
** with *pzErr set when it cannot be decoded; *nvalues its value count.
** An NVFP4 tensor with a per-tensor scale gets a copy of its codec in
** *copy that applies the scale. */
const wt_codec *wt_tensor_codec(const char *fn, const wt_source *src, const wt_tensor *t,
                                uint64_t *nvalues, wt_codec *copy, char **pzErr);

/* The scalar function tensor_compare(path_a, name_a, path_b, name_b). */
void wt_compare_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif
