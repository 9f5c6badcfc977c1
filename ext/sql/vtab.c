/*
** vtab.c: the virtual-table machinery behind every table-valued function
** of the extension (layer: sql): each table is a wt_table_def run by
** this one module.  See vtab.h.
**
** xBestIndex: an argument column that has a usable "=" constraint is
** passed to xFilter (argvIndex, in column order, with idxNum a bitmask of
** the arguments present); a constraint that exists but is not usable makes
** the plan unusable (SQLITE_CONSTRAINT: the planner tries another join
** order).  A plan without a required argument is not refused outright, as
** series.c does: SQLite also asks about each term of a WHERE ... OR ...
** alone, and an error there would abort a valid query.  Such a plan gets a
** prohibitive cost instead, and if the planner has nothing better (the
** argument is really missing) xFilter fails with "missing argument",
** never returning zero rows.
**
** xRowid: the file's number and the row's position (wt_rowid).
**
** A table with a range column (has_range_col: tensor_values' idx) also
** gets that column's usable =, <, <=, >, >= constraints (BETWEEN is two of
** them), after the arguments in argv, with idxStr naming their operators
** in order; an IN is taken all at once (sqlite3_vtab_in) as one list.
** They are not omitted: SQLite still tests each row, so xFilter may widen
** what they allow (vtab_range.c) but never narrow it.
*/
#include "vtab.h"
#include "interrupt.h"
#include "vtab_range.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

SQLITE_EXTENSION_INIT3

/* What each registered table knows: its definition and the cache. */
typedef struct wt_table_aux {
  const wt_table_def *def;
  wt_cache *cache;
} wt_table_aux;

/* The vtab object. */
typedef struct wt_vtab {
  sqlite3_vtab base;
  const wt_table_def *def;
  wt_cache *cache;
  sqlite3 *db; /* whose sqlite3_interrupt() stops a remote transfer */
} wt_vtab;

/* ======================= Helpers for the table files ======================== */

char *wt_error_message(const char *fn, const char *path, const char *msg) {
  if (path == NULL || path[0] == 0)
    return sqlite3_mprintf("%s(): %s", fn, msg);
  return sqlite3_mprintf("%s(): %s: %s", fn, path, msg);
}

void wt_result_error(sqlite3_context *ctx, const char *fn, const char *path, const char *msg) {
  char *z = wt_error_message(fn, path, msg);
  if (z == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, z, -1);
  sqlite3_free(z);
}

void wt_free_state(wt_cursor *c) {
  sqlite3_free(c->state);
}

int wt_start_named_tensor(wt_cursor *c, int k, const wt_tensor **t, size_t size) {
  sqlite3_value *name = c->args[k];
  *t = NULL;
  if (name == NULL || sqlite3_value_type(name) == SQLITE_NULL)
    return SQLITE_OK;
  *t = wt_source_find_tensor(c->src, (const char *)sqlite3_value_text(name),
                             (size_t)sqlite3_value_bytes(name));
  if (*t == NULL)
    return SQLITE_OK;
  c->state = sqlite3_malloc64(size);
  if (c->state == NULL)
    return SQLITE_NOMEM;
  memset(c->state, 0, size);
  return SQLITE_OK;
}

/* ================================ Connecting ================================ */

/* Replace the vtab's error message. */
static void wt_set_error(sqlite3_vtab *tab, char *msg) {
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = msg;
  wt_cache_note_failure(((wt_vtab *)tab)->cache);
}

/* xConnect: declare the schema; file-reading tables are DIRECTONLY. */
static int wt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr) {
  const wt_table_aux *a = aux;
  const wt_table_def *def = a->def;
  wt_vtab *tab;
  int rc;
  (void)argc;
  (void)argv;
  (void)pzErr;
  rc = sqlite3_declare_vtab(db, def->schema);
  if (rc != SQLITE_OK)
    return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  tab = sqlite3_malloc(sizeof(*tab));
  if (tab == NULL)
    return SQLITE_NOMEM;
  memset(tab, 0, sizeof(*tab));
  tab->def = def;
  tab->cache = a->cache;
  tab->db = db;
  *ppVtab = &tab->base;
  return SQLITE_OK;
}

/* xDisconnect */
static int wt_disconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* ================================ xBestIndex ================================ */

