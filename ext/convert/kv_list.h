/*
** kv_list.h: the GGUF metadata entries of a conversion, in the order they
** are added, as gguf-py's GGUFWriter keeps them.  Pure C, no SQLite.
** Layer: convert.
**
** The list is the converter's cv_kv_sink (kv_sink.h): every part adds
** its entries to it, and the header is encoded from it in that order.
** What gguf-py does with a key added twice depends on its version: at
** c392e50 GGUFWriter.add_key_value raises ("Duplicated key name"), at
** de3ff815 it warns and replaces the value where the key stands; the
** list does the one its converter does (replace).  As gguf-py's
** add_string and add_array do, an empty string or an empty array is not
** added at all (the helpers below skip them; the sink takes what it is
** given).
*/
#ifndef WT_CV_KV_LIST_H
#define WT_CV_KV_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "convert/kv_sink.h"
#include "formats/gguf_value.h"
#include "write/gguf_writer.h"

typedef struct cv_kv_entry {
  size_t key_off, key_len; /* in bytes */
  uint32_t type;
  size_t val_off, val_len; /* in bytes */
} cv_kv_entry;

typedef struct cv_kv_list {
  wt_buf bytes; /* keys and values, one after the other */
  cv_kv_entry *e;
  size_t n, cap;
  int replace; /* 1: a repeated key replaces the value in place (de3ff815) */
} cv_kv_list;

/* Free what the list holds; it is empty and usable again. */
void cv_kv_list_free(cv_kv_list *l);

/* The list as a sink. */
cv_kv_sink cv_kv_list_sink(cv_kv_list *l);

/* Add an entry whose value (after the type tag) is val[0..n): 0, or -1
** with err set (a repeated key where the list does not replace, a value
** that is not one well-formed value of type, out of memory). */
int cv_kv_add(cv_kv_list *l, const char *key, uint32_t type, const unsigned char *val, size_t n,
              wt_error *err);

/* Typed helpers: 0, or -1 with err set.  A number that does not fit its
** type is an error naming the key ("does not fit a FLOAT32"). */
int cv_kv_u32(cv_kv_list *l, const char *key, uint64_t v, wt_error *err);
int cv_kv_i32(cv_kv_list *l, const char *key, int64_t v, wt_error *err);
int cv_kv_f32(cv_kv_list *l, const char *key, double v, wt_error *err);
int cv_kv_bool(cv_kv_list *l, const char *key, int v, wt_error *err);
int cv_kv_str(cv_kv_list *l, const char *key, const char *s, wt_error *err); /* "" skipped */
/* An ARRAY of n STRINGs (none: skipped). */
int cv_kv_strs(cv_kv_list *l, const char *key, const char *const *s, size_t n, wt_error *err);

/* The entry of key, or NULL. */
const cv_kv_entry *cv_kv_find(const cv_kv_list *l, const char *key);

/* The list as gguf_writer.h's entries (pointing into the list: keep it
** while they are used): a malloc'd array of l->n (free it), or NULL when
** out of memory. */
gw_kv *cv_kv_list_gw(const cv_kv_list *l);

#endif
