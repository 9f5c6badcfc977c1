/*
** write_call.h: what the SQL functions of the writers (rewrite.c,
** gguf_split.c, st_write.c, st_split.c) share around the job they call
** (write/write_job.h): the interrupt check given to the job, the error
** result of a job that failed, the one reader of their options objects
** (gguf_rewrite's {"overwrite": 1}, gguf_split's {"max_tensors": 128}),
** and what a whole number is (safetensors_split's byte count).
** Layer: sql.
*/
#ifndef WT_WRITE_CALL_H
#define WT_WRITE_CALL_H

#include <sqlite3ext.h>

#include "base/model.h"

/* One call's connection, and whether its job was interrupted. */
typedef struct wt_write_call {
  sqlite3 *db;
  int interrupted;
} wt_write_call;

/* The interrupt check of a job (ctx: a wt_write_call): 1, with err set
** and the call marked interrupted, when sqlite3_interrupt() was called on
** its connection. */
int wt_write_call_interrupted(void *ctx, wt_error *err);

/* Set the error result of a call whose job failed: SQLITE_INTERRUPT when
** it was interrupted, else "fn(): path: msg" (path may be NULL). */
void wt_write_call_error(sqlite3_context *ctx, const wt_write_call *c, const char *fn,
                         const char *path, const char *msg);

/* The longest text option kept (longer ones are cut, and match nothing). */
#define WT_OPTION_TEXT 64

/* One option of an options object. */
typedef struct wt_write_option {
  const char *name;
  int is_text;               /* 1: a string; 0: a whole number (true, false: 1, 0) */
  int given;                 /* out: the object has it */
  sqlite3_int64 i;           /* out: the number */
  char text[WT_OPTION_TEXT]; /* out: the string */
} wt_write_option;

/* The number of options in an array of them. */
#define WT_N_OPTIONS(o) ((int)(sizeof(o) / sizeof((o)[0])))

/* Read v, a JSON object of options (NULL or SQL NULL: none), into
** opts[0..n): 0, or -1 with err set (not a JSON object, an option not in
** opts, a value of the wrong kind). */
int wt_write_options(sqlite3 *db, sqlite3_value *v, wt_write_option *opts, int n, wt_error *err);

/* v as a whole number: an INTEGER, a REAL without a fraction (beyond 64
** bits, the nearest 64-bit integer: 1e99 is INT64_MAX), or text that reads
** as one of them ('100000', '1e18'): 0 with *n set; -1 for anything else
** (a fraction, NaN, infinity, other text). */
int wt_whole_number(sqlite3_value *v, sqlite3_int64 *n);

#endif
