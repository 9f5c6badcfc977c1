/*
** general.c: general.type, the naming keys and the size label.  See
** general.h.  Layer: convert.
**
** The patterns of gguf-py's get_model_id_components (gguf/metadata.py,
** llama.cpp de3ff815; the same rules at c392e50) are matched by hand
** below, each next to the regular expression it stands for, all
** case-insensitive as there:
**   version   (v|iter)?\d+([.]\d+)*
**   type      i?q\d(_\w)*|b?fp?(16|32)
**   size      (([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl)
**   finetune  chat|instruct|vision|lora
*/
#include "general.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "convert/config_values.h"

/* Part kinds (a set per part, as the Python sets of names). */
#define T_VERSION  1
#define T_TYPE     2
#define T_SIZE     4
#define T_FINETUNE 8
#define T_BASENAME 16

/* The most '-'-separated parts of a model id looked at. */
#define ID_MAX_PARTS 64

/* ASCII classes, as Python's str methods see ASCII. */
static int is_digit(int c) {
  return c >= '0' && c <= '9';
}
static int is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_word(int c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}

/* Case-insensitive equality of s and the lower-case word w. */
static int eq_ci(const char *s, const char *w) {
  for (; *s && *w; s++, w++)
    if (tolower((unsigned char)*s) != *w)
      return 0;
  return *s == 0 && *w == 0;
}

/* Skip \d+ at s: the first byte after, or NULL when none matched. */
static const char *digits(const char *s) {
  const char *p = s;
  while (is_digit((unsigned char)*p))
    p++;
  return p > s ? p : NULL;
}

/* (v|iter)?\d+([.]\d+)* */
static int match_version(const char *s) {
  if (tolower((unsigned char)s[0]) == 'v' && is_digit((unsigned char)s[1]))
    s++;
  else if (strncasecmp(s, "iter", 4) == 0 && is_digit((unsigned char)s[4]))
    s += 4;
  if ((s = digits(s)) == NULL)
    return 0;
  while (*s == '.' && (s = digits(s + 1)) != NULL)
    ;
  return s != NULL && *s == 0;
}

/* i?q\d(_\w)*|b?fp?(16|32) */
static int match_type(const char *s) {
  const char *p = s;
  if (tolower((unsigned char)*p) == 'i')
    p++;
  if (tolower((unsigned char)*p) == 'q' && is_digit((unsigned char)p[1])) {
    for (p += 2; p[0] == '_' && is_word((unsigned char)p[1]); p += 2)
      ;
    if (*p == 0)
      return 1;
  }
  p = s;
  if (tolower((unsigned char)*p) == 'b')
    p++;
  if (tolower((unsigned char)*p) != 'f')
    return 0;
  p++;
  if (tolower((unsigned char)*p) == 'p')
    p++;
  return strcmp(p, "16") == 0 || strcmp(p, "32") == 0;
}

/* (([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl) */
static int match_size(const char *s) {
  static const char *const words[] = {"small", "mini", "medium", "large", "xl", "xxl"};
  const char *p, *q;
  size_t i;
  for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (eq_ci(s, words[i]))
      return 1;
  /* the optional prefix: "A", or digits and "x" (backtracking when the
  ** digits turn out to be the number itself) */
  p = s;
  if (tolower((unsigned char)*p) == 'a')
    p++;
  else if ((q = digits(p)) != NULL && tolower((unsigned char)*q) == 'x')
    p = q + 1;
  if ((p = digits(p)) == NULL)
    return 0;
  if ((*p == '.' || *p == '_') && (q = digits(p + 1)) != NULL)
    p = q;
  if (strchr("kmbtKMBT", *p) == NULL || *p == 0)
    return 0;
  p++;
  if (is_digit((unsigned char)*p))
    p++;
  return *p == 0;
}

/* chat|instruct|vision|lora */
static int match_finetune(const char *s) {
  return eq_ci(s, "chat") || eq_ci(s, "instruct") || eq_ci(s, "vision") || eq_ci(s, "lora");
}

/* A malloc'd copy of s[0..n) (NULL when out of memory). */
static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d != NULL) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

