/*
** vocab_kv.c: the vocabulary's metadata entries, kept as gguf-py's
** GGUFWriter keeps them until they are handed to the caller's sink.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** GGUFWriter (gguf-py/gguf/gguf_writer.py) holds the entries in a dict in
** the order they were added.  add_string() skips an empty string and
** add_array() an empty list.  A key added twice: c392e50's add_key_value()
** raised ValueError("Duplicated key name ..."), so the conversion stopped;
** de3ff815's logs a warning and overwrites the value, which keeps the place
** the key first had (llama.cpp PR #14194).  remove_key() drops a key.
*/
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"
#include "write/write_buf.h"

/* The index of key in l, or -1. */
static ptrdiff_t kv_find(const cv_kvlist *l, const char *key) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i].key, key) == 0)
      return (ptrdiff_t)i;
  return -1;
}

int cvk_take(cv_kvlist *l, const char *key, uint32_t type, wt_buf *val, wt_error *err) {
  ptrdiff_t at = kv_find(l, key);
  if (val->oom) {
    free(val->p);
    memset(val, 0, sizeof(*val));
    return wt_fail(err, "out of memory encoding %s", key);
  }
  if (at >= 0) {
    if (l->era == CV_C392E50) {
      free(val->p);
      memset(val, 0, sizeof(*val));
      return wt_fail(err,
                     "%s: llama.cpp's converter (c392e50) stops here: it adds %s twice "
                     "(gguf-py: Duplicated key name)",
                     l->files && l->files->dir_name ? l->files->dir_name : "tokenizer", key);
    }
    free(l->v[at].val.p);
    l->v[at].type = type;
    l->v[at].val = *val;
    memset(val, 0, sizeof(*val));
    return 0;
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    cv_kv *v = realloc(l->v, cap * sizeof(*v));
    if (!v)
      goto oom;
    l->v = v;
    l->cap = cap;
  }
  char *k = strdup(key);
  if (!k)
    goto oom;
  l->v[l->n].key = k;
  l->v[l->n].type = type;
  l->v[l->n].val = *val;
  l->n++;
  memset(val, 0, sizeof(*val));
  return 0;
oom:
  free(val->p);
  memset(val, 0, sizeof(*val));
  return wt_fail(err, "out of memory adding %s", key);
}

int cvk_string(cv_kvlist *l, const char *key, const char *p, size_t n, wt_error *err) {
  wt_buf b = {0};
  if (n == 0)
    return 0; /* add_string(): "if not val: return" */
  wb_u64(&b, n);
  wb_put(&b, p, n);
  return cvk_take(l, key, GGUF_TYPE_STRING, &b, err);
}

int cvk_u32(cv_kvlist *l, const char *key, uint64_t v, wt_error *err) {
  wt_buf b = {0};
  if (v > UINT32_MAX) /* struct.pack("<I") raises */
    return wt_fail(err, "%s: %llu does not fit the UINT32 the converter writes", key,
                   (unsigned long long)v);
  wb_u32(&b, (uint32_t)v);
  return cvk_take(l, key, GGUF_TYPE_UINT32, &b, err);
}

int cvk_bool(cv_kvlist *l, const char *key, int v, wt_error *err) {
  wt_buf b = {0};
  unsigned char c = v ? 1 : 0;
  wb_put(&b, &c, 1);
  return cvk_take(l, key, GGUF_TYPE_BOOL, &b, err);
}

void cvk_remove(cv_kvlist *l, const char *key) {
  ptrdiff_t at = kv_find(l, key);
  if (at < 0)
    return;
  free(l->v[at].key);
  free(l->v[at].val.p);
  memmove(l->v + at, l->v + at + 1, (l->n - (size_t)at - 1) * sizeof(*l->v));
  l->n--;
}

int cvk_emit(const cv_kvlist *l, cv_kv_sink *sink, wt_error *err) {
  for (size_t i = 0; i < l->n; i++) {
    const cv_kv *e = &l->v[i];
    if (sink->add(sink->ctx, e->key, e->type, (const unsigned char *)e->val.p, e->val.n, err) != 0)
      return -1;
  }
  return 0;
}

void cvk_free(cv_kvlist *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].key);
    free(l->v[i].val.p);
  }
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}
