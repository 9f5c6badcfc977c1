/*
** permute.h: the row order llama.cpp's converter gives q and k.  Pure C,
** no SQLite.  Layer: decode (used by tensor_compare, sql/values.c, and
** weights_report, sql/report_diff.c).
**
** For the llama family (LlamaModel.undo_permute in convert_hf_to_gguf.py:
** llama, which Mistral and Mixtral checkpoints convert to, and granite,
** granitemoe) the converter reorders the rows of q_proj and k_proj (weight
** and bias) for its rotary embedding: per head of per_head rows it
** reshapes to (2, per_head / 2) and swaps the two axes, so that row
**
**     r = head * per_head + i * 2 + j    (i < per_head / 2, j < 2)
**
** of the GGUF holds row head * per_head + j * per_head / 2 + i of the
** checkpoint.  q uses {arch}.attention.head_count heads, k
** head_count_kv.  qwen2, qwen3, gemma, gemma2, gemma3 and phi3 are written
** in the checkpoint's order (phi3's q, k and v are one fused tensor).
*/
#ifndef WT_PERMUTE_H
#define WT_PERMUTE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* 1 when the converter permutes q/k rows for GGUF architecture arch. */
int wt_qk_arch_permutes(const char *arch);

/* The heads by which the converter permuted the rows of the GGUF tensor
** name[0..n) of architecture arch, for a comparison with the checkpoint
** tensor it was converted from: head_count for an attn_q, head_count_kv
** (head_count when 0) for an attn_k, of an architecture it permutes; 0
** for every other tensor, whose rows are in the checkpoint's order.  The
** one rule of tensor_compare() and weights_report(). */
uint64_t wt_qk_heads(const char *arch, const char *name, size_t n, uint64_t head_count,
                     uint64_t head_count_kv);

/* 'q' or 'k' when the GGUF tensor name[0..n) is a layer's attn_q or
** attn_k (weight or bias), else 0. */
int wt_qk_kind(const char *name, size_t n);

/* Check that rows split into n_head heads of an even number of rows:
** 0, or -1 with err set. */
int wt_qk_check(uint64_t rows, uint64_t n_head, wt_error *err);

/* The checkpoint row that converted row r came from (both within one
** head or overall: per_head = rows / n_head, even). */
static inline uint64_t wt_qk_source_row(uint64_t r, uint64_t per_head) {
  uint64_t head = r / per_head, within = r % per_head;
  return head * per_head + (within % 2) * (per_head / 2) + within / 2;
}

/* Undo the permutation of a rows x cols row-major matrix: out row
** wt_qk_source_row(r) = in row r.  in and out must not overlap.  Returns
** 0, or -1 with err set when the rows do not split into n_head heads.
** For tests only (the module maps rows one at a time with wt_qk_source_row). */
int wt_qk_unpermute_f32(const float *in, float *out, uint64_t rows, uint64_t cols, uint64_t n_head,
                        wt_error *err);

#endif
