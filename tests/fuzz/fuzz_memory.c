/*
** fuzz_memory.c: libFuzzer target for the memory planner of
** ext/plan/memory_plan.c (gguf_memory()) over hostile GGUF metadata.
**
** Input: 16 bytes of settings, then a GGUF header.  The settings are
**   [0] flags: bit 0 flash attention on, bit 2 (when bit 0 is clear) auto,
**       bit 1 n_ctx 0 (the file's context), bits 3-4 the CPU (none, avx2,
**       avx512, unknown)
**   [1] shift, [2..5] u32 LE: n_ctx = u32 << (shift % 64) (0 when the
**       shift loses every bit)
**   [6] [7] type_k, type_v as signed bytes (invalid ids included)
**   [8..11] u32 n_seq, [12..15] u32 n_ubatch (0 included)
** The rest is parsed by gguf_parse_prefix() as the first bytes of a file
** 16 MB longer (the tensor data need not be there, as in a header read;
** the parser bounds its allocations by the file size, so a claim of more
** would let it allocate past libFuzzer's memory limit).
**
** Checks, beside "no crash, no sanitizer report": an error has a message
** and leaves no rows; a plan's rows have a known part, a layer >= -1, a
** NUL-terminated detail and nbytes 0 when unknown; the weights rows add up
** to the span of the file from the first to the last byte of the tensors
** the CPU does not repack (or to their bytes when they overlap, or when
** that span is unknown; summed here in 128 bits); every cache and output
** row equals the product its detail states, worked out here in 128 bits
** (so a wrapped 64-bit product shows); the compute row, when known
** (llama.cpp's graph modelled), holds at least the logits, n_vocab x
** tokens x 4, and when unknown its at_least is the figure its detail
** states and at least the logits; the repack rows add up to at most the tensors'
** bytes, each padded to 32.  Then gguf_fit()'s answer (plan/memory_fit.h)
** for a fuzzed budget, the plan's exact total and one byte less: a row per
** part present and a last row "total"; each part's nbytes the sum of its
** known rows, its at_least that sum with the unknown rows' floors (in 128
** bits: a wrapped sum must say so); the total fits (1) only when every
** part is known and it is within the budget, does not (0) only when the
** total, or what it cannot be below, passes the budget.  Built by `make
** fuzz`.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "formats/gguf_parser.h"
#include "plan/memory_fit.h"
#include "plan/memory_plan.h"

typedef unsigned __int128 u128;

static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The ggml type whose name is name, or NULL. */
static const ggml_type_info *type_named(const char *name) {
  int64_t t;
  for (t = 0; t < 64; t++) {
    const ggml_type_info *ti = ggml_type_get(t);
    if (ti && strcmp(ti->name, name) == 0)
      return ti;
  }
  return NULL;
}

/* A cache row "TYPE, C cells x S streams, V values..." is TYPE's row of V
** values times C times S. */
static void check_cache(const wt_mem_row *r) {
  char name[32];
  unsigned long long c, s, v;
  const ggml_type_info *ti;
  u128 want;
  if (strncmp(r->detail, "none,", 5) == 0) { /* MLA: no V cache */
    if (r->nbytes != 0)
      abort();
    return;
  }
  if (sscanf(r->detail, "%31[^,], %llu cells x %llu streams, %llu values", name, &c, &s, &v) != 4)
    abort();
  ti = type_named(name);
  if (ti == NULL || ti->block_size == 0 || v % ti->block_size != 0)
    abort();
  want = (u128)(v / ti->block_size) * ti->type_size * c * s;
  if (want != r->nbytes)
    abort();
}

/* Check one successful plan against the model it was made of. */
static void check_plan(const wt_model *m, const wt_mem_plan *p, int cpu) {
  u128 weights = 0, kept = 0, repack = 0, padded = 0, first = (u128)-1, last = 0;
  unsigned long long n_vocab = 0, n_seq, floor, tok;
  int have_output = 0, span_unknown = 0;
  size_t i;
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *t = &m->tensors[i];
    int rp = wt_cpu_repacks(t, cpu);
    padded += ((u128)t->nbytes + 31) / 32 * 32;
    span_unknown |= rp < 0;
    if (rp > 0)
      continue;
    kept += t->nbytes;
    if (t->offset < first)
      first = t->offset;
    if ((u128)t->offset + t->nbytes > last)
      last = (u128)t->offset + t->nbytes;
  }
  for (i = 0; i < p->n_rows; i++) {
    const wt_mem_row *r = &p->rows[i];
    if (r->layer < -1 || memchr(r->detail, 0, WT_MEM_DETAIL) == NULL || (!r->known && r->nbytes))
      abort();
    if (strcmp(r->part, "weights") == 0) {
      weights += r->nbytes;
    } else if (strcmp(r->part, "repack") == 0) {
      repack += r->nbytes;
    } else if (strcmp(r->part, "k_cache") == 0 || strcmp(r->part, "v_cache") == 0) {
      if (r->known)
        check_cache(r);
    } else if (strcmp(r->part, "recurrent_state") == 0) {
      if (!r->known || r->layer < 0)
        abort();
    } else if (strcmp(r->part, "output") == 0) {
      if (sscanf(r->detail, "logits: %llu tokens x %llu sequences", &n_vocab, &n_seq) != 2 ||
          (u128)n_vocab * n_seq * 4 != r->nbytes)
        abort();
      have_output = 1;
    } else if (strcmp(r->part, "compute") == 0) {
      if (r->known) {
        /* llama.cpp's figure: it holds at least the logits, a graph output */
        if (!have_output ||
            sscanf(r->detail,
                   "ggml-alloc's layout of llama.cpp's %*s graph on the CPU, %llu tokens",
                   &tok) != 1 ||
            (u128)n_vocab * tok * 4 > r->nbytes)
          abort();
        continue;
      }
      if (strcmp(r->detail, "unknown for this architecture") == 0)
        continue;
      if (!have_output ||
          sscanf(r->detail,
                 "unknown: llama.cpp plans it from its graph; at least %llu bytes (%*[^)]), %llu "
                 "tokens",
                 &floor, &tok) != 2 ||
          floor != r->at_least || (u128)n_vocab * tok * 4 > floor)
        abort();
    } else {
      abort();
    }
  }
  if (span_unknown || first >= last || last - first <= kept ? weights != kept
                                                            : weights != last - first)
    abort();
  if (repack > padded)
    abort();
}

