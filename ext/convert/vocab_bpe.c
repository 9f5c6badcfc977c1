/*
** vocab_bpe.c: a byte-level BPE tokenizer.json as TextModel._set_vocab_gpt2
** writes it: the token list and types of get_vocab_base(), the name of the
** pre-tokenizer, then SpecialVocab with the merges.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The converter asks transformers' AutoTokenizer (conversion/base.py
** get_vocab_base, llama.cpp de3ff815; the same in c392e50); what it gets
** from a tokenizer.json is worked out here from the file:
**
**   the vocabulary: model.vocab {text: id}, plus the added tokens, each at
**     the id the tokenizers library gives it (a text already in model.vocab
**     keeps that id, a new one comes after the largest id so far); a file
**     whose declared ids disagree with those is refused, as is one where
**     two texts share an id;
**   tokenizer_config.json's added_tokens_decoder entries whose ids are not
**     already added tokens are added the same way (transformers'
**     PreTrainedTokenizerFast does that); special tokens it names that the
**     vocabulary lacks would be added by transformers: refused here;
**   vocab_size = config.json's vocab_size, else the vocabulary's count; an
**     id at or past it is the converter's AssertionError;
**   token i: "[PAD<i>]" UNUSED when no text has id i; an added token is
**     CONTROL when special or when it looks special (does_token_look_special),
**     else USER_DEFINED with U+2581 turned into spaces; anything else NORMAL.
**     (The converter first encodes and decodes an added token marked
**     normalized=false; for the byte-level tokenizers named here that gives
**     the token back, so the text is taken as it is.)
**
** Memory: the reverse index (one entry per id below vocab_size) and the
** token table, bounded by the input: a vocab_size more than 2^20 above the
** tokenizer's own count is refused.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"
#include "write/write_buf.h"

/* One token of the vocabulary (base or added). */
typedef struct btok {
  const char *p; /* into the file, or into the pool when decoded */
  uint32_t n;
  uint64_t pool_off; /* when decoded: offset in pool (p is set after) */
  int decoded;
  int used, added, special;
} btok;

typedef struct bpe {
  cv_run *r;
  btok *tok; /* by id, n_ids entries */
  uint64_t n_ids;
  uint64_t n_base; /* model.vocab's entries */
  uint64_t count;  /* distinct texts: len(tokenizer.vocab) */
  int64_t max_added;
  wt_buf pool;
  cv_index by_text;
} bpe;

static const char *tok_at(const void *ctx, size_t i, size_t *n) {
  const bpe *b = ctx;
  *n = b->tok[i].n;
  return b->tok[i].decoded ? b->pool.p + b->tok[i].pool_off : b->tok[i].p;
}

/* Make room for id (ids are bounded by the entries read so far). */
static int grow(bpe *b, uint64_t id, uint64_t bound, wt_error *err) {
  if (id < b->n_ids)
    return 0;
  if (id >= bound)
    return 1;
  uint64_t n = b->n_ids ? b->n_ids : 1024;
  while (n <= id)
    n *= 2;
  if (n > bound)
    n = bound;
  btok *t = realloc(b->tok, n * sizeof(*t));
  if (!t)
    return wt_fail(err, "out of memory for the vocabulary");
  memset(t + b->n_ids, 0, (n - b->n_ids) * sizeof(*t));
  b->tok = t;
  b->n_ids = n;
  return 0;
}

/* Put text (a JSON string token of j) at id. */
static int put(bpe *b, cv_json *j, size_t str, uint64_t id) {
  const json_token *k = &j->doc.tok[str];
  btok *t = &b->tok[id];
  if (!k->escaped) {
    t->p = j->p + k->pos;
    t->n = k->len;
    t->decoded = 0;
  } else {
    t->pool_off = b->pool.n;
    if (wb_fill(&b->pool, 0, k->len) != 0)
      return -1;
    t->n = (uint32_t)json_unescape(j->p + k->pos, k->len, b->pool.p + t->pool_off);
    b->pool.n = t->pool_off + t->n;
    t->decoded = 1;
  }
  return 0;
}

