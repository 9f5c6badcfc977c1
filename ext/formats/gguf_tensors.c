/*
** gguf_tensors.c: the tensor-info section of a GGUF header (name, dims,
** type, offset of each tensor, with ggml's checks), then the data section:
** where it starts, each tensor's data inside the file, and no two tensors'
** data overlapping (the offset policy at the top of gguf_parser.c).
** Layer: formats (pure C; uses base/).
*/
#include <stdlib.h>

#include "ggml_type.h"
#include "gguf_internal.h"

/* ============================== Tensor infos ============================== */

/* Read tensor info number i into t; dims has room for 4 values. */
int gg_tensor(gg_parser *g, uint64_t i, wt_tensor *t, uint64_t *dims) {
  static const char *ne_name[GG_MAX_DIMS] = {"ne[0]", "ne[1]", "ne[2]", "ne[3]"};
  uint64_t start = g->pos, at, dims_at, ne[GG_MAX_DIMS] = {1, 1, 1, 1}, numel = 1, nbytes;
  uint32_t n_dims, type, j;
  const ggml_type_info *ti;
  int zero = 0, over = 0;
  g->kind = GG_TENSOR;
  g->index = i;
  g->name.p = NULL;
  g->name_at[i] = start;
  if (gg_string_copy(g, "name", "name length", &t->name) != 0)
    return -1;
  g->name = t->name;
  if (t->name.n > GG_MAX_NAME) /* T1: shorter than GGML_MAX_NAME (T2, unique: gguf_unique.c) */
    return gg_fail(g, start, "name of %zu bytes is longer than ggml's limit of %d bytes", t->name.n,
                   GG_MAX_NAME);
  dims_at = g->pos;
  if (gg_u32(g, "n_dims", &n_dims) != 0)
    return -1;
  if (n_dims > GG_MAX_DIMS) /* T3 */
    return gg_fail(g, dims_at, "n_dims = %u is more than %d", n_dims, GG_MAX_DIMS);
  for (j = 0; j < n_dims; j++) {
    at = g->pos;
    if (gg_len(g, ne_name[j], &ne[j]) != 0)
      return -1;
    if (ne[j] > INT64_MAX) /* T4: each ne >= 0 as an int64 */
      return gg_fail(g, at, "ne[%u] = %llu is negative as an int64 (%lld)", j, U(ne[j]),
                     (long long)ne[j]);
    dims[j] = ne[j];
  }
  for (j = 0; j < GG_MAX_DIMS; j++) {
    zero |= ne[j] == 0;
    over |= wt_mul(numel, ne[j], &numel) != 0;
  }
  /* T5: fewer than INT64_MAX elements; like ggml, none (a zero) never overflows */
  if (zero)
    numel = 0;
  else if (over || numel >= INT64_MAX)
    return gg_fail(g, dims_at,
                   "dimensions [%llu, %llu, %llu, %llu] hold 2^63-1 elements or more (ggml's "
                   "limit is below INT64_MAX)",
                   U(ne[0]), U(ne[1]), U(ne[2]), U(ne[3]));
  at = g->pos;
  if (gg_u32(g, "type", &type) != 0)
    return -1;
  t->type_id = (int32_t)type; /* ggml stores enums as int32 */
  t->ndim = (int)n_dims;
  t->dims = dims;
  t->numel = numel;
  /* T6: a type ggml knows; one no table knows is not an error here: its
  ** size is unknown (nbytes_known 0, see gguf_parser.c) */
  ti = ggml_type_get(t->type_id);
  if (ti != NULL)
    t->dtype = (wt_str){ti->name, strlen(ti->name)};
  if (ti != NULL && ti->block_size > 0) {
    if (ne[0] % ti->block_size != 0) /* T7 */
      return gg_fail(g, at, "ne[0] = %llu is not a multiple of the %s block size %u", U(ne[0]),
                     ti->name, ti->block_size);
    nbytes = 0;
    if (numel > 0 && /* T8: a byte size 64 bits hold */
        (wt_mul(ne[0] / ti->block_size, ti->type_size, &nbytes) || wt_mul(nbytes, ne[1], &nbytes) ||
         wt_mul(nbytes, ne[2], &nbytes) || wt_mul(nbytes, ne[3], &nbytes)))
      return gg_fail(g, at, "the byte size of %llu %s elements overflows 64 bits", U(numel),
                     ti->name);
    t->nbytes = nbytes;
    t->nbytes_known = 1;
  }
  if (gg_u64(g, "data offset", &t->data_start) != 0) /* T9: its place is gg_place's */
    return -1;
  return 0;
}

