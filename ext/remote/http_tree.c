/*
** http_tree.c: list an hf:// repo or folder through the tree API.  See
** http_tree.h.
*/
#include "http_tree.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/sniff.h"
#include "http.h"
#include "url.h"

static int wt_ends_with(const char *s, const char *z) {
  size_t n = strlen(s), k = strlen(z);
  return n >= k && memcmp(s + n - k, z, k) == 0;
}

/* Add prefix + path when path names a file of format. */
static int wt_tree_add(wt_tree *t, const char *prefix, const char *path, int format,
                       const char *url, wt_error *err) {
  size_t pn = strlen(prefix), n = strlen(path);
  char *s, q[WT_QUOTE_SIZE];
  if (!((format != WT_FORMAT_GGUF &&
         (wt_ends_with(path, ".safetensors") || wt_ends_with(path, ".safetensors.index.json"))) ||
        (format != WT_FORMAT_SAFETENSORS && wt_ends_with(path, ".gguf"))))
    return 0;
  if (!wt_url_repo_path_ok(path, n)) /* the Hub never lists one; hf:// would refuse it */
    return wt_fail(err,
                   "(%.300s) a tree entry with a bad path \"%s\" (empty, \".\" or \"..\" part)",
                   url, wt_quote(q, sizeof(q), path, n));
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    char **p = realloc(t->files, cap * sizeof(*p));
    if (p == NULL)
      return wt_fail(err, "out of memory");
    t->files = p;
    t->cap = cap;
  }
  if (t->n >= WT_TREE_MAX_FILES)
    return wt_fail(err, "the repo lists more than %d model files", WT_TREE_MAX_FILES);
  s = malloc(pn + n + 1);
  if (s == NULL)
    return wt_fail(err, "out of memory");
  memcpy(s, prefix, pn);
  memcpy(s + pn, path, n + 1);
  t->files[t->n++] = s;
  return 0;
}

int wt_hf_tree_page(wt_tree *t, const char *prefix, const char *body, const char *url, int format,
                    wt_error *err) {
  cJSON *root = cJSON_Parse(body);
  const cJSON *e;
  int rc = 0;
  if (!cJSON_IsArray(root)) {
    cJSON_Delete(root);
    return wt_fail(err, "(%.300s) the tree listing is not a JSON array", url);
  }
  cJSON_ArrayForEach(e, root) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(e, "path");
    if (!cJSON_IsString(type) || !cJSON_IsString(path)) {
      rc = wt_fail(err, "(%.300s) a tree entry without a type or path", url);
      break;
    }
    if (strcmp(type->valuestring, "file") == 0 &&
        (rc = wt_tree_add(t, prefix, path->valuestring, format, url, err)) != 0)
      break;
  }
  cJSON_Delete(root);
  return rc;
}

void wt_tree_free(wt_tree *t) {
  size_t i;
  for (i = 0; i < t->n; i++)
    free(t->files[i]);
  free(t->files);
  t->files = NULL;
  t->n = t->cap = 0;
}

static int wt_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int wt_hf_tree(const char *p, size_t n, int format, char ***files, size_t *n_files, wt_error *err) {
  wt_url u, v;
  wt_tree t = {NULL, 0, 0};
  char *url, *next = NULL, *body = NULL;
  size_t len;
  int page, rc = -1, token_ok;
  *files = NULL;
  *n_files = 0;
  if (n < 5 || strncasecmp(p, "hf://", 5) != 0)
    return 0;
  if (wt_url_resolve(p, n, getenv("HF_ENDPOINT"), &u, err) != 0)
    return -1; /* the file layer would say the same */
  if (!u.is_tree) {
    wt_url_free(&u);
    return 0;
  }
  url = u.url;
  token_ok = u.token_ok;
  for (page = 0; page < WT_TREE_MAX_PAGES; page++) {
    if (wt_http_get(url, token_ok, WT_TREE_MAX_BYTES, &body, &len, &next, err) != 0 ||
        wt_hf_tree_page(&t, u.tree_prefix, body, url, format, err) != 0)
      goto done;
    free(body);
    body = NULL;
    if (url != u.url)
      free(url);
    url = next;
    next = NULL;
    if (url == NULL)
      break;
    /* a next page on another host gets no token */
    if (wt_url_resolve(url, strlen(url), getenv("HF_ENDPOINT"), &v, err) != 0)
      goto done;
    token_ok = v.token_ok;
    wt_url_free(&v);
  }
  if (url != NULL) {
    wt_fail(err, "the tree listing has more than %d pages", WT_TREE_MAX_PAGES);
    goto done;
  }
  qsort(t.files, t.n, sizeof(*t.files), wt_cmp_str);
  *files = t.files;
  *n_files = t.n;
  t.files = NULL;
  t.n = 0;
  rc = 1;
done:
  wt_tree_free(&t);
  free(body);
  free(next);
  if (url != u.url)
    free(url);
  wt_url_free(&u);
  return rc;
}
