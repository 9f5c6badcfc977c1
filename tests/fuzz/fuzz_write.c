/*
** fuzz_write.c: libFuzzer target for the header encoders (ext/write/).
**
** An input is an edit script followed by a file: byte 0 says how many
** 4-byte edits follow (mod 16), the rest is the file.  The file is parsed
** (GGUF or safetensors; when neither parses, an empty model of the format
** the first edit names), the edits are applied to the harness's own list
** of its metadata (GGUF, written little- or big-endian as the first
** edit's bit 0x20 says: keys removed, added and retyped with numbers,
** strings of any bytes up to 1 MiB, arrays of every element type, nested
** arrays included; safetensors: keys removed, added and changed, values
** with quotes, backslashes, control bytes and multi-byte UTF-8, the crate's
** tensor order or the file's), the header is encoded, the tensors' bytes
** are placed where it says, and the result is parsed again with the
** strict parser.  Checked: the encoder fails exactly when the harness
** expects it to (a general.alignment that is not a UINT32 power of two, a
** nested array, a tensor of unknown size), and otherwise the parse gives
** back every key in order with its type and value bytes, every tensor's
** name, type, shape and bytes, and the alignment.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dtype.h"
#include "formats/gguf_parser.h"
#include "formats/safetensors_parser.h"
#include "write/gguf_writer.h"
#include "write/safetensors_writer.h"
#include "write/write_buf.h"

#define MAX_EDITS   16
#define EDIT_BYTES  4
#define MAX_ENTRIES (4096 + MAX_EDITS)
#define LONG_STRING 4096 /* a long string edit is e[3] times this */

/* One metadata entry of the harness's list: key and value in wt_bufs. */
typedef struct entry {
  wt_buf key, val;
  uint32_t type;
} entry;

static entry ents[MAX_ENTRIES];

/* Equal byte strings (either may be NULL when empty). */
static int same(const void *a, size_t an, const void *b, size_t bn) {
  return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}
static size_t n_ents;

static void ents_clear(void) {
  size_t i;
  for (i = 0; i < n_ents; i++) {
    free(ents[i].key.p);
    free(ents[i].val.p);
  }
  memset(ents, 0, sizeof(ents));
  n_ents = 0;
}

static void ent_remove(size_t i) {
  free(ents[i].key.p);
  free(ents[i].val.p);
  memmove(&ents[i], &ents[i + 1], (n_ents - i - 1) * sizeof(*ents));
  n_ents--;
  memset(&ents[n_ents], 0, sizeof(*ents));
}

/* A new entry named "fuzz.N" (N: the edit's number). */
static entry *ent_new(int edit) {
  entry *e = &ents[n_ents++];
  WB_LIT(&e->key, "fuzz.");
  wb_dec(&e->key, (uint64_t)edit);
  return e;
}

/* What edit k of operation op acts on: NULL after removing entry i % n
** (op 0), entry i % n emptied (op 2, to be given a new value), else a new
** entry. */
static entry *edit_target(uint8_t op, uint8_t i, int k) {
  entry *x;
  if (op == 0) {
    if (n_ents > 0)
      ent_remove(i % n_ents);
    return NULL;
  }
  if (op == 2 && n_ents > 0) {
    x = &ents[i % n_ents];
    x->val.n = 0;
    return x;
  }
  return ent_new(k);
}

/* ---- GGUF --------------------------------------------------------------- */

/* Append one value of scalar type t made from seed s; 1 when t is ARRAY. */
static int gguf_scalar_value(wt_buf *b, uint32_t t, uint8_t s, uint32_t len) {
  uint32_t i;
  if (t == GGUF_TYPE_STRING) {
    wb_u64(b, len);
    for (i = 0; i < len; i++)
      wb_put(b, &(uint8_t){(uint8_t)(s + i * 131)}, 1);
    return 0;
  }
  if (t == GGUF_TYPE_ARRAY)
    return 1;
  if (t == GGUF_TYPE_FLOAT32 || t == GGUF_TYPE_FLOAT64)
    return gw_put_number(b, t, 1, 0, (double)(int8_t)s / 3.0) < 0 ? abort(), 0 : 0;
  if (gw_put_number(b, t, 0, t == GGUF_TYPE_BOOL ? s & 1 : (int8_t)s & 0x7f, 0) != 0)
    abort(); /* 0..127 fits every integer type */
  return 0;
}