/* The parts of kind bit (not those of kind not_bit), joined with '-', each
** once when unique; NULL when none (Python's "... or None"). */
static char *join_parts(char **part, const int *kind, size_t n, int bit, int not_bit, int unique,
                        int *oom) {
  size_t i, j, len = 0;
  char *out;
  for (i = 0; i < n; i++)
    len += strlen(part[i]) + 1;
  if ((out = malloc(len + 1)) == NULL) {
    *oom = 1;
    return NULL;
  }
  out[0] = 0;
  for (i = 0; i < n; i++) {
    int seen = 0;
    if (!(kind[i] & bit) || (kind[i] & not_bit))
      continue;
    for (j = 0; unique && j < i && !seen; j++)
      seen = (kind[j] & bit) && strcmp(part[j], part[i]) == 0;
    if (!seen)
      snprintf(out + strlen(out), len + 1 - strlen(out), "%s%s", out[0] ? "-" : "", part[i]);
  }
  if (out[0] == 0) {
    free(out);
    return NULL;
  }
  return out;
}

/* The size part p (already matched) normalized as the converter does:
** "_" as ".", bloom's 7b1 as 7.1B, the unit upper-cased; *ctx set when
** the number is too far from total_params to be the model's size (a
** context length: the unit lower-cased again, and a finetune).  p has a
** spare byte after its NUL. */
static void size_part(char *p, uint64_t total_params, int *ctx) {
  size_t n = strlen(p);
  char *q, *end, *units;
  double label;
  *ctx = 0;
  for (q = p; *q; q++)
    if (*q == '_')
      *q = '.';
  if (n >= 2 && is_digit((unsigned char)p[n - 1])) {
    char unit = p[n - 2];
    p[n - 2] = '.';
    p[n] = unit;
    p[++n] = 0;
  }
  if (n > 1 && is_digit((unsigned char)p[n - 2]) && strchr("kmbt", p[n - 1]) != NULL)
    p[n - 1] = (char)toupper((unsigned char)p[n - 1]);
  if (total_params == 0 || strpbrk(p, "xXaA") != NULL)
    return; /* float() of "8x7", "A3" is a ValueError there: kept as the size */
  label = strtod(p, &end);
  if (end != p + n - 1)
    return;
  units = strchr(" KMBT", p[n - 1]);
  label *= pow(1000.0, units != NULL ? (double)(units - " KMBT") : -1.0);
  if (fabs(label - (double)total_params) > (double)(7 * total_params / 8)) {
    *ctx = 1;
    p[n - 1] = (char)tolower((unsigned char)p[n - 1]);
  }
}

void cv_model_id_free(cv_model_id *m) {
  free(m->full);
  free(m->org);
  free(m->basename);
  free(m->finetune);
  free(m->version);
  free(m->size_label);
  memset(m, 0, sizeof(*m));
}

