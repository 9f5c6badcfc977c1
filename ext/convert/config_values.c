/*
** config_values.c: config.json values as Python's json module reads them.
** See config_values.h.  Layer: convert.
*/
#include "config_values.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/json_check.h"

/* Characters of an entry's value to quote in a message. */
#define CFG_SHOW 40

const wt_config_entry *cv_cfg_find(const wt_config *c, const char *key) {
  size_t i = c->n;
  while (i-- > 0)
    if (strcmp(c->entries[i].key, key) == 0)
      return &c->entries[i];
  return NULL;
}

int cv_cfg_is_null(const wt_config_entry *e) {
  return e != NULL && strcmp(e->value, "null") == 0;
}

const wt_config_entry *cv_cfg_get(const wt_config *c, const char *key) {
  const wt_config_entry *e = cv_cfg_find(c, key);
  return e == NULL || cv_cfg_is_null(e) ? NULL : e;
}

const wt_config_entry *cv_cfg_first(const wt_config *c, const char *const *keys) {
  for (; *keys != NULL; keys++) {
    const wt_config_entry *e = cv_cfg_find(c, *keys);
    if (e != NULL)
      return e;
  }
  return NULL;
}

int cv_cfg_present(const wt_config *c, const char *key) {
  size_t i, n = strlen(key);
  if (cv_cfg_get(c, key) != NULL)
    return 1;
  for (i = 0; i < c->n; i++) /* a non-empty object, flattened */
    if (strncmp(c->entries[i].key, key, n) == 0 && c->entries[i].key[n] == '.')
      return 1;
  return 0;
}

/* Fail naming e and quoting its value. */
static int cfg_bad(const wt_config_entry *e, const char *what, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  size_t n = strlen(e->value);
  return wt_fail(err, "%s is %s%s, not %s", e->key,
                 wt_quote(q, sizeof(q), e->value, n < CFG_SHOW ? n : CFG_SHOW),
                 n < CFG_SHOW ? "" : "...", what);
}

/* 1 when the JSON number text s is an int for Python (no fraction, no
** exponent). */
static int number_is_int(const char *s) {
  return strpbrk(s, ".eE") == NULL;
}

int cv_cfg_is_int(const wt_config_entry *e) {
  return e != NULL && (strcmp(e->type, "boolean") == 0 ||
                       (strcmp(e->type, "number") == 0 && number_is_int(e->value)));
}

int cv_cfg_uint(const wt_config_entry *e, uint64_t max, uint64_t *out, wt_error *err) {
  const char *s = e->value;
  char *end;
  unsigned long long v;
  char what[64];
  snprintf(what, sizeof(what), "an integer from 0 to %llu", (unsigned long long)max);
  if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
    *out = s[0] == 't';
    return 0;
  }
  if (strcmp(s, "-0") == 0) {
    *out = 0;
    return 0;
  }
  if (strcmp(e->type, "number") != 0 || !number_is_int(s) || s[0] == '-')
    return cfg_bad(e, what, err);
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno != 0 || *end != 0 || v > max)
    return cfg_bad(e, what, err);
  *out = v;
  return 0;
}

int cv_cfg_real(const wt_config_entry *e, double *out, wt_error *err) {
  char *end;
  if (strcmp(e->value, "true") == 0 || strcmp(e->value, "false") == 0) {
    *out = e->value[0] == 't';
    return 0;
  }
  if (strcmp(e->type, "number") != 0)
    return cfg_bad(e, "a number", err);
  /* Python's float() of the text, which strtod rounds the same way (1e400
  ** is inf for both) */
  *out = strtod(e->value, &end);
  if (*end != 0)
    return cfg_bad(e, "a number", err);
  return 0;
}

int cv_cfg_string(const wt_config_entry *e, char **out, wt_error *err) {
  size_t n = strlen(e->value), k;
  *out = NULL;
  if (strcmp(e->type, "string") != 0 || n < 2)
    return cfg_bad(e, "a string", err);
  *out = malloc(n);
  if (*out == NULL)
    return wt_fail(err, "out of memory");
  k = json_unescape(e->value + 1, n - 2, *out);
  (*out)[k] = 0;
  if (memchr(*out, 0, k) != NULL) {
    free(*out);
    *out = NULL;
    return cfg_bad(e, "a string without NUL", err);
  }
  return 0;
}

int cv_cfg_reals(const wt_config_entry *e, double **out, size_t *n, wt_error *err) {
  json_doc d = {0};
  wt_error ignored;
  uint32_t i;
  int rc = -1;
  *out = NULL;
  *n = 0;
  if (strcmp(e->type, "array") != 0 ||
      json_parse(e->value, strlen(e->value), 0, &d, &ignored) != 0) {
    json_doc_free(&d);
    return cfg_bad(e, "an array of numbers", err);
  }
  *out = malloc(((size_t)d.tok[0].len + 1) * sizeof(**out));
  if (*out == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 1; i < d.n; i++) {
    const json_token *t = &d.tok[i];
    char num[64];
    if (t->type != JSON_NUMBER || t->len >= sizeof(num)) {
      cfg_bad(e, "an array of numbers", err);
      goto done;
    }
    memcpy(num, e->value + t->pos, t->len);
    num[t->len] = 0;
    (*out)[(*n)++] = strtod(num, NULL);
  }
  rc = 0;
done:
  json_doc_free(&d);
  if (rc != 0) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

int cv_cfg_truthy(const wt_config_entry *e) {
  const char *s;
  if (e == NULL)
    return 0;
  s = e->value;
  if (strcmp(e->type, "number") == 0)
    return strtod(s, NULL) != 0.0;
  return !(strcmp(s, "null") == 0 || strcmp(s, "false") == 0 || strcmp(s, "\"\"") == 0 ||
           strcmp(s, "[]") == 0 || strcmp(s, "{}") == 0);
}

int cv_config_parse(const char *text, size_t n, wt_config *out, wt_error *err) {
  size_t valid = wt_utf8_valid_prefix(text, n);
  memset(out, 0, sizeof(*out));
  if (valid != n)
    return wt_fail(err, "is not valid UTF-8 (byte %zu)", valid);
  return wt_config_parse(text, n, 1, out, err);
}
