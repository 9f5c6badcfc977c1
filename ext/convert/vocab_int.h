/*
** vocab_int.h: what the vocab*.c files share (private to them).
** Layer: convert (pure C; uses write/, formats/, base/).
**
**   vocab.c          the entry point: architectures, their recipes, the order
**   vocab_kv.c       the entries as gguf-py's GGUFWriter keeps them
**   vocab_table.c    the token table, the string index, messages
**   vocab_json.c     JSON lookups with Python's semantics (over formats/json_check)
**   vocab_spm.c      SentencePiece's tokenizer.model (protobuf) reader
**   vocab_sp.c       the SentencePiece recipes (_create_vocab_sentencepiece, Phi-3's)
**   vocab_bpe.c      tokenizer.json's byte-level BPE (get_vocab_base)
**   vocab_pre.c      the name of the pre-tokenizer (tokenizer.ggml.pre)
**   vocab_special.c  gguf-py's SpecialVocab (merges, special ids, add_*, template)
*/
#ifndef WT_VOCAB_INT_H
#define WT_VOCAB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "convert/vocab.h"
#include "formats/gguf_value.h"
#include "formats/json_check.h"

/* Whose rules apply (vocab.h). */
typedef enum cv_era { CV_C392E50, CV_DE3FF815 } cv_era;

/* gguf-py's token types (gguf.TokenType / SentencePieceTokenTypes). */
enum {
  CV_TOK_NORMAL = 1,
  CV_TOK_UNKNOWN = 2,
  CV_TOK_CONTROL = 3,
  CV_TOK_USER_DEFINED = 4,
  CV_TOK_UNUSED = 5,
  CV_TOK_BYTE = 6
};

/* The largest count of tokens, merges or pieces taken (the converter writes
** u32 ids; a larger list is refused before anything is allocated for it). */
#define CV_MAX_TOKENS 0x7fffffffULL

/* The most "[PAD<i>]" tokens config.json's vocab_size may add past the
** tokenizer's own count (real checkpoints pad by a few hundred): beyond
** it the token table would not be bounded by the input. */
#define CV_MAX_PADDING (1u << 20)

/* ---- messages --------------------------------------------------------- */

