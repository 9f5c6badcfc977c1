/*
** json_check.c: strict JSON parsing into a flat token array.  See
** json_check.h.  The input is already known to be valid UTF-8.
** Layer: formats (pure C; uses base/).
**
** One pass over the text, a loop rather than recursion: a value either
** completes (a scalar, an empty container) or opens a container, which a
** stack of open containers closes later.  Each value and each key is
** pushed as a token onto one array, grown geometrically (the first guess,
** a token per 8 bytes, is usually enough) and never past one token per
** byte of text, so memory is bounded by the header: a 30.5 KB header of
** 272 tensors is 3,208 tokens of 16 bytes in one malloc.  String bodies are scanned eight bytes at
** a time.
*/
#include "json_check.h"

#include <stdlib.h>
#include <string.h>

/* ======================== Parsing state and tokens ======================== */

/* Parsing state.  The stack of open containers, outermost first, takes
** the place of recursion. */
typedef struct jc_state {
  const char *p;
  size_t n, i;
  uint64_t base;
  json_doc *doc;
  wt_error *err;
  int depth;                     /* entries in open[] and close[] */
  uint32_t open[JSON_MAX_DEPTH]; /* the container's token */
  char close[JSON_MAX_DEPTH];    /* its closing bracket */
} jc_state;

/* The start of every message of jc_fail. */
#define JC_PREFIX "invalid JSON in header "

const char *json_error_detail(const char *msg) {
  size_t n = sizeof(JC_PREFIX) - 1;
  return strncmp(msg, JC_PREFIX, n) == 0 ? msg + n : msg;
}

/* Report an error at the current position (kept out of the scanning
** functions that call it, so that those stay small). */
static __attribute__((cold)) int jc_fail(jc_state *s, const char *what) {
  return wt_fail(s->err, JC_PREFIX "at byte %llu: %s", (unsigned long long)(s->base + s->i), what);
}

/* Make room for one more token.  A token's first byte is its own, so
** there are at most n tokens: the array is never grown past that.  Kept
** out of line so that jc_push stays small enough to inline. */
static __attribute__((noinline)) int jc_grow(jc_state *s) {
  json_doc *d = s->doc;
  size_t cap = d->cap ? 2 * d->cap : s->n / 8 + 16;
  json_token *a;
  if (cap > s->n)
    cap = s->n;
  if (cap <= d->n) /* cannot happen (see above), but never shrink */
    cap = d->n + 1;
  a = realloc(d->tok, cap * sizeof(*a));
  if (a == NULL)
    return wt_fail(s->err, "out of memory");
  d->tok = a;
  d->cap = cap;
  return 0;
}

/* Append a token of type t whose text starts at pos and has len bytes (a
** container's len counts its elements as they complete, and its next is
** set when it closes). */
static int jc_push(jc_state *s, json_type t, size_t pos, size_t len, int escaped) {
  json_doc *d = s->doc;
  json_token *k;
  if (d->n == d->cap && jc_grow(s))
    return -1;
  k = &d->tok[d->n++];
  k->pos = (uint32_t)pos;
  k->len = (uint32_t)len;
  k->next = (uint32_t)d->n;
  k->type = (uint8_t)t;
  k->escaped = (uint8_t)escaped;
  return 0;
}

/* ========================= Whitespace and strings ========================= */

/* True for JSON whitespace (all of it is <= ' '). */
static int jc_space(unsigned char c) {
  return c <= ' ' && (c == ' ' || c == '\n' || c == '\r' || c == '\t');
}

/* Skip JSON whitespace. */
static inline void jc_ws(jc_state *s) {
  while (s->i < s->n && jc_space((unsigned char)s->p[s->i]))
    s->i++;
}

