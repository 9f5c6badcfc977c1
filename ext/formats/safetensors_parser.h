/*
** safetensors_parser.h: parse and validate a safetensors header from the
** file's bytes, with the checks of the Rust crate (SafeTensors::read_metadata
** in safetensors/src/tensor.rs of huggingface/safetensors, commit 24b0b285,
** version 0.8).  Pure C, no SQLite.
** Layer: formats (pure C; uses base/).
*/
#ifndef WT_SAFETENSORS_PARSER_H
#define WT_SAFETENSORS_PARSER_H

#include <stdint.h>

#include "base/model.h"

/* The crate's MAX_HEADER_SIZE (decimal). */
#define ST_MAX_HEADER 100000000ULL

/* Parse data[0..size).  On success returns 0 and fills *out (tensors in
** data-offset order, metadata in header order); free it with
** wt_model_free.  On failure returns -1 with err set.  For tests only: the
** module parses prefixes of files with safetensors_parse_prefix. */
int safetensors_parse(const unsigned char *data, uint64_t size, wt_model *out, wt_error *err);

/* The same with only the first avail bytes of a file of size bytes in
** data: returns 1 with *need set (avail < *need <= size) when the header
** runs past them; read the first *need bytes and call again.  Messages
** are those of a parse of the whole file. */
int safetensors_parse_prefix(const unsigned char *data, uint64_t avail, uint64_t size,
                             wt_model *out, uint64_t *need, wt_error *err);

#endif
