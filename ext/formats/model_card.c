/*
** model_card.c: one key of a model card's YAML front matter.  See
** model_card.h for the subset read.
**
** The card is read a line at a time; a line is the bytes up to "\n" (a
** "\r" before it is dropped).  Each value is copied into the caller's
** buffer as it is read, quotes removed and escapes decoded.
*/
#include "model_card.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

/* The reader's state. */
typedef struct card {
  const char *p;
  size_t n, pos;
  unsigned line; /* of the line last read, from 1 */
  char *out;
  size_t cap, used, count;
  wt_error *err;
} card;

/* Fail with "model card line N: <message>".  Returns -1. */
__attribute__((format(printf, 2, 3))) static int card_fail(card *c, const char *fmt, ...) {
  char msg[WT_ERROR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return wt_fail(c->err, "model card line %u: %s", c->line, msg);
}

/* The next line as [*s, *e): 1, or 0 at the end of the bytes. */
static int next_line(card *c, const char **s, const char **e) {
  const char *nl;
  if (c->pos >= c->n)
    return 0;
  *s = c->p + c->pos;
  nl = memchr(*s, '\n', c->n - c->pos);
  *e = nl != NULL ? nl : c->p + c->n;
  c->pos = (size_t)(*e - c->p) + (nl != NULL);
  if (*e > *s && (*e)[-1] == '\r')
    (*e)--;
  c->line++;
  return 1;
}

static int is_space(char ch) {
  return ch == ' ' || ch == '\t';
}

/* s past leading spaces and tabs, at most to e. */
static const char *skip_space(const char *s, const char *e) {
  while (s < e && is_space(*s))
    s++;
  return s;
}

/* e back over trailing spaces and tabs, at least to s. */
static const char *trim_end(const char *s, const char *e) {
  while (e > s && is_space(e[-1]))
    e--;
  return e;
}

/* True when [s, e) is empty or a comment. */
static int is_blank(const char *s, const char *e) {
  s = skip_space(s, e);
  return s == e || *s == '#';
}

/* True when line [s, e) is "---" or "..." and trailing blanks. */
static int is_end(const char *s, const char *e) {
  return e - s >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0) &&
         skip_space(s + 3, e) == e;
}

/* ================================= Values ================================= */

/* Append byte ch to the value being written. */
static int put(card *c, char ch) {
  if (c->used >= c->cap)
    return card_fail(c, "the values take more than %zu bytes", c->cap);
  c->out[c->used++] = ch;
  return 0;
}

/* End the value that started at out + from: NUL-terminate and check it. */
static int end_value(card *c, size_t from) {
  size_t i, n = c->used - from;
  if (c->count == WT_CARD_MAX_ITEMS)
    return card_fail(c, "more than %d items", WT_CARD_MAX_ITEMS);
  if (!wt_utf8_valid(c->out + from, n))
    return card_fail(c, "a value that is not valid UTF-8");
  for (i = 0; i < n; i++)
    if ((unsigned char)c->out[from + i] < 0x20 || c->out[from + i] == 0x7f)
      return card_fail(c, "a value with a control character");
  if (put(c, 0) != 0)
    return -1;
  c->count++;
  return 0;
}

/* A double-quoted string at *s (its opening quote) in [*s, e): the value,
** *s past the closing quote. */
static int double_quoted(card *c, const char **s, const char *e) {
  static const char from[] = "\"\\/tn", to[] = "\"\\/\t\n";
  const char *q = *s + 1, *k;
  size_t start = c->used;
  for (; q < e && *q != '"'; q++) {
    if (*q != '\\') {
      if (put(c, *q) != 0)
        return -1;
      continue;
    }
    if (++q == e || *q == 0 || (k = strchr(from, *q)) == NULL)
      return card_fail(c, "a double-quoted escape other than \\\" \\\\ \\/ \\t \\n");
    if (put(c, to[k - from]) != 0)
      return -1;
  }
  if (q == e)
    return card_fail(c, "a double-quoted string that does not end on its line");
  *s = q + 1;
  return end_value(c, start);
}

