/*
** edit_json.c: the edits argument of the rewrites read into rw_edit values
** (edit_json.h).  Layer: write.
**
** Each member becomes an rw_edit: its key, and its value as edit_list.h's
** rw_value (the kinds json_each() names): null, true, false, an integer
** (the 64-bit integer its digits say, else a real), a real (strtod() of its
** digits), text (decoded), an array (its elements, one level), and for an
** object {"type": T, "value": V} the text of T and the value V.
*/
#include "edit_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/json_check.h"

/* The growth of the edit array. */
#define RWJ_FIRST_CAP 16

/* What a conversion reads: the text and its tokens. */
typedef struct rwj_doc {
  const char *text;
  const json_doc *d;
} rwj_doc;

/* Free what value v holds (not v). */
static void rwj_value_free(rw_value *v) {
  size_t i;
  for (i = 0; i < v->n_elems; i++)
    rwj_value_free((rw_value *)&v->elems[i]);
  free((void *)v->elems);
  if (v->value != NULL) {
    rwj_value_free((rw_value *)v->value);
    free((void *)v->value);
  }
  free((void *)v->text);
  free((void *)v->type_name);
  memset(v, 0, sizeof(*v));
}

/* A copy of the text of token t, NUL-terminated (*len: its bytes), a
** string's decoded (which never grows it). */
static char *rwj_text(const rwj_doc *x, const json_token *t, size_t *len) {
  const char *p = x->text + t->pos;
  char *out = malloc((size_t)t->len + 1);
  if (out == NULL)
    return NULL;
  if (t->type == JSON_STRING && t->escaped) {
    *len = json_unescape(p, t->len, out);
  } else {
    memcpy(out, p, t->len);
    *len = t->len;
  }
  out[*len] = 0;
  return out;
}

/* The number token's value into v: an integer when its digits are one
** that int64 holds, else a real. */
static void rwj_number(rw_value *v) {
  int is_int = strpbrk(v->text, ".eE") == NULL;
  errno = 0;
  if (is_int) {
    v->i = strtoll(v->text, NULL, 10);
    if (errno == 0) {
      v->kind = RW_JSON_INTEGER;
      v->r = (double)v->i;
      return;
    }
  }
  v->kind = RW_JSON_REAL;
  v->r = strtod(v->text, NULL);
}

/* Fill v from token k: a scalar, or a container's kind, and with elems an
** array's elements or an object's "type" and "value". */
static int rwj_value(const rwj_doc *x, size_t k, rw_value *v, int elems);

/* The elements of the array token k into v. */
static int rwj_elements(const rwj_doc *x, size_t k, rw_value *v) {
  const json_doc *d = x->d;
  size_t n = d->tok[k].len, i, at = k + 1;
  rw_value *e = calloc(n + 1, sizeof(*e));
  if (e == NULL)
    return -1;
  v->elems = e;
  for (i = 0; i < n; i++, at = d->tok[at].next) {
    v->n_elems = i + 1;
    if (rwj_value(x, at, &e[i], 0) != 0)
      return -1;
  }
  return 0;
}

/* An object's "value" is read with its elements when it is an array (an
** object there is only a kind, refused by edit_list). */
static int inner_elems(const rwj_doc *x, size_t k) {
  return x->d->tok[k].type == JSON_ARRAY;
}

/* The members "type" and "value" of the object token k into v (the first
** of each; "type" as its text, a string decoded). */
static int rwj_object(const rwj_doc *x, size_t k, rw_value *v) {
  const json_doc *d = x->d;
  size_t i, at = k + 1, len;
  for (i = 0; i < d->tok[k].len; i++, at = d->tok[at + 1].next) {
    const json_token *key = &d->tok[at];
    const char *name = x->text + key->pos;
    if (key->len == 4 && memcmp(name, "type", 4) == 0 && v->type_name == NULL) {
      if ((v->type_name = rwj_text(x, &d->tok[at + 1], &len)) == NULL)
        return -1;
    } else if (key->len == 5 && memcmp(name, "value", 5) == 0 && v->value == NULL) {
      rw_value *inner = calloc(1, sizeof(*inner));
      if (inner == NULL)
        return -1;
      v->value = inner;
      if (rwj_value(x, at + 1, inner, inner_elems(x, at + 1)) != 0)
        return -1;
    }
  }
  return 0;
}

