/*
** vocab_special_post.c: the parts of SpecialVocab that read tokenizer.json's
** normalizer and post_processor (de3ff815's gguf-py), and the chat template
** (both).
** Layer: convert (pure C; uses write/, formats/, base/).
**
** gguf-py/gguf/vocab.py (llama.cpp de3ff815), SpecialVocab:
**   _parse_normalizer: Lowercase, StripAccents, BertNormalizer's lowercase
**     and strip_accents, and a Sequence's members, in order;
**   _try_load_from_tokenizer_json: bos_token falls back to cls_token and
**     eos_token to sep_token; for each post-processor (a Sequence's, or the
**     one): RobertaProcessing adds bos, eos and sep; TemplateProcessing's
**     single template, when longer than one piece, adds bos when its first
**     special token is the BOS or CLS token (naming them when unnamed) and
**     adds eos when its last is the EOS token (a different last token
**     becomes the EOS, the old EOS the EOT or EOM token); its pair template
**     decides add_sep;
**   the chat template: tokenizer_config.json's chat_template key, else
**     chat_template.jinja (read as Python's text mode reads it: CR LF and
**     CR become LF), else chat_template.json's chat_template.
** The c392e50 recipes read only tokenizer_config.json's chat_template.
** The folder additional_chat_templates (de3ff815 reads its .jinja files
** as named templates beside chat_template.jinja) is not among the files
** handed in: a checkpoint with one gets only the default template here.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "vocab_int.h"
#include "vocab_special.h"
#include "write/write_buf.h"

/* ---- normalizer -------------------------------------------------------- */

int sv_parse_normalizer(sv *s, size_t t, int depth) {
  cv_json *j = &s->r->tok_json;
  if (!t || cvj_type(j, t) != JSON_OBJECT || depth > 64)
    return 0;
  size_t ty = cvj_get(j, t, "type");
  if (cvj_is(j, ty, "Lowercase")) {
    s->lowercase = 1;
  } else if (cvj_is(j, ty, "StripAccents")) {
    s->strip_accents = 1;
  } else if (cvj_is(j, ty, "BertNormalizer")) {
    size_t v = cvj_get(j, t, "lowercase");
    if (v)
      s->lowercase = cvj_type(j, v) == JSON_NULL ? -1 : cvj_truthy(j, v);
    v = cvj_get(j, t, "strip_accents");
    if (v)
      s->strip_accents = cvj_type(j, v) == JSON_NULL ? -1 : cvj_truthy(j, v);
  } else if (cvj_is(j, ty, "Sequence")) {
    size_t list = cvj_get(j, t, "normalizers");
    if (list && cvj_type(j, list) == JSON_ARRAY)
      for (size_t e = cvj_first(j, list); e < cvj_next(j, list); e = cvj_next(j, e))
        sv_parse_normalizer(s, e, depth + 1);
  }
  return 0;
}

/* ---- post_processor ---------------------------------------------------- */

/* elem.get(kind, {}).get('id') of a template piece. */
static int piece_id(sv *s, size_t elem, const char *kind, pyv *out, wt_error *err) {
  cv_json *j = &s->r->tok_json;
  if (cvj_type(j, elem) != JSON_OBJECT)
    return cv_fail(err, s->r->f, j->file,
                   "post_processor: a template piece is not an object (the converter stops)");
  size_t k = cvj_get(j, elem, kind);
  if (k && cvj_type(j, k) != JSON_OBJECT)
    return cv_fail(err, s->r->f, j->file,
                   "post_processor: a template's %s is not an object (the converter stops)", kind);
  return sv_py_from(j, k ? cvj_get(j, k, "id") : 0, out, err);
}

/* The idx-th token of array a (negative: from the end). */
static size_t nth(const cv_json *j, size_t a, long idx) {
  long n = (long)cvj_count(j, a);
  if (idx < 0)
    idx += n;
  size_t e = cvj_first(j, a);
  for (long i = 0; i < idx; i++)
    e = cvj_next(j, e);
  return e;
}

static int in2(const pyv *x, const pyv *a, const pyv *b) {
  return sv_py_eq(x, a) || sv_py_eq(x, b);
}

typedef struct specials {
  pyv bos, cls, eos, sep;
} specials;

