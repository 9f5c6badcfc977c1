/*
** memory.c: the table gguf_memory(path [, n_ctx [, type_k [, type_v
** [, n_seq [, n_ubatch [, flash_attn]]]]]]): what llama.cpp allocates to
** run a GGUF model at a context, one row per layer and part:
**
**   SELECT part, sum(nbytes) FROM gguf_memory('build/demo/tiny-llama.gguf', 2048)
**   GROUP BY part;
**   compute  21757952
**   k_cache  262144
**   output   1040
**   v_cache  262144
**   weights  114976
**
** Columns layer (NULL outside the layers), part ('weights', 'k_cache',
** 'v_cache', 'recurrent_state', 'output'), nbytes, detail.  NULL arguments
** take llama.cpp's defaults (the model's context length, f16, 1 sequence,
** n_ubatch 512, flash attention off).  The planning is
** ext/plan/memory_plan.c; this file only reads the arguments and shows the
** rows.  Layer: sql.
*/
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/ggml_type.h"
#include "memory.h"
#include "plan/memory_plan.h"
#include "tables.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

enum { GM_LAYER, GM_PART, GM_NBYTES, GM_DETAIL, GM_NCOLS };

static const char *const gm_args[] = {"path",  "n_ctx",    "type_k",    "type_v",
                                      "n_seq", "n_ubatch", "flash_attn"};

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
    *pzErr = sqlite3_mprintf("gguf_memory(): %s must be an integer >= %llu, not '%s'", gm_args[k],
                             (unsigned long long)lo, sqlite3_value_text(v));
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
  *pzErr = sqlite3_mprintf("gguf_memory(): %s '%s' is not a ggml type (f32, f16, bf16, q8_0, "
                           "q4_0, q4_1, q5_0, q5_1, iq4_nl)",
                           gm_args[k], name ? name : "");
  return SQLITE_ERROR;
}

/* start_file: read the settings and plan the file's memory. */
static int gm_start(wt_cursor *c, char **pzErr) {
  wt_mem_settings s;
  wt_mem_plan *plan;
  wt_error err;
  uint64_t fa;
  int rc;
  wt_mem_settings_default(&s);
  if ((rc = gm_count(c, 1, 0, 1, &s.n_ctx, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, 2, &s.type_k, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, 3, &s.type_v, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, 4, 1, 1, &s.n_seq, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, 5, 512, 1, &s.n_ubatch, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, 6, 0, 0, &fa, pzErr)) != SQLITE_OK)
    return rc;
  if (fa > 1) {
    *pzErr = sqlite3_mprintf("gguf_memory(): flash_attn must be 0 or 1");
    return SQLITE_ERROR;
  }
  s.flash_attn = (int)fa;
  plan = sqlite3_malloc(sizeof(*plan));
  if (plan == NULL)
    return SQLITE_NOMEM;
  if (wt_memory_plan(&c->src->model, gm_header_bytes(c), &s, plan, &err) != 0) {
    sqlite3_free(plan);
    *pzErr = wt_error_message("gguf_memory", c->src->path, err.msg);
    return SQLITE_ERROR;
  }
  c->state = plan;
  c->n_rows = (sqlite3_int64)plan->n_rows;
  return SQLITE_OK;
}

/* end_file: free the plan. */
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
  case GM_DETAIL:
    sqlite3_result_text(ctx, r->detail, -1, SQLITE_TRANSIENT);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_memory_table = {
    .name = "gguf_memory",
    .schema = "CREATE TABLE x(layer INTEGER, part TEXT, nbytes INTEGER, detail TEXT, path HIDDEN,"
              " n_ctx HIDDEN, type_k HIDDEN, type_v HIDDEN, n_seq HIDDEN, n_ubatch HIDDEN,"
              " flash_attn HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GM_NCOLS,
    .n_args = 7,
    .n_required = 1,
    .arg_names = gm_args,
    .usage = "path [, n_ctx [, type_k [, type_v [, n_seq [, n_ubatch [, flash_attn]]]]]]",
    .start_file = gm_start,
    .column = gm_column,
    .end_file = gm_end,
};
