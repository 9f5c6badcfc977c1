/*
** vocab_spm.c: SentencePiece's tokenizer.model, a serialized ModelProto,
** read without protobuf or sentencepiece.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The message (sentencepiece_model.proto, google/sentencepiece v0.2.0):
**
**   ModelProto      1 pieces (repeated SentencePiece)  2 trainer_spec
**                   3 normalizer_spec  4 self_test_data  5 denormalizer_spec
**   SentencePiece   1 piece (string)  2 score (float)  3 type (enum, default
**                   NORMAL=1; UNKNOWN=2 CONTROL=3 USER_DEFINED=4 UNUSED=5
**                   BYTE=6)
**   TrainerSpec     3 model_type (UNIGRAM=1 BPE=2 WORD=3 CHAR=4)
**                   35 byte_fallback (bool)
**   NormalizerSpec  3 add_dummy_prefix (default true)
**                   4 remove_extra_whitespaces (default true)
**
** Protobuf's rules as the C++ parser applies them to proto2: fields may come
** in any order and repeat (the last scalar wins; an embedded message seen
** twice is merged); unknown fields are skipped by wire type; an enum value
** the schema does not list leaves the field unset (type stays NORMAL).
** Wire types 3 and 4 (groups) are refused, as is a varint of more than 10
** bytes, a length past the end, or a field number 0.
**
** Then the checks SentencePieceProcessor::Load makes before the converter
** may read a piece (model_interface.cc, InitializePieces): no empty piece,
** no piece twice, exactly one UNKNOWN piece, and a BYTE piece only with
** byte_fallback and only as <0xXX>.  A piece must also be valid UTF-8: the
** converter holds it as a Python str.
**
** Memory: one cv_spm_piece per piece, each pointing into the input, so
** bounded by the input's size.
*/
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "vocab_int.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* A cursor over one message. */
typedef struct pb {
  const unsigned char *p, *end;
  const unsigned char *base; /* the file's first byte, for offsets */
} pb;

