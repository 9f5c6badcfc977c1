/*
** ggml_type.c: the table of ggml tensor types that GGUF files name by id.
** Layer: formats (pure C; uses base/).
**
** Source: the enum in include/ggml.h and the type_traits table in
** src/ggml.c (blck_size, type_size = sizeof(block_xxx)) of ggml-org/ggml,
** commit d99724f2.  Names are the enum names without the GGML_TYPE_
** prefix.
**
** Removed ids keep their name.  Four of them (31-33, 36) were real
** on-disk types for a while, with the Q4_0 / IQ4_NL block layout; they
** keep that historical size so that old files still get a byte size.  The
** others (4, 5: removed before GGUF existed; 37, 38: never enabled) have
** no known size: block_size = type_size = 0.
**
** Ids outside 0-42 (newer upstream types, forks' private types) are
** unknown: ggml_type_get() returns NULL and the parser leaves the size
** unknown instead of rejecting the file.
*/
#include "ggml_type.h"

#include <stddef.h>

/* One row per id, in id order.  name, block_size, type_size, removed. */
static const ggml_type_info ggml_types[GGML_TYPE_TABLE_SIZE] = {
    /*  0 */ {"F32", 1, 4, 0},
    /*  1 */ {"F16", 1, 2, 0},
    /*  2 */ {"Q4_0", 32, 18, 0},
    /*  3 */ {"Q4_1", 32, 20, 0},
    /*  4 */ {"Q4_2", 0, 0, 1},
    /*  5 */ {"Q4_3", 0, 0, 1},
    /*  6 */ {"Q5_0", 32, 22, 0},
    /*  7 */ {"Q5_1", 32, 24, 0},
    /*  8 */ {"Q8_0", 32, 34, 0},
    /*  9 */ {"Q8_1", 32, 36, 0},
    /* 10 */ {"Q2_K", 256, 84, 0},
    /* 11 */ {"Q3_K", 256, 110, 0},
    /* 12 */ {"Q4_K", 256, 144, 0},
    /* 13 */ {"Q5_K", 256, 176, 0},
    /* 14 */ {"Q6_K", 256, 210, 0},
    /* 15 */ {"Q8_K", 256, 292, 0},
    /* 16 */ {"IQ2_XXS", 256, 66, 0},
    /* 17 */ {"IQ2_XS", 256, 74, 0},
    /* 18 */ {"IQ3_XXS", 256, 98, 0},
    /* 19 */ {"IQ1_S", 256, 50, 0},
    /* 20 */ {"IQ4_NL", 32, 18, 0},
    /* 21 */ {"IQ3_S", 256, 110, 0},
    /* 22 */ {"IQ2_S", 256, 82, 0},
    /* 23 */ {"IQ4_XS", 256, 136, 0},
    /* 24 */ {"I8", 1, 1, 0},
    /* 25 */ {"I16", 1, 2, 0},
    /* 26 */ {"I32", 1, 4, 0},
    /* 27 */ {"I64", 1, 8, 0},
    /* 28 */ {"F64", 1, 8, 0},
    /* 29 */ {"IQ1_M", 256, 56, 0},
    /* 30 */ {"BF16", 1, 2, 0},
    /* 31 */ {"Q4_0_4_4", 32, 18, 1},
    /* 32 */ {"Q4_0_4_8", 32, 18, 1},
    /* 33 */ {"Q4_0_8_8", 32, 18, 1},
    /* 34 */ {"TQ1_0", 256, 54, 0},
    /* 35 */ {"TQ2_0", 256, 66, 0},
    /* 36 */ {"IQ4_NL_4_4", 32, 18, 1},
    /* 37 */ {"IQ4_NL_4_8", 0, 0, 1},
    /* 38 */ {"IQ4_NL_8_8", 0, 0, 1},
    /* 39 */ {"MXFP4", 32, 17, 0},
    /* 40 */ {"NVFP4", 64, 36, 0},
    /* 41 */ {"Q1_0", 128, 18, 0},
    /* 42 */ {"Q2_0", 64, 18, 0},
};

/* The table row for id, or NULL for an id no table knows. */
const ggml_type_info *ggml_type_get(int64_t id) {
  if (id < 0 || id >= GGML_TYPE_TABLE_SIZE)
    return NULL;
  return &ggml_types[id];
}