/* model.vocab into b. */
static int read_base(bpe *b, size_t vocab, wt_error *err) {
  cv_json *j = &b->r->tok_json;
  cv_json_item *it = NULL;
  size_t n = 0;
  char q[WT_QUOTE_SIZE];
  if (cvj_items(j, vocab, &it, &n, err) != 0)
    return -1;
  int rc = -1;
  uint64_t bound = (uint64_t)n + CV_MAX_PADDING;
  for (size_t i = 0; i < n; i++) {
    const char *p;
    size_t len;
    int64_t id;
    if (cvj_str(j, it[i].key, &p, &len, err) != 0)
      goto done;
    if (!cvj_int(j, it[i].value, 0, &id) || id < 0) {
      cv_fail(err, b->r->f, j->file, "model.vocab[%s] is not an id", CV_Q(q, p, len));
      goto done;
    }
    int g = grow(b, (uint64_t)id, bound, err);
    if (g < 0)
      goto done;
    if (g > 0 || b->tok[id].used) {
      cv_fail(err, b->r->f, j->file, "model.vocab[%s]: id %lld is %s", CV_Q(q, p, len),
              (long long)id,
              g > 0 ? "far past the vocabulary's size" : "given to another token too");
      goto done;
    }
    if (put(b, j, it[i].key, (uint64_t)id) != 0) {
      wt_fail(err, "out of memory");
      goto done;
    }
    b->tok[id].used = 1;
  }
  b->n_base = b->count = n;
  rc = 0;
done:
  free(it);
  return rc;
}

/* Index the texts read so far (room for as many again, added tokens). */
static int index_texts(bpe *b, wt_error *err) {
  if (cvx_build(&b->by_text, 2 * b->n_ids + 1024, tok_at, b) != 0)
    return wt_fail(err, "out of memory");
  for (uint64_t i = 0; i < b->n_ids; i++)
    if (b->tok[i].used)
      cvx_add(&b->by_text, (uint32_t)i);
  return 0;
}

/* One added token: the id the tokenizers library gives content; it must be
** the declared one. */
static int add_one(bpe *b, cv_json *j, size_t content, int64_t declared, int special,
                   const char *what, wt_error *err) {
  const char *p;
  size_t n;
  char q[WT_QUOTE_SIZE];
  if (cvj_str(j, content, &p, &n, err) != 0)
    return -1;
  int64_t id = cvx_find(&b->by_text, p, n);
  if (id < 0) {
    id = b->max_added >= 0 && (uint64_t)b->max_added >= b->n_base ? b->max_added + 1
                                                                  : (int64_t)b->n_base;
    if (id < (int64_t)b->n_ids && b->tok[id].used)
      return cv_fail(err, b->r->f, j->file,
                     "%s %s would take id %lld, which model.vocab gives another token", what,
                     CV_Q(q, p, n), (long long)id);
  }
  if (declared != id)
    return cv_fail(err, b->r->f, j->file,
                   "%s %s declares id %lld, but the tokenizers library would give it id %lld", what,
                   CV_Q(q, p, n), (long long)declared, (long long)id);
  int g = grow(b, (uint64_t)id, b->n_base + b->count + CV_MAX_PADDING, err);
  if (g != 0)
    return g < 0 ? -1 : cv_fail(err, b->r->f, j->file, "%s: too many added tokens", what);
  btok *t = &b->tok[id];
  if (!t->used) {
    if (b->count + 1 > 2 * b->n_base + 1024)
      return cv_fail(err, b->r->f, j->file, "%s: more added tokens than the index was made for",
                     what);
    if (put(b, j, content, (uint64_t)id) != 0)
      return wt_fail(err, "out of memory");
    t->used = 1;
    b->count++;
    cvx_add(&b->by_text, (uint32_t)id);
  }
  t->added = 1;
  t->special = special;
  if (id > b->max_added)
    b->max_added = id;
  return 0;
}

static int by_index(const void *a, const void *b) {
  size_t x = ((const cv_json_item *)a)->index, y = ((const cv_json_item *)b)->index;
  return x < y ? -1 : x > y;
}