/* Apply edit e (number k). */
static void gguf_edit(const uint8_t *e, int k) {
  uint8_t op = e[0] % 5;
  uint32_t t = e[2] % GGUF_TYPE_COUNT, count, i;
  entry *x;
  if ((x = edit_target(op, e[1], k)) == NULL)
    return;
  if (op == 3) {
    count = e[3] % 64;
    x->type = GGUF_TYPE_ARRAY;
    wb_u32(&x->val, t);
    wb_u64(&x->val, count);
    if (t == GGUF_TYPE_ARRAY) {
      for (i = 0; i < count; i++) /* what a nested array's elements would be */
        wb_u32(&x->val, 0), wb_u32(&x->val, 0), wb_u64(&x->val, 0);
      return;
    }
    for (i = 0; i < count; i++)
      gguf_scalar_value(&x->val, t, (uint8_t)(e[1] + i), i % 7);
    return;
  }
  if (t == GGUF_TYPE_ARRAY)
    t = GGUF_TYPE_STRING;
  x->type = t;
  gguf_scalar_value(&x->val, t, e[1], op == 4 ? (uint32_t)e[3] * LONG_STRING : e[3] % 40);
}

/* Whether ents holds an array of arrays, which the writer must refuse. */
static int gguf_nested(void) {
  size_t i;
  for (i = 0; i < n_ents; i++)
    if (ents[i].type == GGUF_TYPE_ARRAY && (uint8_t)ents[i].val.p[0] == GGUF_TYPE_ARRAY)
      return 1;
  return 0;
}

/* Whether ents holds a general.alignment the writer must refuse; *align. */
static int gguf_bad_alignment(uint64_t *align) {
  size_t i;
  *align = GW_ALIGNMENT;
  for (i = 0; i < n_ents; i++) {
    uint32_t a;
    if (ents[i].key.n != 17 || memcmp(ents[i].key.p, "general.alignment", 17) != 0)
      continue;
    if (ents[i].type != GGUF_TYPE_UINT32)
      return 1;
    memcpy(&a, ents[i].val.p, 4); /* little-endian hosts only, like libFuzzer's */
    *align = a;
    return a == 0 || (a & (a - 1)) != 0;
  }
  return 0;
}

