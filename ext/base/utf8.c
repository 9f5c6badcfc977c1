/*
** utf8.c: strict UTF-8 validation.  See utf8.h.
** Layer: base (no SQLite).
*/
#include "utf8.h"

size_t wt_utf8_char(const char *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  unsigned c = s[0];
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4
                                                                                                : 0;
  }
  return 0;
}

size_t wt_utf8_valid_prefix(const char *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  size_t i = 0;
  while (i < n) {
    size_t k;
    /* Fast path: eight ASCII bytes at a time. */
    while (i + 8 <= n) {
      unsigned long long w;
      __builtin_memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ULL)
        break;
      i += 8;
    }
    if (i >= n)
      break;
    k = wt_utf8_char(p + i, n - i);
    if (k == 0)
      return i;
    i += k;
  }
  return n;
}
