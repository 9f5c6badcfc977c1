/*
** vocab_special_state.c: the state SpecialVocab keeps while it loads (the
** values of tokenizer_config.json as Python compares them, the rewrites
** of that dict, the types asked for, the add_*_token flags), shared by
** vocab_special.c and vocab_special_post.c, which both call down to it.
** Layer: convert (pure C; uses write/, formats/, base/).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab_special.h"

void sv_py_free(pyv *v) {
  free(v->s);
  memset(v, 0, sizeof(*v));
}

int sv_py_set(pyv *v, py_kind k, const char *s, size_t n, int truthy) {
  sv_py_free(v);
  v->kind = k;
  v->truthy = truthy;
  if (s) {
    v->s = malloc(n + 1);
    if (!v->s)
      return -1;
    memcpy(v->s, s, n);
    v->s[n] = 0;
    v->n = n;
  }
  return 0;
}

int sv_py_copy(pyv *dst, const pyv *src) {
  return sv_py_set(dst, src->kind, src->s, src->n, src->truthy);
}

/* a == b as Python compares a str with whatever b is. */
int sv_py_eq(const pyv *a, const pyv *b) {
  return a->kind == PY_STR && b->kind == PY_STR && a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

/* A JSON value of file j as a pyv. */
int sv_py_from(cv_json *j, size_t t, pyv *v, wt_error *err) {
  const char *p;
  size_t n;
  if (!t || cvj_type(j, t) == JSON_NULL)
    return sv_py_set(v, PY_NONE, NULL, 0, 0);
  if (cvj_type(j, t) == JSON_STRING) {
    if (cvj_str(j, t, &p, &n, err) != 0)
      return -1;
    return sv_py_set(v, PY_STR, p, n, n != 0) ? wt_fail(err, "out of memory") : 0;
  }
  size_t c = cvj_type(j, t) == JSON_OBJECT ? cvj_get(j, t, "content") : 0;
  if (c && cvj_type(j, c) == JSON_STRING) {
    if (cvj_str(j, c, &p, &n, err) != 0)
      return -1;
    return sv_py_set(v, PY_OTHER, p, n, cvj_truthy(j, t)) ? wt_fail(err, "out of memory") : 0;
  }
  return sv_py_set(v, PY_OTHER, NULL, 0, cvj_truthy(j, t));
}

/* tokenizer_config.get(key), with the rewrites. */
int sv_config_get(sv *s, const char *key, pyv *v, wt_error *err) {
  for (size_t i = s->n_over; i-- > 0;)
    if (strcmp(s->over[i].key, key) == 0)
      return sv_py_copy(v, &s->over[i].v) ? wt_fail(err, "out of memory") : 0;
  cv_json *j = &s->r->tok_config;
  return sv_py_from(j, cvj_present(j) ? cvj_get(j, 0, key) : 0, v, err);
}

/* tokenizer_config[key] = v. */
int sv_config_set(sv *s, const char *key, const pyv *v, wt_error *err) {
  size_t i;
  for (i = 0; i < s->n_over; i++)
    if (strcmp(s->over[i].key, key) == 0)
      break;
  if (i == s->n_over) {
    if (i == sizeof(s->over) / sizeof(s->over[0]))
      return wt_fail(err, "too many tokenizer_config rewrites");
    snprintf(s->over[i].key, sizeof(s->over[i].key), "%s", key);
    memset(&s->over[i].v, 0, sizeof(pyv));
    s->n_over++;
  }
  return sv_py_copy(&s->over[i].v, v) ? wt_fail(err, "out of memory") : 0;
}

int sv_has_type(const sv *s, const char *t) {
  for (size_t i = 0; i < s->n_types; i++)
    if (strcmp(s->types[i], t) == 0)
      return 1;
  return 0;
}

/* self.add_special_token[type] = v (a dict: the first set keeps its place). */
void sv_set_add(sv *s, const char *type, int v) {
  for (size_t i = 0; i < s->n_adds; i++)
    if (strcmp(s->adds[i].type, type) == 0) {
      s->adds[i].v = v;
      return;
    }
  if (s->n_adds < MAX_TYPES) {
    s->adds[s->n_adds].type = type;
    s->adds[s->n_adds].v = v;
    s->n_adds++;
  }
}