static void gguf_run(const uint8_t *edits, int n_edits, const uint8_t *file, size_t size,
                     const wt_model *m) {
  gw_kv kv[MAX_ENTRIES];
  gw_tensor *t = calloc(m->n_tensors + 1, sizeof(*t));
  wt_buf hdr = {0};
  wt_model back = {0};
  wt_error err;
  uint64_t align, data, want_align;
  unsigned char *out = NULL;
  size_t i, n;
  int k, j, must_fail = 0, rc, be = n_edits > 0 && (edits[0] & 0x20);
  for (i = 0; i < m->n_meta && n_ents < MAX_ENTRIES - MAX_EDITS; i++) {
    entry *e = &ents[n_ents++];
    wb_put(&e->key, m->meta[i].key.p, m->meta[i].key.n);
    e->type = m->meta[i].type;
    if (gw_value_copy(&e->val, m, file, &m->meta[i]) != 0)
      abort(); /* the parser validated the value */
  }
  for (k = 0; k < n_edits; k++)
    gguf_edit(edits + k * EDIT_BYTES, k);
  must_fail |= gguf_nested() | gguf_bad_alignment(&want_align);
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *s = &m->tensors[i];
    must_fail |= !s->nbytes_known;
    t[i] = (gw_tensor){s->name, (uint32_t)s->type_id, s->ndim, {0}, 0, 0};
    for (j = 0; j < s->ndim; j++)
      t[i].dims[j] = s->dims[j];
  }
  for (i = 0; i < n_ents; i++)
    kv[i] = (gw_kv){{ents[i].key.p, ents[i].key.n},
                    ents[i].type,
                    (const unsigned char *)ents[i].val.p,
                    ents[i].val.n};
  rc = gguf_write_header_order(kv, n_ents, t, m->n_tensors, be, &hdr, &align, &data, &err);
  if (rc != 0 && hdr.oom)
    goto done;
  if ((rc != 0) != must_fail || (rc != 0 && err.msg[0] == 0)) {
    fprintf(stderr, "write: rc %d, expected %d: %s\n", rc, must_fail, rc ? err.msg : "");
    abort();
  }
  if (rc != 0)
    goto done;
  if (align != want_align || data > ((uint64_t)1 << 30))
    goto done_check_align;
  n = hdr.n + (size_t)data;
  out = calloc(1, n + 1);
  memcpy(out, hdr.p, hdr.n);
  for (i = 0; i < m->n_tensors; i++)
    if (m->tensors[i].offset + m->tensors[i].nbytes <= size)
      memcpy(out + hdr.n + t[i].data_start, file + m->tensors[i].offset, m->tensors[i].nbytes);
  if (gguf_parse(out, n, &back, &err) != 0 || back.n_meta != n_ents ||
      back.n_tensors != m->n_tensors || back.alignment != align || back.version != GW_VERSION ||
      back.big_endian != be)
    abort();
  for (i = 0; i < n_ents; i++) {
    wt_buf v = {0};
    const wt_meta *z = &back.meta[i];
    if (!same(z->key.p, z->key.n, ents[i].key.p, ents[i].key.n) || z->type != ents[i].type ||
        gw_value_copy(&v, &back, out, z) != 0 || !same(v.p, v.n, ents[i].val.p, ents[i].val.n))
      abort();
    free(v.p);
  }
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *a = &m->tensors[i], *z = &back.tensors[i];
    if (!same(z->name.p, z->name.n, a->name.p, a->name.n) || z->type_id != a->type_id ||
        z->ndim != a->ndim || z->nbytes != a->nbytes ||
        memcmp(z->dims, a->dims, (size_t)a->ndim * 8) != 0 || z->offset % align != 0 ||
        (a->offset + a->nbytes <= size &&
         memcmp(out + z->offset, file + a->offset, (size_t)a->nbytes) != 0))
      abort();
  }
  wt_model_free(&back);
  goto done;
done_check_align:
  if (align != want_align)
    abort();
done:
  free(out);
  free(hdr.p);
  free(t);
}

/* ---- safetensors ---------------------------------------------------------- */

/* Pieces of the strings the edits make: everything the escaping handles. */
static const char *const pieces[] = {
    "a", "\"",   "\\", "\n", "\x01",    "\x1f", "\xc3\xa9", "\xf0\x9f\x98\x80",
    "/", "\x7f", " ",  "\t", "\\u0000", "}"};
#define N_PIECES (sizeof(pieces) / sizeof(pieces[0]))

static void st_string(wt_buf *b, uint8_t seed, uint32_t len) {
  uint32_t i;
  for (i = 0; i < len; i++) {
    const char *p = pieces[(seed + i * 7) % N_PIECES];
    wb_put(b, p, strlen(p));
  }
}

static void st_edit(const uint8_t *e, int k) {
  uint8_t op = e[0] % 4;
  entry *x;
  if ((x = edit_target(op, e[1], k)) == NULL)
    return;
  st_string(&x->val, e[2], op == 3 ? (uint32_t)e[3] * 64 : e[3] % 16);
}

