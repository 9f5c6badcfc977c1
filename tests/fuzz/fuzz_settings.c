/*
** fuzz_settings.c: libFuzzer target for the JSON settings of gguf_memory()
** and gguf_fit() (ext/plan/plan_settings.c, wt_settings_parse).
**
** Input: a first byte, then
**   odd first byte   any bytes, parsed as the settings text;
**   even first byte  entries of 4 bytes each (key, kind, two bytes of
**                    argument) that this harness writes as one JSON object
**                    and reads itself, by its own reading of
**                    plan_settings.h: which keys there are, the type and
**                    range of each value, null the default (a budget's
**                    null an error), a key given twice or unknown an error,
**                    n_gpu_layers other than 0 or a VRAM budget meaning a
**                    CUDA GPU unless gpu is given, gpu 'none' with layers to
**                    offload an error.
**
** Checks, beside "no crash, no sanitizer report": every parse ends in 0
** or -1 with a NUL-terminated message (a failure's not empty); a success
** leaves settings in their ranges (n_seq, n_ubatch >= 1, cache types that
** name ggml types, n_gpu_layers >= -1, the enums in range, a compute
** capability from 750 in tens, no layers offloaded without a GPU); the
** same text parsed for gguf_memory() (no budgets) succeeds exactly when it
** succeeded for gguf_fit() without a budget, with the same settings.  For
** the written objects, also: success exactly when the harness expects it,
** and then every setting the value the harness expects.  Built by `make
** fuzz`.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ggml_type.h"
#include "plan/plan_settings.h"

#define TEXT_MAX 4096
#define ERR_SIZE WT_SETTINGS_ERR

enum {
  K_N_CTX,
  K_N_SEQ,
  K_N_UBATCH,
  K_TYPE_K,
  K_TYPE_V,
  K_FLASH_ATTN,
  K_CPU,
  K_GPU,
  K_N_GPU_LAYERS,
  K_CUDA_CC,
  K_OP_OFFLOAD,
  K_SWA_FULL,
  K_RAM,
  K_VRAM,
  K_KNOWN,             /* the keys above are the known ones */
  K_UNKNOWN = K_KNOWN, /* "n_ctxx" */
  K_UPPER,             /* "N_CTX": keys are case-sensitive */
  K_REPEAT,            /* the key of the entry before */
  K_KINDS
};

static const char *const key_names[] = {
    "n_ctx",        "n_seq",   "n_ubatch",   "type_k",   "type_v", "flash_attn", "cpu",    "gpu",
    "n_gpu_layers", "cuda_cc", "op_offload", "swa_full", "ram",    "vram",       "n_ctxx", "N_CTX"};

/* The strings a value may be, with what each means to each kind of key
** (-1: not a value of it). */
typedef struct str_value {
  const char *text;
  int64_t type; /* ggml type id */
  int fa;       /* WT_FA_* */
  int cpu;      /* WT_CPU_* */
  int gpu;      /* WT_GPU_* */
  int cc;       /* compute capability, ggml's way */
} str_value;

static const str_value strs[] = {
    {"f32", 0, -1, -1, -1, -1},
    {"F16", 1, -1, -1, -1, -1},
    {"q4_0", 2, -1, -1, -1, -1},
    {"Q8_0", 8, -1, -1, -1, -1},
    {"bf16", 30, -1, -1, -1, -1},
    {"iq4_nl", 20, -1, -1, -1, -1},
    {"q4_K", 12, -1, -1, -1, -1},
    {"Q4_2", -1, -1, -1, -1, -1},
    {"q8_k", 15, -1, -1, -1, -1},
    {"auto", -1, WT_FA_AUTO, -1, -1, -1},
    {"ON", -1, WT_FA_ON, -1, -1, -1},
    {"off", -1, WT_FA_OFF, -1, -1, -1},
    {"1", -1, WT_FA_ON, -1, -1, -1},
    {"0", -1, WT_FA_OFF, -1, -1, -1},
    {"host", -1, -1, WT_CPU_HOST, -1, -1},
    {"AVX512", -1, -1, WT_CPU_AVX512, -1, -1},
    {"avx2", -1, -1, WT_CPU_AVX2, -1, -1},
    {"none", -1, -1, WT_CPU_NONE, WT_GPU_NONE, -1},
    {"cuda", -1, -1, -1, WT_GPU_CUDA, -1},
    {"8.9", -1, -1, -1, -1, 890},
    {"9.0", -1, -1, -1, -1, 900},
    {"7.5", -1, -1, -1, -1, 750},
    {"12.0", -1, -1, -1, -1, 1200},
    {"7.0", -1, -1, -1, -1, -1},
    {"8.95", -1, -1, -1, -1, -1},
    {"", -1, -1, -1, -1, -1},
    {"9.0x", -1, -1, -1, -1, -1},
    {"1e1", -1, -1, -1, -1, 1000},
};
#define N_STRS (sizeof(strs) / sizeof(strs[0]))

