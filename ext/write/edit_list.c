/*
** edit_list.c: the metadata of a file being rewritten, and the edits of
** gguf_rewrite(), safetensors_rewrite() and gguf_split() applied to it.
** See edit_list.h.  Layer: write.
*/
#include "edit_list.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gguf_writer.h"
#include "write_buf.h"

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

int rw_set_number(rw_list *l, const char *key, uint32_t type, int64_t v, wt_error *err) {
  int64_t i = rw_find(l, key, strlen(key));
  size_t at = l->vals.n;
  rw_entry *e;
  int rc = gw_put_number(&l->vals, type, 0, v, 0);
  if (rc == 1)
    return wt_fail(err, "%s: %lld does not fit %s", key, (long long)v, gguf_type_name(type));
  if (rc != 0 || (e = i >= 0 ? &l->e[i] : rw_push(l, key, strlen(key))) == NULL)
    return wt_fail(err, "out of memory");
  e->type = type;
  e->val_off = at;
  e->val_len = l->vals.n - at;
  return 0;
}

/* ---- Applying the edits ----------------------------------------------- */

const char *rw_json_kind(int kind) {
  static const char *const names[] = {"null", "true", "false", "integer",
                                      "real", "text", "array", "object"};
  return kind >= 0 && kind <= RW_JSON_OBJECT ? names[kind] : "?";
}

int rw_json_kind_named(const char *name) {
  int k;
  for (k = RW_JSON_NULL; name != NULL && k <= RW_JSON_OBJECT; k++)
    if (strcmp(name, rw_json_kind(k)) == 0)
      return k;
  return RW_JSON_NULL;
}

/* The GGUF scalar type named p (any case), or -1. */
static int rw_type_named(const char *p) {
  uint32_t t;
  for (t = 0; p != NULL && t < GGUF_TYPE_COUNT; t++)
    if (t != GGUF_TYPE_ARRAY && strcasecmp(p, gguf_type_name(t)) == 0)
      return (int)t;
  return -1;
}

/* Append value v as a scalar of type t. */
static int rw_scalar(wt_buf *b, uint32_t t, const rw_value *v, const char *name, wt_error *err) {
  const char *jt = rw_json_kind(v->kind);
  int rc;
  if (t == GGUF_TYPE_STRING) {
    if (v->kind != RW_JSON_TEXT)
      return wt_fail(err, "key %s is a STRING: give text, not %s", name, jt);
    return gw_put_string(b, v->text, v->n) ? wt_fail(err, "out of memory") : 0;
  }
  if (v->kind == RW_JSON_INTEGER || v->kind == RW_JSON_TRUE || v->kind == RW_JSON_FALSE) {
    if (t != GGUF_TYPE_BOOL && v->kind != RW_JSON_INTEGER)
      return wt_fail(err, "key %s is a %s: give a number, not %s", name, gguf_type_name(t), jt);
    rc = gw_put_number(b, t, 0, v->i, 0);
  } else if (v->kind == RW_JSON_REAL) {
    rc = gw_put_number(b, t, 1, 0, v->r);
  } else {
    return wt_fail(err, "key %s is a %s: give a number, not %s", name, gguf_type_name(t), jt);
  }
  if (rc == 1)
    return wt_fail(err, "key %s: %.*s does not fit %s", name, (int)v->n, v->text ? v->text : "",
                   gguf_type_name(t));
  return rc ? wt_fail(err, "out of memory") : 0;
}

/* The element type a new array without a type gets from its first
** element: STRING for text, BOOL for true/false; -1 otherwise. */
static int rw_infer(int kind) {
  if (kind == RW_JSON_TEXT)
    return GGUF_TYPE_STRING;
  if (kind == RW_JSON_TRUE || kind == RW_JSON_FALSE)
    return GGUF_TYPE_BOOL;
  return -1;
}

/* Append the array v as a GGUF array of et (-1: infer). */
static int rw_array(wt_buf *b, int et, const rw_value *v, const char *name, wt_error *err) {
  size_t count_at, i;
  int k;
  wb_u32(b, 0); /* the element type and count, set below */
  count_at = b->n;
  wb_u64(b, 0);
  for (i = 0; i < v->n_elems; i++) {
    const rw_value *x = &v->elems[i];
    if (et < 0 && (et = rw_infer(x->kind)) < 0)
      return wt_fail(
          err, "new key %s: an array of %s needs a type: {\"type\": \"INT32\", \"value\": [...]}",
          name, rw_json_kind(x->kind));
    if (rw_scalar(b, (uint32_t)et, x, name, err) != 0)
      return -1;
  }
  if (et < 0)
    et = GGUF_TYPE_STRING; /* an empty array without a type */
  if (b->oom)
    return wt_fail(err, "out of memory");
  for (k = 0; k < 4; k++)
    b->p[count_at - 4 + (size_t)k] = (char)((uint32_t)et >> (8 * k));
  for (k = 0; k < 8; k++)
    b->p[count_at + (size_t)k] = (char)((uint64_t)v->n_elems >> (8 * k));
  return 0;
}

