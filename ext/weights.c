/*
** weights.c: the entry point of the sqlite-weights extension.
**
** Build it as weights.so and load it with `.load ./build/weights` in the
** sqlite3 shell or conn.load_extension("./build/weights") in Python: SQLite
** derives the entry point sqlite3_weights_init from the file name.
**
** Layer: sql (the top; ext/README.md draws the layers).  It registers, on
** each connection, with one header cache (bytes/cache.h) that all share:
**   tables     safetensors, safetensors_metadata, gguf, gguf_metadata,
**              gguf_array, tensors (sql/tables.c), weights_files,
**              weights_models (sql/catalog.c),
**              tensor_values (sql/values.c), tensor_stats (sql/stats.c),
**              gguf_memory, gguf_fit (sql/memory.c),
**              tensor_histogram (sql/histogram_table.c),
**              model_config (sql/model_config.c)
**   functions  safetensors_blob, gguf_blob, tensor_blob, tensor_hash,
**              safetensors_info, gguf_info, weights_version,
**              weights_cache_stats, weights_remote, weights_mmap,
**              weights_mmap_guard (sql/functions.c),
**              tensor_compare (sql/compare.c), file_sha256
**              (sql/hash_functions.c), weights_report (sql/report.c)
**   writing    gguf_rewrite, safetensors_rewrite (sql/rewrite.c),
**              gguf_split (sql/gguf_split.c), safetensors_write, an
**              aggregate (sql/st_write.c), safetensors_split (sql/st_split.c),
**              gguf_convert (sql/convert.c over convert/convert.h); their
**              jobs are write/'s (write/write_job.h) and convert/'s
** and makes remote paths (http://, https://, hf://) go to the HTTP byte
** source (remote/http.h).  sqlite3_weights_init is the only symbol the
** module exports: everything else is built with -fvisibility=hidden, so
** that a host process that also has ggml (or any library with a function
** of the same name) keeps its own and ours stays ours.
** See docs/reference.md for the SQL reference.
*/
#include <sqlite3ext.h>

#include "remote/http.h"
#include "sql/compare.h"
#include "sql/convert.h"
#include "sql/functions.h"
#include "sql/gguf_split.h"
#include "sql/hash_functions.h"
#include "sql/memory.h"
#include "sql/model_config.h"
#include "sql/histogram_table.h"
#include "sql/report.h"
#include "sql/rewrite.h"
#include "sql/st_split.h"
#include "sql/st_write.h"
#include "sql/tables.h"
#include "sql/stats.h"
#include "sql/values.h"

SQLITE_EXTENSION_INIT1

/* What the module exports (the build hides everything else). */
#ifdef _WIN32
#define WT_EXPORT __declspec(dllexport)
#else
#define WT_EXPORT __attribute__((visibility("default")))
#endif

/* Register every table and function of the extension on db. */
WT_EXPORT int sqlite3_weights_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  static const wt_table_def *const tables[] = {
      &wt_safetensors_table,   &wt_safetensors_metadata_table,
      &wt_gguf_table,          &wt_gguf_metadata_table,
      &wt_gguf_array_table,    &wt_tensors_table,
      &wt_weights_files_table, &wt_weights_models_table,
      &wt_tensor_values_table, &wt_tensor_stats_table,
      &wt_gguf_memory_table,   &wt_tensor_histogram_table,
      &wt_model_config_table,  &wt_gguf_fit_table,
  };
  wt_cache *cache;
  size_t i;
  int rc = SQLITE_OK;
  SQLITE_EXTENSION_INIT2(pApi);
  if (sqlite3_libversion_number() < 3031000) {
    *pzErrMsg = sqlite3_mprintf("sqlite-weights needs SQLite 3.31 or later (DIRECTONLY)");
    return SQLITE_ERROR;
  }
  wt_remote_register();   /* remote paths are read by the HTTP source */
  cache = wt_cache_new(); /* one per connection, freed with the last registration */
  if (cache == NULL)
    return SQLITE_NOMEM;
  for (i = 0; i < sizeof(tables) / sizeof(tables[0]) && rc == SQLITE_OK; i++)
    rc = wt_register_table(db, tables[i], cache);
  if (rc == SQLITE_OK)
    rc = wt_register_functions(db, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_compare(db, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_hash_functions(db);
  if (rc == SQLITE_OK)
    rc = wt_register_report(db);
  if (rc == SQLITE_OK)
    rc = wt_register_rewrite(db);
  if (rc == SQLITE_OK)
    rc = wt_register_gguf_split(db);
  if (rc == SQLITE_OK)
    rc = wt_register_st_write(db, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_st_split(db, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_convert(db, cache);
  if (rc == SQLITE_OK)
    rc = wt_register_memory_functions(db);
  wt_cache_unref(cache);
  return rc;
}
