/*
** convert.c: gguf_convert(), a Hugging Face checkpoint to GGUF as
** llama.cpp's convert_hf_to_gguf.py writes it.  Layer: sql (the binder:
** the work is convert/convert.h's).
**
**   SELECT gguf_convert('tiny-q8_0.gguf', 'models/tiny/', json_object('outtype', 'q8_0'));
**   -- 144960
**   SELECT gguf_convert('smollm2-135m.gguf', 'hf://HuggingFaceTB/SmolLM2-135M');
**   -- the checkpoint's own 16-bit type (outtype 'auto'), as the converter's default
**
** Arguments: the output path (local), the checkpoint (a folder, a
** .safetensors file, an index, hf://ORG/REPO, a URL: what the tables
** take that names one checkpoint) and optionally options as a JSON
** object: "outtype" ("f32", "f16", "bf16", "q8_0", "auto": the default),
** "name" (general.name, the converter's --model-name), "verify" (0 skips
** reading the tensor bytes back; the header is always checked).  Returns
** the output's size in bytes, as the other writers do.  An error names
** the file it is about; the output path is then as it was.
*/
#include "convert.h"

#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "functions.h"
#include "interrupt.h"
#include "vtab.h"

SQLITE_EXTENSION_INIT3

/* The options argument v (a JSON object or NULL) into o; *name is
** sqlite3_malloc'd (free it). */
static int cv_sql_options(sqlite3 *db, sqlite3_value *v, cv_options *o, char **name,
                          wt_error *err) {
  sqlite3_stmt *st = NULL;
  int rc = -1;
  o->ftype = CV_FTYPE_AUTO;
  o->verify = 1;
  *name = NULL;
  if (v == NULL || sqlite3_value_type(v) == SQLITE_NULL)
    return 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT json_extract(?1, '$.outtype'), json_extract(?1, '$.name'), "
                         "json_extract(?1, '$.verify'), (SELECT group_concat(key) FROM "
                         "json_each(?1) WHERE key NOT IN ('outtype', 'name', 'verify'))",
                         -1, &st, NULL) != SQLITE_OK) {
    wt_fail(err, "%s", sqlite3_errmsg(db));
    goto done;
  }
  sqlite3_bind_value(st, 1, v);
  if (sqlite3_step(st) != SQLITE_ROW) {
    wt_fail(err, "the options: %s", sqlite3_errmsg(db));
    goto done;
  }
  if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
    wt_fail(err, "unknown option %s (the options are outtype, name and verify)",
            (const char *)sqlite3_column_text(st, 3));
    goto done;
  }
  if (sqlite3_column_type(st, 0) != SQLITE_NULL &&
      cv_ftype_parse((const char *)sqlite3_column_text(st, 0), &o->ftype) != 0) {
    wt_fail(err, "outtype %s is not one of f32, f16, bf16, q8_0, auto",
            (const char *)sqlite3_column_text(st, 0));
    goto done;
  }
  if (sqlite3_column_type(st, 1) != SQLITE_NULL &&
      (*name = sqlite3_mprintf("%s", sqlite3_column_text(st, 1))) == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  if (sqlite3_column_type(st, 2) != SQLITE_NULL)
    o->verify = sqlite3_column_int(st, 2) != 0;
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}

/* cv_options' interrupt check: the connection's sqlite3_interrupt(). */
static int cv_sql_interrupted(void *ctx, wt_error *err) {
  if (!wt_interrupted(ctx))
    return 0;
  wt_fail(err, "interrupted");
  return 1;
}

/* gguf_convert(out, source [, options]). */
static void cv_sql_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *out = (const char *)sqlite3_value_text(argv[0]);
  const char *src = (const char *)sqlite3_value_text(argv[1]);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  cv_options o;
  cv_result r = {0, NULL};
  wt_error e;
  char *name = NULL, *z;
  memset(&o, 0, sizeof(o));
  wt_watch_interrupt(db);
  if (out == NULL || src == NULL) {
    sqlite3_result_error(ctx, "gguf_convert(): the output and source paths may not be NULL", -1);
    return;
  }
  if (cv_sql_options(db, argc > 2 ? argv[2] : NULL, &o, &name, &e) != 0) {
    r.where = strdup(out);
  } else {
    o.name = name;
    o.interrupted = cv_sql_interrupted;
    o.ctx = db;
    if (cv_convert(wt_func_cache(ctx), out, src, &o, &r, &e) == 0) {
      sqlite3_result_int64(ctx, (sqlite3_int64)r.size);
      goto done;
    }
  }
  if (wt_interrupted(db)) {
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    goto done;
  }
  z = wt_error_message("gguf_convert", r.where, e.msg);
  if (z == NULL)
    sqlite3_result_error_nomem(ctx);
  else
    sqlite3_result_error(ctx, z, -1);
  sqlite3_free(z);
done:
  free(r.where);
  sqlite3_free(name);
}

int wt_register_convert(sqlite3 *db, wt_cache *cache) {
  int rc = wt_register_one(db, "gguf_convert", WT_FORMAT_SAFETENSORS, 2, WT_FILE_FLAGS, cv_sql_func,
                           cache);
  if (rc == SQLITE_OK)
    rc = wt_register_one(db, "gguf_convert", WT_FORMAT_SAFETENSORS, 3, WT_FILE_FLAGS, cv_sql_func,
                         cache);
  return rc;
}
