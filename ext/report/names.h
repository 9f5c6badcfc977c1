/*
** names.h: what the report knows about tensor names (pure C, no SQLite).
**
** The report groups tensors by layer and by kind, and the diff report
** pairs a Hugging Face llama checkpoint with its llama.cpp GGUF conversion.
** Everything it knows about naming schemes is here, so that a shared name
** map can replace it in one place:
**   - the layer of a tensor: blk.N. (GGUF), model.layers.N. / layers.N. (HF);
**   - its kind: q, k, v, o, gate, up, down, norms;
**   - the GGUF name of a Hugging Face llama name (model.layers.3.mlp.up_proj.weight
**     -> blk.3.ffn_up.weight);
**   - llama.cpp's row permutation of the q and k weights.
*/
#ifndef WT_NAMES_H
#define WT_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Layer groups that are not a numbered layer. */
#define WT_LAYER_EMBED  (-1) /* token embedding */
#define WT_LAYER_OUTPUT (-2) /* final norm and output head */
#define WT_LAYER_OTHER  (-3) /* anything else */

/* The kinds of the diff heatmap's columns. */
enum {
  WT_KIND_Q,
  WT_KIND_K,
  WT_KIND_V,
  WT_KIND_O,
  WT_KIND_GATE,
  WT_KIND_UP,
  WT_KIND_DOWN,
  WT_KIND_NORM,
  WT_KIND_COUNT
};

/* The short name of a kind: "q", ..., "norms". */
const char *wt_kind_name(int kind);

/* The layer number of a tensor name (0, 1, ...), or one of WT_LAYER_*. */
int wt_name_layer(const char *name);

/* The kind of a tensor inside a layer (WT_KIND_*), or -1. */
int wt_name_kind(const char *name);

/* Write the GGUF (llama.cpp) name of name into out (size n, NUL-terminated):
** a Hugging Face llama name is translated, any other name is copied.
** Returns 1 when it was translated, 0 when copied, -1 when out is too small. */
int wt_name_to_gguf(const char *name, char *out, size_t n);

/* Row r of a llama.cpp q or k weight of rows rows and n_head heads holds
** which row of the Hugging Face weight.  Returns r when the shape does not
** split into heads of an even size. */
int64_t wt_permuted_row(int64_t r, int64_t rows, int64_t n_head);

#endif
