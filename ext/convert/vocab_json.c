/*
** vocab_json.c: the tokenizer's JSON files read as Python's json module and
** dict give them to the converter.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The text is checked and tokenized by formats/json_check (strict RFC 8259;
** the files the converter reads are written by serde_json and by Python's
** json.dump, which stay inside it).  Lookups follow Python: of repeated
** keys the last one counts (json.load keeps the last), an integer is a JSON
** number without fraction or exponent, true and false are also ints where
** the converter uses isinstance(x, int), and truthiness is Python's.  The
** file must be valid UTF-8 (the converter opens it with encoding="utf-8"),
** and so must a string once its escapes are decoded (a lone surrogate would
** make the converter's str.encode("utf-8") fail).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "vocab_int.h"
#include "write/write_buf.h"

int cvj_open(cv_json *j, const cv_file_bytes *b, const char *file, const cv_vocab_files *f,
             int root_object, wt_error *err) {
  memset(j, 0, sizeof(*j));
  j->file = file;
  j->files = f;
  if (!b->p)
    return 0;
  j->p = (const char *)b->p;
  j->n = b->n;
  if (b->n > JSON_MAX_TEXT)
    return cv_fail(err, f, file, "%zu bytes is more than the JSON reader takes", b->n);
  size_t valid = wt_utf8_valid_prefix(j->p, j->n);
  if (valid != j->n) /* the converter opens it as UTF-8 text: json.load never sees it */
    return cv_fail(err, f, file, "is not valid UTF-8 (byte %zu)", valid);
  wt_error e;
  if (json_parse(j->p, j->n, 0, &j->doc, &e) != 0) {
    json_doc_free(&j->doc);
    memset(&j->doc, 0, sizeof(j->doc));
    return cv_fail(err, f, file, "not valid JSON: %s", e.msg);
  }
  if (root_object && j->doc.tok[0].type != JSON_OBJECT) {
    json_doc_free(&j->doc);
    memset(&j->doc, 0, sizeof(j->doc));
    return cv_fail(err, f, file, "the top level is not a JSON object");
  }
  return 0;
}

void cvj_close(cv_json *j) {
  json_doc_free(&j->doc);
  free(j->scratch.p);
  memset(j, 0, sizeof(*j));
}

/* Whether string token t's raw text is exactly s (no escapes to decode). */
static int raw_is(const cv_json *j, size_t t, const char *s, size_t n) {
  const json_token *k = &j->doc.tok[t];
  if (k->escaped)
    return -1; /* undecided */
  return k->len == n && memcmp(j->p + k->pos, s, n) == 0;
}

/* Whether the key token t is s, decoding escapes when there are some. */
static int key_is(const cv_json *j, size_t t, const char *s, size_t n) {
  int r = raw_is(j, t, s, n);
  if (r >= 0)
    return r;
  const json_token *k = &j->doc.tok[t];
  if (k->len < n)
    return 0;
  char *tmp = malloc(k->len ? k->len : 1);
  if (!tmp)
    return 0;
  size_t m = json_unescape(j->p + k->pos, k->len, tmp);
  r = m == n && memcmp(tmp, s, n) == 0;
  free(tmp);
  return r;
}

size_t cvj_get(const cv_json *j, size_t t, const char *key) {
  if (!j->doc.n || j->doc.tok[t].type != JSON_OBJECT)
    return 0;
  size_t n = strlen(key), found = 0, end = j->doc.tok[t].next;
  for (size_t k = t + 1; k < end; k = j->doc.tok[k + 1].next)
    if (key_is(j, k, key, n))
      found = k + 1;
  return found;
}

int cvj_str(cv_json *j, size_t t, const char **p, size_t *n, wt_error *err) {
  const json_token *k = &j->doc.tok[t];
  if (k->type != JSON_STRING)
    return cv_fail(err, j->files, j->file, "a string was expected");
  if (!k->escaped) {
    *p = j->p + k->pos;
    *n = k->len;
  } else {
    j->scratch.n = 0;
    if (wb_fill(&j->scratch, 0, k->len) != 0)
      return wt_fail(err, "out of memory");
    *n = json_unescape(j->p + k->pos, k->len, j->scratch.p);
    *p = j->scratch.p;
  }
  if (!wt_utf8_valid(*p, *n)) {
    char q[WT_QUOTE_SIZE];
    return cv_fail(err, j->files, j->file,
                   "string %s at byte %u is not valid UTF-8 (a lone surrogate?)", CV_Q(q, *p, *n),
                   k->pos);
  }
  return 0;
}