/* The pair template: whether a separator goes between A and B. */
static int template_pair(sv *s, size_t pair, const pyv *first, const pyv *last, specials *sp,
                         wt_error *err) {
  cv_json *j = &s->r->tok_json;
  long n = (long)cvj_count(j, pair), start = 0, stop = n;
  pyv a = {0}, b = {0}, x = {0};
  int rc = -1;
  if (n == 0)
    return 0;
  if (first->truthy) {
    if (piece_id(s, nth(j, pair, 0), "SpecialToken", &x, err) != 0)
      goto done;
    if (sv_py_eq(&x, first))
      start = 1;
  }
  if (last->truthy) {
    if (piece_id(s, nth(j, pair, -1), "SpecialToken", &x, err) != 0)
      goto done;
    if (sv_py_eq(&x, last))
      stop = n - 1;
  }
  if (stop <= start) {
    rc = 0;
    goto done;
  }
  if (piece_id(s, nth(j, pair, start), "Sequence", &a, err) != 0)
    goto done;
  if (piece_id(s, nth(j, pair, stop - 1), "Sequence", &b, err) != 0)
    goto done;
  int is_a = a.kind == PY_STR && a.n == 1 && a.s[0] == 'A';
  int is_b = b.kind == PY_STR && b.n == 1 && b.s[0] == 'B';
  long mid0 = start + 1, mid1 = stop - 1; /* tmpl_pair[1:-1] */
  if (is_a && is_b && mid1 > mid0) {
    int add_sep = 0;
    if (piece_id(s, nth(j, pair, mid0), "SpecialToken", &x, err) != 0)
      goto done;
    if (x.truthy && in2(&x, &sp->sep, &sp->eos) && !last->truthy)
      add_sep = 1;
    if (mid1 - mid0 == 2) {
      if (piece_id(s, nth(j, pair, mid0 + 1), "SpecialToken", &x, err) != 0)
        goto done;
      if (x.truthy && in2(&x, &sp->sep, &sp->eos))
        add_sep = 1;
    }
    sv_set_add(s, "sep", add_sep);
    if (add_sep && !sp->sep.truthy && cvj_present(&s->r->tok_config) &&
        cvj_count(&s->r->tok_config, 0) && sv_config_set(s, "sep_token", &sp->eos, err) != 0)
      goto done;
  }
  rc = 0;
done:
  sv_py_free(&a);
  sv_py_free(&b);
  sv_py_free(&x);
  return rc;
}

/* One TemplateProcessing. */
static int template_processing(sv *s, size_t proc, specials *sp, int have_config, wt_error *err) {
  cv_json *j = &s->r->tok_json;
  size_t single = cvj_get(j, proc, "single"), pair = cvj_get(j, proc, "pair");
  pyv first = {0}, last = {0};
  int rc = -1;
  if (single && cvj_type(j, single) == JSON_ARRAY && cvj_count(j, single) > 1) {
    if (piece_id(s, nth(j, single, 0), "SpecialToken", &first, err) != 0)
      goto done;
    if (first.truthy) {
      if (!have_config) {
        if (sv_py_copy(&sp->bos, &first))
          goto oom;
      } else if (!in2(&first, &sp->bos, &sp->cls)) {
        if (!sp->bos.truthy &&
            (sv_py_copy(&sp->bos, &first) || sv_config_set(s, "bos_token", &first, err)))
          goto done;
        if (!sp->cls.truthy &&
            (sv_py_copy(&sp->cls, &first) || sv_config_set(s, "cls_token", &first, err)))
          goto done;
      }
      sv_set_add(s, "bos", in2(&first, &sp->bos, &sp->cls));
    }
    if (piece_id(s, nth(j, single, -1), "SpecialToken", &last, err) != 0)
      goto done;
    if (last.truthy) {
      if (!have_config) {
        if (sv_py_copy(&sp->eos, &last))
          goto oom;
      } else if (!sv_py_eq(&last, &sp->eos)) {
        const char *move = !sv_has_type(s, "eot") ? "eot" : !sv_has_type(s, "eom") ? "eom" : NULL;
        if (move) {
          char key[16];
          s->types[s->n_types++] = move;
          snprintf(key, sizeof(key), "%s_token", move);
          if (sv_config_set(s, key, &sp->eos, err) != 0)
            goto done;
        }
        if (sv_py_copy(&sp->eos, &last) || sv_config_set(s, "eos_token", &last, err))
          goto done;
      }
      sv_set_add(s, "eos", sv_py_eq(&last, &sp->eos));
    }
  }
  if (pair && cvj_type(j, pair) == JSON_ARRAY &&
      template_pair(s, pair, &first, &last, sp, err) != 0)
    goto done;
  rc = 0;
  goto done;
oom:
  wt_fail(err, "out of memory");
done:
  sv_py_free(&first);
  sv_py_free(&last);
  return rc;
}

