/*
** fuzz_memory.c: libFuzzer target for the memory planner of
** ext/plan/memory_plan.c (gguf_memory()) over hostile GGUF metadata.
**
** Input: 20 bytes of settings, then a GGUF header.  The settings are
**   [0] flags: bit 0 flash attention on, bit 2 (when bit 0 is clear) auto,
**       bit 1 n_ctx 0 (the file's context), bits 3-5 the CPU (none, avx2,
**       avx512, unknown, amx: their number modulo 5)
**   [1] shift, [2..5] u32 LE: n_ctx = u32 << (shift % 64) (0 when the
**       shift loses every bit); the same value is the RAM budget
**   [6] [7] type_k, type_v as signed bytes (invalid ids included)
**   [8..11] u32 n_seq, [12..15] u32 n_ubatch (0 included)
**   [16] the GPU: bits 0-1 its compute capability (7.5, 8.0, 8.9, 9.0),
**       bit 2 op_offload off, bit 3 swa_full; [17] n_gpu_layers as a
**       signed byte (below -1: -1, all); [18..19] u16 LE: the VRAM budget
**       in MiB
** The rest is parsed by gguf_parse_prefix() as the first bytes of a file
** 16 MB longer (the tensor data need not be there, as in a header read;
** the parser bounds its allocations by the file size, so a claim of more
** would let it allocate past libFuzzer's memory limit).  Each model is
** planned twice: on the CPU alone, and with layers on a CUDA GPU.
**
** Checks, beside "no crash, no sanitizer report": an error has a message
** and leaves no rows.  On the CPU: a plan's rows have a known part, a
** layer >= -1, a NUL-terminated detail, a CPU buffer type and nbytes 0 when
** unknown; the weights rows add up
** to the span of the file from the first to the last byte of the tensors
** the CPU does not repack (or to their bytes when they overlap, or when
** that span is unknown; summed here in 128 bits); every cache and output
** row equals the product its detail states, worked out here in 128 bits
** (so a wrapped 64-bit product shows); the compute row, when known
** (llama.cpp's graph modelled), holds at least the logits, n_vocab x
** tokens x 4, and when unknown its at_least is the figure its detail
** states and at least the logits; the repack rows (CPU_REPACK and AMX)
** add up to at most the tensors' bytes grown as AMX grows Q8_0 (38 bytes a
** block of 34), each padded to 32, token_embd's twice (a tied output's
** copy).  With a GPU (check_gpu_plan): the layer
** assignment (nothing of a layer below the first offloaded one on the GPU,
** each cache on its layer's device), each cache row's size with the CUDA
** buffer type's padding, no repacking, the output's device, the mapped
** weights within the file's tensors.  Then gguf_fit()'s answer
** (plan/memory_fit.h) for fuzzed budgets, each memory's exact total and
** one byte less, and no VRAM budget: per memory (RAM, then VRAM) a row
** per part present, VRAM's cuda_pages (each CUDA buffer of 2 MiB or more
** rounded up to 2 MiB, the smaller ones together, and 2 MiB more), a
** total, RAM's mapped span; each part's nbytes the sum of its resident rows, its at_least that sum with the unknown
** rows' floors (in 128 bits: a wrapped sum must say so); a total fits (1)
** only when every part is known and it is within the budget, does not
** (0) only when the total, or what it cannot be below, passes the budget,
** and cannot say without a budget; the answer fits only when every memory
** used does, does not when one does not.  Built by `make fuzz`.
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

#define HEAD         20  /* the bytes of settings before the header */
#define CUDA_ROW_PAD 512 /* values a quantized row is padded to on the GPU */
#define CUDA_ALIGN   128 /* the CUDA buffer type's alignment */

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
** values times C times S; on the GPU (cuda) the last row padded to
** CUDA_ROW_PAD values when TYPE is quantized and V is not a multiple of it,
** the whole rounded up to CUDA_ALIGN bytes (ggml-cuda.cu at de3ff815:
** MATRIX_ROW_PADDING, the buffer type's get_alloc_size and alignment). */
static void check_cache(const wt_mem_row *r, int cuda) {
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
  if (cuda && ti->block_size > 1 && v % CUDA_ROW_PAD != 0)
    want += (CUDA_ROW_PAD - v % CUDA_ROW_PAD) / ti->block_size * ti->type_size;
  if (cuda)
    want = (want + CUDA_ALIGN - 1) / CUDA_ALIGN * CUDA_ALIGN;
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
    /* AMX lays Q8_0 out in 38 bytes a block of 34 (the most any type
    ** grows); a tied output is a second copy of token_embd */
    padded += ((u128)t->nbytes * 38 / 34 + 32) / 32 * 32 *
              (t->name.n == 17 && memcmp(t->name.p, "token_embd.weight", 17) == 0 ? 2 : 1);
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
    if (r->layer < -1 || memchr(r->detail, 0, WT_MEM_DETAIL) == NULL || (!r->known && r->nbytes) ||
        (strncmp(r->device, "CPU", 3) != 0 && strcmp(r->device, "AMX") != 0))
      abort();
    if (strcmp(r->part, "weights") == 0) {
      weights += r->nbytes;
    } else if (strcmp(r->part, "repack") == 0) {
      repack += r->nbytes;
    } else if (strcmp(r->part, "k_cache") == 0 || strcmp(r->part, "v_cache") == 0) {
      if (r->known)
        check_cache(r, 0);
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

/* A GPU plan (n_layer layers, ngl of the n_layer + 1 on the GPU, the
** output layer counting as one): every row on a buffer type llama.cpp
** names; the layers below the first offloaded one have nothing on the GPU,
** each cache row is on its layer's device (CUDA0 or CPU) and of the size
** its detail states (on CUDA0 padded as the CUDA buffer type pads it); no
** weight is repacked (the GPU's host buffer type comes first for the CPU's
** layers); the output on CUDA_Host once a layer is offloaded, else on the
** CPU; the mapped weights within what the file's tensors span. */
static void check_gpu_plan(const wt_model *m, const wt_mem_plan *p, int64_t ngl) {
  static const char *const devs[] = {"CPU_Mapped", "CPU", "CUDA0", "CUDA_Host"};
  u128 first_byte = (u128)-1, last_byte = 0, bytes = 0, mapped = 0;
  uint64_t all = p->n_layer + 1;
  uint64_t first = ngl < 0 || (uint64_t)ngl >= all ? 0 : all - (uint64_t)ngl;
  size_t i, d;
  for (i = 0; i < m->n_tensors; i++) {
    const wt_tensor *t = &m->tensors[i];
    bytes += t->nbytes;
    if (t->offset < first_byte)
      first_byte = t->offset;
    if ((u128)t->offset + t->nbytes > last_byte)
      last_byte = (u128)t->offset + t->nbytes;
  }
  for (i = 0; i < p->n_rows; i++) {
    const wt_mem_row *r = &p->rows[i];
    int cuda = strcmp(r->device, "CUDA0") == 0, cache;
    for (d = 0; d < sizeof(devs) / sizeof(devs[0]) && strcmp(r->device, devs[d]) != 0; d++)
      ;
    if (d == sizeof(devs) / sizeof(devs[0]) || strcmp(r->part, "repack") == 0 ||
        (r->layer >= 0 && (uint64_t)r->layer < first && cuda))
      abort();
    cache = strcmp(r->part, "k_cache") == 0 || strcmp(r->part, "v_cache") == 0;
    /* (an architecture the planner does not know: a cache row per device
    ** holding layers, unknown) */
    if ((cache || strcmp(r->part, "recurrent_state") == 0) &&
        ((r->layer < 0 ? r->known || (cuda ? first >= p->n_layer : first == 0)
                       : cuda != ((uint64_t)r->layer >= first)) ||
         (!cuda && strcmp(r->device, "CPU") != 0)))
      abort();
    if (cache && r->known)
      check_cache(r, cuda);
    if (strcmp(r->part, "output") == 0 && strcmp(r->device, first < all ? "CUDA_Host" : "CPU") != 0)
      abort();
    if (strcmp(r->part, "weights") == 0 && !cuda) {
      if (strcmp(r->device, "CPU_Mapped") != 0)
        abort();
      mapped += r->nbytes;
    }
  }
  if (m->n_tensors > 0 &&
      mapped > (bytes > last_byte - first_byte ? bytes : last_byte - first_byte))
    abort();
}

/* The memory gguf_fit() counts row r in. */
static int fit_memory_of(const wt_mem_row *r) {
  return strcmp(r->device, "CUDA0") == 0 ? WT_FIT_VRAM : WT_FIT_RAM;
}

/* Check the rows of memory mem in gguf_fit()'s answer f from row *k on
** (memory_fit.h): its parts, VRAM's pages, its total, RAM's mapped span.
** Returns the total's fits. */
static int check_memory(const wt_mem_plan *p, const wt_mem_fit *f, int mem, int used,
                        const wt_fit_budget *b, int *k) {
  static const char *const parts[] = {"weights",         "repack", "k_cache", "v_cache",
                                      "recurrent_state", "output", "compute"};
  u128 total = 0, floor = 0, buf[8] = {0}, mapped = 0, small = 0;
  int all_known = 1, pages_known = 1;
  size_t i, j;
  const wt_fit_row *t;
  for (j = 0; j < sizeof(parts) / sizeof(parts[0]); j++) {
    u128 sum = 0, least = 0;
    int seen = 0, known = 1;
    const wt_fit_row *g;
    for (i = 0; i < p->n_rows; i++) {
      const wt_mem_row *r = &p->rows[i];
      if (strcmp(r->part, parts[j]) != 0 || r->mapped_only || fit_memory_of(r) != mem)
        continue;
      seen = 1;
      known &= r->known;
      sum += r->known ? r->nbytes : 0;
      least += r->known ? r->nbytes : r->at_least;
    }
    if (!seen)
      continue;
    g = &f->rows[*k];
    if (*k >= f->n || strcmp(g->part, parts[j]) != 0 || g->memory != mem || g->known != known ||
        g->fits != -1 || memchr(g->reason, 0, WT_FIT_REASON) == NULL ||
        (sum == (uint64_t)sum && g->nbytes != (uint64_t)sum) ||
        g->at_least_ok != (least == (uint64_t)least) ||
        (g->at_least_ok && g->at_least != (uint64_t)least))
      abort();
    all_known &= known;
    total += sum;
    floor += least;
    (*k)++;
  }
  if (mem == WT_FIT_VRAM && used) { /* each CUDA buffer in 2 MiB pages, and one page more */
    u128 pad = WT_CUDA_PAGE;
    for (i = 0; i < p->n_rows; i++)
      if (fit_memory_of(&p->rows[i]) == WT_FIT_VRAM) {
        if (p->rows[i].buffer < 0 || p->rows[i].buffer >= 8)
          abort();
        buf[p->rows[i].buffer] += p->rows[i].nbytes;
        pages_known &= p->rows[i].known;
      }
    for (j = 0; j < 8; j++) /* small buffers share pages */
      small += buf[j] < WT_CUDA_PAGE ? buf[j] : 0;
    for (j = 0; j < 8; j++)
      pad += buf[j] >= WT_CUDA_PAGE ? (WT_CUDA_PAGE - buf[j] % WT_CUDA_PAGE) % WT_CUDA_PAGE : 0;
    pad += (WT_CUDA_PAGE - small % WT_CUDA_PAGE) % WT_CUDA_PAGE;
    if (*k >= f->n || strcmp(f->rows[*k].part, "cuda_pages") != 0 ||
        f->rows[*k].known != pages_known || (pages_known && f->rows[*k].nbytes != (uint64_t)pad))
      abort();
    all_known &= pages_known;
    total += pages_known ? pad : 0;
    floor += pages_known ? pad : WT_CUDA_PAGE;
    (*k)++;
  }
  if (*k >= f->n)
    abort();
  t = &f->rows[(*k)++];
  if (strcmp(t->part, "total") != 0 || t->memory != mem ||
      memchr(t->reason, 0, WT_FIT_REASON) == NULL || t->reason[0] == 0 ||
      t->known != (all_known && total == (uint64_t)total))
    abort();
  if (!b->has[mem]
          ? t->fits != -1
          : (t->fits == 1 && !(t->known && total <= b->bytes[mem])) ||
                (t->fits == 0 && !(t->known ? total > b->bytes[mem]
                                            : floor == (uint64_t)floor && floor > b->bytes[mem])) ||
                (t->fits == -1 && t->known))
    abort();
  if (mem == WT_FIT_RAM) { /* the mapped span, shown apart */
    for (i = 0; i < p->n_rows; i++)
      if (strcmp(p->rows[i].device, "CPU_Mapped") == 0)
        mapped += p->rows[i].nbytes;
    if (*k >= f->n || strcmp(f->rows[*k].part, "mapped") != 0 ||
        (mapped == (uint64_t)mapped && f->rows[*k].nbytes != (uint64_t)mapped))
      abort();
    (*k)++;
  }
  return t->fits;
}

/* Check gguf_fit()'s answer for plan p and budget b; the totals per memory
** into totals[] (0 when unknown). */
static void check_fit(const wt_mem_plan *p, const wt_fit_budget *b, uint64_t totals[2]) {
  wt_mem_fit f;
  int used[2] = {0, 0}, k = 0, mem, all = 1, no = 0;
  size_t i;
  wt_mem_fit_add_up(p, b, &f);
  for (i = 0; i < p->n_rows; i++)
    used[fit_memory_of(&p->rows[i])] = 1;
  for (mem = 0; mem < 2; mem++) {
    int fits;
    totals[mem] = 0;
    if (!used[mem] && !b->has[mem])
      continue;
    fits = check_memory(p, &f, mem, used[mem], b, &k);
    for (i = (size_t)k; i-- > 0;)
      if (strcmp(f.rows[i].part, "total") == 0) {
        totals[mem] = f.rows[i].known ? f.rows[i].nbytes : 0;
        break;
      }
    if (used[mem]) {
      all &= fits == 1;
      no |= fits == 0;
    }
  }
  if (k != f.n || f.fits != (no ? 0 : all ? 1 : -1) || memchr(f.reason, 0, WT_FIT_REASON) == NULL)
    abort();
}

/* gguf_fit() for a fuzzed budget, then each memory's total and one byte less. */
static void check_fits(const wt_mem_plan *p, uint64_t ram, uint64_t vram) {
  wt_fit_budget b = {{1, 1}, {ram, vram}};
  uint64_t totals[2];
  int mem;
  check_fit(p, &b, totals);
  for (mem = 0; mem < 2; mem++)
    if (totals[mem] > 0) {
      b.bytes[mem] = totals[mem];
      check_fit(p, &b, totals);
      b.bytes[mem]--;
      check_fit(p, &b, totals);
    }
  b.has[1] = 0; /* no VRAM budget: a GPU plan cannot be said to fit */
  check_fit(p, &b, totals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const int ccs[] = {750, 800, 890, 900};
  static const int cpus[] = {WT_CPU_NONE, WT_CPU_AVX2, WT_CPU_AVX512, WT_CPU_UNKNOWN, WT_CPU_AMX};
  wt_model m;
  wt_error err;
  wt_mem_settings s;
  wt_mem_plan plan;
  uint64_t need, ram;
  size_t i;
  unsigned shift;
  if (size < HEAD)
    return 0;
  wt_mem_settings_default(&s);
  s.flash_attn = data[0] & 1 ? WT_FA_ON : data[0] & 4 ? WT_FA_AUTO : WT_FA_OFF;
  s.cpu = cpus[(data[0] >> 3) % 5];
  shift = data[1] % 64;
  s.n_ctx = data[0] & 2 ? 0 : (uint64_t)rd32(data + 2) << shift;
  s.type_k = (int8_t)data[6];
  s.type_v = (int8_t)data[7];
  s.n_seq = rd32(data + 8);
  s.n_ubatch = rd32(data + 12);
  ram = (uint64_t)rd32(data + 2) << shift;
  data += HEAD;
  size -= HEAD;
  if (gguf_parse_prefix(data, size, (uint64_t)size + ((uint64_t)1 << 24), &m, &need, &err) != 0)
    return 0;
  for (i = 0; i < m.n_tensors; i++)
    if (!m.tensors[i].nbytes_known)
      break;
  /* on the CPU alone, then with layers on a CUDA GPU */
  err.msg[0] = 0;
  if (wt_memory_plan(&m, data, &s, &plan, &err) != 0) {
    if (err.msg[0] == 0 || plan.rows != NULL || plan.n_rows != 0)
      abort();
  } else {
    if (i < m.n_tensors) /* a tensor of unknown size must be an error */
      abort();
    check_plan(&m, &plan, s.cpu);
    check_fits(&plan, ram, 0);
    wt_mem_plan_free(&plan);
  }
  s.gpu = WT_GPU_CUDA;
  s.cuda_cc = ccs[data[-4] & 3];
  s.op_offload = !(data[-4] & 4);
  s.swa_full = (data[-4] >> 3) & 1;
  s.n_gpu_layers = (int8_t)data[-3] < -1 ? -1 : (int8_t)data[-3];
  err.msg[0] = 0;
  if (wt_memory_plan(&m, data, &s, &plan, &err) != 0) {
    if (err.msg[0] == 0 || plan.rows != NULL || plan.n_rows != 0)
      abort();
  } else {
    if (i < m.n_tensors)
      abort();
    check_gpu_plan(&m, &plan, s.n_gpu_layers);
    check_fits(&plan, ram, (uint64_t)(data[-2] | data[-1] << 8) << 20);
    wt_mem_plan_free(&plan);
  }
  wt_model_free(&m);
  return 0;
}
