/*
** vocab_special.h: what vocab_special.c (SpecialVocab) shares with
** vocab_special_post.c (de3ff815's post_processor and normalizer reading,
** and the chat template); both call down to vocab_special_state.c (the
** state they load into).  Private to those three files.
** Layer: convert (pure C; uses write/, formats/, base/).
*/
#ifndef WT_VOCAB_SPECIAL_H
#define WT_VOCAB_SPECIAL_H

#include "vocab_int.h"

#define MAX_TYPES 16

/* A value of the tokenizer_config dict as the code compares it. */
typedef enum { PY_NONE, PY_STR, PY_OTHER } py_kind;
typedef struct pyv {
  py_kind kind;
  char *s; /* PY_STR: the string; PY_OTHER: an object's "content" if a string, else NULL */
  size_t n;
  int truthy;
} pyv;

typedef struct sv {
  cv_run *r;
  const cv_special_opts *o;
  const char *types[MAX_TYPES];
  size_t n_types;
  struct {
    const char *type;
    int64_t id;
  } ids[MAX_TYPES];
  size_t n_ids;
  struct {
    const char *type;
    int v;
  } adds[MAX_TYPES];
  size_t n_adds;
  /* tokenizer_config keys the post_processor rewrote (de3ff815) */
  struct {
    char key[24];
    pyv v;
  } over[8];
  size_t n_over;
  wt_buf merges; /* u64 length + bytes, per merge */
  uint64_t n_merges;
  int lowercase, strip_accents; /* -1: None */
  /* the chat template */
  int tmpl_kind; /* 0 None, 1 a string, 2 a list */
  char *tmpl;    /* the string */
  size_t tmpl_n;
  cv_json *tmpl_doc; /* the list: its file and token */
  size_t tmpl_tok;
  cv_json tmpl_json; /* chat_template.json, when read */
} sv;

/* vocab_special_state.c */
void sv_py_free(pyv *v);
int sv_py_set(pyv *v, py_kind k, const char *s, size_t n, int truthy);
int sv_py_copy(pyv *dst, const pyv *src);
int sv_py_eq(const pyv *a, const pyv *b);
int sv_py_from(cv_json *j, size_t t, pyv *v, wt_error *err);
int sv_config_get(sv *s, const char *key, pyv *v, wt_error *err);
int sv_config_set(sv *s, const char *key, const pyv *v, wt_error *err);
int sv_has_type(const sv *s, const char *t);
void sv_set_add(sv *s, const char *type, int v);

/* vocab_special.c */
int sv_set_special(sv *s, const char *type, int64_t id, const char *from, wt_error *err);

/* vocab_special_post.c */
int sv_parse_normalizer(sv *s, size_t t, int depth);
int sv_read_post_processor(sv *s, wt_error *err);
int sv_load_chat_template(sv *s, wt_error *err);
int sv_add_chat_template(sv *s, wt_error *err);
void sv_chat_free(sv *s);

#endif
