/*
** fuzz_hf_tree.c: libFuzzer target for the page parser of the Hub's tree
** API (wt_hf_tree_page in ext/io/http_tree.c), without a network.
**
** Input: a byte choosing the format (both, safetensors, GGUF) and the
** prefix, then the page's body.  The page is parsed twice into one list
** (two pages of one listing).  Checks: on success every path returned is
** the prefix followed by a path of non-empty parts none "." or ".." (read
** here by its own loop), ending in an extension of the format; the second
** page adds as many files as the first; the count is bounded by the body's
** length; an error names the listing's URL.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/http.h"
#include "remote/http_tree.h"

static int ends_with(const char *s, const char *z) {
  size_t n = strlen(s), k = strlen(z);
  return n >= k && strcmp(s + n - k, z) == 0;
}

/* True when the repo path p has an empty, "." or ".." part. */
static int bad_parts(const char *p) {
  const char *part = p;
  for (;; p++) {
    if (*p == '/' || *p == 0) {
      size_t k = (size_t)(p - part);
      if (k == 0 || (k == 1 && part[0] == '.') || (k == 2 && part[0] == '.' && part[1] == '.'))
        return 1;
      if (*p == 0)
        return 0;
      part = p + 1;
    }
  }
}

static void check(const wt_tree *t, size_t from, const char *prefix, int format) {
  size_t i, pn = strlen(prefix);
  for (i = from; i < t->n; i++) {
    const char *s = t->files[i];
    int st = ends_with(s, ".safetensors") || ends_with(s, ".safetensors.index.json");
    int gg = ends_with(s, ".gguf");
    if (strncmp(s, prefix, pn) != 0 || bad_parts(s + pn))
      abort();
    if (!((format != WT_FORMAT_GGUF && st) || (format != WT_FORMAT_SAFETENSORS && gg)))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *prefixes[] = {"hf://org/repo/", "hf://datasets/o/r@v1/sub/"};
  static const char url[] = "http://127.0.0.1:1/api/models/org/repo/tree/main?recursive=true";
  wt_tree t = {NULL, 0, 0};
  wt_error err;
  const char *prefix;
  char *body;
  size_t first;
  int format;
  wt_remote_register(); /* remote paths go to the HTTP source, as in the module */
  if (size < 1)
    return 0;
  format = data[0] % 3;
  prefix = prefixes[(data[0] >> 2) & 1];
  body = malloc(size);
  memcpy(body, data + 1, size - 1);
  body[size - 1] = 0;
  if (wt_hf_tree_page(&t, prefix, body, url, format, &err) == 0) {
    check(&t, 0, prefix, format);
    first = t.n;
    /* an entry takes at least {"type":"file","path":"x.gguf"} */
    if (first > WT_TREE_MAX_FILES || first > size / 30)
      abort();
    if (wt_hf_tree_page(&t, prefix, body, url, format, &err) == 0) {
      if (t.n != 2 * first)
        abort();
      check(&t, first, prefix, format);
    } else if (strncmp(err.msg, "the repo lists more than", 24) != 0)
      abort();
  } else if (strncmp(err.msg, "(http://127.0.0.1:1/api/", 24) != 0 &&
             strcmp(err.msg, "out of memory") != 0 &&
             strncmp(err.msg, "the repo lists more than", 24) != 0)
    abort();
  wt_tree_free(&t);
  free(body);
  return 0;
}