/* A value: its JSON text and what it is. */
enum { V_NUMBER, V_STRING, V_TRUE, V_FALSE, V_NULL, V_ARRAY, V_OBJECT };
typedef struct value {
  int kind;
  long double num; /* V_NUMBER */
  const str_value *str;
  char text[64];
} value;

/* Value of kind byte b, argument a. */
static void make_value(uint8_t b, uint16_t a, value *v) {
  memset(v, 0, sizeof(*v));
  switch (b % 8) {
  case 0: /* a small integer, negative ones included */
    v->kind = V_NUMBER;
    v->num = (int16_t)a;
    snprintf(v->text, sizeof(v->text), "%d", (int16_t)a);
    break;
  case 1: { /* a large one: a << 4 x (0 to 11), or a x 10^12 to 10^15 written "aEk" */
    unsigned sh = (b >> 3) % 16 * 4;
    v->kind = V_NUMBER;
    if (sh < 48) {
      v->num = ldexpl((long double)a, (int)sh);
      snprintf(v->text, sizeof(v->text), "%llu", (unsigned long long)a << sh);
    } else {
      v->num = (long double)a * powl(10, sh / 4);
      snprintf(v->text, sizeof(v->text), "%uE%u", a, sh / 4);
    }
    break;
  }
  case 2: /* tenths: 8.9, 7.5, 0.5 */
    v->kind = V_NUMBER;
    v->num = (long double)a / 10;
    snprintf(v->text, sizeof(v->text), "%u.%u", a / 10, a % 10);
    break;
  case 3:
    v->kind = V_STRING;
    v->str = &strs[a % N_STRS];
    snprintf(v->text, sizeof(v->text), "\"%s\"", v->str->text);
    break;
  case 4:
    v->kind = V_TRUE;
    snprintf(v->text, sizeof(v->text), "true");
    break;
  case 5:
    v->kind = V_FALSE;
    snprintf(v->text, sizeof(v->text), "false");
    break;
  case 6:
    v->kind = V_NULL;
    snprintf(v->text, sizeof(v->text), "null");
    break;
  default:
    v->kind = a & 1 ? V_ARRAY : V_OBJECT;
    snprintf(v->text, sizeof(v->text), a & 1 ? "[1]" : "{}");
    break;
  }
}

/* Whether v is an integer from lo to 2^53, into *out. */
static int as_int(const value *v, long double lo, int64_t *out) {
  if (v->kind != V_NUMBER || v->num != floorl(v->num) || v->num < lo ||
      v->num > 9007199254740992.0L)
    return 0;
  *out = (int64_t)v->num;
  return 1;
}

/* What the harness expects of the written object. */
typedef struct expect {
  wt_mem_settings s;
  wt_fit_ask ask;
  int ok;
  int gpu_given, layers_given;
} expect;

