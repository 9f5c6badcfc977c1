/*
** vocab_check.h: what fuzz_vocab_spm.c and fuzz_vocab_json.c check of
** cv_vocab_write()'s output (included by each, once).
**
** A sink that keeps the entries and aborts on a key given twice; then, on
** success, every value is well-formed GGUF as its type says (a STRING's
** length and bytes exactly fill it; an ARRAY's element type, count and
** elements exactly fill it, strings valid UTF-8 for the token list and the
** merges), tokenizer.ggml.tokens has info.n_tokens entries and so do the
** scores and types, every type is 1..6, and the embedding check holds
** (n_vocab given: the count equals it).  On failure: a message and no
** entry given to the sink.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "convert/vocab.h"
#include "formats/gguf_value.h"

typedef struct fz_entry {
  char key[96];
  uint32_t type;
  unsigned char *val;
  size_t n;
} fz_entry;

typedef struct fz_sink {
  fz_entry *e;
  size_t n, cap;
} fz_sink;

static int fz_add(void *ctx, const char *key, uint32_t type, const unsigned char *val, size_t n,
                  wt_error *err) {
  fz_sink *s = ctx;
  if (strlen(key) >= sizeof(s->e[0].key)) /* a long template name: refused, as a sink may */
    return wt_fail(err, "a key of %zu bytes", strlen(key));
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 32;
    s->e = realloc(s->e, s->cap * sizeof(*s->e));
    if (!s->e)
      abort();
  }
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->e[i].key, key) == 0)
      abort();
  strcpy(s->e[s->n].key, key);
  s->e[s->n].type = type;
  s->e[s->n].val = malloc(n ? n : 1);
  memcpy(s->e[s->n].val, val, n);
  s->e[s->n].n = n;
  s->n++;
  return 0;
}

static uint64_t fz_rd(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* The element count of a well-formed value, aborting on a malformed one. */
static uint64_t fz_value(const fz_entry *e) {
  const unsigned char *p = e->val;
  size_t n = e->n;
  if (e->type == GGUF_TYPE_STRING) {
    if (n < 8 || fz_rd(p, 8) != n - 8)
      abort();
    return 1;
  }
  if (e->type == GGUF_TYPE_UINT32) {
    if (n != 4)
      abort();
    return 1;
  }
  if (e->type == GGUF_TYPE_BOOL) {
    if (n != 1 || p[0] > 1)
      abort();
    return 1;
  }
  if (e->type != GGUF_TYPE_ARRAY || n < 12)
    abort();
  uint32_t et = (uint32_t)fz_rd(p, 4);
  uint64_t count = fz_rd(p + 4, 8), o = 12;
  int strings =
      strcmp(e->key, "tokenizer.ggml.tokens") == 0 || strcmp(e->key, "tokenizer.ggml.merges") == 0;
  for (uint64_t i = 0; i < count; i++) {
    if (et == GGUF_TYPE_STRING) {
      if (o + 8 > n)
        abort();
      uint64_t len = fz_rd(p + o, 8);
      if (len > n - o - 8)
        abort();
      if (strings && !wt_utf8_valid((const char *)p + o + 8, len))
        abort();
      o += 8 + len;
    } else {
      if ((et != GGUF_TYPE_INT32 && et != GGUF_TYPE_FLOAT32) || o + 4 > n)
        abort();
      if (strcmp(e->key, "tokenizer.ggml.token_type") == 0) {
        uint32_t t = (uint32_t)fz_rd(p + o, 4);
        if (t < 1 || t > 6)
          abort();
      }
      o += 4;
    }
  }
  if (o != n || count == 0)
    abort();
  return count;
}

static void fz_check(const char *arch, const cv_vocab_files *f, uint64_t n_vocab) {
  fz_sink s = {0};
  cv_kv_sink sink = {&s, fz_add};
  cv_vocab_info info;
  wt_error err;
  err.msg[0] = 0;
  int rc = cv_vocab_write(arch, f, n_vocab, &sink, &info, &err);
  if (rc != 0) {
    /* nothing given to the sink, unless the sink itself refused an entry */
    if (!err.msg[0] || (s.n != 0 && !strstr(err.msg, "a key of")))
      abort();
  } else {
    uint64_t tokens = 0;
    for (size_t i = 0; i < s.n; i++) {
      uint64_t c = fz_value(&s.e[i]);
      if (!strcmp(s.e[i].key, "tokenizer.ggml.tokens"))
        tokens = c;
      if ((!strcmp(s.e[i].key, "tokenizer.ggml.scores") ||
           !strcmp(s.e[i].key, "tokenizer.ggml.token_type")) &&
          c != info.n_tokens)
        abort();
    }
    if (tokens != info.n_tokens || (n_vocab && tokens != n_vocab))
      abort();
  }
  for (size_t i = 0; i < s.n; i++)
    free(s.e[i].val);
  free(s.e);
}