static int rwj_value(const rwj_doc *x, size_t k, rw_value *v, int elems) {
  const json_token *t = &x->d->tok[k];
  memset(v, 0, sizeof(*v));
  switch (t->type) {
  case JSON_NULL:
    v->kind = RW_JSON_NULL;
    return 0;
  case JSON_BOOL:
    v->kind = x->text[t->pos] == 't' ? RW_JSON_TRUE : RW_JSON_FALSE;
    v->i = v->kind == RW_JSON_TRUE;
    v->r = (double)v->i;
    return 0;
  case JSON_NUMBER:
    if ((v->text = rwj_text(x, t, &v->n)) == NULL)
      return -1;
    rwj_number(v);
    return 0;
  case JSON_STRING:
    v->kind = RW_JSON_TEXT;
    return (v->text = rwj_text(x, t, &v->n)) == NULL ? -1 : 0;
  default:
    v->kind = t->type == JSON_ARRAY ? RW_JSON_ARRAY : RW_JSON_OBJECT;
    if (!elems)
      return 0;
    return t->type == JSON_ARRAY ? rwj_elements(x, k, v) : rwj_object(x, k, v);
  }
}

/* Append the member whose key is token k to out. */
static int rwj_member(const rwj_doc *x, size_t k, rw_edits *out, wt_error *err) {
  size_t len;
  rw_edit *e;
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : RWJ_FIRST_CAP;
    rw_edit *p = realloc(out->e, cap * sizeof(*p));
    if (p == NULL)
      return wt_fail(err, "out of memory");
    out->e = p;
    out->cap = cap;
  }
  e = &out->e[out->n++];
  memset(e, 0, sizeof(*e));
  if ((e->key = rwj_text(x, &x->d->tok[k], &len)) == NULL ||
      rwj_value(x, k + 1, (rw_value *)&e->value, 1) != 0)
    return wt_fail(err, "out of memory");
  if (strlen(e->key) != len) {
    char q[WT_QUOTE_SIZE];
    return wt_fail(err, "key %s holds a NUL byte: no key can", wt_quote(q, sizeof(q), e->key, len));
  }
  return 0;
}

int rw_edits_parse(const char *text, size_t n, rw_edits *out, wt_error *err) {
  json_doc d = {0};
  rwj_doc x = {text, &d};
  wt_error e;
  size_t i, k;
  int rc = -1;
  memset(out, 0, sizeof(*out));
  if (!wt_utf8_valid(text, n))
    return wt_fail(err, "the edits are not UTF-8 at byte %zu", wt_utf8_valid_prefix(text, n));
  if (json_parse(text, n, 0, &d, &e) != 0) {
    wt_fail(err, "the edits are not JSON: %s", json_error_detail(e.msg));
    goto done;
  }
  if (d.tok[0].type != JSON_OBJECT) {
    static const char *const names[] = {"null", "a boolean", "a number", "text", "array", "object"};
    wt_fail(err, "the edits must be a JSON object of keys, not %s", names[d.tok[0].type]);
    goto done;
  }
  for (i = 0, k = 1; i < d.tok[0].len; i++, k = d.tok[k + 1].next)
    if (rwj_member(&x, k, out, err) != 0)
      goto done;
  rc = 0;
done:
  json_doc_free(&d);
  return rc;
}

void rw_edits_free(rw_edits *e) {
  size_t i;
  for (i = 0; i < e->n; i++) {
    free((void *)e->e[i].key);
    rwj_value_free(&e->e[i].value);
  }
  free(e->e);
  memset(e, 0, sizeof(*e));
}
