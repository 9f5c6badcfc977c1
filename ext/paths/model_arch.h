/*
** model_arch.h: the architecture of an opened model, for the name map
** (formats/name_map.h) and the q/k layout (decode/permute.h).  Layer: io.
**
** A GGUF's architecture is its general.architecture; a safetensors
** file's is the one its config.json (paths/hf_config_file.h) names through
** architectures[0] (formats/hf_config.h), and none when there is no
** config.json or it names no architecture known to the converter.
*/
#ifndef WT_MODEL_ARCH_H
#define WT_MODEL_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "bytes/source.h"
#include "formats/gguf_value.h"

/* The scalar value of GGUF key (NUL-terminated) of s in *v: 0, or -1 when
** s is no GGUF, the key is absent, an array, or unreadable. */
int wt_source_gguf_scalar(const wt_source *s, const char *key, gguf_scalar *v);

/* Write the architecture of s into out (NUL-terminated).  Returns its
** length, or 0 when it has none (or it does not fit in cap). */
size_t wt_source_arch(const wt_source *s, char *out, size_t cap);

/* The GGUF scalar integer "{arch}.{key}" of s (arch its
** general.architecture) in *v: 0, or -1 when absent or not a
** non-negative integer. */
int wt_source_arch_uint(const wt_source *s, const char *key, uint64_t *v);

#endif
