/*
** gguf_parser.c: turn the header of a GGUF file into a validated wt_model.
** Pure C, no SQLite.  See gguf_parser.h.  The format is the GGUF spec
** (docs/gguf.md in ggml-org/ggml); the checks are those of ggml's reader
** (gguf_init_from_reader in src/gguf.cpp, ggml-org/ggml commit d99724f2).
** Layer: formats (pure C; uses base/).  This file reads the file header and
** drives the parse; the sections are read by the files gguf_internal.h
** lists.
**
** Layout read here (v2/v3; in v1 every length, count and dimension marked
** "len" is a u32 instead of a u64):
**
**   "GGUF"  u32 version  len tensor_count  len kv_count
**   kv_count x   { len key_length, key bytes, u32 type, value }
**   tensor_count x { len name_length, name bytes, u32 n_dims,
**                    len ne[n_dims], u32 ggml_type, u64 offset }
**   padding to general.alignment (only when tensor_count > 0)
**   tensor data
**
** A value is a fixed-size number, a string (len + bytes), or an array
** (u32 element type, len count, elements back to back).  A file whose
** version field reads with its low 16 bits zero is byte-swapped
** (big-endian): every number of the header, the KVs and the tensor infos
** is swapped; tensor data is never touched here.
**
** Checks: every check of ggml's reader, and llama.cpp's file-bounds check
** (F1: llama_tensor_weight in src/llama-model-loader.h of ggml-org/llama.cpp),
** each labelled where it is made, in a comment of these files, so that a
** grep for the label a test names (tests/gen_gguf.c names its files so)
** finds it (tests/check_layers.py checks that every label below is there):
**
**   H1-H4  the magic, the version, the tensor and KV counts;
**   K1-K8  keys of at most 1 GiB, not empty (K2), unique (K3); known value
**          and element types, no arrays of arrays; arrays of at most 2^30
**          elements and strings of at most 1 GiB, all within the file; any
**          non-zero BOOL is true;
**   A1-A2  general.alignment has type UINT32 (A1) and is a non-zero power
**          of two (A2);
**   T1-T9  names shorter than 64 bytes, unique (T2); n_dims <= 4; each
**          ne[j] >= 0 as an int64, fewer than INT64_MAX elements; a known
**          type; ne[0] a multiple of its block size; a byte size that 64
**          bits hold; the offset;
**   D1     the data section starts within the file (D2, dense tensor-info
**          order, is not checked: see the offset policy below);
**   F1     each tensor's data lies within the file;
**
** with these differences:
**
**   - versions 1 and 2 and big-endian files are read, not rejected;
**   - all arithmetic is checked (no GGML_PAD wrap, no element-count guard
**     that a zero or negative product skips);
**   - every length and count is checked against the bytes left in the
**     file before anything is allocated, and the tensor and KV counts are
**     bounded by the file size before their arrays are allocated, so a
**     tiny file claiming a billion entries fails at once;
**   - duplicate keys and tensor names are found by sorting (n log n), after
**     the KVs (resp. tensor infos) have been read;
**   - tensor type ids that the table does not know (forks, newer ggml) and
**     removed ids without a known size do not fail the file: the tensor's
**     size is unknown (nbytes_known = 0).  Removed ids that had an on-disk
**     layout (Q4_0_4_4 ...) get their historical size.
**
** Offset policy.  ggml requires tensors to be stored densely, in tensor-info
** order (D2).  The GGUF spec only requires each offset to be a multiple of
** the alignment; this parser accepts what the spec allows:
**
**   - a tensor whose size is known must start at a multiple of the
**     alignment, lie entirely inside the file (data_offset + offset +
**     nbytes <= file size; ggml itself accepts truncated files), and not
**     overlap another known-size tensor; tensors may come in any order and
**     with any gaps;
**   - zero-size tensors may sit at any aligned offset within the file;
**   - a tensor of unknown size is only checked to start within the file.
**
** The data section starts at the end of the tensor infos rounded up to the
** alignment when there is at least one tensor (it must not be past the end
** of the file), else right at the end of the tensor infos: vocab-only files
** end after the last KV without padding.
**
** Speed: one pass over the bytes; keys and tensor names are copied into the
** model's arena (a few bytes each: the model then holds no pointer into the
** bytes, see gguf_parser.h), values are not (they are read from the header
** bytes by position when asked for); no allocation per array element, and
** no UTF-8 validation (values are checked when they are rendered).  Arrays of
** strings are skipped by a tight loop that reads a length, checks it, and
** jumps.
**
** Errors: one sentence naming the KV or tensor (index from 0, quoted name),
** the byte where the offending field starts, and the numbers involved.
*/
#include "gguf_parser.h"

