/*
** names.h: how the report groups tensors (pure C, no SQLite): the layer of
** a tensor (blk.N. in GGUF, model.layers.N. / layers.N. / h.N. in
** checkpoints) and its kind (q, k, v, o, gate, up, down, norms), the rows
** and columns of the diff's heatmaps.  Pairing a checkpoint's names with
** a GGUF's and llama.cpp's q/k row order are not the report's:
** formats/name_map.h and decode/permute.h (used by sql/report_diff.c).
*/
#ifndef WT_NAMES_H
#define WT_NAMES_H

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

#endif
