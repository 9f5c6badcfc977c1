/*
** vocab_special.c: gguf-py's SpecialVocab: the merges, the special token
** ids, the add_*_token flags and the chat template, loaded and added as
** gguf-py/gguf/vocab.py does.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** Loading (SpecialVocab._load):
**   tokenizer.json: the merges when asked for (model.merges: "a b" strings
**     as they are, or ["a", "b"] pairs joined by a space with each space
**     inside a part written as U+0120), and the added_tokens list;
**   tokenizer_config.json: chat_template, and for each special type T
**     (default bos eos unk sep pad cls mask): add_T_token when a bool, and
**     T_token (a string, or an object's "content") looked up by content in
**     tokenizer.json's added_tokens: the first match's id;
**   config.json: T_token_id when an int (a bool is one to Python);
**   merges.txt when merges were asked for and none were found.
**   An id is kept when it is not negative (negative: ValueError), below
**   n_vocab when n_vocab is given, and its type has none yet.
** Adding (add_to_gguf): the merges; each id in the order it was set, for the
**   types gguf-py's writer has a method for (bos eos unk sep pad mask eot
**   eom: cls and the FIM types prefix/suffix/middle/fsep are skipped); each
**   add_T_token for bos, eos and sep; the chat template (a string, or a list
**   of {name, template}: tokenizer.chat_template.NAME for each name but
**   "default", the list of names, then the default as
**   tokenizer.chat_template).
**
** de3ff815's gguf-py adds (the Qwen3 recipe only): a tokenizer.json
** normalizer's Lowercase/StripAccents as tokenizer.ggml.normalizer.*; the
** post_processor read for add_bos/add_eos/add_sep (RobertaProcessing, and
** TemplateProcessing's leading and trailing special tokens, which may also
** name the BOS/CLS/EOS/SEP tokens and move the EOS to eot/eom);
** chat_template.jinja, else chat_template.json, when tokenizer_config.json
** has no chat_template key; config.json's text_config as a fallback for
** T_token_id.  The list of chat templates keeps the order of the input
** (gguf-py writes a Python set's order, which varies from run to run).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "vocab_int.h"
#include "vocab_special.h"
#include "write/write_buf.h"

static const char *const default_types[] = {"bos", "eos", "unk", "sep", "pad", "cls", "mask", NULL};

/* Types gguf-py's GGUFWriter has add_<T>_token_id() for, and their keys. */
static const struct {
  const char *type, *key;
} id_keys[] = {
    {"bos", "tokenizer.ggml.bos_token_id"},     {"eos", "tokenizer.ggml.eos_token_id"},
    {"unk", "tokenizer.ggml.unknown_token_id"}, {"sep", "tokenizer.ggml.seperator_token_id"},
    {"pad", "tokenizer.ggml.padding_token_id"}, {"mask", "tokenizer.ggml.mask_token_id"},
    {"eot", "tokenizer.ggml.eot_token_id"},     {"eom", "tokenizer.ggml.eom_token_id"},
};
static const struct {
  const char *type, *key;
} add_keys[] = {
    {"bos", "tokenizer.ggml.add_bos_token"},
    {"eos", "tokenizer.ggml.add_eos_token"},
    {"sep", "tokenizer.ggml.add_sep_token"},
};

/* _set_special_token(type, id). */
int sv_set_special(sv *s, const char *type, int64_t id, const char *from, wt_error *err) {
  if (id < 0)
    return wt_fail(err, "%s: the id of the %s token is negative (%lld): the converter stops", from,
                   type, (long long)id);
  if (s->o->n_vocab >= 0 && id >= s->o->n_vocab)
    return 0; /* "out of range ... skipping" */
  for (size_t i = 0; i < s->n_ids; i++)
    if (strcmp(s->ids[i].type, type) == 0)
      return 0;
  if (s->n_ids < MAX_TYPES) {
    s->ids[s->n_ids].type = type;
    s->ids[s->n_ids].id = id;
    s->n_ids++;
  }
  return 0;
}

