/*
** vocab_sp.c: the SentencePiece recipes: the token list, scores and types
** from tokenizer.model, added_tokens.json and tokenizer_config.json's
** added_tokens_decoder, then gguf-py's SpecialVocab.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** cv_sp_vocab() is TextModel._set_vocab_sentencepiece and
** _create_vocab_sentencepiece (conversion/base.py, llama.cpp de3ff815; the
** same steps in c392e50's convert_hf_to_gguf.py):
**
**   vocab_size = config.json's vocab_size, else the pieces' count; the list
**     starts as "[PAD<i>]", score -10000.0, UNUSED for every id;
**   each piece: its text, score and type (UNKNOWN, CONTROL, UNUSED, BYTE as
**     the model says; NORMAL and USER_DEFINED pieces are NORMAL, the
**     converter asks IsUnknown, IsControl, IsUnused, IsByte only);
**   added_tokens.json {text: id}: USER_DEFINED, score -1000.0 (ids past the
**     vocabulary skipped);
**   added_tokens_decoder {id: {content, special}}: CONTROL when special or
**     when the text looks special (does_token_look_special), else
**     USER_DEFINED with U+2581 turned into spaces; score -1000.0;
**   model "llama", pre "default", tokens, scores, types, then SpecialVocab
**     with n_vocab = the list's length.
**
** Where the converters differ: a piece or an added_tokens_decoder id past
** the vocabulary made c392e50 fail (IndexError), de3ff815 skips it; both
** are followed by era.  A negative id (Python would index from the end) is
** refused by both here.
**
** cv_sp_vocab_phi3() is Phi3MiniModel.set_vocab (conversion/phi.py): the
** same start without range checks (an id past the list is the converter's
** IndexError: an error here), added_tokens_decoder and then tokenizer.json's
** added_tokens both as CONTROL when special, else USER_DEFINED, with no
** look-special rule and no U+2581 rewriting.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"
#include "write/write_buf.h"

#define ADDED_SCORE (-1000.0f)

/* The SentencePiece type the converter writes for a piece's type. */
static int32_t piece_type(int32_t t) {
  switch (t) {
  case CV_TOK_UNKNOWN:
  case CV_TOK_CONTROL:
  case CV_TOK_UNUSED:
  case CV_TOK_BYTE:
    return t;
  default:
    return CV_TOK_NORMAL;
  }
}

/* Python's int(s) for a decimal key (sign, digits, surrounding spaces). */
static int parse_id(const char *p, size_t n, int64_t *v) {
  size_t i = 0;
  int neg = 0;
  uint64_t x = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
    i++;
  while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r'))
    n--;
  if (i < n && (p[i] == '+' || p[i] == '-'))
    neg = p[i++] == '-';
  if (i == n)
    return 0;
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9' || x > (UINT64_C(1) << 62))
      return 0;
    x = x * 10 + (uint64_t)(p[i] - '0');
  }
  *v = neg ? -(int64_t)x : (int64_t)x;
  return 1;
}

/* The tokens, scores and types from tokenizer.model. */
static int sp_pieces(cv_run *r, cv_table *t, const cv_spm *m, int range_checked, wt_error *err) {
  for (size_t id = 0; id < m->n; id++) {
    if (id >= t->n) {
      if (range_checked && r->era == CV_DE3FF815)
        break; /* "ignore tokens from <id>" */
      return cv_fail(
          err, r->f, "tokenizer.model",
          "has %zu pieces, more than the vocabulary size %llu of config.json (the converter "
          "stops: IndexError)",
          m->n, (unsigned long long)t->n);
    }
    if (cvt_set(t, id, m->piece[id].p, m->piece[id].n, err) != 0)
      return -1;
    t->score[id] = m->piece[id].score;
    t->type[id] = piece_type(m->piece[id].type);
  }
  return 0;
}

/* added_tokens.json: {text: id}. */
static int sp_added_json(cv_run *r, cv_table *t, wt_error *err) {
  cv_json j;
  cv_json_item *it = NULL;
  size_t n = 0;
  int rc = -1;
  if (cvj_open(&j, &r->f->added_tokens, "added_tokens.json", r->f, 1, err) != 0)
    return -1;
  if (!cvj_present(&j))
    return 0;
  if (cvj_items(&j, 0, &it, &n, err) != 0)
    goto done;
  for (size_t i = 0; i < n; i++) {
    const char *p;
    size_t len;
    int64_t id;
    char q[WT_QUOTE_SIZE];
    if (cvj_str(&j, it[i].key, &p, &len, err) != 0)
      goto done;
    if (!cvj_int(&j, it[i].value, 1, &id)) {
      cv_fail(err, r->f, "added_tokens.json", "the id of %s is not an integer", CV_Q(q, p, len));
      goto done;
    }
    if (id < 0) {
      cv_fail(err, r->f, "added_tokens.json", "the id of %s is negative (%lld)", CV_Q(q, p, len),
              (long long)id);
      goto done;
    }
    if ((uint64_t)id >= t->n)
      continue; /* "ignore token <id>: id is out of range" */
    if (cvt_set(t, (uint64_t)id, p, len, err) != 0)
      goto done;
    t->score[id] = ADDED_SCORE;
    t->type[id] = CV_TOK_USER_DEFINED;
  }
  rc = 0;
done:
  free(it);
  cvj_close(&j);
  return rc;
}