#include "gguf_internal.h"

#include <stdlib.h>

/* ================================= Header ================================= */

/* Smallest tensor info: name length, empty name, n_dims = 0, type, offset. */
static uint64_t gg_min_tensor(const gg_parser *g) {
  return g->len + 4 + 4 + 8;
}

/* Smallest KV: key length, one key byte, type, a one-byte value. */
static uint64_t gg_min_kv(const gg_parser *g) {
  return g->len + 1 + 4 + 1;
}

/* Read magic, version and counts; bound the counts by the file size. */
static int gg_header(gg_parser *g, uint64_t *n_tensors, uint64_t *n_kv) {
  char q[GG_QUOTE_SIZE];
  uint32_t raw, version;
  int big_endian;
  uint64_t left;
  if (g->size < 4)
    return gg_truncated(g, 0, "magic");
  if (gg_need(g, 4) != 0)
    return -1;
  if (memcmp(g->d, "GGUF", 4) != 0) { /* H1: the magic */
    if (memcmp(g->d, "FUGG", 4) == 0)
      return wt_fail(g->err, "bad magic 'FUGG' at byte 0: this looks like a pre-release GGUF "
                             "draft (2023), which is not GGUF");
    return wt_fail(g->err, "bad magic %s at byte 0: not a GGUF file",
                   wt_quote(q, sizeof(q), (const char *)g->d, 4));
  }
  g->pos = 4;
  if (gg_u32(g, "version", &raw) != 0) /* swap is still "host is big-endian": a LE read */
    return -1;
  big_endian = raw != 0 && (raw & 0xffff) == 0;
  version = big_endian ? __builtin_bswap32(raw) : raw;
  if (version == 0 || version > 3) { /* H2: the version (1 and 2 read too) */
    if (big_endian)
      return wt_fail(g->err,
                     "unsupported GGUF version %u at byte 4 (the field reads 0x%08x, so "
                     "the file was taken as big-endian); known versions are 1, 2 and 3",
                     version, raw);
    return wt_fail(g->err, "unsupported GGUF version %u at byte 4; known versions are 1, 2 and 3",
                   version);
  }
  g->m->version = version;
  g->m->big_endian = big_endian;
  g->swap = big_endian != GG_HOST_BE;
  g->len = version == 1 ? 4 : 8;
  if (gg_len(g, "tensor count", n_tensors) != 0 || gg_len(g, "kv count", n_kv) != 0)
    return -1;
  left = g->size - g->pos;
  /* H4: the KV count, bounded by the bytes after the header; key-value
  ** pairs come first in the file, so their count is checked first. */
  if (*n_kv > left / gg_min_kv(g))
    return wt_fail(g->err,
                   "kv count %llu at byte %u cannot fit in the %llu bytes after the header (a "
                   "key-value pair takes at least %llu bytes)",
                   U(*n_kv), 8 + g->len, U(left), U(gg_min_kv(g)));
  if (*n_tensors > left / gg_min_tensor(g)) /* H3: the tensor count, bounded the same way */
    return wt_fail(g->err,
                   "tensor count %llu at byte 8 cannot fit in the %llu bytes after the header "
                   "(a tensor info takes at least %llu bytes)",
                   U(*n_tensors), U(left), U(gg_min_tensor(g)));
  return 0;
}

/* ================================= Driver ================================= */

