/*
** paths_arg.c: what a path argument asks for, from its text and what
** stat(2) said of it (the readings 0-7 of paths.h): wt_paths_classify(),
** and the "~" expansion, wt_paths_home().  Pure: no file system, no
** environment (the caller passes $HOME and the stat), so that both are
** fuzzed alone (tests/fuzz/fuzz_paths_arg.c).  Layer: io, no SQLite.
**
** The order is paths.h's: a URL is never stat'ed; an existing path is a
** directory, part 1 of a split GGUF (a regular file), a .json file (a
** regular file: maybe an index), or itself; a missing path is a recursive
** walk when it is "**" or ends in "/" then "**", a glob pattern when it
** holds '*', '?' or '[', and else itself (for the file layer to report).
*/
#include "paths_int.h"

#include <string.h>

#include "remote/url.h"

/* The rule of paths.h for path[0..n) given what stat(2) said (st). */
int wt_paths_classify(const char *path, size_t n, int st, size_t *root_n) {
  size_t at;
  int part;
  *root_n = 0;
  if (wt_url_is_remote(path, n))
    return WT_ARG_URL;
  if (st == WT_STAT_DIR)
    return WT_ARG_DIR;
  if (st == WT_STAT_REG && wt_split_name(path, n, &part, &at) > 0 && part == 1)
    return WT_ARG_SPLIT;
  if (st == WT_STAT_REG && wt_paths_ends(path, n, ".json"))
    return WT_ARG_JSON;
  if (st != WT_STAT_NONE)
    return WT_ARG_FILE;
  if (n == 2 && memcmp(path, "**", 2) == 0)
    return WT_ARG_WALK; /* the current directory: root_n 0 */
  if (wt_paths_ends(path, n, "/**")) {
    *root_n = n == 3 ? 1 : n - 3; /* "/" then "**" is the root */
    return WT_ARG_WALK;
  }
  if (memchr(path, '*', n) != NULL || memchr(path, '?', n) != NULL || memchr(path, '[', n) != NULL)
    return WT_ARG_GLOB;
  return WT_ARG_FILE;
}

/* "~" or "~/x" in buf (n bytes) becomes home then the rest, in place. */
int wt_paths_home(char *buf, size_t *n, const char *home, wt_error *err) {
  size_t hn;
  if (*n == 0 || buf[0] != '~' || (*n > 1 && buf[1] != '/'))
    return 0;
  if (home == NULL || home[0] == 0)
    return wt_fail(err, "the path starts with '~' but $HOME is not set");
  hn = strlen(home);
  if (hn + *n > PATH_MAX) /* the result, hn + n - 1 bytes, and its NUL */
    return wt_fail(err, "the path is longer than PATH_MAX once '~' is expanded");
  memmove(buf + hn, buf + 1, *n); /* the NUL too */
  memcpy(buf, home, hn);
  *n = *n - 1 + hn;
  return 0;
}
