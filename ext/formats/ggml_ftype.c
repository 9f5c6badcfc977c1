/*
** ggml_ftype.c: the names of llama.cpp's file types (general.file_type)
** and bits per weight.  Layer: formats (pure C; uses base/).
**
** Source: enum llama_ftype in include/llama.h of ggml-org/llama.cpp.  Names are the
** enum names without the LLAMA_FTYPE_ prefix.  Ids that llama.cpp removed
** keep their historical name (4 MOSTLY_Q4_1_SOME_F16, 5 MOSTLY_Q4_2,
** 6 MOSTLY_Q4_3, 33-35 MOSTLY_Q4_0_4_4 / _4_8 / _8_8), since old files
** still carry them.  1024 (GUESSED) is what llama.cpp uses in memory when
** a file has no general.file_type.  Other ids are unknown.
*/
#include "ggml_ftype.h"

#include <stdio.h>
#include <string.h>

#include "gguf_value.h"

/* llama.h's LLAMA_FTYPE_GUESSED: the one id past the table. */
#define LLAMA_FTYPE_GUESSED 1024

/* Ids 0-40 in order; NULL where llama.h never had an id. */
static const char *const ggml_ftypes[] = {
    /*  0 */ "ALL_F32",
    /*  1 */ "MOSTLY_F16",
    /*  2 */ "MOSTLY_Q4_0",
    /*  3 */ "MOSTLY_Q4_1",
    /*  4 */ "MOSTLY_Q4_1_SOME_F16",
    /*  5 */ "MOSTLY_Q4_2",
    /*  6 */ "MOSTLY_Q4_3",
    /*  7 */ "MOSTLY_Q8_0",
    /*  8 */ "MOSTLY_Q5_0",
    /*  9 */ "MOSTLY_Q5_1",
    /* 10 */ "MOSTLY_Q2_K",
    /* 11 */ "MOSTLY_Q3_K_S",
    /* 12 */ "MOSTLY_Q3_K_M",
    /* 13 */ "MOSTLY_Q3_K_L",
    /* 14 */ "MOSTLY_Q4_K_S",
    /* 15 */ "MOSTLY_Q4_K_M",
    /* 16 */ "MOSTLY_Q5_K_S",
    /* 17 */ "MOSTLY_Q5_K_M",
    /* 18 */ "MOSTLY_Q6_K",
    /* 19 */ "MOSTLY_IQ2_XXS",
    /* 20 */ "MOSTLY_IQ2_XS",
    /* 21 */ "MOSTLY_Q2_K_S",
    /* 22 */ "MOSTLY_IQ3_XS",
    /* 23 */ "MOSTLY_IQ3_XXS",
    /* 24 */ "MOSTLY_IQ1_S",
    /* 25 */ "MOSTLY_IQ4_NL",
    /* 26 */ "MOSTLY_IQ3_S",
    /* 27 */ "MOSTLY_IQ3_M",
    /* 28 */ "MOSTLY_IQ2_S",
    /* 29 */ "MOSTLY_IQ2_M",
    /* 30 */ "MOSTLY_IQ4_XS",
    /* 31 */ "MOSTLY_IQ1_M",
    /* 32 */ "MOSTLY_BF16",
    /* 33 */ "MOSTLY_Q4_0_4_4",
    /* 34 */ "MOSTLY_Q4_0_4_8",
    /* 35 */ "MOSTLY_Q4_0_8_8",
    /* 36 */ "MOSTLY_TQ1_0",
    /* 37 */ "MOSTLY_TQ2_0",
    /* 38 */ "MOSTLY_MXFP4_MOE",
    /* 39 */ "MOSTLY_NVFP4",
    /* 40 */ "MOSTLY_Q1_0",
};

const char *ggml_ftype_name(int64_t id) {
  if (id == LLAMA_FTYPE_GUESSED)
    return "GUESSED";
  if (id < 0 || (uint64_t)id >= sizeof(ggml_ftypes) / sizeof(ggml_ftypes[0]))
    return NULL;
  return ggml_ftypes[id];
}

const char *ggml_ftype_text(char *buf, size_t size, int64_t id) {
  const char *name = ggml_ftype_name(id);
  if (name != NULL)
    snprintf(buf, size, "%s", name);
  else
    snprintf(buf, size, "unknown (%lld)", (long long)id);
  return buf;
}

int gguf_file_type(const wt_model *m, const unsigned char *header, int64_t *id) {
  static const char key[] = "general.file_type";
  size_t i;
  for (i = 0; i < m->n_meta; i++) {
    const wt_meta *kv = &m->meta[i];
    gguf_cursor c;
    gguf_scalar v;
    if (kv->key.n != sizeof(key) - 1 || memcmp(kv->key.p, key, kv->key.n) != 0)
      continue;
    if (kv->type == GGUF_TYPE_ARRAY || kv->type == GGUF_TYPE_STRING ||
        kv->type == GGUF_TYPE_FLOAT32 || kv->type == GGUF_TYPE_FLOAT64 ||
        kv->type == GGUF_TYPE_BOOL)
      return 0;
    gguf_cursor_init(&c, m, header, kv);
    if (gguf_read_scalar(&c, kv->type, &v) != 0 || v.kind != GGUF_SCALAR_INT)
      return 0;
    *id = v.i;
    return 1;
  }
  return 0;
}

double wt_bits_per_weight(uint64_t nbytes, uint64_t params) {
  if (params == 0)
    return -1;
  return 8.0 * (double)nbytes / (double)params;
}
