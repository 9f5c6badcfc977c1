/*
** kv_list.c: the metadata entries of a conversion, in order.  See
** kv_list.h.  Layer: convert.
*/
#include "kv_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write_buf.h"

void cv_kv_list_free(cv_kv_list *l) {
  free(l->bytes.p);
  free(l->e);
  memset(&l->bytes, 0, sizeof(l->bytes));
  l->e = NULL;
  l->n = l->cap = 0;
}

/* The entry index of key, or l->n. */
static size_t kv_index(const cv_kv_list *l, const char *key, size_t kn) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (l->e[i].key_len == kn && memcmp(l->bytes.p + l->e[i].key_off, key, kn) == 0)
      return i;
  return l->n;
}

const cv_kv_entry *cv_kv_find(const cv_kv_list *l, const char *key) {
  size_t i = kv_index(l, key, strlen(key));
  return i < l->n ? &l->e[i] : NULL;
}

int cv_kv_add(cv_kv_list *l, const char *key, uint32_t type, const unsigned char *val, size_t n,
              wt_error *err) {
  char q[WT_QUOTE_SIZE], why[WT_ERROR_MAX];
  size_t kn = strlen(key), i = kv_index(l, key, kn);
  cv_kv_entry *e;
  if (kn == 0 || gw_value_check(type, val, n, err) != 0) {
    snprintf(why, sizeof(why), "%s", kn == 0 ? "an empty key" : err->msg);
    return wt_fail(err, "metadata %s: %s", wt_quote(q, sizeof(q), key, kn), why);
  }
  if (i < l->n && !l->replace)
    return wt_fail(err, "metadata key %s given twice", wt_quote(q, sizeof(q), key, kn));
  if (i == l->n) {
    if (l->n == l->cap) {
      size_t cap = l->cap ? 2 * l->cap : 64;
      cv_kv_entry *p = realloc(l->e, cap * sizeof(*p));
      if (p == NULL)
        return wt_fail(err, "out of memory");
      l->e = p;
      l->cap = cap;
    }
    e = &l->e[l->n];
    e->key_off = l->bytes.n;
    e->key_len = kn;
    if (wb_put(&l->bytes, key, kn) != 0)
      return wt_fail(err, "out of memory");
    l->n++;
  }
  e = &l->e[i];
  e->type = type;
  e->val_off = l->bytes.n;
  e->val_len = n;
  if (wb_put(&l->bytes, val, n) != 0)
    return wt_fail(err, "out of memory");
  return 0;
}

/* The sink's add. */
static int kv_sink_add(void *ctx, const char *key, uint32_t type, const unsigned char *val,
                       size_t n, wt_error *err) {
  return cv_kv_add(ctx, key, type, val, n, err);
}

cv_kv_sink cv_kv_list_sink(cv_kv_list *l) {
  cv_kv_sink s = {l, kv_sink_add};
  return s;
}

/* Add a number of type t (gw_put_number's rules). */
static int kv_number(cv_kv_list *l, const char *key, uint32_t t, int is_real, int64_t i, double r,
                     wt_error *err) {
  char q[WT_QUOTE_SIZE];
  wt_buf b = {0};
  int rc = gw_put_number(&b, t, is_real, i, r);
  if (rc == 1)
    rc = wt_fail(err, "metadata %s: %.17g does not fit a %s",
                 wt_quote(q, sizeof(q), key, strlen(key)), is_real ? r : (double)i,
                 gguf_type_name(t));
  else if (rc != 0)
    rc = wt_fail(err, "out of memory");
  else
    rc = cv_kv_add(l, key, t, (const unsigned char *)b.p, b.n, err);
  free(b.p);
  return rc;
}

int cv_kv_u32(cv_kv_list *l, const char *key, uint64_t v, wt_error *err) {
  if (v > UINT32_MAX)
    return kv_number(l, key, GGUF_TYPE_UINT32, 1, 0, (double)v, err);
  return kv_number(l, key, GGUF_TYPE_UINT32, 0, (int64_t)v, 0, err);
}

int cv_kv_i32(cv_kv_list *l, const char *key, int64_t v, wt_error *err) {
  return kv_number(l, key, GGUF_TYPE_INT32, 0, v, 0, err);
}

int cv_kv_f32(cv_kv_list *l, const char *key, double v, wt_error *err) {
  return kv_number(l, key, GGUF_TYPE_FLOAT32, 1, 0, v, err);
}

int cv_kv_bool(cv_kv_list *l, const char *key, int v, wt_error *err) {
  unsigned char b = v != 0;
  return cv_kv_add(l, key, GGUF_TYPE_BOOL, &b, 1, err);
}

int cv_kv_str(cv_kv_list *l, const char *key, const char *s, wt_error *err) {
  wt_buf b = {0};
  int rc;
  if (s == NULL || s[0] == 0)
    return 0;
  rc = gw_put_string(&b, s, strlen(s)) != 0
           ? wt_fail(err, "out of memory")
           : cv_kv_add(l, key, GGUF_TYPE_STRING, (const unsigned char *)b.p, b.n, err);
  free(b.p);
  return rc;
}

int cv_kv_strs(cv_kv_list *l, const char *key, const char *const *s, size_t n, wt_error *err) {
  wt_buf b = {0};
  size_t i;
  int rc;
  if (n == 0)
    return 0;
  wb_u32(&b, GGUF_TYPE_STRING);
  wb_u64(&b, n);
  for (i = 0; i < n; i++)
    gw_put_string(&b, s[i], strlen(s[i]));
  rc = b.oom ? wt_fail(err, "out of memory")
             : cv_kv_add(l, key, GGUF_TYPE_ARRAY, (const unsigned char *)b.p, b.n, err);
  free(b.p);
  return rc;
}

gw_kv *cv_kv_list_gw(const cv_kv_list *l) {
  gw_kv *kv = calloc(l->n + 1, sizeof(*kv));
  size_t i;
  if (kv == NULL)
    return NULL;
  for (i = 0; i < l->n; i++) {
    kv[i].key.p = l->bytes.p + l->e[i].key_off;
    kv[i].key.n = l->e[i].key_len;
    kv[i].type = l->e[i].type;
    kv[i].val = (const unsigned char *)l->bytes.p + l->e[i].val_off;
    kv[i].val_len = l->e[i].val_len;
  }
  return kv;
}