/* RobertaProcessing: bos, eos and sep added; cls and sep named. */
static int roberta(sv *s, size_t proc, specials *sp, int have_config, wt_error *err) {
  cv_json *j = &s->r->tok_json;
  static const char *const names[2] = {"cls", "sep"};
  sv_set_add(s, "bos", 1);
  sv_set_add(s, "eos", 1);
  sv_set_add(s, "sep", 1);
  for (int i = 0; i < 2; i++) {
    pyv *cur = i ? &sp->sep : &sp->cls, *dflt = i ? &sp->eos : &sp->bos, v = {0};
    if (cur->truthy || !have_config)
      continue;
    size_t l = cvj_get(j, proc, names[i]);
    if (l) {
      if (cvj_type(j, l) != JSON_ARRAY || !cvj_count(j, l))
        return cv_fail(err, s->r->f, j->file,
                       "post_processor: RobertaProcessing's %s is not a list", names[i]);
      if (sv_py_from(j, cvj_first(j, l), &v, err) != 0)
        return -1;
    } else if (sv_py_copy(&v, dflt)) {
      return wt_fail(err, "out of memory");
    }
    char key[16];
    snprintf(key, sizeof(key), "%s_token", names[i]);
    int rc = sv_py_copy(cur, &v) ? wt_fail(err, "out of memory") : sv_config_set(s, key, &v, err);
    sv_py_free(&v);
    if (rc)
      return -1;
  }
  return 0;
}

int sv_read_post_processor(sv *s, wt_error *err) {
  cv_json *j = &s->r->tok_json, *tc = &s->r->tok_config;
  int have_config = cvj_present(tc) && cvj_count(tc, 0) > 0;
  specials sp = {{0}, {0}, {0}, {0}};
  int rc = -1;
  if (sv_config_get(s, "bos_token", &sp.bos, err) || sv_config_get(s, "cls_token", &sp.cls, err) ||
      sv_config_get(s, "eos_token", &sp.eos, err) || sv_config_get(s, "sep_token", &sp.sep, err))
    goto done;
  if (!sp.bos.truthy && sp.cls.truthy && have_config)
    if (sv_py_copy(&sp.bos, &sp.cls) || sv_config_set(s, "bos_token", &sp.cls, err))
      goto done;
  if (!sp.eos.truthy && sp.sep.truthy && have_config)
    if (sv_py_copy(&sp.eos, &sp.sep) || sv_config_set(s, "eos_token", &sp.sep, err))
      goto done;
  size_t pp = cvj_get(j, 0, "post_processor");
  if (pp && cvj_truthy(j, pp)) {
    if (cvj_type(j, pp) != JSON_OBJECT) {
      cv_fail(err, s->r->f, j->file, "post_processor is not an object (the converter stops)");
      goto done;
    }
    size_t list = cvj_get(j, pp, "processors");
    size_t e = list ? cvj_first(j, list) : pp, end = list ? cvj_next(j, list) : cvj_next(j, pp);
    if (list && cvj_type(j, list) != JSON_ARRAY) {
      cv_fail(err, s->r->f, j->file, "post_processor.processors is not a list");
      goto done;
    }
    for (; e < end; e = cvj_next(j, e)) {
      if (cvj_type(j, e) != JSON_OBJECT) {
        cv_fail(err, s->r->f, j->file,
                "post_processor: a processor is not an object (the converter stops)");
        goto done;
      }
      size_t ty = cvj_get(j, e, "type");
      if (cvj_is(j, ty, "RobertaProcessing") && roberta(s, e, &sp, have_config, err) != 0)
        goto done;
      if (cvj_is(j, ty, "TemplateProcessing") &&
          template_processing(s, e, &sp, have_config, err) != 0)
        goto done;
    }
  }
  rc = 0;
done:
  sv_py_free(&sp.bos);
  sv_py_free(&sp.cls);
  sv_py_free(&sp.eos);
  sv_py_free(&sp.sep);
  return rc;
}

/* ---- the chat template ------------------------------------------------- */

static int set_template_str(sv *s, const char *p, size_t n, int text_mode) {
  free(s->tmpl);
  s->tmpl = malloc(n + 1);
  if (!s->tmpl)
    return -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (text_mode && p[i] == '\r') { /* universal newlines */
      s->tmpl[k++] = '\n';
      if (i + 1 < n && p[i + 1] == '\n')
        i++;
    } else {
      s->tmpl[k++] = p[i];
    }
  }
  s->tmpl_n = k;
  s->tmpl_kind = 1;
  return 0;
}

/* chat_template from file j's token t: None, a string or a list. */
static int take_template(sv *s, cv_json *j, size_t t, wt_error *err) {
  const char *p;
  size_t n;
  s->tmpl_kind = 0;
  if (!t || cvj_type(j, t) == JSON_NULL)
    return 0;
  if (cvj_type(j, t) == JSON_STRING) {
    if (cvj_str(j, t, &p, &n, err) != 0)
      return -1;
    return set_template_str(s, p, n, 0) ? wt_fail(err, "out of memory") : 0;
  }
  if (cvj_type(j, t) == JSON_ARRAY) {
    s->tmpl_kind = 2;
    s->tmpl_doc = j;
    s->tmpl_tok = t;
  } /* else: "Bad type for chat_template field - ignoring" */
  return 0;
}