/* Value of one hex digit, or -1. */
static int jc_hex(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Read the 4 hex digits of a \u escape at s->i (just after "\u"). */
static int jc_u4(jc_state *s, unsigned *out) {
  unsigned v = 0;
  int k;
  if (s->n - s->i < 4)
    return jc_fail(s, "truncated \\u escape");
  for (k = 0; k < 4; k++) {
    int h = jc_hex(s->p[s->i + k]);
    if (h < 0)
      return jc_fail(s, "bad hex digit in \\u escape");
    v = v * 16 + (unsigned)h;
  }
  s->i += 4;
  *out = v;
  return 0;
}

/* A \u escape, s->i just after the 'u': surrogates must come in pairs. */
static int jc_unicode(jc_state *s) {
  unsigned u, lo;
  if (jc_u4(s, &u))
    return -1;
  if (u >= 0xdc00 && u <= 0xdfff) {
    s->i -= 6;
    return jc_fail(s, "lone low surrogate in a \\u escape");
  }
  if (u >= 0xd800 && u <= 0xdbff) {
    if (s->n - s->i < 2 || s->p[s->i] != '\\' || s->p[s->i + 1] != 'u') {
      s->i -= 6;
      return jc_fail(s, "lone high surrogate in a \\u escape");
    }
    s->i += 2;
    if (jc_u4(s, &lo))
      return -1;
    if (lo < 0xdc00 || lo > 0xdfff) {
      s->i -= 6;
      return jc_fail(s, "high surrogate not followed by a low surrogate");
    }
  }
  return 0;
}

/* An escape, s->i at its backslash, s->i + 1 < s->n. */
static int jc_escape(jc_state *s) {
  unsigned char c;
  s->i++;
  c = (unsigned char)s->p[s->i++];
  if (c == 'u')
    return jc_unicode(s);
  if (!strchr("\"\\/bfnrt", c) || c == 0) {
    s->i--;
    return jc_fail(s, "invalid escape in a string");
  }
  return 0;
}

/* Bytes p[0..8) as a word, p[k] in bits 8k to 8k+7 on any host. */
static uint64_t jc_load8(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

/* The high bit of each byte of w that is a quote, a backslash or a
** control character.  Each term is the classic "has a zero byte" or "has
** a byte less than" word test: a term can also flag a byte above one it
** flags rightly (a borrow), never below, so the lowest flag is exact. */
static uint64_t jc_special8(uint64_t w) {
  const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

/* The index of the first quote, backslash or control character in
** p[i..n), or n: eight bytes at a time (as wt_utf8_valid_prefix does for
** ASCII), then the last few one by one. */
static size_t jc_plain(const unsigned char *p, size_t i, size_t n) {
  while (i + 8 <= n) {
    uint64_t m = jc_special8(jc_load8(p + i));
    if (m != 0)
      return i + (size_t)__builtin_ctzll(m) / 8;
    i += 8;
  }
  while (i < n && p[i] >= 0x20 && p[i] != '"' && p[i] != '\\')
    i++;
  return i;
}

/* A string, s->i at the opening quote.  Runs of plain bytes are skipped by
** jc_plain; escapes and errors stop it. */
static int jc_string(jc_state *s) {
  const unsigned char *p = (const unsigned char *)s->p;
  size_t start = s->i + 1, i = start;
  int escaped = 0;
  for (;;) {
    i = jc_plain(p, i, s->n);
    s->i = i;
    if (i >= s->n)
      break;
    if (p[i] == '"') {
      s->i++;
      return jc_push(s, JSON_STRING, start, i - start, escaped);
    }
    if (p[i] < 0x20)
      return jc_fail(s, "control character in a string (must be escaped)");
    escaped = 1;
    if (i + 1 >= s->n) {
      s->i = s->n;
      break;
    }
    if (jc_escape(s))
      return -1;
    i = s->i;
  }
  return jc_fail(s, "unterminated string");
}

/* ======================= Numbers and literal words ======================== */

/* Skip a run of digits; return how many. */
static size_t jc_digits(jc_state *s) {
  size_t start = s->i, i = start;
  while (i < s->n && (unsigned char)(s->p[i] - '0') <= 9)
    i++;
  s->i = i;
  return i - start;
}

/* A number per RFC 8259. */
static int jc_number(jc_state *s) {
  size_t start = s->i;
  if (s->p[s->i] == '-')
    s->i++;
  if (s->i < s->n && s->p[s->i] == '0') {
    s->i++;
    if (s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '9')
      return jc_fail(s, "leading zero in a number");
  } else if (jc_digits(s) == 0) {
    return jc_fail(s, "expected a digit");
  }
  if (s->i < s->n && s->p[s->i] == '.') {
    s->i++;
    if (jc_digits(s) == 0)
      return jc_fail(s, "expected a digit after the decimal point");
  }
  if (s->i < s->n && (s->p[s->i] == 'e' || s->p[s->i] == 'E')) {
    s->i++;
    if (s->i < s->n && (s->p[s->i] == '+' || s->p[s->i] == '-'))
      s->i++;
    if (jc_digits(s) == 0)
      return jc_fail(s, "expected a digit in the exponent");
  }
  return jc_push(s, JSON_NUMBER, start, s->i - start, 0);
}

/* A literal word (true, false, null) of type t. */
static int jc_word(jc_state *s, const char *w, json_type t) {
  size_t k = strlen(w);
  if (s->n - s->i < k || memcmp(s->p + s->i, w, k) != 0)
    return jc_fail(s, "expected a value");
  s->i += k;
  return jc_push(s, t, s->i - k, k, 0);
}

/* ====================== Containers and the document ======================= */

/* Open a container, s->i at its bracket: push its token and enter it. */
static int jc_open(jc_state *s) {
  int obj = s->p[s->i] == '{';
  if (s->depth >= JSON_MAX_DEPTH)
    return jc_fail(s, "nested deeper than 127 levels");
  s->open[s->depth] = (uint32_t)s->doc->n;
  s->close[s->depth++] = obj ? '}' : ']';
  if (jc_push(s, obj ? JSON_OBJECT : JSON_ARRAY, s->i, 0, 0))
    return -1;
  s->i++;
  return 0;
}

/* Close the innermost container, s->i at its bracket: its subtree ends
** here. */
static void jc_close(jc_state *s) {
  s->doc->tok[s->open[--s->depth]].next = (uint32_t)s->doc->n;
  s->i++;
}

/* The closing bracket of the innermost container. */
static char jc_closer(const jc_state *s) {
  return s->close[s->depth - 1];
}

/* An object's key and its colon, after optional whitespace. */
static int jc_key(jc_state *s) {
  jc_ws(s);
  if (s->i >= s->n || s->p[s->i] != '"')
    return jc_fail(s, "expected a string key");
  if (jc_string(s))
    return -1;
  jc_ws(s);
  if (s->i >= s->n || s->p[s->i] != ':')
    return jc_fail(s, "expected ':'");
  s->i++;
  return 0;
}

/* A value, after optional whitespace; for an array or an object, only its
** opening bracket (and the first key), or the whole of it when empty.
** Returns 1 when a container was left open, 0 for a complete value, -1 on
** error. */
static int jc_value(jc_state *s) {
  char c;
  jc_ws(s);
  if (s->i >= s->n)
    return jc_fail(s, "unexpected end of header, expected a value");
  c = s->p[s->i];
  switch (c) {
  case '{':
  case '[':
    if (jc_open(s))
      return -1;
    jc_ws(s);
    if (s->i < s->n && s->p[s->i] == jc_closer(s)) {
      jc_close(s);
      return 0;
    }
    return c == '{' && jc_key(s) ? -1 : 1;
  case '"':
    return jc_string(s);
  case 't':
    return jc_word(s, "true", JSON_BOOL);
  case 'f':
    return jc_word(s, "false", JSON_BOOL);
  case 'n':
    return jc_word(s, "null", JSON_NULL);
  default:
    if (c == '-' || (c >= '0' && c <= '9'))
      return jc_number(s);
    return jc_fail(s, "expected a value");
  }
}

/* After a complete value in the innermost container: count it, then a
** comma and the next key (in an object), or the closing bracket.  Returns
** 1 when a value comes next, 0 when the container closed, -1 on error. */
static int jc_next(jc_state *s) {
  char close = jc_closer(s);
  s->doc->tok[s->open[s->depth - 1]].len++;
  jc_ws(s);
  if (s->i >= s->n)
    return jc_fail(s, close == '}' ? "unterminated object" : "unterminated array");
  if (s->p[s->i] == close) {
    jc_close(s);
    return 0;
  }
  if (s->p[s->i] != ',')
    return jc_fail(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  s->i++;
  return close == '}' && jc_key(s) ? -1 : 1;
}

/* The one value of the text, token by token: each complete value may
** complete the containers around it. */
static int jc_document(jc_state *s) {
  for (;;) {
    int rc = jc_value(s);
    if (rc < 0)
      return -1;
    while (rc == 0 && s->depth > 0)
      rc = jc_next(s);
    if (rc < 0)
      return -1;
    if (s->depth == 0)
      return 0;
  }
}

int json_parse(const char *p, size_t n, uint64_t base, json_doc *doc, wt_error *err) {
  jc_state s;
  s.p = p;
  s.n = n;
  s.i = 0;
  s.base = base;
  s.doc = doc;
  s.err = err;
  s.depth = 0;
  memset(doc, 0, sizeof(*doc));
  if (n > JSON_MAX_TEXT)
    return wt_fail(err, "JSON text of %zu bytes is over the parser's limit of %u bytes", n,
                   JSON_MAX_TEXT);
  if (jc_document(&s))
    return -1;
  jc_ws(&s);
  if (s.i != n)
    return jc_fail(&s, "unexpected bytes after the JSON value");
  return 0;
}

void json_doc_free(json_doc *doc) {
  free(doc->tok);
  memset(doc, 0, sizeof(*doc));
}

/* =========================== Unescaping strings =========================== */

/* Read 4 hex digits that json_parse has already validated. */
static unsigned ju_hex4(const char *s) {
  unsigned v = 0;
  int k;
  for (k = 0; k < 4; k++)
    v = v * 16 + (unsigned)jc_hex(s[k]);
  return v;
}

/* Write code point u as UTF-8; return the byte count. */
static size_t ju_utf8(unsigned u, char *out) {
  if (u < 0x80) {
    out[0] = (char)u;
    return 1;
  }
  if (u < 0x800) {
    out[0] = (char)(0xc0 | (u >> 6));
    out[1] = (char)(0x80 | (u & 0x3f));
    return 2;
  }
  if (u < 0x10000) {
    out[0] = (char)(0xe0 | (u >> 12));
    out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
    out[2] = (char)(0x80 | (u & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (u >> 18));
  out[1] = (char)(0x80 | ((u >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((u >> 6) & 0x3f));
  out[3] = (char)(0x80 | (u & 0x3f));
  return 4;
}

size_t json_unescape(const char *s, size_t n, char *out) {
  size_t i = 0, j = 0;
  while (i < n) {
    char c = s[i++];
    unsigned u;
    if (c != '\\') {
      out[j++] = c;
      continue;
    }
    c = s[i++];
    switch (c) {
    case 'b':
      out[j++] = '\b';
      break;
    case 'f':
      out[j++] = '\f';
      break;
    case 'n':
      out[j++] = '\n';
      break;
    case 'r':
      out[j++] = '\r';
      break;
    case 't':
      out[j++] = '\t';
      break;
    case 'u':
      u = ju_hex4(s + i);
      i += 4;
      if (u >= 0xd800 && u <= 0xdbff) { /* json_parse saw the low half */
        u = 0x10000 + ((u - 0xd800) << 10) + (ju_hex4(s + i + 2) - 0xdc00);
        i += 6;
      }
      j += ju_utf8(u, out + j);
      break;
    default: /* " \\ / */
      out[j++] = c;
    }
  }
  return j;
}
