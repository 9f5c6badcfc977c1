/*
** vtab.h: the one virtual-table module behind every table-valued function
** of the extension (layer: sql; files through io/).
**
** A table is described by a wt_table_def: its schema, the format of the
** files it reads, how many rows a file gives, and how to produce a column.
** vtab.c does the rest for all of them: HIDDEN argument columns and
** xBestIndex, opening the file(s) named by the path argument, iterating
** rows file after file, the hidden `file` column, errors, DIRECTONLY.
**
** Column layout of every table: the visible columns 0..n_cols-1, then the
** HIDDEN argument columns (path first), then (unless no_file_column) the
** HIDDEN column `file`.
**
** The path argument may name one file, a directory, a glob, a sharded
** safetensors index or a split GGUF (paths.h); rows come file after file.
*/
#ifndef WT_VTAB_H
#define WT_VTAB_H

#include <sqlite3ext.h>

#include "io/cache.h"
#include "io/paths.h"
#include "io/source.h"

#define WT_MAX_ARGS 5

typedef struct wt_cursor wt_cursor;

/* What the constraints on a table's range column allow: values v with
** lo <= v <= hi and, when in != NULL, v among in[0..n_in) (sorted,
** distinct).  A superset of the rows wanted: SQLite still checks each
** row (the constraints are not omitted), so a value that is not an
** integer only ever widens it. */
typedef struct wt_range {
  int64_t lo, hi;
  int64_t *in; /* sqlite3_malloc'd */
  size_t n_in;
} wt_range;

typedef struct wt_table_def {
  const char *name;             /* the table-valued function's name */
  const char *schema;           /* "CREATE TABLE x(...)" with the HIDDEN columns last */
  int format;                   /* WT_FORMAT_* the files must have; 0 = either */
  int n_cols;                   /* visible columns */
  int n_args;                   /* HIDDEN argument columns (path first) */
  int n_required;               /* leading arguments that must be given */
  int row_per_file;             /* one row per file; a file that fails is a row with
                                   its error (c->file_error), not an error */
  int no_file_column;           /* the table has no HIDDEN file column */
  const char *const *arg_names; /* n_args names, for messages */
  const char *usage;            /* e.g. "path, key" */
  int has_range_col;            /* the table takes constraints on range_col: */
  int range_col;                /* a visible INTEGER column whose =, <, <=, >, >=, BETWEEN
                                   and IN constraints xFilter puts in c->range */
  /* The row's number within its file for xRowid (optional; default c->row):
  ** the same row must have the same rowid in every scan of a statement. */
  sqlite3_int64 (*row_number)(wt_cursor *c);
  /* Called with c->src set to a newly opened file: set c->n_rows (and any
  ** per-file state).  Return SQLITE_OK, or an error with *pzErr set. */
  int (*start_file)(wt_cursor *c, char **pzErr);
  /* Called after c->row changed to a valid row (optional). */
  int (*enter_row)(wt_cursor *c, char **pzErr);
  /* Result of visible column col for the current row. */
  int (*column)(wt_cursor *c, sqlite3_context *ctx, int col);
  /* Free per-file state (optional). */
  void (*end_file)(wt_cursor *c);
} wt_table_def;

struct wt_cursor {
  sqlite3_vtab_cursor base;
  const wt_table_def *def;
  wt_cache *cache;
  sqlite3_value *args[WT_MAX_ARGS]; /* copies of the arguments, NULL when absent */
  wt_pathlist paths;                /* the files the path argument names */
  size_t i_file;                    /* the next file to open */
  const char *file;                 /* the current file's path */
  wt_source *src;                   /* the current file, parsed; NULL if it failed (row_per_file) */
  char *file_error;                 /* why it failed (row_per_file) */
  sqlite3_int64 row, n_rows;
  int64_t file_id; /* wt_cache_path_id() of the current file */
  int eof;
  void *state;    /* per-table, per-file state, freed by end_file */
  wt_range range; /* has_range_col tables: what the constraints allow */
};

/* Register def as an eponymous-only virtual table on db, reading files
** through cache (which gains a reference until the connection closes). */
int wt_register_table(sqlite3 *db, const wt_table_def *def, wt_cache *cache);

/* An end_file for tables whose per-file state is one sqlite3_malloc'd block. */
void wt_free_state(wt_cursor *c);

/* Set an error result naming function fn and path: "fn(): path: msg". */
char *wt_error_message(const char *fn, const char *path, const char *msg);

#endif