/* Apply key k = v to e; 0 when v is not a value of k. */
static int expect_key(int k, const value *v, expect *e, int fit) {
  int64_t i;
  if (v->kind == V_NULL)
    return k != K_RAM && k != K_VRAM;
  switch (k) {
  case K_N_CTX:
  case K_N_SEQ:
  case K_N_UBATCH:
    if (!as_int(v, 1, &i))
      return 0;
    if (k == K_N_CTX) {
      e->s.n_ctx = (uint64_t)i;
      e->ask.has_ctx = fit;
    } else
      *(k == K_N_SEQ ? &e->s.n_seq : &e->s.n_ubatch) = (uint64_t)i;
    return 1;
  case K_TYPE_K:
  case K_TYPE_V:
    if (v->kind != V_STRING || v->str->type < 0)
      return 0;
    *(k == K_TYPE_K ? &e->s.type_k : &e->s.type_v) = v->str->type;
    return 1;
  case K_FLASH_ATTN:
    if (v->kind == V_TRUE || v->kind == V_FALSE)
      e->s.flash_attn = v->kind == V_TRUE ? WT_FA_ON : WT_FA_OFF;
    else if (v->kind == V_NUMBER && (v->num == 0 || v->num == 1))
      e->s.flash_attn = v->num == 1 ? WT_FA_ON : WT_FA_OFF;
    else if (v->kind == V_STRING && v->str->fa >= 0)
      e->s.flash_attn = v->str->fa;
    else
      return 0;
    return 1;
  case K_CPU:
  case K_GPU:
    if (v->kind != V_STRING || (k == K_CPU ? v->str->cpu : v->str->gpu) < 0)
      return 0;
    *(k == K_CPU ? &e->s.cpu : &e->s.gpu) = k == K_CPU ? v->str->cpu : v->str->gpu;
    e->gpu_given |= k == K_GPU;
    return 1;
  case K_N_GPU_LAYERS:
    if (!as_int(v, -1, &e->s.n_gpu_layers))
      return 0;
    e->ask.has_layers = fit;
    e->layers_given = 1;
    return 1;
  case K_CUDA_CC: {
    long double d = v->kind == V_NUMBER ? v->num : -1;
    if (v->kind == V_STRING) {
      if (v->str->cc < 0)
        return 0;
      e->s.cuda_cc = v->str->cc;
      return 1;
    }
    if (!(d >= 7.5L && d < 100) || fabsl(d * 10 - floorl(d * 10 + 0.5L)) > 1e-9L)
      return 0;
    e->s.cuda_cc = (int)floorl(d * 10 + 0.5L) * 10;
    return 1;
  }
  case K_OP_OFFLOAD:
  case K_SWA_FULL:
    if (v->kind != V_TRUE && v->kind != V_FALSE)
      return 0;
    *(k == K_OP_OFFLOAD ? &e->s.op_offload : &e->s.swa_full) = v->kind == V_TRUE;
    return 1;
  default: /* K_RAM, K_VRAM: budgets, gguf_fit's only */
    if (!fit || !as_int(v, 0, &i))
      return 0;
    if (k == K_RAM) {
      e->ask.has_ram = 1;
      e->ask.ram = (uint64_t)i;
    } else {
      e->ask.has_vram = 1;
      e->ask.vram = (uint64_t)i;
    }
    return 1;
  }
}

/* A settings struct in its ranges (plan_settings.h). */
static void check_ranges(const wt_mem_settings *s) {
  const ggml_type_info *tk = ggml_type_get(s->type_k), *tv = ggml_type_get(s->type_v);
  if (s->n_seq < 1 || s->n_ubatch < 1 || tk == NULL || tv == NULL || tk->block_size == 0 ||
      tv->block_size == 0 || s->n_gpu_layers < -1 || s->flash_attn < 0 || s->flash_attn > 2 ||
      s->cpu < 0 || s->cpu > WT_CPU_HOST || (s->gpu != WT_GPU_NONE && s->gpu != WT_GPU_CUDA) ||
      s->cuda_cc < 750 || s->cuda_cc % 10 != 0 || (s->op_offload | s->swa_full) > 1 ||
      s->op_offload < 0 || s->swa_full < 0)
    abort();
}

