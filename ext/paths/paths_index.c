/*
** paths_index.c: read a sharded-safetensors index
** (model.safetensors.index.json) into its shard files and its weight_map.
** Layer: io (no SQLite).
**
** The file is read into memory (at most WT_PATHS_MAX_INDEX bytes) and
** parsed once, with cJSON, the project's library for JSON documents (the
** strict tokenizer of formats/json_check.h is for safetensors headers).
** Two things cJSON cannot carry are handled here:
**   - its strings are C strings, so a name holding an escaped NUL
**     ("\u0000") would be cut short: such an index is refused, naming the
**     byte where the escape is;
**   - its numbers are doubles, exact only to 2^53: metadata.total_size is
**     read again, exactly, from the digits in the text.
** Shard names are checked as huggingface_hub would want them: relative,
** no ".." component, ending in ".safetensors".
*/
#define _GNU_SOURCE /* memrchr */
#include "paths_int.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "bytes/file.h"

/* One weight_map entry while the index is read. */
typedef struct wt_entry {
  const char *name;  /* in the list's arena */
  const char *shard; /* in the cJSON tree */
  size_t pos;        /* position in the weight_map */
} wt_entry;

/* The member key of object o, the last one when repeated (as Python's
** json does), or NULL. */
static const cJSON *wt_last_item(const cJSON *o, const char *key) {
  const cJSON *c, *found = NULL;
  for (c = o->child; c != NULL; c = c->next) {
    if (c->string != NULL && strcmp(c->string, key) == 0)
      found = c;
  }
  return found;
}

/* Read the whole file path (local or remote, through the byte source: a
** file that changes while it is read is an error, never a cut text) into
** *text (malloc'd, NUL-terminated).  0, or -1 with why set. */
static int wt_slurp(const char *path, char **text, size_t *size, wt_error *why) {
  wt_file f;
  unsigned char *bytes;
  int rc;
  *text = NULL;
  if (wt_file_open(&f, path, strlen(path), why) != 0)
    return -1;
  rc = wt_file_read_all(&f, WT_PATHS_MAX_INDEX, &bytes, size, why);
  if (rc == 0 && wt_file_unchanged(&f, why) != 0) {
    free(bytes);
    rc = -1;
  }
  wt_file_close(&f);
  if (rc == 0)
    *text = (char *)bytes;
  return rc;
}

/* The byte offset of the first "\u0000" escape inside a string of text,
** or (size_t)-1.  A backslash escapes the byte after it. */
static size_t wt_find_nul_escape(const char *text, size_t n) {
  size_t i;
  int in_str = 0;
  for (i = 0; i < n; i++) {
    if (!in_str) {
      in_str = text[i] == '"';
    } else if (text[i] == '"') {
      in_str = 0;
    } else if (text[i] == '\\') {
      if (i + 5 < n && text[i + 1] == 'u' && memcmp(text + i + 2, "0000", 4) == 0)
        return i;
      i++;
    }
  }
  return (size_t)-1;
}

/* The offset of the first byte at or after end that is not JSON
** whitespace (size when there is none). */
static size_t wt_after_space(const char *text, size_t size, const char *end) {
  size_t i = end != NULL ? (size_t)(end - text) : size;
  while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  return i;
}

/* metadata.total_size, exactly: the digits after the last "total_size"
** key in the text, checked against cJSON's double. */
static void wt_total_size(wt_index_doc *doc, const cJSON *root, const char *text) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(root, "metadata"), "total_size");
  const char *p = text, *last = NULL;
  uint64_t u = 0;
  if (!cJSON_IsNumber(v) || v->valuedouble < 0)
    return;
  while ((p = strstr(p, "\"total_size\"")) != NULL)
    last = p++;
  if (last != NULL) {
    int digits = 0;
    p = last + 12;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')
      p++;
    for (; *p >= '0' && *p <= '9' && digits < 20; p++, digits++) {
      if (u > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
        return; /* past 2^64: not a size */
      u = u * 10 + (uint64_t)(*p - '0');
    }
    if (digits > 0 && (double)u == v->valuedouble) {
      doc->has_total_size = 1;
      doc->total_size = u;
      return;
    }
  }
  if (v->valuedouble <= 9007199254740992.0 && v->valuedouble == (double)(uint64_t)v->valuedouble) {
    doc->has_total_size = 1;
    doc->total_size = (uint64_t)v->valuedouble;
  }
}