static int pb_varint(pb *c, uint64_t *v, wt_error *err) {
  uint64_t x = 0;
  for (int i = 0; i < 10; i++) {
    if (c->p >= c->end)
      return wt_fail(err, "tokenizer.model is cut short at byte %zu", (size_t)(c->p - c->base));
    unsigned b = *c->p++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return wt_fail(err, "malformed protobuf varint at byte %zu", (size_t)(c->p - c->base));
}

/* Read a field's key; *len (for WIRE_LEN) checked against the message. */
static int pb_key(pb *c, uint32_t *field, int *wire, wt_error *err) {
  uint64_t k;
  size_t at = (size_t)(c->p - c->base);
  if (pb_varint(c, &k, err) != 0)
    return -1;
  *field = (uint32_t)(k >> 3);
  *wire = (int)(k & 7);
  if ((k >> 3) == 0 || (k >> 3) > 0x1fffffff)
    return wt_fail(err, "malformed protobuf: field number %llu at byte %zu",
                   (unsigned long long)(k >> 3), at);
  return 0;
}

/* The bytes of a length-delimited field. */
static int pb_bytes(pb *c, const unsigned char **p, size_t *n, wt_error *err) {
  uint64_t len;
  if (pb_varint(c, &len, err) != 0)
    return -1;
  if (len > (uint64_t)(c->end - c->p))
    return wt_fail(err,
                   "malformed protobuf: a field of %llu bytes at byte %zu runs past its message",
                   (unsigned long long)len, (size_t)(c->p - c->base));
  *p = c->p;
  *n = (size_t)len;
  c->p += len;
  return 0;
}

/* Skip a field of wire type w; a varint's value in *v when w is VARINT. */
static int pb_skip(pb *c, int w, uint64_t *v, wt_error *err) {
  const unsigned char *p;
  size_t n;
  switch (w) {
  case WIRE_VARINT: {
    uint64_t x;
    if (pb_varint(c, &x, err) != 0)
      return -1;
    if (v)
      *v = x;
    return 0;
  }
  case WIRE_I64:
  case WIRE_I32: {
    size_t k = w == WIRE_I64 ? 8 : 4;
    if ((size_t)(c->end - c->p) < k)
      return wt_fail(err, "tokenizer.model is cut short at byte %zu", (size_t)(c->p - c->base));
    if (v) {
      uint64_t x = 0;
      for (size_t i = 0; i < k; i++)
        x |= (uint64_t)c->p[i] << (8 * i);
      *v = x;
    }
    c->p += k;
    return 0;
  }
  case WIRE_LEN:
    return pb_bytes(c, &p, &n, err);
  default:
    return wt_fail(err, "malformed protobuf: wire type %d at byte %zu", w,
                   (size_t)(c->p - c->base));
  }
}

/* One SentencePiece message into *sp. */
static int parse_piece(pb c, cv_spm_piece *sp, wt_error *err) {
  sp->p = "";
  sp->n = 0;
  sp->type = 1;
  sp->score = 0.0f;
  while (c.p < c.end) {
    uint32_t f;
    int w;
    uint64_t v = 0;
    if (pb_key(&c, &f, &w, err) != 0)
      return -1;
    if (f == 1 && w == WIRE_LEN) {
      const unsigned char *p;
      size_t n;
      if (pb_bytes(&c, &p, &n, err) != 0)
        return -1;
      if (n > UINT32_MAX)
        return wt_fail(err, "a piece of %zu bytes", n);
      sp->p = (const char *)p;
      sp->n = (uint32_t)n;
    } else if (f == 2 && w == WIRE_I32) {
      if (pb_skip(&c, w, &v, err) != 0)
        return -1;
      uint32_t u = (uint32_t)v;
      memcpy(&sp->score, &u, 4);
    } else if (f == 3 && w == WIRE_VARINT) {
      if (pb_skip(&c, w, &v, err) != 0)
        return -1;
      if (v >= 1 && v <= 6)
        sp->type = (int32_t)v; /* else: an unknown enum value */
    } else if (pb_skip(&c, w, NULL, err) != 0) {
      return -1;
    }
  }
  return 0;
}

/* TrainerSpec or NormalizerSpec: the fields kept. */
static int parse_spec(pb c, int trainer, cv_spm *m, wt_error *err) {
  while (c.p < c.end) {
    uint32_t f;
    int w;
    uint64_t v = 0;
    if (pb_key(&c, &f, &w, err) != 0)
      return -1;
    if (pb_skip(&c, w, &v, err) != 0)
      return -1;
    if (w != WIRE_VARINT)
      continue;
    if (trainer && f == 3 && v >= 1 && v <= 4)
      m->model_type = (int)v;
    if (trainer && f == 35)
      m->byte_fallback = v != 0;
    if (!trainer && f == 3)
      m->add_dummy_prefix = v != 0;
    if (!trainer && f == 4)
      m->remove_extra_whitespaces = v != 0;
  }
  return 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static const char *piece_at(const void *ctx, size_t i, size_t *n) {
  const cv_spm *m = ctx;
  *n = m->piece[i].n;
  return m->piece[i].p;
}

/* SentencePieceProcessor's checks on the pieces. */
static int check_pieces(const cv_spm *m, wt_error *err) {
  cv_index x;
  int64_t unk = -1;
  char q[WT_QUOTE_SIZE];
  if (m->n == 0)
    return wt_fail(err, "tokenizer.model has no pieces");
  if (cvx_build(&x, m->n, piece_at, m) != 0)
    return wt_fail(err, "out of memory");
  for (size_t i = 0; i < m->n; i++) {
    const cv_spm_piece *sp = &m->piece[i];
    if (sp->n == 0) {
      cvx_free(&x);
      return wt_fail(err, "tokenizer.model: piece %zu is empty (sentencepiece refuses the model)",
                     i);
    }
    if (!wt_utf8_valid(sp->p, sp->n)) {
      cvx_free(&x);
      return wt_fail(err, "tokenizer.model: piece %zu, %s, is not valid UTF-8", i,
                     CV_Q(q, sp->p, sp->n));
    }
    int64_t dup = cvx_add(&x, (uint32_t)i);
    if (dup >= 0) {
      cvx_free(&x);
      return wt_fail(
          err,
          "tokenizer.model: piece %zu, %s, is piece %lld again (sentencepiece refuses the model)",
          i, CV_Q(q, sp->p, sp->n), (long long)dup);
    }
    if (sp->type == CV_TOK_UNKNOWN) {
      if (unk >= 0) {
        cvx_free(&x);
        return wt_fail(err, "tokenizer.model: pieces %lld and %zu are both the unknown piece",
                       (long long)unk, i);
      }
      unk = (int64_t)i;
    }
    if (sp->type == CV_TOK_BYTE) {
      int ok = sp->n == 6 && memcmp(sp->p, "<0x", 3) == 0 && sp->p[5] == '>' &&
               hexval(sp->p[3]) >= 0 && hexval(sp->p[4]) >= 0;
      if (!m->byte_fallback || !ok) {
        cvx_free(&x);
        return wt_fail(err, "tokenizer.model: piece %zu, %s, is a byte piece %s", i,
                       CV_Q(q, sp->p, sp->n),
                       ok ? "but byte_fallback is off" : "not of the form <0xXX>");
      }
    }
  }
  cvx_free(&x);
  if (unk < 0)
    return wt_fail(err, "tokenizer.model has no unknown piece (sentencepiece refuses the model)");
  return 0;
}

int cv_spm_parse(const unsigned char *p, size_t n, cv_spm *m, wt_error *err) {
  pb c = {p, p + n, p};
  size_t cap = 0;
  memset(m, 0, sizeof(*m));
  m->add_dummy_prefix = 1;
  m->remove_extra_whitespaces = 1;
  m->model_type = 1;
  while (c.p < c.end) {
    uint32_t f;
    int w;
    if (pb_key(&c, &f, &w, err) != 0)
      goto fail;
    if (w == WIRE_LEN && (f == 1 || f == 2 || f == 3)) {
      const unsigned char *q;
      size_t k;
      if (pb_bytes(&c, &q, &k, err) != 0)
        goto fail;
      pb sub = {q, q + k, p};
      if (f == 1) {
        if (m->n == cap) {
          /* every piece takes at least 2 bytes of the input */
          size_t ncap = cap ? 2 * cap : 256;
          cv_spm_piece *np = realloc(m->piece, ncap * sizeof(*np));
          if (!np) {
            wt_fail(err, "out of memory for the pieces");
            goto fail;
          }
          m->piece = np;
          cap = ncap;
        }
        if (m->n >= CV_MAX_TOKENS) {
          wt_fail(err, "tokenizer.model has too many pieces");
          goto fail;
        }
        if (parse_piece(sub, &m->piece[m->n], err) != 0)
          goto fail;
        m->n++;
      } else if (parse_spec(sub, f == 2, m, err) != 0) {
        goto fail;
      }
    } else if (pb_skip(&c, w, NULL, err) != 0) {
      goto fail;
    }
  }
  if (check_pieces(m, err) != 0)
    goto fail;
  return 0;
fail:
  cv_spm_free(m);
  return -1;
}

void cv_spm_free(cv_spm *m) {
  free(m->piece);
  m->piece = NULL;
  m->n = 0;
}
