/*
** utf8.h: strict UTF-8 validation (RFC 3629: no overlong forms, no
** surrogates, nothing above U+10FFFF).
** Layer: base (no SQLite; used by the parsers).
*/
#ifndef WT_UTF8_H
#define WT_UTF8_H

#include <stddef.h>

/* Return the length of the longest valid UTF-8 prefix of p[0..n): n when
** the whole string is valid. */
size_t wt_utf8_valid_prefix(const char *p, size_t n);

/* The length (1-4) of the valid UTF-8 character at p (n bytes available),
** or 0 when the bytes there are not valid UTF-8. */
size_t wt_utf8_char(const char *p, size_t n);

/* True when p[0..n) is entirely valid UTF-8. */
static inline int wt_utf8_valid(const char *p, size_t n) {
  return wt_utf8_valid_prefix(p, n) == n;
}

#endif
