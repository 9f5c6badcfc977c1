/*
** memory.c: the tables of the memory planner.
**
** gguf_memory(path [, settings]): what llama.cpp allocates to run a GGUF
** model, one row per layer and part, with the buffer type it is in:
**
**   SELECT device, part, sum(nbytes) FROM gguf_memory('m.gguf',
**     json_object('n_ctx', 32768, 'n_gpu_layers', 20)) GROUP BY device, part;
**
** Columns layer (NULL outside the layers), part ('weights', 'repack',
** 'k_cache', 'v_cache', 'recurrent_state', 'output', 'compute'), nbytes
** (NULL when unknown), at_least, detail, device ('CPU_Mapped',
** 'CPU_REPACK', 'AMX', 'CPU', 'CUDA0', 'CUDA_Host').  The settings are a
** JSON object (plan/plan_settings.h: n_ctx, type_k, type_v, n_seq,
** n_ubatch, flash_attn, cpu, gpu, n_gpu_layers, cuda_cc, op_offload,
** swa_full) or, as before, the positional n_ctx, type_k, type_v, n_seq,
** n_ubatch, flash_attn, cpu; absent or NULL ones take llama.cpp's
** defaults.  A file that is no model llama.cpp runs alone (a vision
** projector, an adapter, a vocabulary) gives one row, NULL but its
** detail: "cannot say: ...".
**
** gguf_fit(path, settings with 'ram' and/or 'vram'): does it fit?  Per
** memory the resident bytes of each part, VRAM's page rounding, a total
** that fits (1), does not (0) or cannot say (NULL, with the reason), RAM's
** mapped span apart, and a last row 'answer' for the setting asked or,
** left open, the most layers on the GPU or the largest context that fit
** (columns context, gpu_layers, layers):
**
**   SELECT gpu_layers, layers, fits, reason FROM gguf_fit('m.gguf',
**     json_object('vram', 12 * 1073741824, 'ram', 16 * 1073741824,
**                 'n_ctx', 32768)) WHERE part = 'answer';
**
** gguf_fit(path, budget_bytes [, n_ctx, ...]) is the older form: host RAM
** only, no 'answer' row.  A NULL budget is an error.
**
** gguf_memory_architectures(): the architectures the planner knows, as a
** JSON array of {"architecture", "compute": "modelled" or "lower bound",
** "cuda": "measured" or "as on the CPU"}:
**
**   SELECT value ->> 'architecture' FROM json_each(gguf_memory_architectures())
**   WHERE value ->> 'compute' = 'modelled';     -- llama, qwen2, ...
**
** The planning is ext/plan/memory_plan.c, the sums against the budgets
** ext/plan/memory_fit.c and the search ext/plan/fit_search.c; this file
** reads the arguments, opens the other parts of a split GGUF
** (gm_other_parts: the planner reads their tensor names, and part 1
** answers for the whole model) and shows the rows.  Layer: sql.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes/cache.h"
#include "formats/ggml_type.h"
#include "functions.h"
#include "memory.h"
#include "plan/fit_search.h"
#include "plan/memory_fit.h"
#include "plan/memory_plan.h"
#include "plan/plan_settings.h"
#include "tables.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

enum { GM_LAYER, GM_PART, GM_NBYTES, GM_AT_LEAST, GM_DETAIL, GM_DEVICE, GM_NCOLS };
enum {
  GF_PART,
  GF_NBYTES,
  GF_AT_LEAST,
  GF_FITS,
  GF_REASON,
  GF_MEMORY,
  GF_CONTEXT,
  GF_GPU_LAYERS,
  GF_LAYERS,
  GF_NCOLS
};

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

/* The settings as a JSON object in argument k, the others after it absent
** or NULL (ask: gguf_fit's budgets, or NULL for gguf_memory). */
static int gm_json(wt_cursor *c, int k, int n_args, wt_mem_settings *s, wt_fit_ask *ask,
                   char **pzErr) {
  char err[WT_SETTINGS_ERR];
  const char *text = (const char *)sqlite3_value_text(c->args[k]);
  int i;
  for (i = k + 1; i < n_args; i++)
    if (c->args[i] != NULL && sqlite3_value_type(c->args[i]) != SQLITE_NULL) {
      *pzErr = sqlite3_mprintf("%s(): settings given as a JSON object take no %s argument after "
                               "them",
                               c->def->name, c->def->arg_names[i]);
      return SQLITE_ERROR;
    }
  if (wt_settings_parse(text, (size_t)sqlite3_value_bytes(c->args[k]), s, ask, err, sizeof(err)) !=
      0) {
    *pzErr = sqlite3_mprintf("%s(): %s", c->def->name, err);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Whether argument k is text holding a JSON object. */
static int gm_is_json(wt_cursor *c, int k) {
  sqlite3_value *v = c->args[k];
  return v != NULL && sqlite3_value_type(v) == SQLITE_TEXT &&
         wt_settings_is_json((const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v));
}

/* The settings from the arguments that start at argument k: a JSON object
** there, or the positional list. */
static int gm_settings(wt_cursor *c, int k, wt_mem_settings *s, char **pzErr) {
  static const char *const fa_names[] = {"auto", "on", "off", "1", "0", NULL};
  static const int fa_vals[] = {WT_FA_AUTO, WT_FA_ON, WT_FA_OFF, WT_FA_ON, WT_FA_OFF};
  static const char *const cpu_names[] = {"host", "amx", "avx512", "avx2", "none", NULL};
  static const int cpu_vals[] = {WT_CPU_HOST, WT_CPU_AMX, WT_CPU_AVX512, WT_CPU_AVX2, WT_CPU_NONE};
  int rc;
  wt_mem_settings_default(s);
  if (gm_is_json(c, k))
    return gm_json(c, k, c->def->n_args, s, NULL, pzErr);
  if ((rc = gm_count(c, k, 0, 1, &s->n_ctx, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, k + 1, &s->type_k, pzErr)) != SQLITE_OK ||
      (rc = gm_type(c, k + 2, &s->type_v, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, k + 3, 1, 1, &s->n_seq, pzErr)) != SQLITE_OK ||
      (rc = gm_count(c, k + 4, 512, 1, &s->n_ubatch, pzErr)) != SQLITE_OK ||
      (rc = gm_choice(c, k + 5, fa_names, fa_vals, "must be 'auto', 'on' or 'off' (or 1, 0)",
                      WT_FA_AUTO, &s->flash_attn, pzErr)) != SQLITE_OK)
    return rc;
  return gm_choice(c, k + 6, cpu_names, cpu_vals,
                   "must be 'host', 'amx', 'avx512', 'avx2' or 'none'", WT_CPU_HOST, &s->cpu,
                   pzErr);
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

/* Whether the current file is a later part of a split GGUF whose part 1
** is read too (and plans the whole model). */
static int gm_later_part(wt_cursor *c) {
  const wt_pathlist *l = &c->paths;
  const wt_path_model *m;
  if (c->cur >= l->n || l->files[c->cur].model >= l->n_models)
    return 0;
  m = &l->models[l->files[c->cur].model];
  return m->is_split && m->n_parts >= 2 && m->parts[0] != c->cur;
}

/* The other parts of a split model, open while a plan reads them. */
typedef struct gm_parts {
  wt_source **src;
  const wt_model **models;
  size_t n;
} gm_parts;

/* Open the current file's other parts into *p and point s at them. */
static int gm_parts_open(wt_cursor *c, wt_mem_settings *s, gm_parts *p) {
  size_t i;
  int rc;
  memset(p, 0, sizeof(*p));
  if ((rc = gm_other_parts(c, &p->src, &p->n)) != SQLITE_OK)
    return rc;
  if (p->n > 0 && (p->models = sqlite3_malloc64(p->n * sizeof(*p->models))) == NULL)
    return SQLITE_NOMEM;
  for (i = 0; p->models != NULL && i < p->n; i++)
    p->models[i] = &p->src[i]->model;
  s->parts = p->models;
  s->n_parts = p->models != NULL ? p->n : 0;
  return SQLITE_OK;
}

static void gm_parts_close(gm_parts *p) {
  size_t i;
  for (i = 0; i < p->n; i++)
    wt_source_release(p->src[i]);
  sqlite3_free(p->src);
  sqlite3_free(p->models);
}

/* What a plan's return p makes of the current file: an error (-1), none
** (0), or a file that is not a model: *not_a_model and the reason. */
static int gm_outcome(wt_cursor *c, int p, const wt_error *err, int *not_a_model, char *reason,
                      size_t n, char **pzErr) {
  if (p < 0) {
    *pzErr = wt_error_message(c->def->name, c->src->path, err->msg);
    return SQLITE_ERROR;
  }
  if (p > 0) {
    *not_a_model = 1;
    snprintf(reason, n, "cannot say: %s", err->msg);
  }
  return SQLITE_OK;
}

/* gguf_memory()'s state: the plan, or why the file has none. */
typedef struct gm_state {
  wt_mem_plan plan;
  int not_a_model;
  char reason[WT_ERROR_MAX + 16];
} gm_state;

/* start_file of gguf_memory(): plan the file's memory.  With a GPU, part 1
** of a split GGUF plans every part's weights (their layers' devices are
** part 1's to say) and the later parts give no rows; a file that is not a
** model llama.cpp runs gives one row that says why, not an error. */
static int gm_start(wt_cursor *c, char **pzErr) {
  gm_state *st;
  wt_mem_settings s;
  wt_error err;
  gm_parts parts;
  int rc = gm_settings(c, 1, &s, pzErr), p;
  if (rc != SQLITE_OK)
    return rc;
  if (s.gpu != WT_GPU_NONE && gm_later_part(c)) {
    c->n_rows = 0;
    return SQLITE_OK;
  }
  s.with_parts_weights = s.gpu != WT_GPU_NONE;
  if ((st = sqlite3_malloc(sizeof(*st))) == NULL)
    return SQLITE_NOMEM;
  memset(st, 0, sizeof(*st));
  if ((rc = gm_parts_open(c, &s, &parts)) == SQLITE_OK) {
    p = wt_memory_plan(&c->src->model, gm_header_bytes(c), &s, &st->plan, &err);
    rc = gm_outcome(c, p, &err, &st->not_a_model, st->reason, sizeof(st->reason), pzErr);
  }
  gm_parts_close(&parts);
  if (rc != SQLITE_OK) {
    sqlite3_free(st);
    return rc;
  }
  c->state = st;
  c->n_rows = st->not_a_model ? 1 : (sqlite3_int64)st->plan.n_rows;
  return SQLITE_OK;
}

/* end_file of gguf_memory(): free the plan. */
static void gm_end(wt_cursor *c) {
  if (c->state != NULL)
    wt_mem_plan_free(&((gm_state *)c->state)->plan);
  wt_free_state(c);
  c->state = NULL;
}

/* Column of gguf_memory(). */
static int gm_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const gm_state *st = c->state;
  const wt_mem_row *r;
  if (st->not_a_model) { /* every column NULL but the reason */
    if (col == GM_DETAIL)
      sqlite3_result_text(ctx, st->reason, -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  r = &st->plan.rows[c->row];
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
  case GM_DEVICE:
    sqlite3_result_text(ctx, r->device, -1, SQLITE_STATIC);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_memory_table = {
    .name = "gguf_memory",
    .schema = "CREATE TABLE x(layer INTEGER, part TEXT, nbytes INTEGER, at_least INTEGER,"
              " detail TEXT, device TEXT, path HIDDEN,"
              " n_ctx HIDDEN, type_k HIDDEN, type_v HIDDEN, n_seq HIDDEN, n_ubatch HIDDEN,"
              " flash_attn HIDDEN, cpu HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GM_NCOLS,
    .n_args = 1 + GM_N_SETTINGS,
    .n_required = 1,
    .arg_names = gm_args,
    .usage = "path [, settings | n_ctx [, type_k [, type_v [, n_seq [, n_ubatch [, flash_attn"
             " [, cpu]]]]]]]",
    .start_file = gm_start,
    .column = gm_column,
    .end_file = gm_end,
};

/* gguf_fit()'s state: the answer, the question's shape, or why none. */
typedef struct gf_state {
  wt_fit_answer ans;
  int json;        /* asked with settings as JSON: a last row 'answer' */
  int not_a_model; /* one row 'total' that says why */
  char reason[WT_ERROR_MAX + 16];
} gf_state;

/* gguf_fit()'s budgets and settings: a JSON object in argument 1, or a
** budget there (NULL an error) and the positional settings after it. */
static int gf_ask(wt_cursor *c, wt_mem_settings *s, wt_fit_budget *b, int *json, int *want_layers,
                  int *want_ctx, char **pzErr) {
  sqlite3_value *v = c->args[1];
  wt_fit_ask ask;
  int rc;
  memset(b, 0, sizeof(*b));
  *want_layers = *want_ctx = 0;
  *json = gm_is_json(c, 1);
  if (*json) {
    wt_mem_settings_default(s);
    if ((rc = gm_json(c, 1, c->def->n_args, s, &ask, pzErr)) != SQLITE_OK)
      return rc;
    if (!ask.has_ram && !ask.has_vram) {
      *pzErr = sqlite3_mprintf("gguf_fit(): give a budget: 'ram' and/or 'vram', in bytes");
      return SQLITE_ERROR;
    }
    b->has[WT_FIT_RAM] = ask.has_ram;
    b->bytes[WT_FIT_RAM] = ask.ram;
    b->has[WT_FIT_VRAM] = ask.has_vram;
    b->bytes[WT_FIT_VRAM] = ask.vram;
    *want_layers = !ask.has_layers;
    *want_ctx = !ask.has_ctx;
    return SQLITE_OK;
  }
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL) {
    *pzErr = sqlite3_mprintf("gguf_fit(): budget_bytes is NULL: give the bytes of memory the "
                             "model may take (or settings as a JSON object with 'ram', 'vram')");
    return SQLITE_ERROR;
  }
  if ((rc = gm_count(c, 1, 0, 0, &b->bytes[WT_FIT_RAM], pzErr)) != SQLITE_OK)
    return rc;
  b->has[WT_FIT_RAM] = 1;
  return gm_settings(c, 2, s, pzErr);
}

/* start_file of gguf_fit(): plan the file's memory (the setting asked, or
** the one the search finds) and add it up; part 1 of a split GGUF with
** every part's weights (the table reads part 1 only). */
static int gf_start(wt_cursor *c, char **pzErr) {
  gf_state *st;
  wt_mem_settings s;
  wt_fit_budget b;
  wt_error err;
  gm_parts parts;
  int rc, want_layers, want_ctx, p;
  if ((st = sqlite3_malloc(sizeof(*st))) == NULL)
    return SQLITE_NOMEM;
  memset(st, 0, sizeof(*st));
  rc = gf_ask(c, &s, &b, &st->json, &want_layers, &want_ctx, pzErr);
  if (rc == SQLITE_OK) {
    s.with_parts_weights = 1;
    rc = gm_parts_open(c, &s, &parts);
    if (rc == SQLITE_OK) {
      p = wt_fit_search(&c->src->model, gm_header_bytes(c), &s, want_layers, want_ctx, &b, &st->ans,
                        &err);
      rc = gm_outcome(c, p, &err, &st->not_a_model, st->reason, sizeof(st->reason), pzErr);
    }
    gm_parts_close(&parts);
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(st);
    return rc;
  }
  c->state = st;
  c->n_rows = st->not_a_model ? 1 : st->ans.fit.n + st->json;
  return SQLITE_OK;
}

/* Column of gguf_fit(): a part's row, a memory's total or mapped span, or
** (settings as JSON) the last row 'answer': every memory fits. */
static int gf_column(wt_cursor *c, sqlite3_context *ctx, int col) {
  const gf_state *st = c->state;
  const wt_fit_answer *a = &st->ans;
  const wt_fit_row *r = !st->not_a_model && c->row < a->fit.n ? &a->fit.rows[c->row] : NULL;
  if (st->not_a_model) {
    if (col == GF_PART)
      sqlite3_result_text(ctx, "total", -1, SQLITE_STATIC);
    else if (col == GF_REASON)
      sqlite3_result_text(ctx, st->reason, -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  switch (col) {
  case GF_PART:
    sqlite3_result_text(ctx, r ? r->part : "answer", -1, SQLITE_STATIC);
    break;
  case GF_NBYTES:
    if (r && r->known)
      wt_result_u64(ctx, r->nbytes);
    break;
  case GF_AT_LEAST:
    if (r && r->at_least_ok)
      wt_result_u64(ctx, r->at_least);
    break;
  case GF_FITS:
    if (r ? r->fits >= 0 : a->fit.fits >= 0)
      sqlite3_result_int(ctx, r ? r->fits : a->fit.fits);
    break;
  case GF_REASON:
    if (r == NULL)
      sqlite3_result_text(ctx, a->fit.reason, -1, SQLITE_TRANSIENT);
    else if (r->reason[0])
      sqlite3_result_text(ctx, r->reason, -1, SQLITE_TRANSIENT);
    break;
  case GF_MEMORY:
    if (r)
      sqlite3_result_text(ctx, wt_fit_memory_name(r->memory), -1, SQLITE_STATIC);
    break;
  case GF_CONTEXT:
    wt_result_u64(ctx, a->n_ctx);
    break;
  case GF_GPU_LAYERS:
    if (a->n_gpu_layers >= 0)
      sqlite3_result_int64(ctx, a->n_gpu_layers);
    break;
  case GF_LAYERS: /* what llama.cpp counts: "offloaded 8/33 layers" */
    wt_result_u64(ctx, a->n_layer + 1);
    break;
  }
  return SQLITE_OK;
}

const wt_table_def wt_gguf_fit_table = {
    .name = "gguf_fit",
    .schema = "CREATE TABLE x(part TEXT, nbytes INTEGER, at_least INTEGER, fits INTEGER,"
              " reason TEXT, memory TEXT, context INTEGER, gpu_layers INTEGER, layers INTEGER,"
              " path HIDDEN,"
              " budget_bytes HIDDEN, n_ctx HIDDEN, type_k HIDDEN, type_v HIDDEN, n_seq HIDDEN,"
              " n_ubatch HIDDEN, flash_attn HIDDEN, cpu HIDDEN, file HIDDEN)",
    .format = WT_FORMAT_GGUF,
    .n_cols = GF_NCOLS,
    .n_args = 2 + GM_N_SETTINGS,
    .n_required = 2,
    .first_part_only = 1,
    .arg_names = gf_args,
    .usage = "path, settings | budget_bytes [, n_ctx [, type_k [, type_v [, n_seq [, n_ubatch"
             " [, flash_attn [, cpu]]]]]]]",
    .start_file = gf_start,
    .column = gf_column,
    .end_file = wt_free_state,
};

/* gguf_memory_architectures(): plan/memory_plan.h's list as JSON. */
static void gm_architectures(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  wt_plan_arch a;
  size_t i;
  char *json;
  (void)argc;
  (void)argv;
  sqlite3_str_appendchar(out, 1, '[');
  for (i = 0; wt_plan_arch_at(i, &a) == 0; i++)
    sqlite3_str_appendf(out, "%s{\"architecture\":\"%s\",\"compute\":\"%s\",\"cuda\":\"%s\"}",
                        i ? "," : "", a.name, a.compute_modelled ? "modelled" : "lower bound",
                        a.cuda_measured ? "measured" : "as on the CPU");
  sqlite3_str_appendchar(out, 1, ']');
  json = sqlite3_str_finish(out);
  if (json == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, json, -1, sqlite3_free);
}

int wt_register_memory_functions(sqlite3 *db) {
  return sqlite3_create_function_v2(db, "gguf_memory_architectures", 0, WT_PURE_FLAGS, NULL,
                                    gm_architectures, NULL, NULL, NULL);
}