/* ---- tokenizer.json ---------------------------------------------------- */

/* Append one merge "a b" to out. */
static void merge_put(wt_buf *out, uint64_t *count, const char *p, size_t n) {
  wb_u64(out, n);
  wb_put(out, p, n);
  (*count)++;
}

/* One ["a", "b"] pair as "a b", spaces inside a part as U+0120. */
static int merge_pair(cv_run *r, cv_json *j, size_t pair, size_t k, wt_buf *tmp, wt_buf *out,
                      uint64_t *count, wt_error *err) {
  if (cvj_type(j, pair) != JSON_ARRAY || cvj_count(j, pair) != 2)
    return cv_fail(err, r->f, j->file, "model.merges[%zu] is not a pair of strings", k);
  tmp->n = 0;
  size_t e = cvj_first(j, pair);
  for (int part = 0; part < 2; part++, e = cvj_next(j, e)) {
    const char *p;
    size_t n;
    if (cvj_type(j, e) != JSON_STRING)
      return cv_fail(err, r->f, j->file, "model.merges[%zu] is not a pair of strings", k);
    if (cvj_str(j, e, &p, &n, err) != 0)
      return -1;
    if (part)
      wb_put(tmp, " ", 1);
    for (size_t i = 0; i < n; i++) {
      if (p[i] == ' ')
        wb_put(tmp, "\xc4\xa0", 2);
      else
        wb_put(tmp, p + i, 1);
    }
  }
  if (tmp->oom)
    return wt_fail(err, "out of memory");
  merge_put(out, count, tmp->p, tmp->n);
  return 0;
}

int cv_merges_read(cv_run *r, wt_buf *out, uint64_t *count, wt_error *err) {
  cv_json *j = &r->tok_json;
  size_t model = cvj_present(j) ? cvj_get(j, 0, "model") : 0;
  size_t list = model ? cvj_get(j, model, "merges") : 0;
  *count = 0;
  if (!list || cvj_type(j, list) != JSON_ARRAY || cvj_count(j, list) == 0)
    return 0;
  size_t first = cvj_first(j, list), k = 0;
  int strings = cvj_type(j, first) == JSON_STRING;
  if (!strings && !(cvj_type(j, first) == JSON_ARRAY && cvj_count(j, first) == 2 &&
                    cvj_type(j, cvj_first(j, first)) == JSON_STRING))
    return cv_fail(err, r->f, j->file, "model.merges: unknown merges format (the converter stops)");
  wt_buf tmp = {0};
  for (size_t e = first; e < cvj_next(j, list); e = cvj_next(j, e), k++) {
    const char *p;
    size_t n;
    if (strings) {
      if (cvj_type(j, e) != JSON_STRING) {
        free(tmp.p);
        return cv_fail(err, r->f, j->file, "model.merges[%zu] is not a string like the first", k);
      }
      if (cvj_str(j, e, &p, &n, err) != 0)
        goto fail;
      merge_put(out, count, p, n);
    } else if (merge_pair(r, j, e, k, &tmp, out, count, err) != 0) {
      goto fail;
    }
  }
  free(tmp.p);
  return out->oom ? wt_fail(err, "out of memory for the merges") : 0;
fail:
  free(tmp.p);
  return -1;
}

