/*
** permute.c: llama.cpp's q/k row order and its inverse.  See permute.h.
*/
#include "permute.h"

#include <string.h>

int wt_qk_arch_permutes(const char *arch) {
  static const char *const archs[] = {"llama", "granite", "granitemoe"};
  size_t i;
  for (i = 0; arch != NULL && i < sizeof(archs) / sizeof(archs[0]); i++)
    if (strcmp(arch, archs[i]) == 0)
      return 1;
  return 0;
}

int wt_qk_kind(const char *name, size_t n) {
  size_t i = 4;
  if (n < 4 || memcmp(name, "blk.", 4) != 0)
    return 0;
  while (i < n && name[i] >= '0' && name[i] <= '9')
    i++;
  if (i == 4 || n - i < 8)
    return 0;
  name += i;
  n -= i;
  if ((n == 14 && memcmp(name, ".attn_q.weight", 14) == 0) ||
      (n == 12 && memcmp(name, ".attn_q.bias", 12) == 0))
    return 'q';
  if ((n == 14 && memcmp(name, ".attn_k.weight", 14) == 0) ||
      (n == 12 && memcmp(name, ".attn_k.bias", 12) == 0))
    return 'k';
  return 0;
}

uint64_t wt_qk_heads(const char *arch, const char *name, size_t n, uint64_t head_count,
                     uint64_t head_count_kv) {
  int kind = wt_qk_kind(name, n);
  if (kind == 0 || !wt_qk_arch_permutes(arch))
    return 0;
  return kind == 'k' && head_count_kv > 0 ? head_count_kv : head_count;
}

int wt_qk_check(uint64_t rows, uint64_t n_head, wt_error *err) {
  if (n_head == 0 || rows % n_head != 0 || (rows / n_head) % 2 != 0)
    return wt_fail(err,
                   "%llu rows do not split into %llu heads of an even number of rows, as the "
                   "q/k permutation needs",
                   (unsigned long long)rows, (unsigned long long)n_head);
  return 0;
}

int wt_qk_unpermute_f32(const float *in, float *out, uint64_t rows, uint64_t cols, uint64_t n_head,
                        wt_error *err) {
  uint64_t r, per_head;
  if (wt_qk_check(rows, n_head, err))
    return -1;
  per_head = rows / n_head;
  for (r = 0; r < rows; r++)
    memcpy(out + wt_qk_source_row(r, per_head) * cols, in + r * cols, cols * sizeof(float));
  return 0;
}
