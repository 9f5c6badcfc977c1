/*
** fuzz_hf_names.c: libFuzzer target for the pure string work of the
** Hugging Face cache module (ext/io/hf_locate.c) and of error messages
** (wt_quote in ext/base).
**
** Input: byte 0 sizes the quote buffer; the rest is split at the first
** NUL into a folder name and a second name.  Checks, beside "no crash, no
** sanitizer report":
**   - wt_hf_kind: a kind only for "models--", "datasets--", "spaces--"
**     followed by something, with *skip the prefix's length;
**   - wt_hf_repo_id: reading every '/' back as "--" gives the folder
**     name's rest again (when it held no '/');
**   - wt_hf_join: "dir/name" with no doubled slash, or an error past
**     PATH_MAX;
**   - wt_quote into a buffer of exactly the given size: NUL-terminated
**     inside it, valid UTF-8, no quote or control byte.
** wt_hf_where_of / wt_hf_locate look at the file system (is there a
** snapshots/ folder, realpath) and are not fuzzed here.  Built by
** `make fuzz`.
*/
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "paths/hf_locate.h"

static void check_kind(const char *name) {
  size_t skip = 0;
  const char *kind = wt_hf_kind(name, &skip), *want = NULL;
  size_t k = 0;
  if (strncmp(name, "models--", 8) == 0 && name[8])
    want = "model", k = 8;
  else if (strncmp(name, "datasets--", 10) == 0 && name[10])
    want = "dataset", k = 10;
  else if (strncmp(name, "spaces--", 8) == 0 && name[8])
    want = "space", k = 8;
  if ((kind == NULL) != (want == NULL) || (kind && (strcmp(kind, want) || skip != k)))
    abort();
  if (kind) {
    char *id = wt_hf_repo_id(name + skip), *back, *o;
    const char *p;
    if (id == NULL)
      abort();
    back = malloc(2 * strlen(id) + 1);
    for (p = id, o = back; *p; p++) {
      if (*p == '/')
        *o++ = '-', *o++ = '-';
      else
        *o++ = *p;
    }
    *o = 0;
    if (strchr(name + skip, '/') == NULL && strcmp(back, name + skip) != 0)
      abort();
    free(back);
    free(id);
  }
}

static void check_join(const char *dir, const char *name) {
  wt_error err;
  size_t dn = strlen(dir), nn = strlen(name);
  int slash = dn > 0 && dir[dn - 1] != '/';
  char *p = wt_hf_join(dir, name, &err);
  if (dn + slash + nn >= PATH_MAX) {
    if (p != NULL)
      abort();
    return;
  }
  if (p == NULL || strlen(p) != dn + slash + nn || memcmp(p, dir, dn) != 0 ||
      strcmp(p + dn + slash, name) != 0 || (slash && p[dn] != '/'))
    abort();
  free(p);
}

static void check_quote(const char *s, size_t n, size_t size) {
  char *out = malloc(size);
  const char *q = wt_quote(out, size, s, n);
  size_t i, len;
  if (q != out)
    abort();
  if (memchr(out, 0, size) == NULL)
    abort();
  len = strlen(out);
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)out[i];
    if (c < 0x20 || c == 0x7f)
      abort();
  }
  if (wt_utf8_valid(out, len) == 0)
    abort();
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text;
  const char *second;
  size_t n, qsize;
  if (size < 1)
    return 0;
  qsize = 8 + data[0];
  n = size - 1;
  text = malloc(n + 2);
  memcpy(text, data + 1, n);
  text[n] = text[n + 1] = 0;
  second = text + strlen(text) + 1;
  if (second > text + n)
    second = text + n;
  check_kind(text);
  check_join(text, second);
  check_quote((const char *)data + 1, n, qsize);
  check_quote((const char *)data + 1, n, WT_HF_QUOTE);
  free(text);
  return 0;
}
