/*
** name_map.h: tensor names between Hugging Face checkpoints and GGUF
** files, as llama.cpp's converter (gguf-py's TensorNameMap) maps them, for
** the common decoder-only architectures.  Pure C, no SQLite; the
** hf_name and gguf_name columns of tensors() and the pairing of tensors
** across files are built on it.  Layer: formats.
**
** arch is the GGUF general.architecture: llama (also the converter's
** arch for Mistral checkpoints; "mistral" is accepted as the same),
** qwen2, qwen3, gemma, gemma2, gemma3, phi3.  Names map by their stem
** (model.layers.7.self_attn.q_proj <-> blk.7.attn_q); whatever follows the
** stem after a '.' (".weight", ".bias") is kept as it is.  A name with no
** counterpart (an HF rotary_emb.inv_freq, phi3's generated
** rope_factors_long) or an arch not listed has no mapping.
*/
#ifndef WT_NAME_MAP_H
#define WT_NAME_MAP_H

#include <stddef.h>

/* Write the GGUF name of the Hugging Face tensor name[0..n) for arch into
** out (NUL-terminated).  Returns its length, 0 when there is no mapping,
** or -1 when it does not fit in cap bytes. */
int wt_name_hf_to_gguf(const char *arch, const char *name, size_t n, char *out, size_t cap);

/* The reverse: the Hugging Face name of the GGUF tensor name[0..n). */
int wt_name_gguf_to_hf(const char *arch, const char *name, size_t n, char *out, size_t cap);

/* 1 when arch is one the map knows.  For tests only. */
int wt_name_map_knows(const char *arch);

#endif
