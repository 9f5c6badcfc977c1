/*
** memory.c: the tables of the memory planner.
**
** gguf_memory(path [, n_ctx [, type_k [, type_v [, n_seq [, n_ubatch
** [, flash_attn [, cpu]]]]]]]): what llama.cpp allocates to run a GGUF
** model at a context, one row per layer and part:
**
**   SELECT part, sum(nbytes) FROM gguf_memory('build/demo/tiny-llama.gguf', 2048)
**   GROUP BY part;
**
** Columns layer (NULL outside the layers), part ('weights', 'repack',
** 'k_cache', 'v_cache', 'recurrent_state', 'output', 'compute'), nbytes
** (NULL when unknown), detail.  NULL arguments take llama.cpp's defaults
** (the model's context length, f16, 1 sequence, n_ubatch 512, flash
** attention 'auto') and this machine's CPU ('host'; or 'avx512', 'avx2',
** 'none').
**
** gguf_fit(path, budget_bytes [, n_ctx, ...]): does that fit in
** budget_bytes?  One row per part (its bytes, NULL when any of its rows is
** unknown) and a last row 'total' whose fits is 1, 0, or NULL when any part
** is unknown, as the compute buffer of a model whose graph the planner
** does not build (0 still when the known parts and what the unknown ones
** cannot be below exceed the budget), with the reason:
**
**   SELECT fits, reason FROM gguf_fit('m.gguf', 24 * 1073741824, 32768)
**   WHERE part = 'total';
**
** The planning is ext/plan/memory_plan.c and the sums against the budget
** ext/plan/memory_fit.c; this file reads the arguments, opens the other
** parts of a split GGUF (gm_other_parts: the planner reads their tensor
** names, so part 1's compute buffer can be exact) and shows the rows.
** Layer: sql.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes/cache.h"
#include "formats/ggml_type.h"
#include "memory.h"
#include "plan/memory_fit.h"
#include "plan/memory_plan.h"
#include "tables.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

enum { GM_LAYER, GM_PART, GM_NBYTES, GM_AT_LEAST, GM_DETAIL, GM_NCOLS };
enum { GF_PART, GF_NBYTES, GF_AT_LEAST, GF_FITS, GF_REASON, GF_NCOLS };

#define GM_N_SETTINGS 7 /* n_ctx, type_k, type_v, n_seq, n_ubatch, flash_attn, cpu */

static const char *const gm_args[] = {"path",  "n_ctx",    "type_k",     "type_v",
                                      "n_seq", "n_ubatch", "flash_attn", "cpu"};
static const char *const gf_args[] = {"path",  "budget_bytes", "n_ctx",      "type_k", "type_v",
                                      "n_seq", "n_ubatch",     "flash_attn", "cpu"};

/* The bytes the metadata values of the current file are read from (the
** one place this table reaches into the source). */
static const unsigned char *gm_header_bytes(wt_cursor *c) {
  return c->src->header;
}

/* Argument k as a count >= lo, or dflt when absent or NULL. */
static int gm_count(wt_cursor *c, int k, uint64_t dflt, uint64_t lo, uint64_t *out, char **pzErr) {
  sqlite3_value *v = c->args[k];
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL) {
    *out = dflt;
    return SQLITE_OK;
  }
  if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER ||
      sqlite3_value_int64(v) < (sqlite3_int64)lo) {
    *pzErr = sqlite3_mprintf("%s(): %s must be an integer >= %llu, not '%s'", c->def->name,
                             c->def->arg_names[k], (unsigned long long)lo, sqlite3_value_text(v));
    return SQLITE_ERROR;
  }
  *out = (uint64_t)sqlite3_value_int64(v);
  return SQLITE_OK;
}

/* Argument k as a ggml type name ('f16', 'q8_0', ...), or F16. */
static int gm_type(wt_cursor *c, int k, int64_t *out, char **pzErr) {
  sqlite3_value *v = c->args[k];
  const char *name;
  int64_t id;
  *out = 1;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return SQLITE_OK;
  name = (const char *)sqlite3_value_text(v);
  for (id = 0; name != NULL && id < GGML_TYPE_TABLE_SIZE; id++) {
    const ggml_type_info *t = ggml_type_get(id);
    if (t != NULL && !t->removed && t->block_size != 0 && strcasecmp(t->name, name) == 0) {
      *out = id;
      return SQLITE_OK;
    }
  }
  *pzErr = sqlite3_mprintf("%s(): %s '%s' is not a ggml type (f32, f16, bf16, q8_0, "
                           "q4_0, q4_1, q5_0, q5_1, iq4_nl)",
                           c->def->name, c->def->arg_names[k], name ? name : "");
  return SQLITE_ERROR;
}