int cv_model_id_parse(const char *id, uint64_t total_params, cv_model_id *out) {
  char *part[ID_MAX_PARTS], *name, *slash, *tok;
  int kind[ID_MAX_PARTS], at_start = 1, oom = 0, any_digit_size = 0;
  size_t n = 0, i;
  memset(out, 0, sizeof(*out));
  if (id == NULL)
    return 0;
  if (strchr(id, ' ') != NULL)
    return (out->full = strdup(id)) == NULL ? -1 : 0;
  slash = strchr(id, '/');
  if (slash != NULL && slash > id && id[0] != '.' &&
      (out->org = dup_n(id, (size_t)(slash - id))) == NULL)
    return -1;
  if ((out->full = strdup(slash != NULL ? slash + 1 : id)) == NULL ||
      (name = malloc(2 * strlen(out->full) + 2)) == NULL) {
    cv_model_id_free(out);
    return -1;
  }
  /* parts, each with a spare byte for size_part's bloom rule */
  for (tok = out->full, i = 0; *tok && n < ID_MAX_PARTS;) {
    size_t len = strcspn(tok, "-");
    if (len > 0) {
      part[n] = name + i;
      memcpy(part[n], tok, len);
      part[n][len] = 0;
      i += len + 2;
      n++;
    }
    tok += len + (tok[len] == '-');
  }
  for (i = 0; i < n; i++) {
    char *p = part[i];
    kind[i] = 0;
    if (match_version(p)) {
      kind[i] = T_VERSION;
    } else if (match_type(p)) {
      char *q;
      kind[i] = T_TYPE;
      for (q = p; *q; q++)
        *q = (char)toupper((unsigned char)*q);
    } else if (i > 0 && match_size(p)) {
      int ctx;
      size_part(p, total_params, &ctx);
      kind[i] = ctx ? T_FINETUNE : T_SIZE;
    } else if (i > 0 && match_finetune(p)) {
      kind[i] = T_FINETUNE;
    }
  }
  for (i = 0; i < n; i++)
    if ((kind[i] & T_SIZE) && strpbrk(part[i], "0123456789") != NULL)
      any_digit_size = 1;
  for (i = 0; i < n && any_digit_size; i++) { /* word sizes give way to numbers */
    const char *q = part[i];
    while (*q && is_alpha((unsigned char)*q))
      q++;
    if ((kind[i] & T_SIZE) && *q == 0)
      kind[i] &= ~T_SIZE;
  }
  for (i = 0; i < n; i++) {
    if (at_start &&
        ((kind[i] == 0 && is_alpha((unsigned char)part[i][0])) || (kind[i] & T_VERSION))) {
      kind[i] |= T_BASENAME;
    } else {
      at_start = 0;
      if (kind[i] == 0)
        kind[i] = T_FINETUNE;
    }
  }
  for (i = n; i-- > 0;) { /* a trailing version is not part of the basename */
    if ((kind[i] & T_BASENAME) && kind[i] != T_BASENAME)
      kind[i] &= ~T_BASENAME;
    else
      break;
  }
  out->basename = join_parts(part, kind, n, T_BASENAME, 0, 0, &oom);
  out->size_label = join_parts(part, kind, n, T_SIZE, 0, 1, &oom);
  out->finetune = join_parts(part, kind, n, T_FINETUNE, 0, 0, &oom);
  out->version = join_parts(part, kind, n, T_VERSION, T_BASENAME, 0, &oom);
  free(name);
  if (out->size_label == NULL && out->finetune == NULL && out->version == NULL) {
    free(out->basename);
    out->basename = NULL;
  }
  if (oom) {
    cv_model_id_free(out);
    return -1;
  }
  return 0;
}

/* =============================== id_to_title ============================== */

/* 1 when w[0..n) is "v" and a dotted number (v\d+(\.\d+)*). */
static int v_version(const char *w, size_t n) {
  size_t i = 1;
  if (n < 2 || w[0] != 'v')
    return 0;
  for (;;) {
    size_t start = i;
    while (i < n && is_digit((unsigned char)w[i]))
      i++;
    if (i == start)
      return 0;
    if (i == n)
      return 1;
    if (w[i++] != '.')
      return 0;
  }
}

/* 1 when id_to_title title-cases word w[0..n): str.islower() (a cased
** letter, none upper case) and not a version or a number
** (^(v\d+(?:\.\d+)*|\d.*)$). */
static int title_word(const char *w, size_t n) {
  size_t i;
  int lower = 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)w[i];
    if (c >= 0x80 || (c >= 'A' && c <= 'Z'))
      return 0;
    lower |= c >= 'a' && c <= 'z';
  }
  return lower && !is_digit((unsigned char)w[0]) && !v_version(w, n);
}

char *cv_id_to_title(const char *s) {
  size_t n = strlen(s), i = 0, m = 0, k;
  char *out = malloc(n + 1);
  if (out == NULL)
    return NULL;
  /* split() on whitespace after '-' became ' ', joined with one space */
  while (i < n) {
    size_t start;
    while (i < n && (s[i] == '-' || isspace((unsigned char)s[i])))
      i++;
    start = i;
    while (i < n && s[i] != '-' && !isspace((unsigned char)s[i]))
      i++;
    if (i == start)
      break;
    if (m > 0)
      out[m++] = ' ';
    for (k = start; k < i; k++) {
      char c = s[k];
      if (title_word(s + start, i - start)) /* str.title(): a letter after a non-letter */
        c = (char)(k > start && is_alpha((unsigned char)s[k - 1]) ? tolower((unsigned char)c)
                                                                  : toupper((unsigned char)c));
      out[m++] = c;
    }
  }
  out[m] = 0;
  return out;
}

/* =============================== size label =============================== */

