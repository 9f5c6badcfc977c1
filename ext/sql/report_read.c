/*
** report_read.c: a model read for weights_report() (report_read.h): its
** files, tensors and metadata from weights_files(), tensors(),
** gguf_metadata() and safetensors_metadata(), and windows of its values
** from tensor_values(), all on the caller's connection.  Layer: sql.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "report_read.h"

SQLITE_EXTENSION_INIT3

/* The connection the report reads through. */
static sqlite3 *wt_report_db(const wt_report *r) {
  return ((const wt_report_sql *)r->ctx)->db;
}

/* Prepare sql on the report's connection, binding ?1 to path.  NULL on
** error (recorded). */
static sqlite3_stmt *wt_report_query(wt_report *r, const char *sql, const char *path) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(wt_report_db(r), sql, -1, &q, NULL) != SQLITE_OK ||
      sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC) != SQLITE_OK) {
    wt_report_fail(r, "%s", sqlite3_errmsg(wt_report_db(r)));
    sqlite3_finalize(q);
    return NULL;
  }
  return q;
}

/* Step q: 1 for a row, 0 at the end (q finalized), -1 on error (recorded,
** q finalized). */
static int wt_report_step(wt_report *r, sqlite3_stmt *q) {
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    return 1;
  if (rc != SQLITE_DONE)
    wt_report_fail(r, "%s", sqlite3_errmsg(wt_report_db(r)));
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* A copy of column i as text (sqlite3_malloc), NULL for NULL. */
static char *wt_col_dup(sqlite3_stmt *q, int i) {
  const unsigned char *s = sqlite3_column_text(q, i);
  return s ? sqlite3_mprintf("%s", s) : NULL;
}

/* Refuse a path that holds more than one model (weights_models(path)):
** a page is about one model, and adding two models' tensors together
** would draw a model that does not exist. */
static int wt_model_one(wt_report *r, const char *path) {
  sqlite3_stmt *q =
      wt_report_query(r, "SELECT count(*), min(model), max(model) FROM weights_models(?1)", path);
  sqlite3_int64 n;
  if (q == NULL || wt_report_step(r, q) != 1)
    return -1;
  n = sqlite3_column_int64(q, 0);
  if (n > 1)
    wt_report_fail(r,
                   "%s holds %lld models (%s %s %s): a report is of one model; name one, or "
                   "compare two with weights_report(a, b)",
                   path, (long long)n, sqlite3_column_text(q, 1), n == 2 ? "and" : "...",
                   sqlite3_column_text(q, 2));
  sqlite3_finalize(q);
  return n > 1 ? -1 : 0;
}

/* Read weights_files(path): count, bytes, the format of the data files (an
** index, or a second name of a file read once, holds no tensors of its
** own and is not counted); a file's error fails. */
static int wt_model_files(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q =
      wt_report_query(r, "SELECT file, format, size, error, tensors FROM weights_files(?1)", path);
  int rc;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    const char *format = (const char *)sqlite3_column_text(q, 1);
    if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
      wt_report_fail(r, "%s: %s", sqlite3_column_text(q, 0), sqlite3_column_text(q, 3));
      sqlite3_finalize(q);
      return -1;
    }
    if (sqlite3_column_type(q, 4) == SQLITE_NULL)
      continue;
    m->n_files++;
    m->file_bytes += sqlite3_column_int64(q, 2);
    if (m->format == NULL)
      m->format = sqlite3_mprintf("%s", format ? format : "unknown");
    else if (format == NULL || strcmp(m->format, format) != 0) {
      sqlite3_free(m->format);
      m->format = sqlite3_mprintf("mixed");
    }
  }
  if (rc == 0 && m->n_files == 0)
    return wt_report_fail(r, "%s: no model files", path);
  return rc;
}