/* True when s has a ".." path component. */
static int wt_has_dotdot(const char *s) {
  size_t i = 0, n = strlen(s);
  while (i < n) {
    size_t j = i;
    while (j < n && s[j] != '/')
      j++;
    if (j - i == 2 && s[i] == '.' && s[i + 1] == '.')
      return 1;
    i = j + 1;
  }
  return 0;
}

/* Check the shard file name of tensor name: a relative path below the
** index's directory (dn bytes) that ends in ".safetensors". */
static int wt_check_shard(const char *name, const char *shard, size_t dn, wt_error *err) {
  const char *why = NULL;
  size_t sn = strlen(shard);
  char qn[WT_QUOTE_SIZE], qs[WT_PATH_QUOTE];
  if (sn == 0)
    why = "is empty";
  else if (shard[0] == '/')
    why = "is an absolute path (shards must be inside the index's directory)";
  else if (wt_has_dotdot(shard))
    why = "has a '..' component (shards must be inside the index's directory)";
  else if (!wt_paths_ends(shard, sn, ".safetensors"))
    why = "does not end in .safetensors";
  else if (dn + 1 + sn >= PATH_MAX)
    why = "makes a path longer than PATH_MAX";
  if (why == NULL)
    return 0;
  return wt_fail(err, "bad weight_map entry: tensor %s: shard file %s %s",
                 wt_quote(qn, sizeof(qn), name, strlen(name)), wt_quote(qs, sizeof(qs), shard, sn),
                 why);
}

/* qsort() order of entries: by name, then by position. */
static int wt_entry_cmp(const void *a, const void *b) {
  const wt_entry *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c != 0)
    return c;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* qsort() and bsearch() order of shard names (const char *). */
static int wt_shard_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Read the entries of weight_map wm, checking each shard name. */
static int wt_read_entries(wt_paths *x, const cJSON *wm, size_t dn, wt_entry **out, size_t *n,
                           wt_error *err) {
  const cJSON *c;
  size_t k = 0, cap = 0;
  for (c = wm->child; c != NULL; c = c->next) {
    char *name;
    char q[WT_QUOTE_SIZE];
    if (k == cap) {
      wt_entry *a = realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof(*a));
      if (a == NULL)
        return wt_paths_oom(err);
      *out = a;
    }
    name = wt_arena_alloc(x->out->arena, strlen(c->string) + 1);
    if (name == NULL)
      return wt_paths_oom(err);
    strcpy(name, c->string);
    if (!cJSON_IsString(c))
      return wt_fail(err, "bad weight_map entry: tensor %s: the shard is not a string",
                     wt_quote(q, sizeof(q), name, strlen(name)));
    if (wt_check_shard(name, c->valuestring, dn, err))
      return -1;
    (*out)[k].name = name;
    (*out)[k].shard = c->valuestring;
    (*out)[k].pos = k;
    k++;
  }
  *n = k;
  return 0;
}

