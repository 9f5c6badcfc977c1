/*
** ggml_ftype.h: the names of llama.cpp's file types, the value of a GGUF
** file's general.file_type key (enum llama_ftype in llama.h), and the
** bits per weight of a set of tensors.  Layer: formats (pure C; uses
** base/).
*/
#ifndef WT_GGML_FTYPE_H
#define WT_GGML_FTYPE_H

#include <stdint.h>

#include "base/model.h"

/* Write the name of id into buf: the table's name, or "unknown (N)" for
** an id it does not know.  Returns buf. */
const char *ggml_ftype_text(char *buf, size_t size, int64_t id);

/* The name of file type id without the LLAMA_FTYPE_ prefix ("ALL_F32",
** "MOSTLY_Q8_0", "GUESSED"), or NULL for an id the table does not know. */
const char *ggml_ftype_name(int64_t id);

/* general.file_type of GGUF model m (header holds its header bytes):
** 1 with *id set when the key is there with an integer type, else 0. */
int gguf_file_type(const wt_model *m, const unsigned char *header, int64_t *id);

/* Bits per weight of tensors holding nbytes bytes for params elements:
** 8 * nbytes / params (8.5 for pure Q8_0: 34 bytes per 32 weights), or
** -1 when params is 0. */
double wt_bits_per_weight(uint64_t nbytes, uint64_t params);

#endif
