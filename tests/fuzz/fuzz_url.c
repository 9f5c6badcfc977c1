/*
** fuzz_url.c: libFuzzer target for remote path resolution (ext/io/url.c).
**
** The input is a path argument; it is resolved against two endpoints (the
** default and one with a port and a trailing slash).  Checks what must hold
** of every resolution: a URL that starts with http:// or https://, with a
** host that wt_url_host() reads back, no byte below 0x21 in it (the
** percent-encoding worked), and a tree prefix only for a tree.  Built by
** `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *endpoints[] = {NULL, "http://127.0.0.1:8080/"};
  size_t i, k;
  for (k = 0; k < 2; k++) {
    wt_url u;
    wt_error err;
    char host[256];
    int port;
    if (wt_url_resolve((const char *)data, size, endpoints[k], &u, &err) != 0)
      continue;
    if ((strncmp(u.url, "http://", 7) != 0 && strncmp(u.url, "https://", 8) != 0) ||
        wt_url_host(u.url, host, sizeof(host), &port) != 0 || strcmp(host, u.host) != 0 ||
        (u.is_tree != (u.tree_prefix != NULL)))
      abort();
    if (u.is_hf)
      for (i = 0; u.url[i]; i++)
        if ((unsigned char)u.url[i] <= ' ' || u.url[i] == 0x7f)
          abort();
    wt_url_free(&u);
  }
  return 0;
}