/* "<dir>/<file>: " then the message.  Returns -1. */
int cv_fail(wt_error *err, const cv_vocab_files *f, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A string quoted for a message (wt_quote into a caller's buffer). */
#define CV_Q(buf, p, n) wt_quote((buf), sizeof(buf), (p), (n))

/* ---- the entries (vocab_kv.c) ----------------------------------------- */

typedef struct cv_kv {
  char *key;
  uint32_t type;
  wt_buf val; /* the value's bytes after the type tag (kv_sink.h) */
} cv_kv;

/* An ordered list of entries; a key added again is an error under
** c392e50's gguf-py (it raised ValueError) and replaces the value in place
** under de3ff815's (it warned and overwrote the dict entry). */
typedef struct cv_kvlist {
  cv_kv *v;
  size_t n, cap;
  cv_era era;
  const cv_vocab_files *files; /* for messages */
} cv_kvlist;

int cvk_string(cv_kvlist *l, const char *key, const char *p, size_t n, wt_error *err);
int cvk_u32(cv_kvlist *l, const char *key, uint64_t v, wt_error *err);
int cvk_bool(cv_kvlist *l, const char *key, int v, wt_error *err);
/* A ready value (an array): the list takes val's buffer. */
int cvk_take(cv_kvlist *l, const char *key, uint32_t type, wt_buf *val, wt_error *err);
/* Drop key if present (gguf-py's remove_key). */
void cvk_remove(cv_kvlist *l, const char *key);
int cvk_emit(const cv_kvlist *l, cv_kv_sink *sink, wt_error *err);
void cvk_free(cv_kvlist *l);

/* ---- the token table (vocab_table.c) ---------------------------------- */

/* Token i is pool[off[i] .. off[i]+len[i]). */
typedef struct cv_table {
  uint64_t n;
  uint64_t *off;
  uint32_t *len;
  float *score; /* NULL for a BPE vocabulary */
  int32_t *type;
  wt_buf pool;
} cv_table;

/* n tokens "[PAD<i>]" of type UNUSED (scores -10000 when with_scores). */
int cvt_init(cv_table *t, uint64_t n, int with_scores, wt_error *err);
int cvt_set(cv_table *t, uint64_t i, const char *p, size_t n, wt_error *err);
/* Token i's text. */
static inline const char *cvt_text(const cv_table *t, uint64_t i) {
  return t->pool.p + t->off[i];
}
/* tokenizer.ggml.tokens, .scores, .token_type as values. */
int cvt_tokens_value(const cv_table *t, wt_buf *out);
int cvt_scores_value(const cv_table *t, wt_buf *out);
int cvt_types_value(const cv_table *t, wt_buf *out);
void cvt_free(cv_table *t);

/* A hash index of n strings given by a callback: id of a string, or -1. */
typedef const char *(*cv_str_at)(const void *ctx, size_t i, size_t *n);
typedef struct cv_index {
  uint32_t *slot; /* id + 1, 0 empty */
  size_t mask;
  cv_str_at at;
  const void *ctx;
} cv_index;
int cvx_build(cv_index *x, size_t n, cv_str_at at, const void *ctx);
/* The first id whose string is p[0..n), or -1; cvx_add's duplicate: the id
** already there (>= 0) or -1 when added. */
int64_t cvx_find(const cv_index *x, const char *p, size_t n);
int64_t cvx_add(cv_index *x, uint32_t id);
void cvx_free(cv_index *x);

/* gguf-py's does_token_look_special() (conversion/base.py, de3ff815; the
** same list in c392e50's convert_hf_to_gguf.py). */
int cv_looks_special(const char *p, size_t n);

/* ---- JSON (vocab_json.c) ---------------------------------------------- */

typedef struct cv_json {
  const char *p;
  size_t n;
  json_doc doc;
  const char *file; /* the file's name, for messages */
  const cv_vocab_files *files;
  wt_buf scratch; /* decoded strings */
} cv_json;

/* Parse file (absent: returns 0 with j->doc.n == 0).  The root must be
** an object when root_object. */
int cvj_open(cv_json *j, const cv_file_bytes *b, const char *file, const cv_vocab_files *f,
             int root_object, wt_error *err);
void cvj_close(cv_json *j);
static inline int cvj_present(const cv_json *j) {
  return j->doc.n > 0;
}
static inline int cvj_type(const cv_json *j, size_t t) {
  return j->doc.tok[t].type;
}
/* The value of member key of object t (the last one, as Python's dict keeps
** it), or 0 when t is not an object or has no such member. */
size_t cvj_get(const cv_json *j, size_t t, const char *key);
/* Members and elements: the first child of t, and the token after child c. */
static inline size_t cvj_first(const cv_json *j, size_t t) {
  (void)j;
  return t + 1;
}
static inline size_t cvj_next(const cv_json *j, size_t c) {
  return j->doc.tok[c].next;
}
static inline uint32_t cvj_count(const cv_json *j, size_t t) {
  return j->doc.tok[t].len;
}
/* A string token's decoded bytes (valid UTF-8 is checked: Python would
** hold it as str).  *p stays valid until the next cvj_str on scratch2 ==
** 0, or for ever when the string had no escapes.  Returns 0 or -1. */
int cvj_str(cv_json *j, size_t t, const char **p, size_t *n, wt_error *err);
/* Whether t is a string equal to s. */
int cvj_is(cv_json *j, size_t t, const char *s);
/* A JSON integer (Python int, bool included as 0/1 when bool_ok) into *v:
** 1, or 0 when t is something else or out of int64's range. */
int cvj_int(const cv_json *j, size_t t, int bool_ok, int64_t *v);
/* Python's truthiness of the value. */
int cvj_truthy(const cv_json *j, size_t t);
/* An object's items in the order of Python's dict: each key where it first
** appears, with the value of its last appearance.  *items is malloc'd. */
typedef struct cv_json_item {
  size_t key, value; /* tokens */
  size_t index;      /* the member's position */
} cv_json_item;
int cvj_items(cv_json *j, size_t t, cv_json_item **items, size_t *n_items, wt_error *err);

/* ---- the SentencePiece model (vocab_spm.c) ----------------------------- */

typedef struct cv_spm_piece {
  const char *p;
  uint32_t n;
  int32_t type; /* ModelProto.SentencePiece.Type, 1..6 */
  float score;
} cv_spm_piece;

typedef struct cv_spm {
  cv_spm_piece *piece;
  size_t n;
  int model_type;       /* TrainerSpec.model_type: 1 unigram, 2 bpe, 3 word, 4 char */
  int byte_fallback;    /* TrainerSpec.byte_fallback */
  int add_dummy_prefix; /* NormalizerSpec.add_dummy_prefix (default 1) */
  int remove_extra_whitespaces;
} cv_spm;

/* Parse a tokenizer.model and check it as SentencePieceProcessor's loader
** does.  Messages name the piece, without the file. */
int cv_spm_parse(const unsigned char *p, size_t n, cv_spm *m, wt_error *err);
void cv_spm_free(cv_spm *m);

/* ---- the recipes' parts ----------------------------------------------- */

/* What one recipe run shares. */
typedef struct cv_run {
  const cv_vocab_files *f;
  cv_era era;
  cv_kvlist kv;
  cv_json config, tok_config, tok_json;
  int64_t hp_vocab_size; /* config.json's vocab_size, or -1 */
  const char *pre;
  uint64_t n_tokens, n_merges;
} cv_run;

/* _set_vocab_sentencepiece (SentencePiece tokens, then SpecialVocab). */
#define CV_NOT_FOUND 1 /* returned when tokenizer.model is absent */
int cv_sp_vocab(cv_run *r, wt_error *err);
/* Phi3MiniModel.set_vocab's own SentencePiece reading. */
int cv_sp_vocab_phi3(cv_run *r, wt_error *err);
/* _set_vocab_gpt2 (tokenizer.json's BPE, its pre-tokenizer, SpecialVocab). */
int cv_bpe_vocab(cv_run *r, wt_error *err);

/* The pre-tokenizer's name from tokenizer.json (vocab_pre.c); base: the
** model's vocab in id order (n_base strings) and merges. */
typedef struct cv_bpe_model {
  uint64_t n_base;
  const char **tok; /* tok[i], tok_n[i]: token i of model.vocab */
  uint32_t *tok_n;
  uint64_t n_merges;
  wt_buf merges; /* the merges as "a b" strings, each preceded by its u64 length */
  size_t model, pre_tokenizer, normalizer; /* tokens of tokenizer.json, 0 absent */
  int ignore_merges, byte_fallback;
} cv_bpe_model;
int cv_pre_name(cv_run *r, const cv_bpe_model *m, const char **name, wt_error *err);
/* The digest the table of names pins a vocabulary with (FNV-1a, 64 bits,
** over each token and then each merge, every string preceded by its length
** as 8 little-endian bytes). */
uint64_t cv_pre_digest(const cv_bpe_model *m);

/* gguf-py's SpecialVocab: load it as the constructor does, then add it as
** add_to_gguf() does.  types: the special token types (NULL: the default
** list); n_vocab: < 0 for None. */
typedef struct cv_special_opts {
  int load_merges;
  const char *const *types; /* NULL-terminated */
  int64_t n_vocab;
  /* _set_special_token() calls after loading, in order (type NULL ends) */
  struct {
    const char *type;
    int64_t id;
  } set[6];
  int no_chat_template; /* chat_template = None before add_to_gguf */
} cv_special_opts;
int cv_special_vocab(cv_run *r, const cv_special_opts *o, wt_error *err);
/* tokenizer.json's model.merges as SpecialVocab reads them, appended to out
** (each merge: u64 length, bytes); *count merges. */
int cv_merges_read(cv_run *r, wt_buf *out, uint64_t *count, wt_error *err);

#endif