/* A single-quoted string at *s in [*s, e), as double_quoted(). */
static int single_quoted(card *c, const char **s, const char *e) {
  const char *q = *s + 1;
  size_t start = c->used;
  for (;; q++) {
    if (q == e)
      return card_fail(c, "a single-quoted string that does not end on its line");
    if (*q == '\'' && (q + 1 == e || q[1] != '\''))
      break;
    if (*q == '\'')
      q++; /* '' is one quote */
    if (put(c, *q) != 0)
      return -1;
  }
  *s = q + 1;
  return end_value(c, start);
}

/* What the value at s (in [s, e), not blank) is when this reader does not
** take it, or NULL.  in_flow: inside [ ]. */
static const char *unsupported(const char *s, const char *e, int in_flow) {
  static const struct {
    char ch;
    const char *what;
  } marks[] = {{'|', "a block scalar"},
               {'>', "a block scalar"},
               {'&', "an anchor"},
               {'*', "an alias"},
               {'!', "a tag"},
               {'{', "a flow mapping"},
               {'}', "a flow mapping"},
               {']', "a stray ]"},
               {'@', "a reserved character (@)"},
               {'`', "a reserved character (`)"},
               {'%', "a directive"},
               {'?', "a complex key"}};
  size_t i;
  for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
    if (*s == marks[i].ch)
      return marks[i].what;
  if (*s == '[')
    return in_flow ? "a list in a list" : NULL;
  if (*s == '-' && (s + 1 == e || is_space(s[1])))
    return "a list in a list";
  return NULL;
}

/* A plain scalar in [s, e) (not blank; in a flow list it ends at a comma):
** the value, *end where it stopped. */
static int plain(card *c, const char *s, const char *e, int in_flow, const char **end) {
  const char *q = s, *stop;
  size_t start = c->used;
  for (; q < e; q++) {
    if (*q == '#' && q > s && is_space(q[-1]))
      break; /* a comment */
    if (*q == ':' && (q + 1 == e || is_space(q[1]) || (in_flow && q[1] == ',')))
      return card_fail(c, "a mapping (\"key: value\"), not a string");
    if (in_flow && (*q == ',' || *q == '[' || *q == ']' || *q == '{' || *q == '}'))
      break;
  }
  stop = trim_end(s, q);
  *end = q;
  if (stop == s)
    return card_fail(c, "an empty value");
  for (; s < stop; s++)
    if (put(c, *s) != 0)
      return -1;
  return end_value(c, start);
}

/* One value (a scalar, plain or quoted) at s in [s, e), followed only by
** blanks or a comment. */
static int scalar(card *c, const char *s, const char *e) {
  const char *what = unsupported(s, e, 1), *end;
  if (what != NULL)
    return card_fail(c, "%s, not a string", what);
  if (*s == '"' || *s == '\'') {
    end = s;
    if ((*s == '"' ? double_quoted(c, &end, e) : single_quoted(c, &end, e)) != 0)
      return -1;
    if (!is_blank(end, e))
      return card_fail(c, "text after a quoted string");
    return 0;
  }
  return plain(c, s, e, 0, &end);
}

/* A flow list "[a, b]" at s (its "[") in [s, e). */
static int flow_list(card *c, const char *s, const char *e) {
  const char *q = skip_space(s + 1, e), *what;
  if (q < e && *q == ']')
    return is_blank(q + 1, e) ? 0 : card_fail(c, "text after a list");
  for (;;) {
    if (q == e)
      return card_fail(c, "a flow list that does not end on its line");
    if ((what = unsupported(q, e, 1)) != NULL)
      return card_fail(c, "%s in a list", what);
    if (*q == ',')
      return card_fail(c, "an empty item in a list");
    if ((*q == '"'    ? double_quoted(c, &q, e)
         : *q == '\'' ? single_quoted(c, &q, e)
                      : plain(c, q, e, 1, &q)) != 0)
      return -1;
    q = skip_space(q, e);
    if (q < e && *q == ']')
      return is_blank(q + 1, e) ? 0 : card_fail(c, "text after a list");
    if (q == e || *q != ',')
      return card_fail(c, "a flow list that does not end on its line");
    q = skip_space(q + 1, e);
  }
}

