/*
** st_split.c: safetensors_split(folder, source, max_shard_bytes), a model
** written as a sharded safetensors checkpoint, as transformers'
** save_pretrained() writes one.  Layer: sql.
**
**   SELECT safetensors_split('out/', 'model.safetensors', 100000000);   -- shards of <= 100 MB
**   SELECT safetensors_split('merged/', 'sharded-model/', 1e15);       -- one file again
**
** The tensors of source (any path the tables take, listed by tensors())
** go into shards in their listed order, a new shard starting when the next
** tensor would take the current one past max_shard_bytes (a tensor larger
** than that gets a shard of its own), as huggingface_hub's
** split_torch_state_dict_into_shards() does.  The shards are named
** model-00001-of-0000N.safetensors, written by safetensors_write()'s job
** (the crate's form, tensors copied by reference, read back and compared),
** with model.safetensors.index.json beside them: {"metadata":
** {"total_size": bytes of every tensor}, "weight_map": {name: shard}}, keys
** sorted, indented by 2, as transformers writes it.  One shard is written
** as model.safetensors, without an index.  Returns the number of files
** written.  This file lists the tensors and finds each as the tables do;
** the shards are write/st_split_job.c's.
**
** The folder is made when it does not exist (its parent must).  Every
** shard is written and checked in a temporary file first; only when all of
** them are are they renamed into place, the index last.  A failure before
** that leaves the folder as it was (one made by the call is removed).  Shards of an earlier split
** with other names are not removed: give a new or empty folder.
*/
#include "st_split.h"

#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "interrupt.h"
#include "st_write_int.h"
#include "vtab.h"
#include "write_call.h"

SQLITE_EXTENSION_INIT3

/* The rows of every tensor of source, as tensors(source) lists them, into
** s: 0; -1 with err set (the listing failed), or -2 with the error result
** set (a row could not be read). */
static int sts_rows(sqlite3_context *ctx, sqlite3 *db, sqlite3_value *source, stw_state *s,
                    wt_error *err) {
  sqlite3_stmt *st = NULL;
  int rc;
  if (sqlite3_prepare_v2(db, "SELECT name, path FROM tensors(?1)", -1, &st, NULL) != SQLITE_OK)
    return wt_fail(err, "%s", sqlite3_errmsg(db));
  sqlite3_bind_value(st, 1, source);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    sqlite3_value *name = sqlite3_column_value(st, 0);
    stw_row *r = stw_push(ctx, s, name);
    if (r == NULL || stw_from_path(ctx, s, name, sqlite3_column_value(st, 1), r) != 0) {
      sqlite3_finalize(st);
      return -2;
    }
  }
  if (rc != SQLITE_DONE) {
    wt_fail(err, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  return 0;
}

/* safetensors_split(folder, source, max_shard_bytes). */
static void sts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *folder = (const char *)sqlite3_value_text(argv[0]);
  wt_write_call call = {sqlite3_context_db_handle(ctx), 0};
  stw_cancel cancel = {wt_write_call_interrupted, &call};
  sqlite3_int64 max = 0;
  stw_state s;
  wt_error e;
  int n = 0, rc;
  (void)argc;
  memset(&s, 0, sizeof(s));
  s.fn = "safetensors_split";
  wt_watch_interrupt(call.db);
  if (folder == NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL ||
      wt_whole_number(argv[2], &max) != 0 || max <= 0) {
    /* 1e18, 100000 and '100000' alike; not 0.5, NaN, -1, 0 or 'x' */
    wt_fail(&e, "give a folder, a source and a positive whole number of bytes, not %s",
            sqlite3_value_type(argv[2]) == SQLITE_NULL ? "NULL"
                                                       : (const char *)sqlite3_value_text(argv[2]));
    goto fail;
  }
  if ((rc = sts_rows(ctx, call.db, argv[1], &s, &e)) == -2)
    goto done; /* the error result is set */
  if (rc != 0 || wt_st_split(folder, s.rows.v, s.rows.n, (uint64_t)max, &cancel, &n, &e) != 0)
    goto fail;
  sqlite3_result_int(ctx, n);
  goto done;
fail:
  wt_write_call_error(ctx, &call, "safetensors_split", folder, e.msg);
done:
  stw_rows_free(&s.rows);
}

int wt_register_st_split(sqlite3 *db, wt_cache *cache) {
  return wt_register_one(db, "safetensors_split", 0, 3, WT_FILE_FLAGS, sts_func, cache);
}