/* Allocate n zeroed elements of size bytes in the model's arena (n was
** bounded by the file size). */
static void *gg_alloc(gg_parser *g, uint64_t n, size_t size) {
  uint64_t bytes;
  if (n == 0 || wt_mul(n, size, &bytes) != 0 || bytes > SIZE_MAX)
    return NULL;
  return wt_arena_alloc(g->m->arena, (size_t)bytes);
}

/* Where the header probably ends, when a parse of a prefix stopped for
** want of bytes (g->need): the item being read (an array of strings as
** long as its elements read so far on average), then the items after it at
** their typical sizes; at least g->need, at most the file size.  The
** caller reads that much at once, instead of growing its buffer blindly
** and parsing from the start each time. */
static uint64_t gg_estimate(const gg_parser *g) {
  uint64_t end = g->item_end > g->need ? g->item_end : g->need, kv, tensors;
  if (g->item_end == 0 && end < 2 * g->avail) /* no count says more: twice what was read */
    end = 2 * g->avail;
  if (end >= g->size || wt_mul(g->kv_left, GG_TYPICAL_KV, &kv) != 0 ||
      wt_mul(g->tensors_left, GG_TYPICAL_TENSOR, &tensors) != 0 || kv > g->size - end ||
      tensors > g->size - end - kv)
    return g->size;
  return end + kv + tensors;
}

/* The header and the counts; the pairs' array.  Run again from byte 0
** when the last parse stopped in it. */
static int gg_run_header(gg_parser *g) {
  wt_model *m = g->m;
  g->pos = 0;
  g->swap = GG_HOST_BE; /* until the version says otherwise: read little-endian */
  g->len = 8;
  g->kind = GG_HEADER;
  if (gg_header(g, &g->n_tensors, &g->n_kv) != 0)
    return -1;
  g->kv_left = g->n_kv;
  g->tensors_left = g->n_tensors;
  /* the smallest bytes the pairs can take are in memory before their
  ** array is allocated: an allocation follows the bytes read, not a count
  ** that only the file's size bounds (no overflow: bounded by it) */
  if (gg_need(g, g->pos + g->n_kv * gg_min_kv(g)) != 0)
    return -1;
  if (g->n_kv > 0 && ((m->meta = gg_alloc(g, g->n_kv, sizeof(wt_meta))) == NULL ||
                      (g->key_at = gg_alloc(g, g->n_kv, sizeof(uint64_t))) == NULL))
    return gg_oom(g, "key-value pairs", g->n_kv);
  m->n_meta = (size_t)g->n_kv;
  g->i = 0;
  g->stage = GG_STAGE_KVS;
  return 0;
}

/* The pairs from pair g->i on, their checks, and the tensors' arrays. */
static int gg_run_kvs(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t n_tensors = g->n_tensors;
  for (; g->i < g->n_kv; g->i++) {
    uint64_t start = g->pos;
    g->kv_left = g->n_kv - g->i - 1;
    if (gg_kv(g, g->i, &m->meta[g->i]) != 0) {
      g->pos = start; /* a parse of more bytes reads this pair again */
      return -1;
    }
  }
  g->kind = GG_HEADER;
  g->kv_left = 0;
  if (gg_unique(g, GG_KV) != 0 || gg_alignment(g) != 0)
    return -1;
  g->kind = GG_HEADER;
  if (n_tensors > (g->size - g->pos) / gg_min_tensor(g)) /* H3 again: after the pairs */
    return wt_fail(g->err,
                   "tensor count %llu at byte 8 cannot fit in the %llu bytes left after the "
                   "key-value pairs, which end at byte %llu",
                   U(n_tensors), U(g->size - g->pos), U(g->pos));
  if (gg_need(g, g->pos + n_tensors * gg_min_tensor(g)) != 0)
    return -1; /* as for the pairs */
  if (n_tensors > 0) {
    m->tensors = gg_alloc(g, n_tensors, sizeof(wt_tensor));
    g->dims = gg_alloc(g, n_tensors, GG_MAX_DIMS * sizeof(uint64_t));
    g->name_at = gg_alloc(g, n_tensors, sizeof(uint64_t));
    if (m->tensors == NULL || g->dims == NULL || g->name_at == NULL)
      return gg_oom(g, "tensors", n_tensors);
    m->n_tensors = (size_t)n_tensors;
  }
  g->i = 0;
  g->stage = GG_STAGE_TENSORS;
  return 0;
}

