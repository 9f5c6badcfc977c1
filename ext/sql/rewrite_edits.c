/*
** rewrite_edits.c: the edits of gguf_rewrite() and safetensors_rewrite()
** applied to a file's metadata.  See rewrite_edits.h.
** Layer: sql.
**
** An edit is a member of a JSON object: "key": value.
**   null                               removes the key (a key not there: nothing to do)
**   a value                            sets it; an existing GGUF key keeps its type
**   {"type": "UINT32", "value": 7}     sets it with that type (an array value:
**                                      the type of its elements)
** A new GGUF key without a type may be text (STRING), true/false (BOOL), or
** an array of either; a number needs a type.  Numbers must fit the type
** (gw_put_number()).  safetensors' __metadata__ holds strings only: a
** number is refused, not turned into text.
*/
#include "rewrite_edits.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "write/gguf_writer.h"
#include "write/write_buf.h"

SQLITE_EXTENSION_INIT3

#define U(x) ((unsigned long long)(x))

/* The growth of the entry array. */
#define RW_FIRST_CAP 64

wt_str rw_key(const rw_list *l, size_t i) {
  return (wt_str){l->keys.p + l->e[i].key_off, l->e[i].key_len};
}

const unsigned char *rw_val(const rw_list *l, size_t i) {
  return (const unsigned char *)l->vals.p + l->e[i].val_off;
}

void rw_free(rw_list *l) {
  free(l->e);
  free(l->keys.p);
  free(l->vals.p);
  memset(l, 0, sizeof(*l));
}

/* Index of key k, or -1. */
static int64_t rw_find(const rw_list *l, const char *k, size_t n) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (l->e[i].key_len == n && memcmp(l->keys.p + l->e[i].key_off, k, n) == 0)
      return (int64_t)i;
  return -1;
}

/* Append an entry for key k whose value is to be appended next. */
static rw_entry *rw_push(rw_list *l, const char *k, size_t n) {
  rw_entry *e;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : RW_FIRST_CAP;
    rw_entry *p = realloc(l->e, cap * sizeof(*p));
    if (p == NULL)
      return NULL;
    l->e = p;
    l->cap = cap;
  }
  e = &l->e[l->n];
  e->key_off = l->keys.n;
  e->key_len = n;
  e->val_off = l->vals.n;
  e->val_len = 0;
  e->type = 0;
  if (wb_put(&l->keys, k, n) != 0)
    return NULL;
  l->n++;
  return e;
}

int rw_from_model(rw_list *l, const wt_model *m, const unsigned char *data, wt_error *err) {
  size_t i;
  for (i = 0; i < m->n_meta; i++) {
    const wt_meta *kv = &m->meta[i];
    rw_entry *e = rw_push(l, kv->key.p, kv->key.n);
    if (e == NULL)
      return wt_fail(err, "out of memory");
    e->type = kv->type;
    if (m->format == WT_FORMAT_GGUF ? gw_value_copy(&l->vals, m, data, kv)
                                    : wb_put(&l->vals, kv->value.p, kv->value.n))
      return wt_fail(err, "out of memory copying the value of kv #%zu", i);
    e->val_len = l->vals.n - e->val_off;
  }
  return 0;
}

/* ---- Reading the JSON -------------------------------------------------- */

/* The GGUF scalar type named p (any case), or -1. */
static int rw_type_named(const char *p) {
  uint32_t t;
  for (t = 0; p != NULL && t < GGUF_TYPE_COUNT; t++)
    if (t != GGUF_TYPE_ARRAY && strcasecmp(p, gguf_type_name(t)) == 0)
      return (int)t;
  return -1;
}

/* Append value v (json_each's type jt) as a scalar of type t. */
static int rw_scalar(wt_buf *b, uint32_t t, const char *jt, sqlite3_value *v, const char *name,
                     wt_error *err) {
  int rc;
  if (t == GGUF_TYPE_STRING) {
    if (strcmp(jt, "text") != 0)
      return wt_fail(err, "key %s is a STRING: give text, not %s", name, jt);
    return gw_put_string(b, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v))
               ? wt_fail(err, "out of memory")
               : 0;
  }
  if (strcmp(jt, "integer") == 0 || strcmp(jt, "true") == 0 || strcmp(jt, "false") == 0) {
    if (t != GGUF_TYPE_BOOL && jt[0] != 'i')
      return wt_fail(err, "key %s is a %s: give a number, not %s", name, gguf_type_name(t), jt);
    rc = gw_put_number(b, t, 0, sqlite3_value_int64(v), 0);
  } else if (strcmp(jt, "real") == 0) {
    rc = gw_put_number(b, t, 1, 0, sqlite3_value_double(v));
  } else {
    return wt_fail(err, "key %s is a %s: give a number, not %s", name, gguf_type_name(t), jt);
  }
  if (rc == 1)
    return wt_fail(err, "key %s: %s does not fit %s", name, (const char *)sqlite3_value_text(v),
                   gguf_type_name(t));
  return rc ? wt_fail(err, "out of memory") : 0;
}

