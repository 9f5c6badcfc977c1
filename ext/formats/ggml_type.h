/*
** ggml_type.h: the table of ggml tensor types (ids 0-42) found in GGUF
** files: upper-case name, elements per block, bytes per block.  Removed
** ids keep their historical name; those that had an on-disk layout
** (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8, IQ4_NL_4_4: 32 elements in 18 bytes) keep
** its size, the others (Q4_2, Q4_3, IQ4_NL_4_8, IQ4_NL_8_8) have block
** size 0: no byte size can be computed.  Ids outside the table are unknown.
** Layer: formats (pure C; uses base/).
*/
#ifndef WT_GGML_TYPE_H
#define WT_GGML_TYPE_H

#include <stdint.h>

typedef struct ggml_type_info {
  const char *name;    /* "F32", "Q4_K", "IQ2_XS", ...; removed ids e.g. "Q4_2" */
  uint32_t block_size; /* elements per block; 0 when unknown (removed ids) */
  uint32_t type_size;  /* bytes per block; 0 when unknown (removed ids) */
  int removed;         /* 1 for ids ggml no longer accepts (4, 5, 31-33, 36-38) */
} ggml_type_info;

#define GGML_TYPE_TABLE_SIZE 43

/* Type ids that code outside the table names (ggml.h's enum ggml_type). */
#define GGML_TYPE_NVFP4 40

/* The entry for id, or NULL when no table knows it. */
const ggml_type_info *ggml_type_get(int64_t id);

#endif