/* The tensor infos from tensor g->i on, then the data section and the
** checks of every tensor's place. */
static int gg_run_tensors(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t i;
  for (; g->i < g->n_tensors; g->i++) {
    uint64_t start = g->pos;
    g->tensors_left = g->n_tensors - g->i - 1;
    if (gg_tensor(g, g->i, &m->tensors[g->i], g->dims + g->i * GG_MAX_DIMS) != 0) {
      g->pos = start;
      return -1;
    }
  }
  g->kind = GG_HEADER;
  g->tensors_left = 0;
  if (gg_unique(g, GG_TENSOR) != 0 || gg_data_section(g) != 0)
    return -1;
  for (i = 0; i < g->n_tensors; i++)
    if (gg_place(g, (size_t)i) != 0)
      return -1;
  return gg_no_overlap(g);
}

/* Parse the header into g->m, from the stage where the last parse stopped. */
static int gg_run(gg_parser *g) {
  if (g->stage == GG_STAGE_HEADER && gg_run_header(g) != 0)
    return -1;
  if (g->stage == GG_STAGE_KVS && gg_run_kvs(g) != 0)
    return -1;
  return gg_run_tensors(g);
}

/* A parse of a header read in pieces. */
struct gguf_prefix {
  gg_parser g;
  wt_model m;
  int started;
};

gguf_prefix *gguf_prefix_new(void) {
  return calloc(1, sizeof(gguf_prefix));
}

uint64_t gguf_prefix_needed(const gguf_prefix *p) {
  return p->g.need;
}

void gguf_prefix_free(gguf_prefix *p) {
  if (p == NULL)
    return;
  wt_model_free(&p->m);
  free(p);
}

int gguf_prefix_parse(gguf_prefix *p, const unsigned char *data, uint64_t avail, uint64_t size,
                      wt_model *out, uint64_t *need, wt_error *err) {
  gg_parser *g = &p->g;
  memset(out, 0, sizeof(*out));
  if (!p->started) {
    p->started = 1;
    g->d = data;
    g->size = data == NULL ? 0 : size;
    g->m = &p->m;
    p->m.format = WT_FORMAT_GGUF;
    p->m.file_size = g->size;
    p->m.arena = wt_arena_new();
    if (p->m.arena == NULL)
      return wt_fail(err, "out of memory");
  } else {
    g->d = data; /* it may have moved: nothing the parse keeps points into it */
  }
  g->avail = avail < g->size ? avail : g->size;
  g->need = g->item_end = 0;
  g->err = err;
  if (gg_run(g) == 0) {
    *out = p->m;
    memset(&p->m, 0, sizeof(p->m));
    return 0;
  }
  if (g->need > g->avail && need != NULL) {
    *need = gg_estimate(g);
    return 1;
  }
  wt_model_free(&p->m);
  if (g->need > g->avail)
    return wt_fail(err, "the header runs past the %llu bytes given", U(g->avail));
  return -1;
}

int gguf_parse_prefix(const unsigned char *data, uint64_t avail, uint64_t size, wt_model *out,
                      uint64_t *need, wt_error *err) {
  gguf_prefix *p = gguf_prefix_new();
  int rc;
  if (p == NULL) {
    memset(out, 0, sizeof(*out));
    return wt_fail(err, "out of memory");
  }
  rc = gguf_prefix_parse(p, data, avail, size, out, need, err);
  gguf_prefix_free(p);
  return rc;
}

int gguf_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err) {
  return gguf_parse_prefix(data, size, size, out, NULL, err);
}

int gguf_sniff(const unsigned char *data, uint64_t size) {
  return data != NULL && size >= 4 && memcmp(data, "GGUF", 4) == 0;
}