/* The element type a new array without a type gets from its first
** element: STRING for text, BOOL for true/false; -1 otherwise. */
static int rw_infer(const char *jt) {
  if (strcmp(jt, "text") == 0)
    return GGUF_TYPE_STRING;
  if (strcmp(jt, "true") == 0 || strcmp(jt, "false") == 0)
    return GGUF_TYPE_BOOL;
  return -1;
}

/* Append the JSON array text arr as a GGUF array of et (-1: infer). */
static int rw_array(wt_buf *b, sqlite3 *db, int et, const char *arr, const char *name,
                    wt_error *err) {
  sqlite3_stmt *st = NULL;
  size_t count_at;
  uint64_t count = 0;
  int rc = -1, k;
  if (sqlite3_prepare_v2(db, "SELECT type, value FROM json_each(?1)", -1, &st, NULL) != SQLITE_OK)
    return wt_fail(err, "%s", sqlite3_errmsg(db));
  sqlite3_bind_text(st, 1, arr, -1, SQLITE_STATIC);
  wb_u32(b, 0); /* the element type and count, set below */
  count_at = b->n;
  wb_u64(b, 0);
  while ((k = sqlite3_step(st)) == SQLITE_ROW) {
    const char *jt = (const char *)sqlite3_column_text(st, 0);
    if (et < 0 && (et = rw_infer(jt)) < 0) {
      wt_fail(err,
              "new key %s: an array of %s needs a type: {\"type\": \"INT32\", \"value\": [...]}",
              name, jt);
      goto done;
    }
    if (rw_scalar(b, (uint32_t)et, jt, sqlite3_column_value(st, 1), name, err) != 0)
      goto done;
    count++;
  }
  if (k != SQLITE_DONE) {
    wt_fail(err, "key %s: %s", name, sqlite3_errmsg(db));
    goto done;
  }
  if (et < 0)
    et = GGUF_TYPE_STRING; /* an empty array without a type */
  if (b->oom) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (k = 0; k < 4; k++)
    b->p[count_at - 4 + (size_t)k] = (char)((uint32_t)et >> (8 * k));
  for (k = 0; k < 8; k++)
    b->p[count_at + (size_t)k] = (char)(count >> (8 * k));
  rc = 0;
done:
  sqlite3_finalize(st);
  return rc;
}

/* Set GGUF entry key (its index i, or -1 for a new one) from the JSON
** value jv of type jt; given is the type named by {"type": ...} or -1. */
static int rw_gguf_set(rw_list *l, sqlite3 *db, int64_t i, const char *key, const char *name,
                       int given, const char *jt, sqlite3_value *jv, wt_error *err) {
  size_t at = l->vals.n;
  int is_array = strcmp(jt, "array") == 0, et = given;
  uint32_t type;
  rw_entry *e;
  if (given < 0 && i >= 0) {
    /* an existing key keeps its type */
    type = l->e[i].type;
    if ((type == GGUF_TYPE_ARRAY) != is_array)
      return wt_fail(err,
                     "key %s is %s%s: give %s, or {\"type\": ..., \"value\": ...} to change it",
                     name, type == GGUF_TYPE_ARRAY ? "an array of " : "a ",
                     gguf_type_name(type == GGUF_TYPE_ARRAY ? rw_val(l, (size_t)i)[0] : type),
                     is_array ? "one value" : "an array");
    et = is_array ? rw_val(l, (size_t)i)[0] : (int)type;
  }
  if (is_array) {
    if (rw_array(&l->vals, db, et, (const char *)sqlite3_value_text(jv), name, err) != 0)
      return -1;
    type = GGUF_TYPE_ARRAY;
  } else {
    if (et < 0 && (et = rw_infer(jt)) < 0)
      return wt_fail(err, "new key %s needs a type: {\"type\": \"UINT32\", \"value\": ...}", name);
    if (rw_scalar(&l->vals, (uint32_t)et, jt, jv, name, err) != 0)
      return -1;
    type = (uint32_t)et;
  }
  e = i >= 0 ? &l->e[i] : rw_push(l, key, strlen(key));
  if (e == NULL)
    return wt_fail(err, "out of memory");
  e->type = type;
  e->val_off = at;
  e->val_len = l->vals.n - at;
  return 0;
}