static void st_run(const uint8_t *edits, int n_edits, const uint8_t *file, size_t size,
                   const wt_model *m) {
  sw_meta meta[MAX_ENTRIES];
  sw_tensor *t = calloc(m->n_tensors + 1, sizeof(*t));
  wt_buf hdr = {0};
  wt_model back = {0};
  wt_error err;
  uint64_t data;
  unsigned char *out = NULL;
  size_t i, n;
  int k, crate = n_edits > 0 && (edits[0] & 0x80);
  for (i = 0; i < m->n_meta && n_ents < MAX_ENTRIES - MAX_EDITS; i++) {
    entry *e = &ents[n_ents++];
    wb_put(&e->key, m->meta[i].key.p, m->meta[i].key.n);
    wb_put(&e->val, m->meta[i].value.p, m->meta[i].value.n);
  }
  for (k = 0; k < n_edits; k++)
    st_edit(edits + k * EDIT_BYTES, k);
  for (i = 0; i < n_ents; i++)
    meta[i] = (sw_meta){{ents[i].key.p, ents[i].key.n}, {ents[i].val.p, ents[i].val.n}};
  for (i = 0; i < m->n_tensors; i++)
    t[i] = (sw_tensor){m->tensors[i].name,
                       (int)m->tensors[i].type_id,
                       m->tensors[i].ndim,
                       m->tensors[i].dims,
                       0,
                       0,
                       i};
  if (crate)
    sw_sort_crate(t, m->n_tensors);
  if (safetensors_write_header(meta, n_ents, t, m->n_tensors, &hdr, &data, &err) != 0) {
    if (!hdr.oom)
      abort(); /* what the parser accepted and the edits made is writable */
    goto done;
  }
  if (data > size)
    abort(); /* the tensors tile the file's data section */
  n = hdr.n + (size_t)data;
  out = malloc(n + 1);
  memcpy(out, hdr.p, hdr.n);
  for (i = 0; i < m->n_tensors; i++)
    memcpy(out + hdr.n + t[i].data_start, file + m->tensors[t[i].tag].offset, t[i].nbytes);
  if (safetensors_parse(out, n, &back, &err) != 0 || back.n_meta != n_ents ||
      back.n_tensors != m->n_tensors || (hdr.n - 8) % SW_HEADER_ALIGN != 0)
    abort();
  for (i = 0; i < n_ents; i++)
    if (!same(back.meta[i].key.p, back.meta[i].key.n, ents[i].key.p, ents[i].key.n) ||
        !same(back.meta[i].value.p, back.meta[i].value.n, ents[i].val.p, ents[i].val.n))
      abort();
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *a = &m->tensors[t[i].tag], *z = &back.tensors[i];
    if (!same(z->name.p, z->name.n, a->name.p, a->name.n) || z->type_id != a->type_id ||
        z->ndim != a->ndim || z->nbytes != a->nbytes ||
        memcmp(z->dims, a->dims, (size_t)a->ndim * 8) != 0 ||
        memcmp(out + z->offset, file + a->offset, (size_t)a->nbytes) != 0)
      abort();
    if (crate && i > 0 && t[i - 1].dtype < t[i].dtype)
      abort();
  }
  wt_model_free(&back);
done:
  free(out);
  free(hdr.p);
  free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int n_edits;
  const uint8_t *edits, *file;
  size_t fsize;
  wt_model m = {0};
  wt_error err;
  if (size < 1)
    return 0;
  n_edits = data[0] % MAX_EDITS;
  if (size < 1 + (size_t)n_edits * EDIT_BYTES)
    return 0;
  edits = data + 1;
  file = edits + n_edits * EDIT_BYTES;
  fsize = size - 1 - (size_t)n_edits * EDIT_BYTES;
  if (gguf_parse(file, fsize, &m, &err) == 0) {
    gguf_run(edits, n_edits, file, fsize, &m);
  } else if (safetensors_parse(file, fsize, &m, &err) == 0) {
    st_run(edits, n_edits, file, fsize, &m);
  } else {
    memset(&m, 0, sizeof(m));
    if (n_edits > 0 && (edits[0] & 0x40))
      st_run(edits, n_edits, file, 0, &m);
    else
      gguf_run(edits, n_edits, file, 0, &m);
  }
  wt_model_free(&m);
  ents_clear();
  return 0;
}