void cv_size_label(uint64_t n, char *out, size_t cap) {
  double x = (double)n, scaled;
  const char *unit;
  char whole[32];
  int fix;
  if (x > 1e12) {
    scaled = x * 1e-12;
    unit = "T";
  } else if (x > 1e9) {
    scaled = x * 1e-9;
    unit = "B";
  } else if (x > 1e6) {
    scaled = x * 1e-6;
    unit = "M";
  } else {
    scaled = x * 1e-3;
    unit = "K";
  }
  /* model_weight_count_rounded_notation(min_digits=2): as many decimals as
  ** make two digits, counted on round(scaled) without leading zeros */
  snprintf(whole, sizeof(whole), "%.0f", nearbyint(scaled));
  fix = strcmp(whole, "0") == 0 ? 2 : 2 - (int)strlen(whole);
  snprintf(out, cap, "%.*f%s", fix > 0 ? fix : 0, scaled, unit);
}

/* ============================ the naming keys ============================= */

/* The naming fields of Metadata (malloc'd, NULL: None). */
typedef struct gen_meta {
  char *name, *organization, *basename, *finetune, *version, *size_label;
} gen_meta;

/* Move into *slot when it is still None (the heuristics never overwrite). */
static void gen_fill(char **slot, char **value) {
  if (*slot == NULL) {
    *slot = *value;
    *value = NULL;
  }
}

/* apply_metadata_heuristic's use of one model id (_name_or_path, then the
** folder's name): 0, or -1 when out of memory. */
static int gen_from_id(gen_meta *m, const char *id, uint64_t total) {
  cv_model_id c;
  char *title;
  if (cv_model_id_parse(id, total, &c) != 0)
    return -1;
  if (c.full != NULL) {
    if ((title = cv_id_to_title(c.full)) == NULL)
      goto oom;
    gen_fill(&m->name, &title);
    free(title);
  }
  if (c.org != NULL) {
    if ((title = cv_id_to_title(c.org)) == NULL)
      goto oom;
    gen_fill(&m->organization, &title);
    free(title);
  }
  gen_fill(&m->basename, &c.basename);
  gen_fill(&m->finetune, &c.finetune);
  gen_fill(&m->version, &c.version);
  gen_fill(&m->size_label, &c.size_label);
  cv_model_id_free(&c);
  return 0;
oom:
  cv_model_id_free(&c);
  return -1;
}

/* general.sampling.* from generation_config.json (Metadata.load at
** de3ff815; set_gguf_meta_model's order).  Text that is not JSON is
** ignored there too; text that is not UTF-8 stops it (UnicodeDecodeError
** is not among the errors load_generation_config catches). */
static int gen_sampling(cv_kv_list *kv, const char *text, size_t n, wt_error *err) {
  static const struct {
    const char *key, *alt; /* alt: read when key is absent */
    int kind;              /* 's' string, 'i' INT32, 'f' FLOAT32 */
    const char *gguf;
  } rows[] = {
      {"sequence", NULL, 's', "general.sampling.sequence"},
      {"top_k", NULL, 'i', "general.sampling.top_k"},
      {"top_p", NULL, 'f', "general.sampling.top_p"},
      {"min_p", NULL, 'f', "general.sampling.min_p"},
      {"xtc_probability", NULL, 'f', "general.sampling.xtc_probability"},
      {"xtc_threshold", NULL, 'f', "general.sampling.xtc_threshold"},
      {"temperature", NULL, 'f', "general.sampling.temp"},
      {"penalty_last_n", NULL, 'i', "general.sampling.penalty_last_n"},
      {"penalty_repeat", "repetition_penalty", 'f', "general.sampling.penalty_repeat"},
      {"mirostat", NULL, 'i', "general.sampling.mirostat"},
      {"mirostat_tau", NULL, 'f', "general.sampling.mirostat_tau"},
      {"mirostat_eta", NULL, 'f', "general.sampling.mirostat_eta"},
  };
  wt_config g;
  wt_error ignored;
  size_t i;
  int rc = 0;
  if (text == NULL)
    return 0;
  i = wt_utf8_valid_prefix(text, n);
  if (i != n)
    return wt_fail(err, "generation_config.json is not valid UTF-8 (byte %zu)", i);
  if (cv_config_parse(text, n, &g, &ignored) != 0)
    return 0;
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]) && rc == 0; i++) {
    const wt_config_entry *e = cv_cfg_find(&g, rows[i].key);
    char *s = NULL;
    double r;
    if (e == NULL && rows[i].alt != NULL)
      e = cv_cfg_find(&g, rows[i].alt);
    if (e == NULL || cv_cfg_is_null(e))
      continue;
    if (rows[i].kind == 's')
      rc = cv_cfg_string(e, &s, err) || cv_kv_str(kv, rows[i].gguf, s, err);
    else if (rows[i].kind == 'f')
      rc = cv_cfg_real(e, &r, err) || cv_kv_f32(kv, rows[i].gguf, r, err);
    else if (!cv_cfg_is_int(e))
      rc = wt_fail(err, "%s is %s, not an integer", rows[i].key, e->value);
    else
      rc = cv_kv_i32(kv, rows[i].gguf, strtoll(e->value[0] == 't' ? "1" : e->value, NULL, 10), err);
    free(s);
  }
  wt_config_free(&g);
  if (rc != 0) {
    char why[WT_ERROR_MAX];
    snprintf(why, sizeof(why), "%s", err->msg);
    return wt_fail(err, "generation_config.json: %s", why);
  }
  return 0;
}