/* xBestIndex: see the comment at the top of the file. */
static int wt_best_index(sqlite3_vtab *pVtab, sqlite3_index_info *info) {
  const wt_table_def *def = ((wt_vtab *)pVtab)->def;
  int seen[WT_MAX_ARGS] = {0}, usable[WT_MAX_ARGS];
  int i, k, n = 0, mask = 0, n_range = 0;
  for (k = 0; k < WT_MAX_ARGS; k++)
    usable[k] = -1;
  for (i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    k = c->iColumn - def->n_cols;
    if (k < 0 || k >= def->n_args || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    seen[k] = 1;
    if (c->usable)
      usable[k] = i;
  }
  for (k = 0; k < def->n_args; k++) {
    if (seen[k] && usable[k] < 0)
      return SQLITE_CONSTRAINT;
    if (usable[k] >= 0) {
      info->aConstraintUsage[usable[k]].argvIndex = ++n;
      info->aConstraintUsage[usable[k]].omit = 1;
      mask |= 1 << k;
    }
  }
  info->idxNum = mask;
  if (def->has_range_col)
    n_range = wt_best_range(def, info, n);
  if ((mask & ((1 << def->n_required) - 1)) == (1 << def->n_required) - 1) {
    info->estimatedCost = n_range > 0 ? 100.0 : 1000.0;
    info->estimatedRows = n_range > 0 ? 100 : 1000;
  } else {
    info->estimatedCost = 1e300; /* xFilter will report the missing argument */
    info->estimatedRows = INT64_MAX;
  }
  return SQLITE_OK;
}

/* ================================= Cursors ================================== */

/* xOpen */
static int wt_open(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  wt_cursor *c = sqlite3_malloc(sizeof(*c));
  if (c == NULL)
    return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->def = ((wt_vtab *)pVtab)->def;
  c->cache = ((wt_vtab *)pVtab)->cache;
  c->range = (wt_range){INT64_MIN, INT64_MAX, NULL, 0};
  c->eof = 1;
  *ppCursor = &c->base;
  return SQLITE_OK;
}

/* Close the current file and its per-file state. */
static void wt_end_file(wt_cursor *c) {
  if ((c->src != NULL || c->def->rows == WT_ROWS_MODELS) && c->def->end_file != NULL)
    c->def->end_file(c);
  c->state = NULL;
  wt_source_release(c->src);
  c->src = NULL;
  sqlite3_free(c->file_error);
  c->file_error = NULL;
}

/* Forget everything from a previous xFilter. */
static void wt_reset(wt_cursor *c) {
  int k;
  wt_end_file(c);
  for (k = 0; k < WT_MAX_ARGS; k++) {
    sqlite3_value_free(c->args[k]);
    c->args[k] = NULL;
  }
  sqlite3_free(c->range.in);
  c->range = (wt_range){INT64_MIN, INT64_MAX, NULL, 0};
  wt_scope_keep_free(&c->keep);
  wt_pathlist_free(&c->paths);
  sqlite3_free(c->visit);
  c->visit = NULL;
  c->n_visit = c->i_visit = c->cur = c->ahead = 0;
  c->file = NULL;
  c->row = c->n_rows = c->file_id = 0;
  c->eof = 1;
}

/* xClose */
static int wt_close(sqlite3_vtab_cursor *cur) {
  wt_reset((wt_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* =================== Files and models, one after another ==================== */

/* The ids to visit: files of the models in scope (WT_ROWS_DATA: the data
** files, each once; WT_ROWS_FILES: every file), or the models. */
static int wt_plan_visits(wt_cursor *c) {
  const wt_pathlist *l = &c->paths;
  size_t i, k, cap = (c->def->rows == WT_ROWS_MODELS ? l->n_models : l->n) + 1;
  c->visit = sqlite3_malloc64(cap * sizeof(*c->visit));
  if (c->visit == NULL)
    return SQLITE_NOMEM;
  c->n_visit = 0;
  if (c->def->rows == WT_ROWS_FILES) {
    for (i = 0; i < l->n; i++)
      c->visit[c->n_visit++] = i;
    return SQLITE_OK;
  }
  for (i = 0; i < l->n_models; i++) {
    const wt_path_model *m = &l->models[i];
    if (!wt_pathlist_in_scope(l, m, c->def->format))
      continue;
    if (c->def->rows == WT_ROWS_MODELS) {
      c->visit[c->n_visit++] = i;
      continue;
    }
    for (k = 0; k < m->n_parts && (k == 0 || !(c->def->first_part_only && m->is_split)); k++) {
      const wt_path_file *f = &l->files[m->parts[k]];
      if (f->role == WT_ROLE_DATA && f->model == i) /* a file shared by two models: once */
        c->visit[c->n_visit++] = m->parts[k];
    }
  }
  return SQLITE_OK;
}

/* For a table whose argument name_arg names one tensor: keep only the
** files to visit that hold it; an error when files of two models do. */
static int wt_visit_holders(wt_cursor *c, char **pzErr) {
  sqlite3_value *v = c->args[c->def->name_arg];
  const wt_pathlist *l = &c->paths;
  const char *name = v != NULL ? (const char *)sqlite3_value_text(v) : NULL;
  size_t i, n = 0, first = 0;
  if (name == NULL || c->n_visit < 2)
    return SQLITE_OK;
  for (i = 0; i < c->n_visit; i++) {
    const wt_path_file *f = &l->files[c->visit[i]];
    const wt_source *kept = wt_scope_kept(&c->keep, c->visit[i]);
    wt_source *s = NULL;
    wt_error e;
    int held;
    if (kept == NULL && wt_cache_open(c->cache, f->path, strlen(f->path), 0, &s, &e)) {
      *pzErr = wt_error_message(c->def->name, f->path, e.msg);
      return SQLITE_ERROR;
    }
    held = wt_source_find_tensor(kept ? kept : s, name, (size_t)sqlite3_value_bytes(v)) != NULL;
    wt_source_release(s);
    if (!held)
      continue;
    if (n > 0 && f->model != l->files[first].model) {
      char q[WT_QUOTE_SIZE];
      *pzErr = sqlite3_mprintf(
          "%s(): tensor %s is in two models of the path: %s and %s; name one of them", c->def->name,
          wt_quote(q, sizeof(q), name, (size_t)sqlite3_value_bytes(v)),
          l->files[l->models[l->files[first].model].name_file].path,
          l->files[l->models[f->model].name_file].path);
      return SQLITE_ERROR;
    }
    if (n == 0)
      first = c->visit[i];
    c->visit[n++] = c->visit[i];
  }
  c->n_visit = n;
  return SQLITE_OK;
}

/* The error of a table over files of which `failing` fail, the first at
** where with msg: "fn(): where: msg (and N other files fail; ...)". */
static char *wt_scope_error(wt_cursor *c, const char *path, const char *where, const char *msg,
                            int failing) {
  if (failing <= 1 || c->paths.kind == WT_PATHS_FILE)
    return wt_error_message(c->def->name, where != NULL ? where : path, msg);
  return sqlite3_mprintf("%s(): %s: %s (and %d other file%s fail%s; weights_files('%q') lists "
                         "them)",
                         c->def->name, where, msg, failing - 1, failing == 2 ? "" : "s",
                         failing == 2 ? "s" : "", path);
}

/* Turn the path argument into the files and models to read; a table of
** file contents checks them all first. */
static int wt_expand_path(wt_cursor *c, const char *path, int n, char **pzErr) {
  const char *where = NULL;
  wt_error e;
  int failing, rc;
  if (wt_cache_allow(c->cache, path, (size_t)n, &e) ||
      wt_paths_expand(path, (size_t)n, c->def->format, &c->paths, &e)) {
    *pzErr = wt_error_message(c->def->name, path, e.msg);
    return SQLITE_ERROR;
  }
  if (c->def->rows == WT_ROWS_DATA) {
    failing =
        wt_scope_check(c->cache, &c->paths, c->def->format, c->def->open, &c->keep, &where, &e);
    if (failing != 0)
      wt_scope_keep_free(&c->keep);
    if (failing < 0)
      return SQLITE_NOMEM;
    if (failing > 0) {
      *pzErr = wt_scope_error(c, path, where, e.msg, failing);
      return SQLITE_ERROR;
    }
  }
  if ((rc = wt_plan_visits(c)) != SQLITE_OK)
    return rc;
  return c->def->name_arg > 0 ? wt_visit_holders(c, pzErr) : SQLITE_OK;
}

/* Open the file to visit (WT_ROWS_DATA, WT_ROWS_FILES).  For FILES, a file
** that fails becomes a row with its error. */
static int wt_visit_file(wt_cursor *c, char **pzErr) {
  const wt_path_file *f = &c->paths.files[c->cur];
  const wt_path_model *m = f->model < c->paths.n_models ? &c->paths.models[f->model] : NULL;
  int format = c->def->format != 0        ? c->def->format
               : m != NULL && m->is_index ? WT_FORMAT_SAFETENSORS
               : m != NULL && m->is_split ? WT_FORMAT_GGUF
                                          : f->format;
  wt_error e;
  if (c->def->rows == WT_ROWS_FILES) {
    const char *known = f->error;
    c->n_rows = 1;
    if (known == NULL && f->role == WT_ROLE_INDEX && m != NULL)
      known = m->error;
    if (known != NULL || f->role != WT_ROLE_DATA) {
      if (known != NULL && (c->file_error = sqlite3_mprintf("%s", known)) == NULL)
        return SQLITE_NOMEM;
      return SQLITE_OK;
    }
  }
  c->src = wt_scope_take(&c->keep, c->cache, c->cur);
  if (c->src == NULL &&
      wt_cache_open_as(c->cache, c->file, strlen(c->file), format, c->def->open, &c->src, &e)) {
    c->src = NULL;
    if (c->def->rows != WT_ROWS_FILES) {
      *pzErr = wt_error_message(c->def->name, c->file, e.msg);
      return SQLITE_ERROR;
    }
    c->file_error = sqlite3_mprintf("%s", e.msg);
    return c->file_error == NULL ? SQLITE_NOMEM : SQLITE_OK;
  }
  return c->def->rows == WT_ROWS_FILES ? SQLITE_OK : c->def->start_file(c, pzErr);
}

/* Move to the first row at or after the current position, opening the
** following files (or models) as needed.  Sets eof at the end. */
static int wt_settle(wt_cursor *c) {
  char *err = NULL;
  int rc;
  for (;;) {
    if (c->n_visit > 0 && c->i_visit > 0 && c->row < c->n_rows) {
      if (c->def->enter_row != NULL && (rc = c->def->enter_row(c, &err)) != SQLITE_OK)
        goto fail;
      return SQLITE_OK;
    }
    wt_end_file(c);
    if (c->i_visit >= c->n_visit) {
      c->eof = 1;
      return SQLITE_OK;
    }
    if (c->i_visit >= c->ahead) /* remote files: the next few opened at once */
      c->ahead = wt_open_ahead(c->cache, &c->keep, &c->paths, c->visit, c->i_visit, c->n_visit,
                               c->def->rows == WT_ROWS_MODELS, -1);
    c->cur = c->visit[c->i_visit++];
    c->file = c->def->rows == WT_ROWS_MODELS
                  ? c->paths.files[c->paths.models[c->cur].name_file].path
                  : c->paths.files[c->cur].path;
    c->file_id = wt_cache_path_id(c->cache, c->file);
    if (c->file_id < 0)
      return SQLITE_NOMEM;
    c->row = c->n_rows = 0;
    if (c->def->rows == WT_ROWS_MODELS)
      rc = c->def->start_file(c, &err);
    else
      rc = wt_visit_file(c, &err);
    if (rc != SQLITE_OK)
      goto fail;
  }
fail:
  wt_set_error(c->base.pVtab, err);
  c->eof = 1;
  return rc;
}

/* xFilter: copy the arguments, expand the path, position on the first row. */
static int wt_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  wt_cursor *c = (wt_cursor *)cur;
  const wt_table_def *def = c->def;
  const char *path;
  int k, i = 0, rc;
  wt_watch_interrupt(((wt_vtab *)cur->pVtab)->db);
  wt_reset(c);
  for (k = 0; k < def->n_args && i < argc; k++) {
    if (idxNum & (1 << k)) {
      c->args[k] = sqlite3_value_dup(argv[i++]);
      if (c->args[k] == NULL)
        return SQLITE_NOMEM;
    }
  }
  if (def->has_range_col && (rc = wt_filter_range(c, idxStr, argc - i, argv + i)) != SQLITE_OK)
    return rc;
  for (k = 0; k < def->n_required; k++) {
    if (c->args[k] == NULL) {
      wt_set_error(cur->pVtab,
                   sqlite3_mprintf("%s(): missing argument %s, or its value comes from a table "
                                   "that the join order puts after this one "
                                   "(usage: %s(%s))",
                                   def->name, def->arg_names[k], def->name, def->usage));
      return SQLITE_ERROR;
    }
  }
  if (c->args[0] == NULL || sqlite3_value_type(c->args[0]) == SQLITE_NULL) {
    wt_set_error(cur->pVtab, sqlite3_mprintf("%s(): the path argument is NULL", def->name));
    return SQLITE_ERROR;
  }
  path = (const char *)sqlite3_value_text(c->args[0]);
  if (path == NULL)
    return SQLITE_NOMEM;
  if ((int)strlen(path) != sqlite3_value_bytes(c->args[0])) {
    wt_set_error(cur->pVtab, sqlite3_mprintf("%s(): the path contains a NUL byte", def->name));
    return SQLITE_ERROR;
  }
  if (path[0] == 0) {
    wt_set_error(cur->pVtab, sqlite3_mprintf("%s(): the path is empty", def->name));
    return SQLITE_ERROR;
  }
  {
    char *err = NULL;
    rc = wt_expand_path(c, path, sqlite3_value_bytes(c->args[0]), &err);
    if (rc != SQLITE_OK) {
      wt_set_error(cur->pVtab, err);
      return rc;
    }
  }
  c->eof = 0;
  return wt_settle(c);
}

/* =================================== Rows =================================== */

/* xNext */
static int wt_next(sqlite3_vtab_cursor *cur) {
  wt_cursor *c = (wt_cursor *)cur;
  wt_watch_interrupt(((wt_vtab *)cur->pVtab)->db);
  c->row++;
  return wt_settle(c);
}

/* xEof */
static int wt_eof(sqlite3_vtab_cursor *cur) {
  return ((wt_cursor *)cur)->eof;
}

/* xColumn: visible columns from the table, arguments echoed, file. */
static int wt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  wt_cursor *c = (wt_cursor *)cur;
  const wt_table_def *def = c->def;
  if (col < def->n_cols)
    return def->column(c, ctx, col);
  col -= def->n_cols;
  if (col < def->n_args) {
    if (c->args[col] != NULL)
      sqlite3_result_value(ctx, c->args[col]);
    return SQLITE_OK;
  }
  if (c->file != NULL && !def->no_file_column)
    sqlite3_result_text(ctx, c->file, -1, SQLITE_TRANSIENT);
  return SQLITE_OK;
}

/* xRowid: (file id << WT_ROW_BITS) | row, computed unsigned, with the file
** id (wt_cache_path_id(): the connection numbers each path it reads) in
** the high 20 bits and the row in the low 43, so a rowid is never
** negative.  The same row of the same file has the same rowid in every
** scan of a statement, and rows of different files never share one, which
** SQLite needs to merge the scans of an OR.  Past the bounds (a
** connection's 2^20-th path, or row 2^43 of a tensor in tensor_values) a
** rowid would collide, so asking for one is an error instead. */
#define WT_ROW_BITS 43
static int wt_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  wt_cursor *c = (wt_cursor *)cur;
  uint64_t id = (uint64_t)c->file_id;
  uint64_t row = (uint64_t)(c->def->row_number ? c->def->row_number(c) : c->row);
  if (id >> (63 - WT_ROW_BITS) != 0 || row >> WT_ROW_BITS != 0) {
    wt_set_error(cur->pVtab, sqlite3_mprintf("%s(): %s: no rowid for row %llu of file number %llu: "
                                             "rowids hold 2^43 rows of each of 2^20 files",
                                             c->def->name, c->file ? c->file : "",
                                             (unsigned long long)row, (unsigned long long)id));
    return SQLITE_ERROR;
  }
  *pRowid = (sqlite_int64)(id << WT_ROW_BITS | row);
  return SQLITE_OK;
}

static sqlite3_module wt_module = {
    .iVersion = 0,
    .xCreate = 0, /* eponymous-only */
    .xConnect = wt_connect,
    .xBestIndex = wt_best_index,
    .xDisconnect = wt_disconnect,
    .xDestroy = 0,
    .xOpen = wt_open,
    .xClose = wt_close,
    .xFilter = wt_filter,
    .xNext = wt_next,
    .xEof = wt_eof,
    .xColumn = wt_column,
    .xRowid = wt_rowid,
};

/* =============================== Registration =============================== */

/* Destructor of a registration: drop its reference to the cache. */
static void wt_table_aux_free(void *p) {
  wt_table_aux *a = p;
  wt_cache_unref(a->cache);
  sqlite3_free(a);
}

int wt_register_table(sqlite3 *db, const wt_table_def *def, wt_cache *cache) {
  wt_table_aux *a = sqlite3_malloc(sizeof(*a));
  if (a == NULL)
    return SQLITE_NOMEM;
  a->def = def;
  a->cache = cache;
  wt_cache_ref(cache);
  return sqlite3_create_module_v2(db, def->name, &wt_module, a, wt_table_aux_free);
}
