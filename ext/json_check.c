/*
** json_check.c: strict JSON validation with number positions.  See
** json_check.h.  The input is already known to be valid UTF-8.
*/
#include "json_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct jc_state {
  const char *p;
  size_t n, i;
  uint64_t base;
  json_tokens *tok;
  wt_error *err;
} jc_state;

static int jc_value(jc_state *s, int depth);

/* Report an error at the current position. */
static int jc_fail(jc_state *s, const char *what) {
  return wt_fail(s->err, "invalid JSON in header at byte %llu: %s",
                 (unsigned long long)(s->base + s->i), what);
}

/* Skip JSON whitespace. */
static void jc_ws(jc_state *s) {
  while (s->i < s->n) {
    char c = s->p[s->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      break;
    s->i++;
  }
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

/* Record a token's span. */
static int jc_record(jc_state *s, json_spans *v, size_t pos, size_t len) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 64;
    json_span *a = realloc(v->a, cap * sizeof(*a));
    if (a == NULL)
      return wt_fail(s->err, "out of memory");
    v->a = a;
    v->cap = cap;
  }
  v->a[v->n].pos = pos;
  v->a[v->n].len = len;
  v->n++;
  return 0;
}

/* A string, s->i at the opening quote. */
static int jc_string(jc_state *s) {
  size_t start = ++s->i;
  while (s->i < s->n) {
    unsigned char c = (unsigned char)s->p[s->i];
    if (c == '"') {
      s->i++;
      return jc_record(s, &s->tok->strs, start, s->i - 1 - start);
    }
    if (c < 0x20)
      return jc_fail(s, "control character in a string (must be escaped)");
    if (c != '\\') {
      s->i++;
      continue;
    }
    s->tok->strs_escaped = 1;
    if (++s->i >= s->n)
      break;
    c = (unsigned char)s->p[s->i++];
    if (c == 'u') {
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
    } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
      s->i--;
      return jc_fail(s, "invalid escape in a string");
    }
  }
  return jc_fail(s, "unterminated string");
}

/* Skip a run of digits; return how many. */
static size_t jc_digits(jc_state *s) {
  size_t start = s->i;
  while (s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '9')
    s->i++;
  return s->i - start;
}

/* A number per RFC 8259; its span is recorded. */
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
  return jc_record(s, &s->tok->nums, start, s->i - start);
}

/* A literal word (true, false, null). */
static int jc_word(jc_state *s, const char *w) {
  size_t k = strlen(w);
  if (s->n - s->i < k || memcmp(s->p + s->i, w, k) != 0)
    return jc_fail(s, "expected a value");
  s->i += k;
  return 0;
}

/* An object or an array, s->i at the opening bracket. */
static int jc_container(jc_state *s, int depth) {
  char close = s->p[s->i] == '{' ? '}' : ']';
  if (depth >= JSON_MAX_DEPTH)
    return jc_fail(s, "nested deeper than 127 levels");
  s->i++;
  jc_ws(s);
  if (s->i < s->n && s->p[s->i] == close) {
    s->i++;
    return 0;
  }
  for (;;) {
    if (close == '}') {
      jc_ws(s);
      if (s->i >= s->n || s->p[s->i] != '"')
        return jc_fail(s, "expected a string key");
      if (jc_string(s))
        return -1;
      jc_ws(s);
      if (s->i >= s->n || s->p[s->i] != ':')
        return jc_fail(s, "expected ':'");
      s->i++;
    }
    if (jc_value(s, depth + 1))
      return -1;
    jc_ws(s);
    if (s->i >= s->n)
      return jc_fail(s, close == '}' ? "unterminated object" : "unterminated array");
    if (s->p[s->i] == close) {
      s->i++;
      return 0;
    }
    if (s->p[s->i] != ',')
      return jc_fail(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    s->i++;
  }
}

/* Any JSON value, after optional whitespace. */
static int jc_value(jc_state *s, int depth) {
  char c;
  jc_ws(s);
  if (s->i >= s->n)
    return jc_fail(s, "unexpected end of header, expected a value");
  c = s->p[s->i];
  switch (c) {
  case '{':
  case '[':
    return jc_container(s, depth);
  case '"':
    return jc_string(s);
  case 't':
    return jc_word(s, "true");
  case 'f':
    return jc_word(s, "false");
  case 'n':
    return jc_word(s, "null");
  default:
    if (c == '-' || (c >= '0' && c <= '9'))
      return jc_number(s);
    return jc_fail(s, "expected a value");
  }
}

int json_check(const char *p, size_t n, uint64_t base, json_tokens *tok, wt_error *err) {
  jc_state s = {p, n, 0, base, tok, err};
  if (jc_value(&s, 0))
    return -1;
  jc_ws(&s);
  if (s.i != n)
    return jc_fail(&s, "unexpected bytes after the JSON value");
  return 0;
}

void json_tokens_free(json_tokens *tok) {
  free(tok->nums.a);
  free(tok->strs.a);
  memset(tok, 0, sizeof(*tok));
}

/* Read 4 hex digits that json_check has already validated. */
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
      if (u >= 0xd800 && u <= 0xdbff) { /* json_check saw the low half */
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