int cv_general_meta(cv_kv_list *kv, const cv_naming *n, wt_error *err) {
  const wt_config_entry *e = n->cfg != NULL ? cv_cfg_get(n->cfg, "_name_or_path") : NULL;
  gen_meta m;
  char *path = NULL, label[32], q[WT_QUOTE_SIZE];
  int rc = -1;
  memset(&m, 0, sizeof(m));
  /* gguf-py writes strings as UTF-8: a name that is not stops the
  ** converter there (UnicodeEncodeError), and here */
  if (n->dir_name != NULL && !wt_utf8_valid(n->dir_name, strlen(n->dir_name)))
    return wt_fail(err, "the folder name %s is not UTF-8 (the naming keys general.* come from it)",
                   wt_quote(q, sizeof(q), n->dir_name, strlen(n->dir_name)));
  if (n->name != NULL && !wt_utf8_valid(n->name, strlen(n->name)))
    return wt_fail(err, "the name %s is not UTF-8",
                   wt_quote(q, sizeof(q), n->name, strlen(n->name)));
  if (cv_kv_str(kv, "general.type", "model", err) != 0)
    return -1;
  if (e != NULL && strcmp(e->type, "string") == 0 && cv_cfg_string(e, &path, err) == 0) {
    const char *c = path;
    int slashes = 0;
    while ((c = strchr(c, '/')) != NULL && slashes < 2)
      c++, slashes++;
    if (slashes <= 1 && gen_from_id(&m, path, n->total_params) != 0)
      goto oom;
  }
  if (n->dir_name != NULL && gen_from_id(&m, n->dir_name, n->total_params) != 0)
    goto oom;
  if (n->name != NULL) {
    free(m.name);
    m.name = NULL;
  }
  if (m.name == NULL && (m.name = strdup(n->name != NULL       ? n->name
                                         : n->dir_name != NULL ? n->dir_name
                                                               : "")) == NULL)
    goto oom;
  if (m.size_label == NULL && n->total_params > 0) {
    cv_size_label(n->total_params, label, sizeof(label));
    if ((m.size_label = strdup(label)) == NULL)
      goto oom;
  }
  if ((n->sampling && gen_sampling(kv, n->gen_config, n->gen_config_n, err) != 0) ||
      cv_kv_str(kv, "general.name", m.name, err) != 0 ||
      cv_kv_str(kv, "general.version", m.version, err) != 0 ||
      cv_kv_str(kv, "general.organization", m.organization, err) != 0 ||
      cv_kv_str(kv, "general.finetune", m.finetune, err) != 0 ||
      cv_kv_str(kv, "general.basename", m.basename, err) != 0 ||
      cv_kv_str(kv, "general.size_label", m.size_label, err) != 0)
    goto done;
  rc = 0;
  goto done;
oom:
  wt_fail(err, "out of memory");
done:
  free(path);
  free(m.name);
  free(m.organization);
  free(m.basename);
  free(m.finetune);
  free(m.version);
  free(m.size_label);
  return rc;
}