/* Set safetensors entry key (index i, or -1) to the string jv. */
static int rw_st_set(rw_list *l, int64_t i, const char *key, const char *name, const char *jt,
                     sqlite3_value *jv, wt_error *err) {
  size_t at = l->vals.n;
  rw_entry *e;
  if (strcmp(jt, "text") != 0)
    return wt_fail(err, "key %s: __metadata__ values are strings, not %s (give '%s' as text)", name,
                   jt, jt[0] == 'i' || jt[0] == 'r' ? (const char *)sqlite3_value_text(jv) : "...");
  if (wb_put(&l->vals, sqlite3_value_text(jv), (size_t)sqlite3_value_bytes(jv)) != 0)
    return wt_fail(err, "out of memory");
  e = i >= 0 ? &l->e[i] : rw_push(l, key, strlen(key));
  if (e == NULL)
    return wt_fail(err, "out of memory");
  e->val_off = at;
  e->val_len = l->vals.n - at;
  return 0;
}

/* One member of the edits: key, json_each's type and value. */
static int rw_apply_one(rw_list *l, int format, sqlite3 *db, sqlite3_stmt *obj, const char *key,
                        const char *name, const char *jt, sqlite3_value *jv, wt_error *err) {
  int64_t i = rw_find(l, key, strlen(key));
  int given = -1;
  if (strcmp(jt, "null") == 0) {
    if (i >= 0) {
      memmove(&l->e[i], &l->e[i + 1], (l->n - (size_t)i - 1) * sizeof(*l->e));
      l->n--;
    }
    return 0;
  }
  if (strcmp(jt, "object") == 0) {
    const char *tn;
    if (format != WT_FORMAT_GGUF)
      return wt_fail(err, "key %s: __metadata__ values are strings, not objects", name);
    sqlite3_reset(obj);
    sqlite3_bind_value(obj, 1, jv);
    if (sqlite3_step(obj) != SQLITE_ROW)
      return wt_fail(err, "key %s: %s", name, sqlite3_errmsg(db));
    tn = (const char *)sqlite3_column_text(obj, 0);
    if ((given = rw_type_named(tn)) < 0 || sqlite3_column_type(obj, 1) == SQLITE_NULL)
      return wt_fail(err,
                     "key %s: give {\"type\": T, \"value\": V} with T one of UINT8, INT8, "
                     "UINT16, INT16, UINT32, INT32, UINT64, INT64, FLOAT32, FLOAT64, BOOL, "
                     "STRING (%s)",
                     name, tn ? tn : "no type");
    jt = (const char *)sqlite3_column_text(obj, 1);
    if (strcmp(jt, "null") == 0 || strcmp(jt, "object") == 0)
      return wt_fail(err, "key %s: the value may not be %s", name, jt);
    jv = sqlite3_column_value(obj, 2);
  }
  if (format == WT_FORMAT_GGUF)
    return rw_gguf_set(l, db, i, key, name, given, jt, jv, err);
  return rw_st_set(l, i, key, name, jt, jv, err);
}

int rw_apply(rw_list *l, int format, sqlite3 *db, const char *json, wt_error *err) {
  sqlite3_stmt *each = NULL, *obj = NULL;
  char q[WT_QUOTE_SIZE];
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
    const char *key = (const char *)sqlite3_column_text(each, 0);
    const char *jt = (const char *)sqlite3_column_text(each, 1);
    const char *whole = (const char *)sqlite3_column_text(each, 3);
    if (whole == NULL || strcmp(whole, "object") != 0) {
      wt_fail(err, "the edits must be a JSON object of keys, not %s", whole ? whole : "NULL");
      goto done;
    }
    if (key == NULL || key[0] == 0) {
      wt_fail(err, "an empty key");
      goto done;
    }
    wt_quote(q, sizeof(q), key, strlen(key));
    if (rw_apply_one(l, format, db, obj, key, q, jt, sqlite3_column_value(each, 2), err) != 0)
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