/* Argument k as one of the names of choice (NULL-terminated), whose values
** are vals; dflt when absent or NULL.  An integer matches ints[] when given. */
static int gm_choice(wt_cursor *c, int k, const char *const *choice, const int *vals,
                     const char *expected, int dflt, int *out, char **pzErr) {
  sqlite3_value *v = c->args[k];
  const char *name;
  int i;
  *out = dflt;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return SQLITE_OK;
  name = (const char *)sqlite3_value_text(v);
  for (i = 0; name != NULL && choice[i] != NULL; i++)
    if (strcasecmp(choice[i], name) == 0) {
      *out = vals[i];
      return SQLITE_OK;
    }
  *pzErr = sqlite3_mprintf("%s(): %s %s, not '%s'", c->def->name, c->def->arg_names[k], expected,
                           name ? name : "");
  return SQLITE_ERROR;
}

/* The settings from the arguments that start at argument k. */
static int gm_settings(wt_cursor *c, int k, wt_mem_settings *s, char **pzErr) {
  static const char *const fa_names[] = {"auto", "on", "off", "1", "0", NULL};
  static const int fa_vals[] = {WT_FA_AUTO, WT_FA_ON, WT_FA_OFF, WT_FA_ON, WT_FA_OFF};
  static const char *const cpu_names[] = {"host", "avx512", "avx2", "none", NULL};
  static const int cpu_vals[] = {WT_CPU_HOST, WT_CPU_AVX512, WT_CPU_AVX2, WT_CPU_NONE};
  int rc;
  wt_mem_settings_default(s);
  if ((rc = gm_count(c, k, 0, 1, &s->n_ctx, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, k + 1, &s->type_k, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, k + 2, &s->type_v, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, k + 3, 1, 1, &s->n_seq, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, k + 4, 512, 1, &s->n_ubatch, pzErr)) != SQLITE_OK ||
      (rc = gm_choice(c, k + 5, fa_names, fa_vals, "must be 'auto', 'on' or 'off' (or 1, 0)",
                      WT_FA_AUTO, &s->flash_attn, pzErr)) != SQLITE_OK)
    return rc;
  return gm_choice(c, k + 6, cpu_names, cpu_vals, "must be 'host', 'avx512', 'avx2' or 'none'",
                   WT_CPU_HOST, &s->cpu, pzErr);
}

/* The other parts of the split GGUF whose part 1 is the current file,
** parsed (through the connection's cache), so that the planner sees every
** layer's tensors: *n of them in out[] (release each), or none when the
** current file is not such a part 1 or a part cannot be read (the planner
** then says it cannot know the compute buffer; the part's own rows say
** what is wrong with it). */
static int gm_other_parts(wt_cursor *c, wt_source ***out, size_t *n) {
  const wt_pathlist *l = &c->paths;
  const wt_path_model *m;
  size_t k;
  *out = NULL;
  *n = 0;
  if (c->cur >= l->n || l->files[c->cur].model >= l->n_models)
    return SQLITE_OK;
  m = &l->models[l->files[c->cur].model];
  if (!m->is_split || m->n_parts < 2 || m->parts[0] != c->cur)
    return SQLITE_OK;
  *out = sqlite3_malloc64((m->n_parts - 1) * sizeof(**out));
  if (*out == NULL)
    return SQLITE_NOMEM;
  for (k = 1; k < m->n_parts; k++) {
    const wt_path_file *f = &l->files[m->parts[k]];
    wt_error e;
    if (wt_cache_open(c->cache, f->path, strlen(f->path), WT_FORMAT_GGUF, &(*out)[*n], &e) != 0)
      break;
    (*n)++;
  }
  if (k < m->n_parts) {
    while (*n > 0)
      wt_source_release((*out)[--*n]);
  }
  return SQLITE_OK;
}

/* The plan of the current file for the settings from argument k on. */
static int gm_plan(wt_cursor *c, int k, wt_mem_plan *plan, char **pzErr) {
  wt_mem_settings s;
  wt_error err;
  wt_source **parts;
  const wt_model **models = NULL;
  size_t n, i;
  int rc = gm_settings(c, k, &s, pzErr);
  if (rc != SQLITE_OK || (rc = gm_other_parts(c, &parts, &n)) != SQLITE_OK)
    return rc;
  if (n > 0 && (models = sqlite3_malloc64(n * sizeof(*models))) == NULL)
    rc = SQLITE_NOMEM;
  for (i = 0; models != NULL && i < n; i++)
    models[i] = &parts[i]->model;
  s.parts = models;
  s.n_parts = models != NULL ? n : 0;
  if (rc == SQLITE_OK && wt_memory_plan(&c->src->model, gm_header_bytes(c), &s, plan, &err) != 0) {
    *pzErr = wt_error_message(c->def->name, c->src->path, err.msg);
    rc = SQLITE_ERROR;
  }
  for (i = 0; i < n; i++)
    wt_source_release(parts[i]);
  sqlite3_free(parts);
  sqlite3_free(models);
  return rc;
}

