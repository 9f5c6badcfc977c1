/*
** vocab_table.c: the token table the tokenizers fill, a string index, and
** the vocabulary code's messages.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The converter builds three parallel lists (tokens, scores, types), starts
** them as "[PAD<i>]" / -10000.0 / UNUSED for every id below the vocabulary
** size (conversion/base.py _create_vocab_sentencepiece, de3ff815; the same
** in c392e50), and overwrites entries as it reads the tokenizer files.  The
** table does the same with one string pool: a replaced token's old bytes
** stay in the pool, so the pool is bounded by the inputs' sizes.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"
#include "write/write_buf.h"

/* ---- messages --------------------------------------------------------- */

int cv_fail(wt_error *err, const cv_vocab_files *f, const char *file, const char *fmt, ...) {
  char msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char *dir = f && f->dir_name && f->dir_name[0] ? f->dir_name : NULL;
  size_t dl = dir ? strlen(dir) : 0;
  const char *sep = dir && dir[dl - 1] != '/' ? "/" : "";
  if (dir)
    return wt_fail(err, "%s%s%s: %s", dir, sep, file, msg);
  return wt_fail(err, "%s: %s", file, msg);
}

/* ---- the token table -------------------------------------------------- */

#define PAD_SCORE (-10000.0f)

int cvt_init(cv_table *t, uint64_t n, int with_scores, wt_error *err) {
  memset(t, 0, sizeof(*t));
  if (n > CV_MAX_TOKENS)
    return wt_fail(err, "a vocabulary of %llu tokens is too large", (unsigned long long)n);
  t->n = n;
  t->off = calloc(n ? n : 1, sizeof(*t->off));
  t->len = calloc(n ? n : 1, sizeof(*t->len));
  t->type = calloc(n ? n : 1, sizeof(*t->type));
  if (with_scores)
    t->score = calloc(n ? n : 1, sizeof(*t->score));
  if (!t->off || !t->len || !t->type || (with_scores && !t->score))
    goto oom;
  for (uint64_t i = 0; i < n; i++) {
    char pad[32];
    int k = snprintf(pad, sizeof(pad), "[PAD%llu]", (unsigned long long)i);
    if (cvt_set(t, i, pad, (size_t)k, err) != 0)
      return -1;
    t->type[i] = CV_TOK_UNUSED;
    if (with_scores)
      t->score[i] = PAD_SCORE;
  }
  return 0;
oom:
  cvt_free(t);
  return wt_fail(err, "out of memory for %llu tokens", (unsigned long long)n);
}

int cvt_set(cv_table *t, uint64_t i, const char *p, size_t n, wt_error *err) {
  if (n > UINT32_MAX)
    return wt_fail(err, "token %llu is too long", (unsigned long long)i);
  t->off[i] = t->pool.n;
  t->len[i] = (uint32_t)n;
  if (wb_put(&t->pool, p, n) != 0)
    return wt_fail(err, "out of memory for the tokens");
  return 0;
}

int cvt_tokens_value(const cv_table *t, wt_buf *out) {
  wb_u32(out, GGUF_TYPE_STRING);
  wb_u64(out, t->n);
  for (uint64_t i = 0; i < t->n; i++) {
    wb_u64(out, t->len[i]);
    wb_put(out, cvt_text(t, i), t->len[i]);
  }
  return out->oom ? -1 : 0;
}

int cvt_scores_value(const cv_table *t, wt_buf *out) {
  wb_u32(out, GGUF_TYPE_FLOAT32);
  wb_u64(out, t->n);
  for (uint64_t i = 0; i < t->n; i++) {
    uint32_t u;
    memcpy(&u, &t->score[i], 4);
    wb_u32(out, u);
  }
  return out->oom ? -1 : 0;
}

int cvt_types_value(const cv_table *t, wt_buf *out) {
  wb_u32(out, GGUF_TYPE_INT32);
  wb_u64(out, t->n);
  for (uint64_t i = 0; i < t->n; i++)
    wb_u32(out, (uint32_t)t->type[i]);
  return out->oom ? -1 : 0;
}

void cvt_free(cv_table *t) {
  free(t->off);
  free(t->len);
  free(t->score);
  free(t->type);
  free(t->pool.p);
  memset(t, 0, sizeof(*t));
}

/* ---- the string index ------------------------------------------------- */

static uint64_t hash_bytes(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= 1099511628211ULL;
  }
  return h ^ (h >> 29);
}

int cvx_build(cv_index *x, size_t n, cv_str_at at, const void *ctx) {
  size_t cap = 16;
  while (cap < 2 * n + 16) {
    if (cap > SIZE_MAX / 4)
      return -1;
    cap *= 2;
  }
  x->slot = calloc(cap, sizeof(*x->slot));
  if (!x->slot)
    return -1;
  x->mask = cap - 1;
  x->at = at;
  x->ctx = ctx;
  return 0;
}

int64_t cvx_find(const cv_index *x, const char *p, size_t n) {
  for (size_t s = hash_bytes(p, n) & x->mask;; s = (s + 1) & x->mask) {
    uint32_t v = x->slot[s];
    if (!v)
      return -1;
    size_t m;
    const char *q = x->at(x->ctx, v - 1, &m);
    if (m == n && memcmp(p, q, n) == 0)
      return v - 1;
  }
}

int64_t cvx_add(cv_index *x, uint32_t id) {
  size_t n;
  const char *p = x->at(x->ctx, id, &n);
  for (size_t s = hash_bytes(p, n) & x->mask;; s = (s + 1) & x->mask) {
    uint32_t v = x->slot[s];
    if (!v) {
      x->slot[s] = id + 1;
      return -1;
    }
    size_t m;
    const char *q = x->at(x->ctx, v - 1, &m);
    if (m == n && memcmp(p, q, n) == 0)
      return v - 1;
  }
}

void cvx_free(cv_index *x) {
  free(x->slot);
  x->slot = NULL;
}

/* ---- does_token_look_special ------------------------------------------ */

static int starts(const char *p, size_t n, const char *s) {
  size_t k = strlen(s);
  return n >= k && memcmp(p, s, k) == 0;
}

static int ends(const char *p, size_t n, const char *s) {
  size_t k = strlen(s);
  return n >= k && memcmp(p + n - k, s, k) == 0;
}

static int same(const char *p, size_t n, const char *s) {
  return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* Python's startswith/endswith may share characters: "<|>" starts with
** "<|" and ends with "|>". */
int cv_looks_special(const char *p, size_t n) {
  if (same(p, n, "<pad>") || same(p, n, "<mask>") || same(p, n, "<2mass>") || same(p, n, "[@BOS@]"))
    return 1;
  if (starts(p, n, "<|") && ends(p, n, "|>"))
    return 1;
  if (starts(p, n, "<\xef\xbd\x9c") && ends(p, n, "\xef\xbd\x9c>"))
    return 1; /* <｜ ... ｜> */
  if (starts(p, n, "<unused") && ends(p, n, ">"))
    return 1;
  return 0;
}