/* Check gguf_fit()'s answer for plan p and budget (memory_fit.h). */
static uint64_t check_fit(const wt_mem_plan *p, uint64_t budget) {
  static const char *const parts[] = {"weights",         "repack", "k_cache", "v_cache",
                                      "recurrent_state", "output", "compute"};
  wt_mem_fit f;
  u128 total = 0, floor = 0;
  int all_known = 1, k = 0;
  size_t i, j;
  const wt_fit_row *t;
  wt_mem_fit_add_up(p, budget, &f);
  for (j = 0; j < sizeof(parts) / sizeof(parts[0]); j++) {
    u128 sum = 0, least = 0;
    int seen = 0, known = 1;
    for (i = 0; i < p->n_rows; i++)
      if (strcmp(p->rows[i].part, parts[j]) == 0) {
        seen = 1;
        known &= p->rows[i].known;
        sum += p->rows[i].known ? p->rows[i].nbytes : 0;
        least += p->rows[i].known ? p->rows[i].nbytes : p->rows[i].at_least;
      }
    if (!seen)
      continue;
    if (k >= f.n || strcmp(f.rows[k].part, parts[j]) != 0 || f.rows[k].known != known ||
        f.rows[k].fits != -1 || memchr(f.rows[k].reason, 0, WT_FIT_REASON) == NULL ||
        (sum == (uint64_t)sum && f.rows[k].nbytes != (uint64_t)sum) ||
        f.rows[k].at_least_ok != (least == (uint64_t)least) ||
        (f.rows[k].at_least_ok && f.rows[k].at_least != (uint64_t)least))
      abort();
    all_known &= known;
    total += sum;
    floor += least;
    k++;
  }
  if (f.n != k + 1)
    abort();
  t = &f.rows[k];
  if (strcmp(t->part, "total") != 0 || memchr(t->reason, 0, WT_FIT_REASON) == NULL ||
      t->reason[0] == 0 || t->known != (all_known && total == (uint64_t)total))
    abort();
  if (t->fits == 1 && !(t->known && total <= budget))
    abort();
  if (t->fits == 0 && !(t->known ? total > budget : floor == (uint64_t)floor && floor > budget))
    abort();
  if (t->fits == -1 && t->known && total == (uint64_t)total)
    abort();
  return t->known ? t->nbytes : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wt_model m;
  wt_error err;
  wt_mem_settings s;
  wt_mem_plan plan;
  uint64_t need;
  size_t i;
  unsigned shift;
  if (size < 16)
    return 0;
  wt_mem_settings_default(&s);
  s.flash_attn = data[0] & 1 ? WT_FA_ON : data[0] & 4 ? WT_FA_AUTO : WT_FA_OFF;
  s.cpu = (data[0] >> 3) % 4; /* WT_CPU_NONE, _AVX2, _AVX512, _UNKNOWN */
  shift = data[1] % 64;
  s.n_ctx = data[0] & 2 ? 0 : (uint64_t)rd32(data + 2) << shift;
  s.type_k = (int8_t)data[6];
  s.type_v = (int8_t)data[7];
  s.n_seq = rd32(data + 8);
  s.n_ubatch = rd32(data + 12);
  data += 16;
  size -= 16;
  if (gguf_parse_prefix(data, size, (uint64_t)size + ((uint64_t)1 << 24), &m, &need, &err) != 0)
    return 0;
  for (i = 0; i < m.n_tensors; i++)
    if (!m.tensors[i].nbytes_known)
      break;
  err.msg[0] = 0;
  if (wt_memory_plan(&m, data, &s, &plan, &err) != 0) {
    if (err.msg[0] == 0 || plan.rows != NULL || plan.n_rows != 0)
      abort();
  } else {
    if (i < m.n_tensors) /* a tensor of unknown size must be an error */
      abort();
    uint64_t total;
    check_plan(&m, &plan, s.cpu);
    total = check_fit(&plan, (uint64_t)rd32(data - 16 + 2) << shift);
    if (total > 0) {
      check_fit(&plan, total);
      check_fit(&plan, total - 1);
    }
    wt_mem_plan_free(&plan);
  }
  wt_model_free(&m);
  return 0;
}