/* tokenizer.json's added_tokens, then tokenizer_config.json's new ones. */
static int read_added(bpe *b, wt_error *err) {
  cv_json *j = &b->r->tok_json, *c = &b->r->tok_config;
  size_t list = cvj_get(j, 0, "added_tokens");
  b->max_added = -1;
  if (list && cvj_type(j, list) == JSON_ARRAY) {
    size_t k = 0;
    for (size_t e = cvj_first(j, list); e < cvj_next(j, list); e = cvj_next(j, e), k++) {
      size_t id = cvj_get(j, e, "id"), ct = cvj_get(j, e, "content"), sp = cvj_get(j, e, "special");
      int64_t v;
      char what[48];
      snprintf(what, sizeof(what), "added_tokens[%zu]", k);
      if (!id || !ct || cvj_type(j, ct) != JSON_STRING || !cvj_int(j, id, 0, &v))
        return cv_fail(err, b->r->f, j->file, "%s has no integer id and string content", what);
      if (add_one(b, j, ct, v, sp && cvj_truthy(j, sp), what, err) != 0)
        return -1;
    }
  } else if (list && cvj_type(j, list) != JSON_NULL) {
    return cv_fail(err, b->r->f, j->file, "added_tokens is not a list");
  }
  size_t dec = cvj_present(c) ? cvj_get(c, 0, "added_tokens_decoder") : 0;
  if (!dec || cvj_type(c, dec) != JSON_OBJECT)
    return 0;
  /* in the order of their ids, those at ids not yet added */
  cv_json_item *it = NULL;
  size_t n = 0;
  if (cvj_items(c, dec, &it, &n, err) != 0)
    return -1;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) { /* the key's id into .index */
    const char *p;
    size_t len;
    char buf[24], *end;
    if ((rc = cvj_str(c, it[i].key, &p, &len, err)) != 0)
      break;
    long long id = -1;
    if (len > 0 && len < sizeof(buf)) {
      memcpy(buf, p, len);
      buf[len] = 0;
      id = strtoll(buf, &end, 10);
      if (*end)
        id = -1;
    }
    if (id < 0)
      rc = cv_fail(err, b->r->f, c->file, "added_tokens_decoder has a key that is not an id");
    it[i].index = (size_t)id;
  }
  if (rc == 0)
    qsort(it, n, sizeof(*it), by_index);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    uint64_t id = it[i].index;
    if (id < b->n_ids && b->tok[id].added)
      continue;
    size_t ct = cvj_get(c, it[i].value, "content"), sp = cvj_get(c, it[i].value, "special");
    char what[64];
    snprintf(what, sizeof(what), "added_tokens_decoder[\"%llu\"]", (unsigned long long)id);
    if (!ct || cvj_type(c, ct) != JSON_STRING)
      rc = cv_fail(err, b->r->f, c->file, "%s has no string content", what);
    else
      rc = add_one(b, c, ct, (int64_t)id, sp && cvj_truthy(c, sp), what, err);
  }
  free(it);
  return rc;
}

/* The special tokens tokenizer_config.json names must be in the vocabulary
** (transformers would add a missing one, at an id of its own). */
static int check_named_specials(bpe *b, wt_error *err) {
  static const char *const keys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                     "pad_token", "cls_token", "mask_token"};
  cv_json *c = &b->r->tok_config;
  char q[WT_QUOTE_SIZE];
  if (!cvj_present(c))
    return 0;
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    size_t v = cvj_get(c, 0, keys[k]);
    if (v && cvj_type(c, v) == JSON_OBJECT)
      v = cvj_get(c, v, "content");
    if (!v || cvj_type(c, v) != JSON_STRING)
      continue;
    const char *p;
    size_t n;
    if (cvj_str(c, v, &p, &n, err) != 0)
      return -1;
    if (cvx_find(&b->by_text, p, n) < 0)
      return cv_fail(err, b->r->f, c->file,
                     "%s %s is not in the vocabulary (transformers would add it as a new token; "
                     "not supported)",
                     keys[k], CV_Q(q, p, n));
  }
  return 0;
}

/* The base vocabulary in id order, for naming the pre-tokenizer. */
static int pre_model(bpe *b, size_t model, cv_bpe_model *m, wt_error *err) {
  cv_json *j = &b->r->tok_json;
  memset(m, 0, sizeof(*m));
  m->model = model;
  m->pre_tokenizer = cvj_get(j, 0, "pre_tokenizer");
  m->normalizer = cvj_get(j, 0, "normalizer");
  size_t v = cvj_get(j, model, "ignore_merges");
  m->ignore_merges = v && cvj_truthy(j, v);
  v = cvj_get(j, model, "byte_fallback");
  m->byte_fallback = v && cvj_truthy(j, v);
  m->n_base = b->n_base;
  m->tok = malloc((b->n_base ? b->n_base : 1) * sizeof(*m->tok));
  m->tok_n = malloc((b->n_base ? b->n_base : 1) * sizeof(*m->tok_n));
  if (!m->tok || !m->tok_n)
    return wt_fail(err, "out of memory");
  for (uint64_t i = 0; i < b->n_base; i++) {
    size_t n;
    if (i >= b->n_ids || !b->tok[i].used) { /* holes: no named tokenizer has them */
      m->n_base = 0;
      break;
    }
    m->tok[i] = tok_at(b, i, &n);
    m->tok_n[i] = (uint32_t)n;
  }
  return cv_merges_read(b->r, &m->merges, &m->n_merges, err);
}

/* The token list and types (get_vocab_base's loop). */
static int fill_table(bpe *b, cv_table *t, wt_error *err) {
  wt_buf tmp = {0};
  for (uint64_t i = 0; i < t->n; i++) {
    if (i >= b->n_ids || !b->tok[i].used)
      continue; /* "[PAD<i>]", UNUSED */
    const btok *k = &b->tok[i];
    size_t n;
    const char *p = tok_at(b, i, &n);
    int32_t type = CV_TOK_NORMAL;
    if (k->added) {
      if (k->special || cv_looks_special(p, n)) {
        type = CV_TOK_CONTROL;
      } else {
        type = CV_TOK_USER_DEFINED;
        tmp.n = 0;
        for (size_t c = 0; c < n; c++) {
          if (c + 2 < n && (unsigned char)p[c] == 0xe2 && (unsigned char)p[c + 1] == 0x96 &&
              (unsigned char)p[c + 2] == 0x81) {
            wb_put(&tmp, " ", 1);
            c += 2;
          } else {
            wb_put(&tmp, p + c, 1);
          }
        }
        if (tmp.oom)
          break;
        p = tmp.p;
        n = tmp.n;
      }
    }
    if (cvt_set(t, i, p, n, err) != 0) {
      free(tmp.p);
      return -1;
    }
    t->type[i] = type;
  }
  int oom = tmp.oom;
  free(tmp.p);
  return oom ? wt_fail(err, "out of memory") : 0;
}