int sv_load_chat_template(sv *s, wt_error *err) {
  cv_json *tc = &s->r->tok_config;
  size_t t = cvj_get(tc, 0, "chat_template");
  if (t || s->r->era == CV_C392E50)
    return take_template(s, tc, t, err);
  const cv_vocab_files *f = s->r->f;
  if (f->chat_template_jinja.p) {
    const char *p = (const char *)f->chat_template_jinja.p;
    if (!wt_utf8_valid(p, f->chat_template_jinja.n))
      return cv_fail(err, f, "chat_template.jinja", "is not valid UTF-8");
    return set_template_str(s, p, f->chat_template_jinja.n, 1) ? wt_fail(err, "out of memory") : 0;
  }
  if (f->chat_template_json.p) {
    if (cvj_open(&s->tmpl_json, &f->chat_template_json, "chat_template.json", f, 1, err) != 0)
      return -1;
    return take_template(s, &s->tmpl_json, cvj_get(&s->tmpl_json, 0, "chat_template"), err);
  }
  return 0;
}

/* gguf-py's add_chat_template() for a list of {name, template}. */
static int add_template_list(sv *s, wt_error *err) {
  cv_json *j = s->tmpl_doc;
  cv_kvlist *kv = &s->r->kv;
  wt_buf names = {0}, name = {0};
  uint64_t n_names = 0;
  size_t dflt = 0;
  int rc = -1;
  for (size_t e = cvj_first(j, s->tmpl_tok); e < cvj_next(j, s->tmpl_tok); e = cvj_next(j, e)) {
    const char *p;
    size_t n;
    if (cvj_type(j, e) != JSON_OBJECT) {
      cv_fail(err, s->r->f, j->file,
              "chat_template: an entry of the list is not an object (the converter stops)");
      goto done;
    }
    size_t nt = cvj_get(j, e, "name"), tt = cvj_get(j, e, "template");
    name.n = 0;
    if (nt && cvj_type(j, nt) == JSON_STRING) {
      if (cvj_str(j, nt, &p, &n, err) != 0)
        goto done;
      for (size_t i = 0; i < n; i += wt_utf8_char(p + i, n - i)) { /* per character */
        char c = p[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        wb_put(&name, ok ? &c : "_", 1);
      }
    } else if (nt && cvj_type(j, nt) != JSON_NULL) {
      cv_fail(err, s->r->f, j->file, "chat_template: a name is not a string (the converter stops)");
      goto done;
    }
    if (!name.n || !tt || cvj_type(j, tt) == JSON_NULL)
      continue;
    if (cvj_type(j, tt) != JSON_STRING) {
      cv_fail(err, s->r->f, j->file,
              "chat_template: a template is not a string (the converter stops)");
      goto done;
    }
    if (name.n == 7 && memcmp(name.p, "default", 7) == 0) {
      dflt = tt;
      continue;
    }
    char key[300];
    if (name.n > 200) {
      cv_fail(err, s->r->f, j->file, "chat_template: a name of %zu characters", name.n);
      goto done;
    }
    snprintf(key, sizeof(key), "tokenizer.chat_template.%.*s", (int)name.n, name.p);
    if (cvj_str(j, tt, &p, &n, err) != 0 || cvk_string(kv, key, p, n, err) != 0)
      goto done;
    /* the set of names: once each */
    int seen = 0;
    for (size_t o = 0, k = 0; k < n_names; k++) {
      uint64_t len;
      memcpy(&len, names.p + o, 8);
      if (len == name.n && memcmp(names.p + o + 8, name.p, name.n) == 0)
        seen = 1;
      o += 8 + len;
    }
    if (!seen) {
      wb_u64(&names, name.n);
      wb_put(&names, name.p, name.n);
      n_names++;
    }
  }
  if (n_names) {
    wt_buf v = {0};
    wb_u32(&v, GGUF_TYPE_STRING);
    wb_u64(&v, n_names);
    wb_put(&v, names.p, names.n);
    if (cvk_take(kv, "tokenizer.chat_templates", GGUF_TYPE_ARRAY, &v, err) != 0)
      goto done;
  }
  if (dflt) {
    const char *p;
    size_t n;
    if (cvj_str(j, dflt, &p, &n, err) != 0 ||
        cvk_string(kv, "tokenizer.chat_template", p, n, err) != 0)
      goto done;
  }
  rc = 0;
done:
  free(names.p);
  free(name.p);
  return rc;
}

int sv_add_chat_template(sv *s, wt_error *err) {
  if (s->tmpl_kind == 1)
    return cvk_string(&s->r->kv, "tokenizer.chat_template", s->tmpl, s->tmpl_n, err);
  if (s->tmpl_kind == 2)
    return add_template_list(s, err);
  return 0;
}

void sv_chat_free(sv *s) {
  free(s->tmpl);
  s->tmpl = NULL;
  cvj_close(&s->tmpl_json);
}