/* ================================ The key ================================= */

/* The value after "key:" at s in [s, e) (s past the blanks): 1 when a
** block list may follow (nothing on the line), 0 when read, -1. */
static int inline_value(card *c, const char *s, const char *e) {
  const char *what;
  if (is_blank(s, e))
    return 1;
  e = trim_end(s, e);
  if ((e - s == 4 &&
       (memcmp(s, "null", 4) == 0 || memcmp(s, "Null", 4) == 0 || memcmp(s, "NULL", 4) == 0)) ||
      (e - s == 1 && *s == '~'))
    return 0;
  if (*s == '[')
    return flow_list(c, s, e);
  if (*s == '-' && (s + 1 == e || is_space(s[1])))
    return card_fail(c, "a list item on the key's own line");
  if ((what = unsupported(s, e, 0)) != NULL)
    return card_fail(c, "%s, not a string or a list of strings", what);
  return scalar(c, s, e);
}

/* The lines after "key:" with nothing on its line: "- value" items, all
** indented alike, until the next key or the end of the front matter. */
static int block_list(card *c) {
  const char *s, *e, *q;
  size_t save_pos;
  unsigned save_line;
  long indent = -1;
  for (;;) {
    save_pos = c->pos;
    save_line = c->line;
    if (!next_line(c, &s, &e))
      return 0; /* the caller finds the end missing */
    if (is_blank(s, e))
      continue;
    if (is_end(s, e) || (!is_space(*s) && *s != '-')) {
      c->pos = save_pos; /* the next key, or the end: the caller's */
      c->line = save_line;
      return 0;
    }
    q = skip_space(s, e);
    if (*q != '-' || (q + 1 < e && !is_space(q[1])))
      return card_fail(c, "a nested mapping or text, not a string or a list of strings");
    if (indent >= 0 && q - s != indent)
      return card_fail(c, "list items indented differently");
    indent = q - s;
    q = skip_space(q + 1, e);
    if (is_blank(q, e))
      return card_fail(c, "an empty list item");
    if (scalar(c, q, e) != 0)
      return -1;
  }
}

/* The length of the key of top-level line [s, e) (up to a ":" followed by
** a blank or the end of the line), or 0 when it has none. */
static size_t key_length(const char *s, const char *e) {
  const char *q;
  for (q = s; q < e; q++)
    if (*q == ':' && (q + 1 == e || is_space(q[1])))
      return (size_t)(q - s);
  return 0;
}

int wt_card_values(const char *p, size_t n, const char *key, char *out, size_t cap, size_t *count,
                   wt_error *err) {
  card c = {p, n, 0, 0, out, cap, 0, 0, err};
  const char *s, *e;
  size_t klen = strlen(key), k;
  int seen = 0, rc;
  *count = 0;
  if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
    c.pos = 3;
  if (!next_line(&c, &s, &e) || e - s < 3 || memcmp(s, "---", 3) != 0 || skip_space(s + 3, e) != e)
    return 0; /* no front matter */
  for (;;) {
    if (!next_line(&c, &s, &e))
      return card_fail(&c,
                       "the front matter does not end (no closing \"---\" in the %zu bytes "
                       "read)",
                       n);
    if (is_end(s, e))
      break;
    if (is_blank(s, e) || is_space(*s) || *s == '-')
      continue; /* a comment, or a line of the key above */
    k = key_length(s, e);
    if (k == 0)
      return card_fail(&c, "a line that is not \"key: value\"");
    if (k != klen || memcmp(s, key, klen) != 0)
      continue;
    if (seen)
      return card_fail(&c, "%s repeats", key);
    seen = 1;
    rc = inline_value(&c, skip_space(s + k + 1, e), e);
    if (rc == 1)
      rc = block_list(&c);
    if (rc != 0)
      return -1;
  }
  *count = c.count;
  return 0;
}