/* One added token {content, special, ...} at id of file's list. */
typedef struct added {
  int64_t id;
  const char *p;
  size_t n;
  int special;
} added;

/* Read entry value (an object) of file into *a; key (id) is given by the
** caller.  Returns 0 or -1. */
static int read_added(cv_run *r, cv_json *j, size_t value, const char *what, added *a,
                      wt_error *err) {
  size_t content = cvj_get(j, value, "content");
  if (cvj_type(j, value) != JSON_OBJECT || !content || cvj_type(j, content) != JSON_STRING)
    return cv_fail(err, r->f, j->file, "%s has no string \"content\"", what);
  if (cvj_str(j, content, &a->p, &a->n, err) != 0)
    return -1;
  size_t sp = cvj_get(j, value, "special");
  a->special = sp && cvj_truthy(j, sp);
  return 0;
}

/* Replace every U+2581 of p[0..n) by a space into buf. */
static int unspace(wt_buf *buf, const char *p, size_t n) {
  buf->n = 0;
  for (size_t i = 0; i < n; i++) {
    if (i + 2 < n && (unsigned char)p[i] == 0xe2 && (unsigned char)p[i + 1] == 0x96 &&
        (unsigned char)p[i + 2] == 0x81) {
      wb_put(buf, " ", 1);
      i += 2;
    } else {
      wb_put(buf, p + i, 1);
    }
  }
  return buf->oom ? -1 : 0;
}

/* tokenizer_config.json's added_tokens_decoder; phi3: Phi-3's rules. */
static int sp_added_decoder(cv_run *r, cv_table *t, int phi3, wt_error *err) {
  cv_json *j = &r->tok_config;
  cv_json_item *it = NULL;
  size_t n = 0;
  wt_buf tmp = {0};
  int rc = -1;
  size_t dec = cvj_present(j) ? cvj_get(j, 0, "added_tokens_decoder") : 0;
  if (!dec)
    return 0;
  if (cvj_type(j, dec) != JSON_OBJECT)
    return cv_fail(err, r->f, j->file, "added_tokens_decoder is not an object");
  if (cvj_items(j, dec, &it, &n, err) != 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const char *kp;
    size_t kn;
    int64_t id;
    char q[WT_QUOTE_SIZE], what[WT_QUOTE_SIZE + 32];
    if (cvj_str(j, it[i].key, &kp, &kn, err) != 0)
      goto done;
    snprintf(what, sizeof(what), "added_tokens_decoder[%s]", CV_Q(q, kp, kn));
    if (!parse_id(kp, kn, &id)) {
      cv_fail(err, r->f, j->file, "%s: the key is not an integer id", what);
      goto done;
    }
    added a;
    if (read_added(r, j, it[i].value, what, &a, err) != 0)
      goto done;
    if (id < 0 || (uint64_t)id >= t->n) {
      if (id >= 0 && !phi3 && r->era == CV_DE3FF815)
        continue; /* "ignore token <id>" */
      cv_fail(err, r->f, j->file, "%s: id %lld is outside the vocabulary of %llu tokens%s", what,
              (long long)id, (unsigned long long)t->n,
              id < 0 ? "" : " (the converter stops: IndexError)");
      goto done;
    }
    const char *p = a.p;
    size_t len = a.n;
    if (a.special || (!phi3 && cv_looks_special(a.p, a.n))) {
      t->type[id] = CV_TOK_CONTROL;
    } else {
      t->type[id] = CV_TOK_USER_DEFINED;
      if (!phi3) {
        if (unspace(&tmp, a.p, a.n) != 0) {
          wt_fail(err, "out of memory");
          goto done;
        }
        p = tmp.p;
        len = tmp.n;
      }
    }
    t->score[id] = ADDED_SCORE;
    if (cvt_set(t, (uint64_t)id, p, len, err) != 0)
      goto done;
  }
  rc = 0;
done:
  free(tmp.p);
  free(it);
  return rc;
}