/* Set GGUF entry key (its index i, or -1 for a new one) from the JSON
** value v; given is the type named by {"type": ...} or -1. */
static int rw_gguf_set(rw_list *l, int64_t i, const char *key, const char *name, int given,
                       const rw_value *v, wt_error *err) {
  size_t at = l->vals.n;
  int is_array = v->kind == RW_JSON_ARRAY, et = given;
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
    if (rw_array(&l->vals, et, v, name, err) != 0)
      return -1;
    type = GGUF_TYPE_ARRAY;
  } else {
    if (et < 0 && (et = rw_infer(v->kind)) < 0)
      return wt_fail(err, "new key %s needs a type: {\"type\": \"UINT32\", \"value\": ...}", name);
    if (rw_scalar(&l->vals, (uint32_t)et, v, name, err) != 0)
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

/* Set safetensors entry key (index i, or -1) to the string v. */
static int rw_st_set(rw_list *l, int64_t i, const char *key, const char *name, const rw_value *v,
                     wt_error *err) {
  size_t at = l->vals.n;
  rw_entry *e;
  if (v->kind != RW_JSON_TEXT)
    return wt_fail(err, "key %s: __metadata__ values are strings, not %s (give '%.*s' as text)",
                   name, rw_json_kind(v->kind),
                   v->kind == RW_JSON_INTEGER || v->kind == RW_JSON_REAL ? (int)v->n : 3,
                   v->kind == RW_JSON_INTEGER || v->kind == RW_JSON_REAL ? v->text : "...");
  if (wb_put(&l->vals, v->text, v->n) != 0)
    return wt_fail(err, "out of memory");
  e = i >= 0 ? &l->e[i] : rw_push(l, key, strlen(key));
  if (e == NULL)
    return wt_fail(err, "out of memory");
  e->val_off = at;
  e->val_len = l->vals.n - at;
  return 0;
}

/* One member of the edits. */
static int rw_apply_one(rw_list *l, int format, const rw_edit *ed, const char *name,
                        wt_error *err) {
  const rw_value *v = &ed->value;
  int64_t i = rw_find(l, ed->key, strlen(ed->key));
  int given = -1;
  if (v->kind == RW_JSON_NULL) {
    if (i >= 0) {
      memmove(&l->e[i], &l->e[i + 1], (l->n - (size_t)i - 1) * sizeof(*l->e));
      l->n--;
    }
    return 0;
  }
  if (v->kind == RW_JSON_OBJECT) {
    const char *tn = v->type_name;
    if (format != WT_FORMAT_GGUF)
      return wt_fail(err, "key %s: __metadata__ values are strings, not objects", name);
    if ((given = rw_type_named(tn)) < 0 || v->value == NULL)
      return wt_fail(err,
                     "key %s: give {\"type\": T, \"value\": V} with T one of UINT8, INT8, "
                     "UINT16, INT16, UINT32, INT32, UINT64, INT64, FLOAT32, FLOAT64, BOOL, "
                     "STRING (%s)",
                     name, tn ? tn : "no type");
    v = v->value;
    if (v->kind == RW_JSON_NULL || v->kind == RW_JSON_OBJECT)
      return wt_fail(err, "key %s: the value may not be %s", name, rw_json_kind(v->kind));
  }
  if (format == WT_FORMAT_GGUF)
    return rw_gguf_set(l, i, ed->key, name, given, v, err);
  return rw_st_set(l, i, ed->key, name, v, err);
}

int rw_apply(rw_list *l, int format, const rw_edit *e, size_t n, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  size_t k;
  for (k = 0; k < n; k++) {
    if (e[k].key == NULL || e[k].key[0] == 0)
      return wt_fail(err, "an empty key");
    wt_quote(q, sizeof(q), e[k].key, strlen(e[k].key));
    if (rw_apply_one(l, format, &e[k], q, err) != 0)
      return -1;
  }
  return 0;
}
