/*
** model_config.c: model_config(path), the config.json of each
** safetensors model in scope, one row per entry flattened one level
** (formats/hf_config.h):
**
**   SELECT key, value, type FROM model_config('models/tiny-llama');
**   key                value       type
**   architectures      ["LlamaForCausalLM"]  array
**   hidden_size        64          number
**   rope_scaling.type  "linear"    string    (a nested object, one level)
**
** value is JSON text (strings keep their quotes: value ->> '$' gives the
** bare value); type is its JSON type.  path is what every table takes (a
** file, a folder, a glob, an index, a Hugging Face cache folder) or a
** config.json itself.  The config.json of a model is the one beside the
** file that names it (paths/hf_config_file.h); a model without one has no
** rows, a GGUF has none (its metadata is gguf_metadata()), nor has a
** missing file of a folder or glob; a path that does not exist, a file
** that is neither a model nor a .json, and a
** config.json that cannot be read or parsed are errors naming the file
** (a model missing a shard still has its config.json).  The
** HIDDEN column file is the model file the rows belong to.  Layer: sql.
*/
#include <limits.h>
#include <string.h>

#include "paths/hf_config_file.h"
#include "model_config.h"

SQLITE_EXTENSION_INIT3

enum { MC_KEY, MC_VALUE, MC_TYPE, MC_NCOLS };

/* Per-model state: the parsed config. */
typedef struct mc_state {
  wt_config cfg;
} mc_state;

/* start_file: read the model's config.json (c->file names the model). */
static int mc_start(wt_cursor *c, char **pzErr) {
  const wt_path_model *m = &c->paths.models[c->cur];
  char path[PATH_MAX + 16];
  mc_state *st;
  wt_error e;
  int rc;
  const wt_path_file *f = &c->paths.files[m->name_file];
  size_t len = strlen(c->file);
  c->n_rows = 0;
  if (m->format == WT_FORMAT_GGUF)
    return SQLITE_OK;
  if (!f->exists && c->paths.kind != WT_PATHS_FILE)
    return SQLITE_OK; /* a folder's missing model (a dangling HF snapshot link): no rows */
  if (!f->exists) {
    const char *why = f->error ? f->error : "no such file";
    *pzErr = wt_error_message(c->def->name, c->file, why);
    return SQLITE_ERROR;
  }
  if (m->format == 0 && !(len >= 5 && strcmp(c->file + len - 5, ".json") == 0)) {
    *pzErr =
        wt_error_message(c->def->name, c->file, "neither a safetensors model nor a config.json");
    return SQLITE_ERROR;
  }
  if (wt_config_locate(c->file, path, sizeof(path))) {
    *pzErr = wt_error_message(c->def->name, c->file, "the path of its config.json is too long");
    return SQLITE_ERROR;
  }
  if ((st = sqlite3_malloc(sizeof(*st))) == NULL)
    return SQLITE_NOMEM;
  rc = wt_config_load(path, 1, &st->cfg, &e);
  if (rc < 0) {
    sqlite3_free(st);
    *pzErr = wt_error_message(c->def->name, path, e.msg);
    return SQLITE_ERROR;
  }
  c->state = st;
  c->n_rows = (sqlite3_int64)st->cfg.n;
  return SQLITE_OK;
}

/* Column of model_config(). */
static int mc_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const wt_config_entry *e = &((mc_state *)c->state)->cfg.entries[c->row];
  switch (col) {
  case MC_KEY:
    sqlite3_result_text(ctx, e->key, -1, SQLITE_TRANSIENT);
    break;
  case MC_VALUE:
    sqlite3_result_text(ctx, e->value, -1, SQLITE_TRANSIENT);
    break;
  case MC_TYPE:
    sqlite3_result_text(ctx, e->type, -1, SQLITE_STATIC);
    break;
  }
  return SQLITE_OK;
}

/* end_file: free the parsed config. */
static void mc_end(wt_cursor *c) {
  mc_state *st = c->state;
  if (st != NULL) {
    wt_config_free(&st->cfg);
    sqlite3_free(st);
  }
  c->state = NULL;
}

static const char *const mc_args[] = {"path"};

const wt_table_def wt_model_config_table = {
    .name = "model_config",
    .schema = "CREATE TABLE x(key TEXT, value TEXT, type TEXT, path HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_SAFETENSORS,
    .n_cols = MC_NCOLS,
    .n_args = 1,
    .n_required = 1,
    .arg_names = mc_args,
    .usage = "path",
    .rows = WT_ROWS_MODELS,
    .start_file = mc_start,
    .column = mc_column,
    .end_file = mc_end,
};
