/*
** vtab.h: the one virtual-table module behind every table-valued function
** of the extension (layer: sql; files through bytes/ and paths/).
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
** safetensors index or a split GGUF (paths/paths.h): its models.  A table of
** rows from the files (WT_ROWS_DATA) first checks every model in scope
** (paths/models.h) and fails, naming the file, when one fails: it never reads
** part of a model or skips a broken file.  Then rows come file after file
** of each model, each file read once.  weights_files (WT_ROWS_FILES) has
** one row per file in scope and weights_models (WT_ROWS_MODELS) one per
** model, whatever fails.
*/
#ifndef WT_VTAB_H
#define WT_VTAB_H

#include <sqlite3ext.h>

#include "bytes/cache.h"
#include "paths/models.h"
#include "paths/paths.h"
#include "bytes/source.h"

#define WT_MAX_ARGS 10

typedef struct wt_cursor wt_cursor;

/* What a row of a table comes from (wt_table_def.rows). */
#define WT_ROWS_DATA   0 /* the contents of each file of each model in scope */
#define WT_ROWS_FILES  1 /* one row per file in scope, broken or not */
#define WT_ROWS_MODELS 2 /* one row per model in scope, broken or not */

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
  int rows;                     /* WT_ROWS_*: for FILES, a file that fails is a row
                                   with its error (c->file_error), not an error; for
                                   MODELS, start_file is called with c->src NULL */
  int name_arg;                 /* >0: argument that names one tensor (tensor_values,
                                   tensor_stats): only the files holding it are read,
                                   and a name two models of the path hold is an error */
  int first_part_only;          /* read only part 1 of a split GGUF (its metadata:
                                   the other parts repeat only split.* keys) */
  int no_file_column;           /* the table has no HIDDEN file column */
  int open;                     /* WT_OPEN_* (bytes/source.h): WT_OPEN_DESCRIPTION when no
                                   column reads header bytes (a GGUF's is then mapped) */
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
  wt_pathlist paths;                /* the files and models the path argument names */
  wt_scope_keep keep;               /* sources the scope check opened (WT_ROWS_DATA) */
  size_t *visit;                    /* ids of files (or models) to visit, in order */
  size_t n_visit, i_visit;          /* how many, and the next one */
  size_t ahead;                     /* visits [i_visit, ahead) were opened ahead (remote) */
  size_t cur;                       /* the current file's (or model's) id */
  const char *file;                 /* the current file's path */
  wt_source *src;   /* the current file, parsed; NULL if it failed (WT_ROWS_FILES) */
  char *file_error; /* why it failed (WT_ROWS_FILES) */
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

/* For a start_file: the tensor of the current file named by argument k
** (NULL when the name is NULL or not in this file: the file has no rows),
** and its per-file state, size zeroed bytes, as c->state (freed by
** wt_free_state).  SQLITE_OK with *t set (and c->state when *t is not
** NULL), or SQLITE_NOMEM. */
int wt_start_named_tensor(wt_cursor *c, int k, const wt_tensor **t, size_t size);

/* An error message naming function fn and path: "fn(): path: msg" (path
** NULL or empty: "fn(): msg"), sqlite3_malloc'd, or NULL when out of
** memory. */
char *wt_error_message(const char *fn, const char *path, const char *msg);

/* Set that message as the error result of ctx (out of memory when it
** cannot be made). */
void wt_result_error(sqlite3_context *ctx, const char *fn, const char *path, const char *msg);

#endif
