/*
** fuzz_paths_names.c: libFuzzer target for the pure name helpers of the
** path code (ext/io/paths*.c): split-GGUF part names
** ("NAME-00001-of-00003.gguf": wt_split_name, wt_split_part_name), suffix
** tests (wt_paths_ends, wt_paths_model_name) and wt_paths_join.
**
** Input: byte 0 picks a part number and where the rest is cut into a
** directory and a name; the rest is a path (any bytes, NUL included).
** Checks, beside "no crash, no sanitizer report":
**   - wt_split_name agrees with a reading written here from the shape
**     ('-', 5 digits K, "-of-", 5 digits M, ".gguf" at the end, 1 <= K <=
**     M): same M, K and place of the digits, or 0 for both;
**   - the part name built back from (prefix, K) is the input, and the name
**     of another part i (1..M) reads back as part i of M, with every byte
**     but the five digits unchanged;
**   - wt_paths_ends and wt_paths_model_name agree with memcmp;
**   - wt_paths_join gives dir, one '/' unless dir ends with one, then the
**     name, with its length, or an error with a message when over PATH_MAX.
** Built by `make fuzz`.
*/
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paths/paths_int.h"

/* The split shape read here: M with *k and *at, or 0. */
static int ref_split(const uint8_t *p, size_t n, int *k, size_t *at) {
  const uint8_t *s;
  int v[2] = {0, 0}, j, d;
  if (n < 20)
    return 0;
  s = p + n - 20;
  if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0 || memcmp(s + 15, ".gguf", 5) != 0)
    return 0;
  for (j = 0; j < 2; j++)
    for (d = 0; d < 5; d++) {
      uint8_t c = s[1 + 9 * j + d];
      if (c < '0' || c > '9')
        return 0;
      v[j] = v[j] * 10 + (c - '0');
    }
  if (v[0] < 1 || v[1] < 1 || v[0] > v[1])
    return 0;
  *k = v[0];
  *at = n - 19;
  return v[1];
}

static int ends(const uint8_t *p, size_t n, const char *z) {
  size_t k = strlen(z);
  return n >= k && memcmp(p + n - k, z, k) == 0;
}

/* The split-name checks of the top comment. */
static void check_split(const uint8_t *p, size_t n, uint8_t pick) {
  int part = 0, k = 0, m, rm, i, part2;
  size_t at = 0, rat = 0, at2;
  char *copy;
  m = wt_split_name((const char *)p, n, &part, &at);
  rm = ref_split(p, n, &k, &rat);
  if (m != rm || (m && (part != k || at != rat)))
    abort();
  if (m == 0)
    return;
  copy = malloc(n);
  if (copy == NULL)
    return;
  memcpy(copy, p, n);
  wt_split_part_name(copy, at, part);
  if (memcmp(copy, p, n) != 0)
    abort();
  i = 1 + pick % m;
  wt_split_part_name(copy, at, i);
  if (wt_split_name(copy, n, &part2, &at2) != m || part2 != i || at2 != at ||
      memcmp(copy, p, at) != 0 || memcmp(copy + at + 5, p + at + 5, n - at - 5) != 0)
    abort();
  free(copy);
}

/* The join checks of the top comment: dir = p[0..dn), name the rest. */
static void check_join(const uint8_t *p, size_t n, size_t dn) {
  static char buf[PATH_MAX];
  const char *dir = (const char *)p, *name = (const char *)p + dn;
  size_t nn = n - dn, sep = dn > 0 && dir[dn - 1] != '/', len = 0;
  wt_error err;
  err.msg[0] = 0;
  if (wt_paths_join(buf, dir, dn, name, nn, &len, &err) != 0) {
    if (dn + sep + nn < PATH_MAX || err.msg[0] == 0)
      abort();
    return;
  }
  if (dn + sep + nn >= PATH_MAX || len != dn + sep + nn || memcmp(buf, dir, dn) != 0 ||
      (sep && buf[dn] != '/') || memcmp(buf + dn + sep, name, nn) != 0 || buf[len] != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const suffixes[] = {
      ".gguf", ".safetensors", ".safetensors.index.json", ".json", "/**", "**", ""};
  const uint8_t *p;
  size_t n, i;
  if (size < 1)
    return 0;
  p = data + 1;
  n = size - 1;
  check_split(p, n, data[0]);
  for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
    if (wt_paths_ends((const char *)p, n, suffixes[i]) != ends(p, n, suffixes[i]))
      abort();
  if (wt_paths_model_name((const char *)p, n) !=
      (ends(p, n, ".safetensors") || ends(p, n, ".gguf") || ends(p, n, ".safetensors.index.json")))
    abort();
  check_join(p, n, n ? data[0] % (n + 1) : 0);
  return 0;
}