/* Python's str.isspace() for an ASCII byte. */
static int py_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* merges.txt as gguf-py's _try_load_merges_txt reads it: text mode (UTF-8;
** CR LF, CR and LF end a line), an optional first line starting with "#",
** each stripped line split on whitespace, kept when it has exactly two
** parts.  (Whitespace beyond ASCII, which Python's split() also knows, is
** taken as part of a word here.) */
static int load_merges_txt(sv *s, wt_error *err) {
  const cv_file_bytes *b = &s->r->f->merges_txt;
  if (!b->p)
    return 0;
  const char *p = (const char *)b->p, *end = p + b->n;
  if (!wt_utf8_valid(p, b->n))
    return cv_fail(err, s->r->f, "merges.txt", "is not valid UTF-8 (the converter stops)");
  int first = 1;
  while (p < end) {
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
      e++;
    const char *a = p, *z = e;
    p = e < end && *e == '\r' && e + 1 < end && e[1] == '\n' ? e + 2 : e + 1;
    while (a < z && py_space(*a))
      a++;
    while (z > a && py_space(z[-1]))
      z--;
    if (first && z > a && *a == '#') {
      first = 0;
      continue;
    }
    first = 0;
    const char *parts[3];
    size_t lens[3], np = 0;
    for (const char *q = a; q < z && np < 3;) {
      while (q < z && py_space(*q))
        q++;
      if (q == z)
        break;
      const char *w = q;
      while (q < z && !py_space(*q))
        q++;
      parts[np] = w;
      lens[np++] = (size_t)(q - w);
    }
    if (np != 2)
      continue; /* an empty line, or "Entry malformed, ignoring" */
    wb_u64(&s->merges, lens[0] + 1 + lens[1]);
    wb_put(&s->merges, parts[0], lens[0]);
    wb_put(&s->merges, " ", 1);
    wb_put(&s->merges, parts[1], lens[1]);
    s->n_merges++;
  }
  return s->merges.oom ? wt_fail(err, "out of memory for the merges") : 0;
}

/* The id of the first added token of tokenizer.json whose content is c. */
static int added_id(sv *s, const pyv *c, int64_t *id, int *found, wt_error *err) {
  cv_json *j = &s->r->tok_json;
  size_t list = cvj_present(j) ? cvj_get(j, 0, "added_tokens") : 0;
  *found = 0;
  if (!list || cvj_type(j, list) != JSON_ARRAY)
    return 0;
  for (size_t e = cvj_first(j, list); e < cvj_next(j, list); e = cvj_next(j, e)) {
    size_t ct = cvj_get(j, e, "content");
    const char *p;
    size_t n;
    if (!ct || cvj_type(j, ct) != JSON_STRING)
      continue;
    if (cvj_str(j, ct, &p, &n, err) != 0)
      return -1;
    if (n != c->n || memcmp(p, c->s, n) != 0)
      continue;
    size_t it = cvj_get(j, e, "id");
    *found = it && cvj_int(j, it, 1, id); /* atok.get('id'): not an int is no id */
    return 0;
  }
  return 0;
}

/* ---- SpecialVocab ------------------------------------------------------ */

static int load(sv *s, wt_error *err) {
  cv_run *r = s->r;
  cv_json *tj = &r->tok_json, *tc = &r->tok_config;
  int de3 = r->era == CV_DE3FF815;
  if (cvj_present(tj)) {
    if (s->o->load_merges && cv_merges_read(r, &s->merges, &s->n_merges, err) != 0)
      return -1;
    if (de3 && sv_parse_normalizer(s, cvj_get(tj, 0, "normalizer"), 0) != 0)
      return -1;
    if (de3 && sv_read_post_processor(s, err) != 0)
      return -1;
  }
  if (cvj_present(tc) && (!de3 || cvj_count(tc, 0) > 0)) {
    if (sv_load_chat_template(s, err) != 0)
      return -1;
    for (size_t i = 0; i < s->n_types; i++) {
      char key[40];
      const char *typ = s->types[i];
      snprintf(key, sizeof(key), "add_%s_token", typ);
      size_t a = cvj_get(tc, 0, key);
      if (a && cvj_type(tc, a) == JSON_BOOL)
        sv_set_add(s, typ, cvj_truthy(tc, a));
      snprintf(key, sizeof(key), "%s_token", typ);
      pyv e = {0};
      if (sv_config_get(s, key, &e, err) != 0)
        return -1;
      int64_t id;
      int found = 0;
      if (e.s && added_id(s, &e, &id, &found, err) != 0) {
        sv_py_free(&e);
        return -1;
      }
      sv_py_free(&e);
      if (found && sv_set_special(s, typ, id, "tokenizer.json", err) != 0)
        return -1;
    }
  }
  cv_json *cj = &r->config;
  if (cvj_present(cj)) {
    size_t text = de3 ? cvj_get(cj, 0, "text_config") : 0;
    for (size_t i = 0; i < s->n_types; i++) {
      char key[40];
      int64_t id;
      snprintf(key, sizeof(key), "%s_token_id", s->types[i]);
      size_t v = cvj_get(cj, 0, key);
      if ((!v || cvj_type(cj, v) == JSON_NULL) && text)
        v = cvj_get(cj, text, key);
      if (v && cvj_int(cj, v, 1, &id) &&
          sv_set_special(s, s->types[i], id, "config.json", err) != 0)
        return -1;
    }
  }
  if (s->o->load_merges && s->n_merges == 0 && load_merges_txt(s, err) != 0)
    return -1;
  return 0;
}