/* Free what reading the vocabulary took (again: a no-op). */
static void release(bpe *b, cv_bpe_model *m, cv_table *t) {
  cvx_free(&b->by_text);
  free(b->tok);
  free(b->pool.p);
  b->tok = NULL;
  memset(&b->pool, 0, sizeof(b->pool));
  free(m->tok);
  free(m->tok_n);
  free(m->merges.p);
  memset(m, 0, sizeof(*m));
  cvt_free(t);
}

int cv_bpe_vocab(cv_run *r, wt_error *err) {
  cv_json *j = &r->tok_json;
  bpe b;
  cv_table t = {0};
  cv_bpe_model m = {0};
  char q[WT_QUOTE_SIZE];
  int rc = -1;
  memset(&b, 0, sizeof(b));
  b.r = r;
  if (!cvj_present(j))
    return cv_fail(err, r->f, "tokenizer.json",
                   "is missing (and so is tokenizer.model): no tokenizer to convert");
  size_t model = cvj_get(j, 0, "model");
  size_t ty = model ? cvj_get(j, model, "type") : 0;
  size_t vocab = model ? cvj_get(j, model, "vocab") : 0;
  if (!cvj_is(j, ty, "BPE") || !vocab || cvj_type(j, vocab) != JSON_OBJECT) {
    const char *p = "?";
    size_t n = 1;
    if (ty && cvj_type(j, ty) == JSON_STRING && cvj_str(j, ty, &p, &n, err) != 0)
      return -1;
    return cv_fail(err, r->f, j->file,
                   "model is %s, not a BPE model with a vocab object: not supported",
                   CV_Q(q, p, n));
  }
  if (read_base(&b, vocab, err) != 0 || index_texts(&b, err) != 0 || read_added(&b, err) != 0 ||
      check_named_specials(&b, err) != 0)
    goto done;
  uint64_t size = r->hp_vocab_size >= 0 ? (uint64_t)r->hp_vocab_size : b.count;
  uint64_t max_id = 0;
  for (uint64_t i = 0; i < b.n_ids; i++)
    if (b.tok[i].used)
      max_id = i;
  if (b.count && max_id >= size) {
    cv_fail(err, r->f, "config.json",
            "vocab_size %llu is not above the tokenizer's largest id %llu (the converter stops: "
            "AssertionError)",
            (unsigned long long)size, (unsigned long long)max_id);
    goto done;
  }
  if (size > b.count + CV_MAX_PADDING) {
    cv_fail(err, r->f, "config.json",
            "vocab_size %llu is far larger than the tokenizer's %llu tokens",
            (unsigned long long)size, (unsigned long long)b.count);
    goto done;
  }
  if (pre_model(&b, model, &m, err) != 0 || cv_pre_name(r, &m, &r->pre, err) != 0)
    goto done;
  free(m.merges.p); /* SpecialVocab reads the merges again: one copy at a time */
  memset(&m.merges, 0, sizeof(m.merges));
  if (cvt_init(&t, size, 0, err) != 0 || fill_table(&b, &t, err) != 0)
    goto done;
  wt_buf v = {0};
  if (cvk_string(&r->kv, "tokenizer.ggml.model", "gpt2", 4, err) != 0 ||
      cvk_string(&r->kv, "tokenizer.ggml.pre", r->pre, strlen(r->pre), err) != 0)
    goto done;
  if (t.n) {
    cvt_tokens_value(&t, &v);
    if (cvk_take(&r->kv, "tokenizer.ggml.tokens", GGUF_TYPE_ARRAY, &v, err) != 0)
      goto done;
    cvt_types_value(&t, &v);
    if (cvk_take(&r->kv, "tokenizer.ggml.token_type", GGUF_TYPE_ARRAY, &v, err) != 0)
      goto done;
  }
  r->n_tokens = t.n;
  release(&b, &m, &t); /* before SpecialVocab reads the merges: a lower peak */
  cv_special_opts o = {0};
  o.load_merges = 1;
  o.n_vocab = -1;
  rc = cv_special_vocab(r, &o, err);
done:
  release(&b, &m, &t);
  return rc;
}
