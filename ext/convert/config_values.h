/*
** config_values.h: the values of a config.json as the converter's Python
** reads them.  Pure C, no SQLite.  Layer: convert.
**
** formats/hf_config.h flattens config.json one level and keeps every value
** as its JSON text; here those texts become what Python's json module
** makes of them, so that each key the converter reads has the value,
** and the failures, it would have there:
**   - a key given twice is its last value (a dict keeps the last);
**   - 2048 is an int, 2048.0 and 1e3 are floats; true and false are ints
**     too (1 and 0), as bool is an int in Python;
**   - an integer written to a UINT32 must fit it (struct.pack refuses
**     -1, 2^32 and 2048.0), a number written to a FLOAT32 must not
**     overflow it (PyFloat_Pack4's rule);
**   - find_hparam(keys) is the first key present, null or not;
**     hparams.get(key) is None for a missing key and for null.
** A nested object (rope_scaling) is reached as "rope_scaling.factor".
**
** Every error names the key and says what it holds; the caller says
** which file.
*/
#ifndef WT_CV_CONFIG_VALUES_H
#define WT_CV_CONFIG_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "formats/hf_config.h"

/* A config.json or generation_config.json, as the converter reads it:
** open(path, encoding="utf-8") then json.load, so text that is not UTF-8
** is an error ("is not valid UTF-8 (byte 17)") before any JSON is read;
** then wt_config_parse(), flattened one level.  0, or -1 with err set. */
int cv_config_parse(const char *text, size_t n, wt_config *out, wt_error *err);

/* The entry of key, the last one when repeated, or NULL. */
const wt_config_entry *cv_cfg_find(const wt_config *c, const char *key);

/* hparams.get(key): the entry when present and not null, else NULL. */
const wt_config_entry *cv_cfg_get(const wt_config *c, const char *key);

/* find_hparam(keys): the entry of the first of the NULL-terminated keys
** that is present (null included), or NULL. */
const wt_config_entry *cv_cfg_first(const wt_config *c, const char *const *keys);

/* 1 when object key (rope_scaling) is present and not null: an object
** with members (flattened), {} or any other value. */
int cv_cfg_present(const wt_config *c, const char *key);

/* 1 when e is the JSON literal null. */
int cv_cfg_is_null(const wt_config_entry *e);

/* e as an integer (an int, or true/false) in [0, max]: 0 with *out set,
** or -1 with err set ("num_attention_heads is 4.5, not an integer"). */
int cv_cfg_uint(const wt_config_entry *e, uint64_t max, uint64_t *out, wt_error *err);

/* e as a number (int or float): 0 with *out set, or -1 with err set. */
int cv_cfg_real(const wt_config_entry *e, double *out, wt_error *err);

/* 1 when e holds an int (or a bool), 0 for any other value. */
int cv_cfg_is_int(const wt_config_entry *e);

/* e as a string, decoded, malloc'd and NUL-terminated: 0 with *out set
** (free it), or -1 with err set (not a string, holds a NUL, out of
** memory). */
int cv_cfg_string(const wt_config_entry *e, char **out, wt_error *err);

/* e as a JSON array of numbers: 0 with *out (malloc'd; free it) and *n
** set, or -1 with err set. */
int cv_cfg_reals(const wt_config_entry *e, double **out, size_t *n, wt_error *err);

/* e's text as a Python bool test would see it ("if value:"): 0 for null,
** false, 0, 0.0, "", [] and {}, else 1. */
int cv_cfg_truthy(const wt_config_entry *e);

#endif