/* Byte where the offset field of tensor i starts (for messages). */
static uint64_t gg_offset_field(const gg_parser *g, size_t i) {
  const wt_tensor *t = &g->m->tensors[i];
  return g->name_at[i] + g->len + t->name.n + 4 + (uint64_t)t->ndim * g->len + 4;
}

/* ============================== Data section ============================== */

/* Place the data section after the tensor infos (D1). */
int gg_data_section(gg_parser *g) {
  wt_model *m = g->m;
  uint64_t end = g->pos, a = m->alignment;
  if (gg_need(g, end) != 0) /* the last strings and arrays, read later from memory */
    return -1;
  m->header_len = end;
  m->data_offset = end;
  if (m->n_tensors == 0)
    return 0;
  if (end > UINT64_MAX - (a - 1) || (end + a - 1) / a * a > g->size) /* D1 */
    return wt_fail(g->err,
                   "the data section would start past the end of the file (%llu bytes): the "
                   "tensor infos end at byte %llu and the alignment is %llu",
                   U(g->size), U(end), U(a));
  m->data_offset = (end + a - 1) / a * a;
  return 0;
}

/* Check tensor i's offset against the policy at the top of this file and
** set its absolute offset and end. */
int gg_place(gg_parser *g, size_t i) {
  wt_model *m = g->m;
  wt_tensor *t = &m->tensors[i];
  uint64_t room = g->size - m->data_offset, at = gg_offset_field(g, i), start, end;
  g->kind = GG_TENSOR;
  g->index = i;
  g->name = t->name;
  if (t->data_start > room)
    return gg_fail(g, at,
                   "data offset %llu is past the end of the file: the data section starts at "
                   "byte %llu and the file has %llu bytes",
                   U(t->data_start), U(m->data_offset), U(g->size));
  t->offset = m->data_offset + t->data_start;
  t->data_end = t->data_start;
  if (!t->nbytes_known) {
    t->nbytes = 0;
    return 0;
  }
  if (t->data_start % m->alignment != 0)
    return gg_fail(g, at, "data offset %llu is not a multiple of the alignment %llu",
                   U(t->data_start), U(m->alignment));
  start = t->offset;
  if (t->nbytes > room - t->data_start) { /* F1: the data within the file */
    if (wt_add(start, t->nbytes, &end) != 0)
      return gg_fail(g, at, "data [%llu, %llu + %llu) runs past the end of the file (%llu bytes)",
                     U(start), U(start), U(t->nbytes), U(g->size));
    return gg_fail(g, at, "data [%llu, %llu) runs past the end of the file (%llu bytes)", U(start),
                   U(end), U(g->size));
  }
  t->data_end = t->data_start + t->nbytes;
  return 0;
}

/* A tensor's data range, for the overlap check. */
typedef struct gg_range {
  uint64_t start, end;
  size_t idx;
} gg_range;

/* Order by start, then index. */
static int gg_range_cmp(const void *a, const void *b) {
  const gg_range *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reject known-size tensors whose data overlap: sort by start and sweep,
** remembering the range that reaches furthest. */
int gg_no_overlap(gg_parser *g) {
  wt_model *m = g->m;
  gg_range *v;
  size_t i, n = 0, far = 0;
  char q[GG_QUOTE_SIZE];
  if (m->n_tensors < 2)
    return 0;
  v = malloc(m->n_tensors * sizeof(*v));
  if (v == NULL)
    return gg_oom(g, "a tensor range index", m->n_tensors);
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *t = &m->tensors[i];
    if (t->nbytes_known && t->nbytes > 0)
      v[n++] = (gg_range){t->offset, t->offset + t->nbytes, i};
  }
  for (i = 1; i < n && v[i - 1].start <= v[i].start; i++)
    ;
  if (i < n) /* writers store tensors in offset order: usually no sort */
    qsort(v, n, sizeof(*v), gg_range_cmp);
  for (i = 1; i < n; i++) {
    if (v[i].start < v[far].end) {
      const wt_tensor *t = &m->tensors[v[i].idx], *o = &m->tensors[v[far].idx];
      gg_range a = v[i], b = v[far];
      free(v);
      g->kind = GG_TENSOR;
      g->index = a.idx;
      g->name = t->name;
      return gg_fail(g, gg_offset_field(g, a.idx),
                     "data [%llu, %llu) overlaps the data of tensor #%llu %s at [%llu, %llu)",
                     U(a.start), U(a.end), U(b.idx), wt_quote(q, sizeof(q), o->name.p, o->name.n),
                     U(b.start), U(b.end));
    }
    if (v[i].end > v[far].end)
      far = i;
  }
  free(v);
  return 0;
}