/* Read tensors(path) into m->t. */
static int wt_model_tensors(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q = wt_report_query(r,
                                    "SELECT name, dtype, shape, numel, nbytes, "
                                    "CAST(json_extract(shape, '$[0]') AS INTEGER) FROM tensors(?1)",
                                    path);
  int rc, cap = 0;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    wt_rtensor *t;
    if (m->n == cap) {
      void *p = sqlite3_realloc64(m->t, (cap ? cap * 2 : 64) * sizeof(*m->t));
      if (p == NULL) {
        sqlite3_finalize(q);
        return wt_report_fail(r, "out of memory");
      }
      m->t = p;
      cap = cap ? cap * 2 : 64;
    }
    t = &m->t[m->n];
    t->name = wt_col_dup(q, 0);
    t->dtype = wt_col_dup(q, 1);
    t->shape = wt_col_dup(q, 2);
    if (t->name == NULL || t->shape == NULL) {
      sqlite3_free(t->name);
      sqlite3_free(t->dtype);
      sqlite3_free(t->shape);
      sqlite3_finalize(q);
      return wt_report_fail(r, "out of memory");
    }
    m->n++;
    t->numel = sqlite3_column_int64(q, 3);
    t->nbytes = sqlite3_column_int64(q, 4);
    t->rows = sqlite3_column_type(q, 5) == SQLITE_NULL ? 1 : sqlite3_column_int64(q, 5);
    t->layer = wt_name_layer(t->name);
    t->kind = wt_name_kind(t->name);
  }
  return rc;
}

/* Read the facts of a GGUF model's metadata: architecture, name, context
** length, vocabulary size, heads (scalar integers only, as
** tensor_compare() reads them: a per-layer array is no head count). */
static int wt_model_gguf_facts(wt_report *r, const char *path, wt_rmodel *m) {
  sqlite3_stmt *q = wt_report_query(r,
                                    "SELECT key, CASE WHEN type = 'ARRAY' THEN count ELSE value "
                                    "END, type = 'ARRAY' OR typeof(value) <> 'integer' "
                                    "FROM gguf_metadata(?1)",
                                    path);
  sqlite3_int64 vocab_size = 0;
  int rc;
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    const char *key = (const char *)sqlite3_column_text(q, 0), *dot;
    if (key == NULL)
      continue;
    if (strcmp(key, "general.architecture") == 0 && m->arch == NULL)
      m->arch = wt_col_dup(q, 1);
    else if (strcmp(key, "general.name") == 0 && m->name == NULL)
      m->name = wt_col_dup(q, 1);
    else if (strcmp(key, "tokenizer.ggml.tokens") == 0 && m->vocab == 0)
      m->vocab = sqlite3_column_int64(q, 1);
    else if ((dot = strchr(key, '.')) != NULL && m->arch != NULL &&
             (size_t)(dot - key) == strlen(m->arch) && strncmp(key, m->arch, dot - key) == 0) {
      sqlite3_int64 v = sqlite3_column_int64(q, 1);
      int scalar = sqlite3_column_int(q, 2) == 0 && v >= 0;
      if (strcmp(dot, ".context_length") == 0)
        m->ctx_len = v;
      else if (strcmp(dot, ".vocab_size") == 0)
        vocab_size = v;
      else if (strcmp(dot, ".attention.head_count") == 0 && scalar)
        m->n_head = v;
      else if (strcmp(dot, ".attention.head_count_kv") == 0 && scalar)
        m->n_head_kv = v;
    }
  }
  if (m->vocab == 0)
    m->vocab = vocab_size;
  if (m->n_head_kv == 0)
    m->n_head_kv = m->n_head;
  return rc;
}

int wt_report_model(wt_report *r, const char *path, wt_rmodel *m) {
  int i;
  memset(m, 0, sizeof(*m));
  m->path = path;
  if (wt_model_one(r, path) || wt_model_files(r, path, m) || wt_model_tensors(r, path, m))
    return -1;
  if (strcmp(m->format, "gguf") == 0 && wt_model_gguf_facts(r, path, m))
    return -1;
  for (i = 0; i < m->n && m->vocab == 0; i++) /* a checkpoint: the embedding's rows */
    if (m->t[i].layer == WT_LAYER_EMBED && m->t[i].numel > m->t[i].rows)
      m->vocab = m->t[i].rows;
  return 0;
}