int cvj_is(cv_json *j, size_t t, const char *s) {
  if (!t || j->doc.tok[t].type != JSON_STRING)
    return 0;
  return key_is(j, t, s, strlen(s));
}

int cvj_int(const cv_json *j, size_t t, int bool_ok, int64_t *v) {
  const json_token *k = &j->doc.tok[t];
  if (k->type == JSON_BOOL) {
    if (!bool_ok)
      return 0;
    *v = j->p[k->pos] == 't';
    return 1;
  }
  if (k->type != JSON_NUMBER)
    return 0;
  const char *s = j->p + k->pos;
  for (uint32_t i = 0; i < k->len; i++)
    if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
      return 0; /* a float to Python */
  char buf[32];
  if (k->len >= sizeof(buf))
    return 0;
  memcpy(buf, s, k->len);
  buf[k->len] = 0;
  errno = 0;
  char *end;
  long long x = strtoll(buf, &end, 10);
  if (errno || *end)
    return 0;
  *v = x;
  return 1;
}

int cvj_truthy(const cv_json *j, size_t t) {
  const json_token *k = &j->doc.tok[t];
  const char *s = j->p + k->pos;
  switch (k->type) {
  case JSON_NULL:
    return 0;
  case JSON_BOOL:
    return s[0] == 't';
  case JSON_NUMBER: /* zero in any spelling is falsy */
    for (uint32_t i = 0; i < k->len; i++) {
      if (s[i] == 'e' || s[i] == 'E')
        break;
      if (s[i] >= '1' && s[i] <= '9')
        return 1;
    }
    return 0;
  default: /* a string, array or object: falsy when empty */
    return k->len != 0;
  }
}

/* ---- a Python dict's items -------------------------------------------- */

/* The decoded keys of one object, for the index. */
typedef struct keyset {
  wt_buf pool;
  size_t *off, *len;
} keyset;

static const char *key_at(const void *ctx, size_t i, size_t *n) {
  const keyset *k = ctx;
  *n = k->len[i];
  return k->pool.p + k->off[i];
}

int cvj_items(cv_json *j, size_t t, cv_json_item **items, size_t *n_items, wt_error *err) {
  size_t m = cvj_count(j, t), n = 0;
  keyset ks = {0};
  cv_index x = {0};
  cv_json_item *it = NULL;
  size_t *item_of = NULL;
  *items = NULL;
  *n_items = 0;
  if (m == 0)
    return 0;
  ks.off = malloc(m * sizeof(*ks.off));
  ks.len = malloc(m * sizeof(*ks.len));
  it = malloc(m * sizeof(*it));
  item_of = malloc(m * sizeof(*item_of));
  if (!ks.off || !ks.len || !it || !item_of)
    goto oom;
  size_t i = 0;
  if (wb_fill(&ks.pool, 0, 1) != 0)
    goto oom; /* never a NULL pool, even for empty keys */
  ks.pool.n = 0;
  for (size_t k = t + 1; k < j->doc.tok[t].next; k = j->doc.tok[k + 1].next, i++) {
    const json_token *kt = &j->doc.tok[k];
    ks.off[i] = ks.pool.n;
    if (kt->len && wb_fill(&ks.pool, 0, kt->len) != 0)
      goto oom;
    ks.len[i] = json_unescape(j->p + kt->pos, kt->len, ks.pool.p + ks.off[i]);
    ks.pool.n = ks.off[i] + ks.len[i];
  }
  if (cvx_build(&x, m, key_at, &ks) != 0)
    goto oom;
  /* dict order: where a key first appears; its value: the last one */
  i = 0;
  for (size_t k = t + 1; k < j->doc.tok[t].next; k = j->doc.tok[k + 1].next, i++) {
    int64_t first = cvx_add(&x, (uint32_t)i);
    if (first >= 0) {
      it[item_of[first]].value = k + 1;
      continue;
    }
    item_of[i] = n;
    it[n].key = k;
    it[n].value = k + 1;
    it[n].index = i;
    n++;
  }
  cvx_free(&x);
  free(ks.pool.p);
  free(ks.off);
  free(ks.len);
  free(item_of);
  *items = it;
  *n_items = n;
  return 0;
oom:
  cvx_free(&x);
  free(ks.pool.p);
  free(ks.off);
  free(ks.len);
  free(it);
  free(item_of);
  return wt_fail(err, "out of memory reading %s", j->file);
}