/* From the entries: the sorted distinct shards (joined to the index's
** folder path[0..dn)) and the weight_map sorted by name, the last of a
** repeated name kept (as Python's json does). */
static int wt_index_build(const char *path, size_t dn, wt_entry *e, size_t n, wt_index_doc *doc,
                          wt_error *err) {
  const char **names = malloc((n ? n : 1) * sizeof(*names));
  size_t i, ns = 0, nw = 0;
  int rc = 0;
  if (names == NULL)
    return wt_paths_oom(err);
  for (i = 0; i < n; i++)
    names[i] = e[i].shard;
  if (n > 1)
    qsort(names, n, sizeof(*names), wt_shard_cmp);
  for (i = 0; i < n; i++) {
    if (ns == 0 || strcmp(names[ns - 1], names[i]) != 0)
      names[ns++] = names[i];
  }
  if (ns > WT_PATHS_MAX_SHARDS) {
    free(names);
    return wt_fail(err, "the weight_map names %zu shard files, more than the limit of %d", ns,
                   WT_PATHS_MAX_SHARDS);
  }
  doc->shards = calloc(ns ? ns : 1, sizeof(*doc->shards));
  doc->weights = malloc((n ? n : 1) * sizeof(*doc->weights));
  if (doc->shards == NULL || doc->weights == NULL)
    rc = wt_paths_oom(err);
  for (i = 0; rc == 0 && i < ns; i++) {
    char buf[PATH_MAX];
    size_t len;
    rc = wt_paths_join(buf, path, dn, names[i], strlen(names[i]), &len, err);
    if (rc == 0 && (doc->shards[i] = strdup(buf)) == NULL)
      rc = wt_paths_oom(err);
    doc->n_shards = i + 1;
  }
  if (rc == 0 && n > 1)
    qsort(e, n, sizeof(*e), wt_entry_cmp);
  for (i = 0; rc == 0 && i < n; i++) {
    const char **at;
    if (i + 1 < n && strcmp(e[i].name, e[i + 1].name) == 0)
      continue;
    at = bsearch(&e[i].shard, names, ns, sizeof(*names), wt_shard_cmp);
    doc->weights[nw].name = e[i].name;
    doc->weights[nw].name_len = strlen(e[i].name);
    doc->weights[nw].shard = (size_t)(at - names);
    nw++;
  }
  doc->n_weights = nw;
  free(names);
  return rc;
}

int wt_index_read(wt_paths *x, const char *path, size_t n, wt_index_doc *doc, wt_error *why) {
  const char *slash = memrchr(path, '/', n);
  size_t dn = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
  const char *end = NULL;
  cJSON *root = NULL;
  const cJSON *wm;
  wt_entry *e = NULL;
  char *text;
  size_t size = 0, valid, at, ne = 0;
  int rc = 1;
  memset(doc, 0, sizeof(*doc));
  if (wt_slurp(path, &text, &size, why))
    return 1;
  valid = wt_utf8_valid_prefix(text, size);
  if (size == 0)
    wt_fail(why, "the file is empty");
  else if (valid != size)
    wt_fail(why, "invalid UTF-8 at byte %zu", valid);
  else if ((at = wt_find_nul_escape(text, size)) != (size_t)-1)
    wt_fail(why,
            "the escape \\u0000 at byte %zu puts a NUL byte in a name, which an index "
            "cannot hold here",
            at);
  else if ((root = cJSON_ParseWithLengthOpts(text, size, &end, 0)) == NULL)
    wt_fail(why, "invalid JSON at byte %zu", end != NULL ? (size_t)(end - text) : size);
  else if ((at = wt_after_space(text, size, end)) != size)
    wt_fail(why, "invalid JSON at byte %zu (text after the document)", at);
  else if (!cJSON_IsObject(root))
    wt_fail(why, "the JSON is not an object");
  else if (!cJSON_IsObject(wm = wt_last_item(root, "weight_map")))
    wt_fail(why, "no \"weight_map\" object");
  else if (wt_read_entries(x, wm, dn, &e, &ne, why) == 0 &&
           wt_index_build(path, dn, e, ne, doc, why) == 0)
    rc = 0; /* else an index, but a bad one (2 below): why says so */
  if (rc == 0)
    wt_total_size(doc, root, text);
  if (rc != 0 && root != NULL && cJSON_IsObject(root) &&
      cJSON_IsObject(wm = wt_last_item(root, "weight_map")))
    rc = 2;
  cJSON_Delete(root);
  free(e);
  free(text);
  return rc;
}

void wt_index_doc_free(wt_index_doc *doc) {
  size_t i;
  for (i = 0; i < doc->n_shards; i++)
    free(doc->shards[i]);
  free(doc->shards);
  free(doc->weights);
  memset(doc, 0, sizeof(*doc));
}