/* Whether two settings are the same. */
static int same(const wt_mem_settings *a, const wt_mem_settings *b) {
  return a->n_ctx == b->n_ctx && a->type_k == b->type_k && a->type_v == b->type_v &&
         a->n_seq == b->n_seq && a->n_ubatch == b->n_ubatch && a->flash_attn == b->flash_attn &&
         a->cpu == b->cpu && a->gpu == b->gpu && a->n_gpu_layers == b->n_gpu_layers &&
         a->cuda_cc == b->cuda_cc && a->op_offload == b->op_offload && a->swa_full == b->swa_full &&
         a->parts == b->parts && a->n_parts == b->n_parts &&
         a->with_parts_weights == b->with_parts_weights;
}

/* Parse text both ways and check what must hold of any text. */
static int parse_both(const char *text, size_t n, wt_mem_settings *s, wt_fit_ask *ask) {
  char err[ERR_SIZE], err2[ERR_SIZE];
  wt_mem_settings s2;
  int rc, rc2;
  wt_mem_settings_default(s);
  wt_mem_settings_default(&s2);
  memset(err, 'x', sizeof(err));
  rc = wt_settings_parse(text, n, s, ask, err, sizeof(err));
  if ((rc != 0 && rc != -1) || memchr(err, 0, sizeof(err)) == NULL || (rc != 0) != (err[0] != 0))
    abort();
  rc2 = wt_settings_parse(text, n, &s2, NULL, err2, sizeof(err2));
  if ((rc2 != 0 && rc2 != -1) || memchr(err2, 0, sizeof(err2)) == NULL ||
      (rc2 != 0) != (err2[0] != 0))
    abort();
  if (rc == 0) {
    check_ranges(s);
    if (s->gpu == WT_GPU_NONE && ask->has_layers && s->n_gpu_layers != 0)
      abort();
    /* without budgets, gguf_memory reads the same settings */
    if (!ask->has_ram && !ask->has_vram && (rc2 != 0 || !same(s, &s2)))
      abort();
  }
  if (rc2 == 0) {
    check_ranges(&s2);
    if (rc != 0) /* what gguf_memory takes, gguf_fit takes */
      abort();
  }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char text[TEXT_MAX];
  size_t at = 0, i;
  int prev = -1, seen[K_KNOWN] = {0};
  expect e;
  wt_mem_settings s;
  wt_fit_ask ask;
  if (size < 1)
    return 0;
  if (data[0] & 1) {
    parse_both((const char *)data + 1, size - 1, &s, &ask);
    return 0;
  }
  memset(&e, 0, sizeof(e));
  wt_mem_settings_default(&e.s);
  e.ok = 1;
  at += (size_t)snprintf(text + at, sizeof(text) - at, "{");
  for (i = 1; i + 4 <= size && at < sizeof(text) - 128; i += 4) {
    int k = data[i] % K_KINDS;
    value v;
    make_value(data[i + 1], (uint16_t)(data[i + 2] | data[i + 3] << 8), &v);
    if (k == K_REPEAT)
      k = prev >= 0 ? prev : K_N_CTX;
    at += (size_t)snprintf(text + at, sizeof(text) - at, "%s\"%s\": %s", i > 1 ? ", " : "",
                           key_names[k], v.text);
    prev = k;
    if (k >= K_KNOWN || seen[k]++) {
      e.ok = 0;
      continue;
    }
    if (e.ok && !expect_key(k, &v, &e, 1))
      e.ok = 0;
  }
  at += (size_t)snprintf(text + at, sizeof(text) - at, "}");
  if (e.ok && !e.gpu_given && ((e.layers_given && e.s.n_gpu_layers != 0) || e.ask.has_vram))
    e.s.gpu = WT_GPU_CUDA;
  if (e.ok && e.s.gpu == WT_GPU_NONE && e.layers_given && e.s.n_gpu_layers != 0)
    e.ok = 0;
  if ((parse_both(text, at, &s, &ask) == 0) != e.ok)
    abort();
  if (e.ok && (!same(&s, &e.s) || ask.has_ram != e.ask.has_ram || ask.has_vram != e.ask.has_vram ||
               ask.ram != e.ask.ram || ask.vram != e.ask.vram || ask.has_ctx != e.ask.has_ctx ||
               ask.has_layers != e.ask.has_layers))
    abort();
  return 0;
}