static int add_to_gguf(sv *s, wt_error *err) {
  cv_kvlist *kv = &s->r->kv;
  if (s->n_merges) { /* the array's 12-byte head was kept free at the front */
    unsigned char head[12];
    for (int i = 0; i < 4; i++)
      head[i] = (unsigned char)(GGUF_TYPE_STRING >> (8 * i));
    for (int i = 0; i < 8; i++)
      head[4 + i] = (unsigned char)(s->n_merges >> (8 * i));
    memcpy(s->merges.p, head, 12);
    if (cvk_take(kv, "tokenizer.ggml.merges", GGUF_TYPE_ARRAY, &s->merges, err) != 0)
      return -1;
    s->r->n_merges = s->n_merges;
  }
  for (size_t i = 0; i < s->n_ids; i++)
    for (size_t k = 0; k < sizeof(id_keys) / sizeof(id_keys[0]); k++)
      if (strcmp(s->ids[i].type, id_keys[k].type) == 0 &&
          cvk_u32(kv, id_keys[k].key, (uint64_t)s->ids[i].id, err) != 0)
        return -1;
  for (size_t i = 0; i < s->n_adds; i++)
    for (size_t k = 0; k < sizeof(add_keys) / sizeof(add_keys[0]); k++)
      if (strcmp(s->adds[i].type, add_keys[k].type) == 0 &&
          cvk_bool(kv, add_keys[k].key, s->adds[i].v, err) != 0)
        return -1;
  if (!s->o->no_chat_template && sv_add_chat_template(s, err) != 0)
    return -1;
  if (s->lowercase >= 0 &&
      cvk_bool(kv, "tokenizer.ggml.normalizer.lowercase", s->lowercase, err) != 0)
    return -1;
  if (s->strip_accents >= 0 &&
      cvk_bool(kv, "tokenizer.ggml.normalizer.strip_accents", s->strip_accents, err) != 0)
    return -1;
  return 0;
}

int cv_special_vocab(cv_run *r, const cv_special_opts *o, wt_error *err) {
  sv s;
  memset(&s, 0, sizeof(s));
  s.r = r;
  s.o = o;
  s.lowercase = s.strip_accents = -1;
  for (const char *const *t = o->types ? o->types : default_types; *t && s.n_types < MAX_TYPES - 2;
       t++)
    s.types[s.n_types++] = *t;
  int rc = wb_fill(&s.merges, 0, 12) ? wt_fail(err, "out of memory")
                                     : load(&s, err); /* head, then merges */
  for (size_t i = 0; rc == 0 && i < sizeof(o->set) / sizeof(o->set[0]) && o->set[i].type; i++)
    rc = sv_set_special(&s, o->set[i].type, o->set[i].id, "the converter", err);
  if (rc == 0)
    rc = add_to_gguf(&s, err);
  for (size_t i = 0; i < s.n_over; i++)
    sv_py_free(&s.over[i].v);
  free(s.merges.p);
  sv_chat_free(&s);
  return rc;
}
