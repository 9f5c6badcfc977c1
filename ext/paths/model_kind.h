/*
** model_kind.h: what a model is, for weights_models(): its architecture,
** its kind (a model, an adapter, a projector, ...), the base model it
** derives from, its training context length and its quantization.  Layer:
** io (paths; reads the model's headers through the cache and the
** config.json / adapter_config.json beside it through the byte source,
** local or remote).
**
** The rules (docs/reference.md, weights_models, says them for users):
**
** GGUF, from the metadata of part 1 (the kind follows gguf-parser-go's
** GGUFFile.Architecture(), file_architecture.go at commit c3936a04, and
** llama.cpp's gguf-py GGUFType: "model", "adapter", "mmproj"):
**   architecture    general.architecture
**   kind            general.type "adapter", or general.architecture
**                   "controlvector": adapter; general.type "mmproj" or
**                   general.architecture "clip": projector; general.type
**                   "imatrix": imatrix; no tensors and a
**                   tokenizer.ggml.model: vocab; {arch}.pooling_type 4
**                   (LLAMA_POOLING_TYPE_RANK): reranker, 1 to 3 (mean, cls,
**                   last): embedding; any other with an architecture:
**                   model; else unknown
**   base_model      general.base_model.0.repo_url (a Hugging Face URL as
**                   "org/name"), else general.base_model.0.organization
**                   "/" name, else its name; else the model card's
**                   (below)
**   context_length  {arch}.context_length
**   quantization    general.file_type by llama.cpp's name without its
**                   MOSTLY_ / ALL_ prefix (Q4_K_M, Q8_0, F16); without
**                   one (or an id no table knows), the dtype mix
**
** safetensors, from config.json beside the file that names the model
** (its index) and the tensors of every shard:
**   architecture    model_type, else architectures[0]
**   kind            a file named adapter_model*, or a tensor name holding
**                   lora_A, lora_B, lora_down or lora_up: adapter;
**                   architectures[0] ending in ForSequenceClassification
**                   with one label (num_labels 1, or one id2label entry):
**                   reranker; architectures[0] a bare encoder (ending in
**                   Model, no "For", not LMHeadModel: BertModel): embedding;
**                   a config.json with model_type or architectures: model;
**                   else unknown
**   base_model      adapters: adapter_config.json's base_model_name_or_path
**                   (a string); else, for every kind, the model card's:
**                   base_model of the YAML front matter of the README.md
**                   beside the file that names the model, as the Hub
**                   reads it (paths/model_card_file.h: a string, or a
**                   list, whose names are joined by ", ")
**   context_length  the first of max_position_embeddings, n_ctx,
**                   n_positions, max_length, max_sequence_length,
**                   model_max_length, then the same under text_config
**                   (convert_hf_to_gguf.py's find_hparam list for
**                   add_context_length)
**   quantization    quantization_config.quant_method (with " N-bit" from
**                   its bits, or load_in_4bit / load_in_8bit), or mlx's
**                   quantization object ("mlx N-bit"), checked against the
**                   tensors the method writes: gptq, awq .qweight and
**                   .qzeros; fp8 .weight_scale_inv, .weight_scale or an F8
**                   dtype; bitsandbytes .absmax or .SCB; compressed-tensors
**                   .weight_scale or .weight_packed; mlx .scales and
**                   .biases.  A method whose tensors are absent says so
**                   ("gptq 4-bit (config.json only: no .qweight tensors)");
**                   without a method, those tensors alone name the scheme
**                   ("gptq/awq (tensor names)"); else the dtype mix
**
** The dtype mix: the dtypes of the model's tensors, most bytes first,
** joined by "+" ("BF16+F32").
*/
#ifndef WT_MODEL_KIND_H
#define WT_MODEL_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "bytes/cache.h"
#include "paths.h"

#define WT_KIND_TEXT 256

typedef struct wt_model_kind {
  char architecture[WT_KIND_TEXT]; /* "" when unknown */
  const char *kind;                /* static: "model", "adapter", ..., "unknown" */
  char base_model[WT_KIND_TEXT];   /* "" when none */
  int has_context_length;
  uint64_t context_length;
  char quantization[WT_KIND_TEXT]; /* "" when unknown */
} wt_model_kind;

/* Describe model m of l (its files opened through cache).  A file that
** does not open leaves what it would have said unknown (the dtype mix is
** then unknown).  Returns 0, or -1 when out of memory. */
int wt_model_kind_read(wt_cache *cache, const wt_pathlist *l, size_t m, wt_model_kind *out);

#endif