void wt_report_model_free(wt_rmodel *m) {
  int i;
  for (i = 0; i < m->n; i++) {
    sqlite3_free(m->t[i].name);
    sqlite3_free(m->t[i].dtype);
    sqlite3_free(m->t[i].shape);
  }
  for (i = 0; i < m->n_meta; i++) {
    sqlite3_free(m->meta[i].key);
    sqlite3_free(m->meta[i].type);
    sqlite3_free(m->meta[i].value);
  }
  sqlite3_free(m->t);
  sqlite3_free(m->meta);
  sqlite3_free(m->format);
  sqlite3_free(m->arch);
  sqlite3_free(m->name);
  memset(m, 0, sizeof(*m));
}

/* The report's reader of values (report_job.h's wt_report_values_fn):
** tensor_values(path, name, start, count) on the caller's connection. */
static int64_t wt_report_values(wt_report *r, const char *path, const char *name, int64_t start,
                                int64_t count, double *v) {
  wt_report_sql *s = r->ctx;
  int64_t n = 0;
  int rc = SQLITE_DONE;
  if (s->values == NULL &&
      sqlite3_prepare_v2(s->db, "SELECT value FROM tensor_values(?1, ?2, ?3, ?4)", -1, &s->values,
                         NULL) != SQLITE_OK)
    return wt_report_fail(r, "%s", sqlite3_errmsg(s->db));
  sqlite3_reset(s->values);
  sqlite3_bind_text(s->values, 1, path, -1, SQLITE_STATIC);
  sqlite3_bind_text(s->values, 2, name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->values, 3, start);
  sqlite3_bind_int64(s->values, 4, count);
  while (n < count && (rc = sqlite3_step(s->values)) == SQLITE_ROW)
    v[n++] = sqlite3_column_type(s->values, 0) == SQLITE_NULL ? NAN
                                                              : sqlite3_column_double(s->values, 0);
  if (n < count && rc != SQLITE_DONE)
    n = wt_report_fail(r, "%s", sqlite3_errmsg(s->db));
  sqlite3_reset(s->values);
  return n;
}

void wt_report_sql_init(wt_report *r, wt_report_sql *s, sqlite3 *db) {
  memset(s, 0, sizeof(*s));
  s->db = db;
  r->values = wt_report_values;
  r->ctx = s;
  r->version = WEIGHTS_VERSION;
}

void wt_report_sql_free(wt_report_sql *s) {
  sqlite3_finalize(s->values);
  s->values = NULL;
}

/* Read the metadata of m for the one-model page (gguf_metadata() or
** safetensors_metadata(); arrays as their element type and length). */
int wt_report_metadata(wt_report *r, wt_rmodel *m) {
  int gguf = strcmp(m->format, "gguf") == 0, rc, cap = 0;
  sqlite3_stmt *q;
  if (!gguf && strcmp(m->format, "safetensors") != 0)
    return 0;
  q = wt_report_query(r,
                      gguf ? "SELECT key, type, CASE WHEN type = 'ARRAY' THEN element_type || '[' "
                             "|| count || ']' ELSE value END FROM gguf_metadata(?1)"
                           : "SELECT key, 'STRING', value FROM safetensors_metadata(?1)",
                      m->path);
  if (q == NULL)
    return -1;
  while ((rc = wt_report_step(r, q)) == 1) {
    wt_rmeta *e;
    if (m->n_meta == cap) {
      void *p = sqlite3_realloc64(m->meta, (cap ? cap * 2 : 64) * sizeof(*m->meta));
      if (p == NULL) {
        sqlite3_finalize(q);
        return wt_report_fail(r, "out of memory");
      }
      m->meta = p;
      cap = cap ? cap * 2 : 64;
    }
    e = &m->meta[m->n_meta];
    memset(e, 0, sizeof(*e));
    m->n_meta++;
    e->key = wt_col_dup(q, 0);
    e->type = wt_col_dup(q, 1);
    if (sqlite3_column_type(q, 2) == SQLITE_BLOB)
      e->blob_bytes = sqlite3_column_bytes(q, 2);
    else
      e->value = wt_col_dup(q, 2);
  }
  return rc;
}