/* Phi-3: tokenizer.json's added_tokens, [{id, content, special}]. */
static int sp_added_tokenizer_json(cv_run *r, cv_table *t, wt_error *err) {
  cv_json *j = &r->tok_json;
  size_t list = cvj_present(j) ? cvj_get(j, 0, "added_tokens") : 0;
  if (!list)
    return 0;
  if (cvj_type(j, list) != JSON_ARRAY)
    return cv_fail(err, r->f, j->file, "added_tokens is not a list");
  size_t k = 0;
  for (size_t e = cvj_first(j, list); e < cvj_next(j, list); e = cvj_next(j, e), k++) {
    char what[64];
    int64_t id;
    added a;
    snprintf(what, sizeof(what), "added_tokens[%zu]", k);
    size_t idt = cvj_get(j, e, "id");
    if (read_added(r, j, e, what, &a, err) != 0)
      return -1;
    if (!idt || !cvj_int(j, idt, 1, &id))
      return cv_fail(err, r->f, j->file, "%s has no integer \"id\"", what);
    if (id < 0 || (uint64_t)id >= t->n)
      return cv_fail(err, r->f, j->file,
                     "%s: id %lld is outside the vocabulary of %llu tokens (the converter stops)",
                     what, (long long)id, (unsigned long long)t->n);
    if (cvt_set(t, (uint64_t)id, a.p, a.n, err) != 0)
      return -1;
    t->score[id] = ADDED_SCORE;
    t->type[id] = a.special ? CV_TOK_CONTROL : CV_TOK_USER_DEFINED;
  }
  return 0;
}

/* model, pre, tokens, scores, types; then SpecialVocab(n_vocab=len). */
static int sp_write(cv_run *r, cv_table *t, wt_error *err) {
  wt_buf v = {0};
  if (cvk_string(&r->kv, "tokenizer.ggml.model", "llama", 5, err) != 0)
    return -1;
  if (cvk_string(&r->kv, "tokenizer.ggml.pre", "default", 7, err) != 0)
    return -1;
  if (t->n) { /* add_array() skips an empty list */
    cvt_tokens_value(t, &v);
    if (cvk_take(&r->kv, "tokenizer.ggml.tokens", GGUF_TYPE_ARRAY, &v, err) != 0)
      return -1;
    cvt_scores_value(t, &v);
    if (cvk_take(&r->kv, "tokenizer.ggml.scores", GGUF_TYPE_ARRAY, &v, err) != 0)
      return -1;
    cvt_types_value(t, &v);
    if (cvk_take(&r->kv, "tokenizer.ggml.token_type", GGUF_TYPE_ARRAY, &v, err) != 0)
      return -1;
  }
  r->pre = "default";
  r->n_tokens = t->n;
  cv_special_opts o = {0};
  o.n_vocab = (int64_t)t->n;
  return cv_special_vocab(r, &o, err);
}

/* Open and parse tokenizer.model; vocab_size as the converter takes it. */
static int sp_open(cv_run *r, cv_spm *m, cv_table *t, wt_error *err) {
  wt_error e;
  if (cv_spm_parse(r->f->tokenizer_model.p, r->f->tokenizer_model.n, m, &e) != 0)
    return cv_fail(err, r->f, "tokenizer.model", "%s", e.msg);
  uint64_t size = r->hp_vocab_size >= 0 ? (uint64_t)r->hp_vocab_size : m->n;
  if (size > m->n + CV_MAX_PADDING) {
    cv_spm_free(m);
    return cv_fail(err, r->f, "config.json",
                   "vocab_size %llu is far larger than tokenizer.model's %zu pieces",
                   (unsigned long long)size, m->n);
  }
  if (cvt_init(t, size, 1, err) != 0) {
    cv_spm_free(m);
    return -1;
  }
  return 0;
}

int cv_sp_vocab(cv_run *r, wt_error *err) {
  cv_spm m;
  cv_table t;
  if (!r->f->tokenizer_model.p)
    return CV_NOT_FOUND;
  if (sp_open(r, &m, &t, err) != 0)
    return -1;
  int rc = -1;
  if (sp_pieces(r, &t, &m, 1, err) == 0 && sp_added_json(r, &t, err) == 0 &&
      sp_added_decoder(r, &t, 0, err) == 0)
    rc = sp_write(r, &t, err);
  cvt_free(&t);
  cv_spm_free(&m);
  return rc;
}

int cv_sp_vocab_phi3(cv_run *r, wt_error *err) {
  cv_spm m;
  cv_table t;
  if (!r->f->tokenizer_model.p)
    return cv_fail(err, r->f, "tokenizer.model", "is missing (Phi3MiniModel.set_vocab needs it)");
  if (sp_open(r, &m, &t, err) != 0)
    return -1;
  int rc = -1;
  if (sp_pieces(r, &t, &m, 0, err) == 0 && sp_added_json(r, &t, err) == 0 &&
      sp_added_decoder(r, &t, 1, err) == 0 && sp_added_tokenizer_json(r, &t, err) == 0)
    rc = sp_write(r, &t, err);
  cvt_free(&t);
  cv_spm_free(&m);
  return rc;
}
