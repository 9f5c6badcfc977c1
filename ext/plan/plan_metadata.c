/*
** plan_metadata.c: how the memory planner reads a GGUF's metadata (the
** architecture's keys as integers, per layer, the vocabulary), with an
** error naming the key where llama.cpp would refuse it.  Shared by the
** planner's files through memory_plan_int.h.  Layer: plan.
*/
#include <string.h>

#include "formats/gguf_value.h"
#include "memory_plan_int.h"

/* The entry named "{arch}.suffix" (or exactly suffix when global), or NULL. */
const wt_meta *mp_find(mp_ctx *x, const char *suffix, int global) {
  size_t ns = strlen(suffix), i;
  for (i = 0; i < x->m->n_meta; i++) {
    const wt_meta *kv = &x->m->meta[i];
    if (global) {
      if (kv->key.n == ns && memcmp(kv->key.p, suffix, ns) == 0)
        return kv;
    } else if (kv->key.n == x->arch.n + 1 + ns && memcmp(kv->key.p, x->arch.p, x->arch.n) == 0 &&
               kv->key.p[x->arch.n] == '.' && memcmp(kv->key.p + x->arch.n + 1, suffix, ns) == 0) {
      return kv;
    }
  }
  return NULL;
}

/* The value of scalar entry kv (not an array or a string) into *v. */
int mp_scalar(mp_ctx *x, const wt_meta *kv, gguf_scalar *v) {
  gguf_cursor c;
  gguf_cursor_init(&c, x->m, x->data, kv);
  if (gguf_read_scalar(&c, kv->type, v) != 0)
    return wt_fail(x->err, "key '%.*s' runs past the end of the header", (int)kv->key.n, kv->key.p);
  return 0;
}

/* Read one unsigned integer of type t at cursor c into *v. */
static int mp_read_uint(mp_ctx *x, gguf_cursor *c, uint32_t t, const char *key, uint64_t *v) {
  gguf_scalar s;
  if (t == GGUF_TYPE_BOOL || t == GGUF_TYPE_STRING || t == GGUF_TYPE_FLOAT32 ||
      t == GGUF_TYPE_FLOAT64 || t == GGUF_TYPE_ARRAY)
    return wt_fail(x->err, "key '%.*s.%s' is a %s, not an integer", (int)x->arch.n, x->arch.p, key,
                   gguf_type_name(t) ? gguf_type_name(t) : "bad type");
  if (gguf_read_scalar(c, t, &s) != 0)
    return wt_fail(x->err, "key '%.*s.%s' runs past the end of the header", (int)x->arch.n,
                   x->arch.p, key);
  if (s.kind == GGUF_SCALAR_BIGUINT) {
    *v = s.u;
  } else if (s.i < 0) {
    return wt_fail(x->err, "key '%.*s.%s' is negative (%lld)", (int)x->arch.n, x->arch.p, key,
                   (long long)s.i);
  } else {
    *v = (uint64_t)s.i;
  }
  return 0;
}

/* The scalar integer "{arch}.key" into *v; when absent, *v = dflt, or an
** error naming the key when required.  *found says whether it was there. */
int mp_uint(mp_ctx *x, const char *key, int required, uint64_t dflt, uint64_t *v, int *found) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_cursor c;
  if (found)
    *found = kv != NULL;
  if (kv == NULL) {
    if (required)
      return wt_fail(x->err, "the memory planner needs key '%.*s.%s', which the file lacks",
                     (int)x->arch.n, x->arch.p, key);
    *v = dflt;
    return 0;
  }
  gguf_cursor_init(&c, x->m, x->data, kv);
  return mp_read_uint(x, &c, kv->type, key, v);
}

/* "{arch}.key" for every layer, as llama.cpp's get_key_or_arr reads it: a
** scalar for all layers, or an integer array of exactly n_layer elements.
** Absent: every layer gets dflt[il] (dflt NULL: an error). */
int mp_per_layer(mp_ctx *x, const char *key, const uint64_t *dflt, uint64_t *out) {
  const wt_meta *kv = mp_find(x, key, 0);
  gguf_cursor c;
  uint64_t il, v;
  if (kv == NULL) {
    if (dflt == NULL)
      return wt_fail(x->err, "the memory planner needs key '%.*s.%s', which the file lacks",
                     (int)x->arch.n, x->arch.p, key);
    memcpy(out, dflt, (size_t)x->n_layer * sizeof(*out));
    return 0;
  }
  gguf_cursor_init(&c, x->m, x->data, kv);
  if (kv->type != GGUF_TYPE_ARRAY) {
    if (mp_read_uint(x, &c, kv->type, key, &v) != 0)
      return -1;
    for (il = 0; il < x->n_layer; il++)
      out[il] = v;
    return 0;
  }
  if (kv->count != x->n_layer)
    return wt_fail(x->err, "key '%.*s.%s' is an array of %llu elements; block_count is %llu",
                   (int)x->arch.n, x->arch.p, key, (unsigned long long)kv->count,
                   (unsigned long long)x->n_layer);
  for (il = 0; il < x->n_layer; il++)
    if (mp_read_uint(x, &c, kv->elem_type, key, &out[il]) != 0)
      return -1;
  return 0;
}

/* n_vocab: "{arch}.vocab_size", else the number of tokens. */
int mp_vocab(mp_ctx *x, uint64_t *n_vocab) {
  const wt_meta *kv;
  int found;
  if (mp_uint(x, "vocab_size", 0, 0, n_vocab, &found) != 0)
    return -1;
  if (found)
    return 0;
  kv = mp_find(x, "tokenizer.ggml.tokens", 1);
  if (kv == NULL || kv->type != GGUF_TYPE_ARRAY)
    return wt_fail(x->err, "the memory planner needs '%.*s.vocab_size' or 'tokenizer.ggml.tokens'",
                   (int)x->arch.n, x->arch.p);
  *n_vocab = kv->count;
  return 0;
}
