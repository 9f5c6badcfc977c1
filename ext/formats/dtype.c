/*
** dtype.c: the safetensors dtype table.  The order is the crate's `enum
** Dtype` (increasing alignment), so an index is stable across releases.
** Layer: formats (pure C; uses base/).
*/
#include "dtype.h"

#include <string.h>
#include <strings.h>

static const st_dtype_info st_dtypes[ST_DTYPE_COUNT] = {
    {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
    {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
    {"I64", 64},        {"U64", 64},
};

int st_dtype_find(const char *p, size_t n) {
  int i;
  for (i = 0; i < ST_DTYPE_COUNT; i++) {
    const char *name = st_dtypes[i].name;
    /* strnlen reads at most n + 1 bytes of the name: no strlen per entry */
    if (strnlen(name, n + 1) == n && memcmp(name, p, n) == 0)
      return i;
  }
  return -1;
}

int st_dtype_find_nocase(const char *p, size_t n) {
  int i;
  for (i = 0; i < ST_DTYPE_COUNT; i++) {
    if (strlen(st_dtypes[i].name) == n && strncasecmp(st_dtypes[i].name, p, n) == 0)
      return i;
  }
  return -1;
}

const st_dtype_info *st_dtype_get(int i) {
  return i >= 0 && i < ST_DTYPE_COUNT ? &st_dtypes[i] : NULL;
}