/* start_file of gguf_memory(): plan the file's memory. */
static int gm_start(wt_cursor *c, char **pzErr) {
  wt_mem_plan *plan = sqlite3_malloc(sizeof(*plan));
  int rc;
  if (plan == NULL)
    return SQLITE_NOMEM;
  if ((rc = gm_plan(c, 1, plan, pzErr)) != SQLITE_OK) {
    sqlite3_free(plan);
    return rc;
  }
  c->state = plan;
  c->n_rows = (sqlite3_int64)plan->n_rows;
  return SQLITE_OK;
}

/* end_file of gguf_memory(): free the plan. */
static void gm_end(wt_cursor *c) {
  if (c->state != NULL)
    wt_mem_plan_free(c->state);
  wt_free_state(c);
  c->state = NULL;
}

/* Column of gguf_memory(). */
static int gm_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_mem_row *r = &((wt_mem_plan *)c->state)->rows[c->row];
  switch (col) {
  case GM_LAYER:
    if (r->layer >= 0)
      sqlite3_result_int64(ctx, r->layer);
    break;
  case GM_PART:
    sqlite3_result_text(ctx, r->part, -1, SQLITE_STATIC);
    break;
  case GM_NBYTES:
    if (r->known)
      wt_result_u64(ctx, r->nbytes);
    break;
  case GM_AT_LEAST:
    wt_result_u64(ctx, r->known ? r->nbytes : r->at_least);
    break;
  case GM_DETAIL:
    sqlite3_result_text(ctx, r->detail, -1, SQLITE_TRANSIENT);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_memory_table = {
    .name = "gguf_memory",
    .schema = "CREATE TABLE x(layer INTEGER, part TEXT, nbytes INTEGER, at_least INTEGER,"
              " detail TEXT, path HIDDEN,"
              " n_ctx HIDDEN, type_k HIDDEN, type_v HIDDEN, n_seq HIDDEN, n_ubatch HIDDEN,"
              " flash_attn HIDDEN, cpu HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GM_NCOLS,
    .n_args = 1 + GM_N_SETTINGS,
    .n_required = 1,
    .arg_names = gm_args,
    .usage = "path [, n_ctx [, type_k [, type_v [, n_seq [, n_ubatch [, flash_attn [, cpu]]]]]]]",
    .start_file = gm_start,
    .column = gm_column,
    .end_file = gm_end,
};

/* start_file of gguf_fit(): plan the file's memory and add it up. */
static int gf_start(wt_cursor *c, char **pzErr) {
  wt_mem_plan plan;
  wt_mem_fit *st;
  uint64_t budget;
  int rc;
  if ((rc = gm_count(c, 1, 0, 0, &budget, pzErr)) != SQLITE_OK)
    return rc;
  if ((rc = gm_plan(c, 2, &plan, pzErr)) != SQLITE_OK)
    return rc;
  st = sqlite3_malloc(sizeof(*st));
  if (st == NULL) {
    wt_mem_plan_free(&plan);
    return SQLITE_NOMEM;
  }
  wt_mem_fit_add_up(&plan, budget, st);
  wt_mem_plan_free(&plan);
  c->state = st;
  c->n_rows = st->n;
  return SQLITE_OK;
}

/* Column of gguf_fit(). */
static int gf_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_mem_fit *st = c->state;
  switch (col) {
  case GF_PART:
    sqlite3_result_text(ctx, st->rows[c->row].part, -1, SQLITE_STATIC);
    break;
  case GF_NBYTES:
    if (st->rows[c->row].known)
      wt_result_u64(ctx, st->rows[c->row].nbytes);
    break;
  case GF_AT_LEAST:
    if (st->rows[c->row].at_least_ok)
      wt_result_u64(ctx, st->rows[c->row].at_least);
    break;
  case GF_FITS:
    if (st->rows[c->row].fits >= 0)
      sqlite3_result_int(ctx, st->rows[c->row].fits);
    break;
  case GF_REASON:
    if (st->rows[c->row].reason[0])
      sqlite3_result_text(ctx, st->rows[c->row].reason, -1, SQLITE_TRANSIENT);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_fit_table = {
    .name = "gguf_fit",
    .schema = "CREATE TABLE x(part TEXT, nbytes INTEGER, at_least INTEGER, fits INTEGER,"
              " reason TEXT, path HIDDEN,"
              " budget_bytes HIDDEN, n_ctx HIDDEN, type_k HIDDEN, type_v HIDDEN, n_seq HIDDEN,"
              " n_ubatch HIDDEN, flash_attn HIDDEN, cpu HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GF_NCOLS,
    .n_args = 2 + GM_N_SETTINGS,
    .n_required = 2,
    .arg_names = gf_args,
    .usage = "path, budget_bytes [, n_ctx [, type_k [, type_v [, n_seq [, n_ubatch"
             " [, flash_attn [, cpu]]]]]]]",
    .start_file = gf_start,
    .column = gf_column,
    .end_file = wt_free_state,
};
