/*
** rewrite_edits.c: the edits argument of gguf_rewrite() and
** safetensors_rewrite() read with json_each() (rewrite_edits.h); what they
** do is write/edit_list.c's.  Layer: sql.
**
** Each member becomes an rw_edit: its key, json_each()'s type and value
** (text, integer and real, as SQLite converts them), an array's elements
** (json_each() of the array), and for an object {"type": T, "value": V}
** the text of T and V read the same way.
*/
#include "rewrite_edits.h"

#include <stdlib.h>
#include <string.h>

SQLITE_EXTENSION_INIT3

/* The growth of the edit array. */
#define RWE_FIRST_CAP 16

/* Free what value v holds (not v). */
static void rwe_value_free(rw_value *v) {
  size_t i;
  for (i = 0; i < v->n_elems; i++)
    rwe_value_free((rw_value *)&v->elems[i]);
  free((void *)v->elems);
  if (v->value != NULL) {
    rwe_value_free((rw_value *)v->value);
    free((void *)v->value);
  }
  free((void *)v->text);
  free((void *)v->type_name);
  memset(v, 0, sizeof(*v));
}

/* Fill v from the SQL value x of json_each()'s type jt (a copy). */
static int rwe_value(rw_value *v, const char *jt, sqlite3_value *x) {
  const unsigned char *t = sqlite3_value_text(x);
  char *p;
  memset(v, 0, sizeof(*v));
  v->kind = rw_json_kind_named(jt);
  v->n = t ? (size_t)sqlite3_value_bytes(x) : 0;
  v->i = sqlite3_value_int64(x);
  v->r = sqlite3_value_double(x);
  if (t == NULL)
    return 0;
  if ((p = malloc(v->n + 1)) == NULL)
    return -1;
  memcpy(p, t, v->n + 1);
  v->text = p;
  return 0;
}

/* The elements of array v (its JSON text), with json_each(). */
static int rwe_elements(sqlite3 *db, rw_value *v, const char *name, wt_error *err) {
  sqlite3_stmt *st = NULL;
  rw_value *e = NULL;
  size_t n = 0, cap = 0;
  int k;
  if (sqlite3_prepare_v2(db, "SELECT type, value FROM json_each(?1)", -1, &st, NULL) != SQLITE_OK)
    return wt_fail(err, "%s", sqlite3_errmsg(db));
  sqlite3_bind_text(st, 1, v->text, -1, SQLITE_STATIC);
  while ((k = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == cap) {
      rw_value *p = realloc(e, (cap ? cap * 2 : RWE_FIRST_CAP) * sizeof(*p));
      if (p == NULL)
        break;
      e = p;
      cap = cap ? cap * 2 : RWE_FIRST_CAP;
    }
    if (rwe_value(&e[n++], (const char *)sqlite3_column_text(st, 0), sqlite3_column_value(st, 1)) !=
        0)
      break;
  }
  v->elems = e;
  v->n_elems = n;
  if (k != SQLITE_DONE)
    wt_fail(err, "key %s: %s", name, k == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return k == SQLITE_DONE ? 0 : -1;
}

/* The members "type" and "value" of object v, with the statement obj. */
static int rwe_object(sqlite3 *db, sqlite3_stmt *obj, rw_value *v, sqlite3_value *x,
                      const char *name, wt_error *err) {
  const unsigned char *tn;
  rw_value *inner;
  sqlite3_reset(obj);
  sqlite3_bind_value(obj, 1, x);
  if (sqlite3_step(obj) != SQLITE_ROW)
    return wt_fail(err, "key %s: %s", name, sqlite3_errmsg(db));
  if ((tn = sqlite3_column_text(obj, 0)) != NULL &&
      (v->type_name = strdup((const char *)tn)) == NULL)
    return wt_fail(err, "out of memory");
  if (sqlite3_column_type(obj, 1) == SQLITE_NULL)
    return 0;
  if ((inner = calloc(1, sizeof(*inner))) == NULL)
    return wt_fail(err, "out of memory");
  v->value = inner;
  if (rwe_value(inner, (const char *)sqlite3_column_text(obj, 1), sqlite3_column_value(obj, 2)) !=
      0)
    return wt_fail(err, "out of memory");
  return inner->kind == RW_JSON_ARRAY ? rwe_elements(db, inner, name, err) : 0;
}

/* Append member (key, jt, x) to out. */
static int rwe_member(sqlite3 *db, sqlite3_stmt *obj, rw_edits *out, const char *key,
                      const char *jt, sqlite3_value *x, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  rw_edit *e;
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : RWE_FIRST_CAP;
    rw_edit *p = realloc(out->e, cap * sizeof(*p));
    if (p == NULL)
      return wt_fail(err, "out of memory");
    out->e = p;
    out->cap = cap;
  }
  e = &out->e[out->n++];
  memset(e, 0, sizeof(*e));
  if ((e->key = strdup(key ? key : "")) == NULL || rwe_value((rw_value *)&e->value, jt, x) != 0)
    return wt_fail(err, "out of memory");
  wt_quote(q, sizeof(q), e->key, strlen(e->key));
  if (e->value.kind == RW_JSON_ARRAY)
    return rwe_elements(db, (rw_value *)&e->value, q, err);
  if (e->value.kind == RW_JSON_OBJECT)
    return rwe_object(db, obj, (rw_value *)&e->value, x, q, err);
  return 0;
}

int rw_edits_read(sqlite3 *db, const char *json, rw_edits *out, wt_error *err) {
  sqlite3_stmt *each = NULL, *obj = NULL;
  int rc = -1, k;
  if (sqlite3_prepare_v2(db, "SELECT key, type, value, json_type(?1) FROM json_each(?1)", -1, &each,
                         NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "SELECT json_extract(?1, '$.type'), json_type(?1, '$.value'), "
                         "json_extract(?1, '$.value')",
                         -1, &obj, NULL) != SQLITE_OK) {
    wt_fail(err, "%s", sqlite3_errmsg(db));
    goto done;
  }
  sqlite3_bind_text(each, 1, json, -1, SQLITE_STATIC);
  while ((k = sqlite3_step(each)) == SQLITE_ROW) {
    const char *whole = (const char *)sqlite3_column_text(each, 3);
    if (whole == NULL || strcmp(whole, "object") != 0) {
      wt_fail(err, "the edits must be a JSON object of keys, not %s", whole ? whole : "NULL");
      goto done;
    }
    if (rwe_member(db, obj, out, (const char *)sqlite3_column_text(each, 0),
                   (const char *)sqlite3_column_text(each, 1), sqlite3_column_value(each, 2),
                   err) != 0)
      goto done;
  }
  if (k != SQLITE_DONE) {
    wt_fail(err, "the edits: %s", sqlite3_errmsg(db));
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(each);
  sqlite3_finalize(obj);
  return rc;
}

void rw_edits_free(rw_edits *e) {
  size_t i;
  for (i = 0; i < e->n; i++) {
    free((void *)e->e[i].key);
    rwe_value_free(&e->e[i].value);
  }
  free(e->e);
  memset(e, 0, sizeof(*e));
}
