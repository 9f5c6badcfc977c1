/*
** url_test.c: unit tests of ext/remote/url.c (remote paths), against URLs
** worked out by hand from the Hub's rules as its own client applies them
** (hf_hub_url in src/huggingface_hub/file_download.py and
** HUGGINGFACE_CO_URL_TEMPLATE in constants.py of huggingface/huggingface_hub,
** commit ee0a4510: ENDPOINT/{datasets/|spaces/}REPO/resolve/REV/PATH, the
** revision percent-encoded whole, the path with its '/' kept).
** Prints "url_test: N passed, M failed"; exit status 1 on a failure.
*/
#include <stdio.h>
#include <string.h>

#include "remote/url.h"

static int passed, failed;

/* Resolve in against endpoint: want (NULL: an error containing msg). */
static void check(const char *in, const char *endpoint, const char *want, int token_ok,
                  int immutable, const char *msg) {
  wt_url u;
  wt_error e = {{0}};
  int rc = wt_url_resolve(in, strlen(in), endpoint, &u, &e);
  if (want != NULL && rc == 0 && strcmp(u.url, want) == 0 && u.token_ok == token_ok &&
      u.immutable == immutable) {
    passed++;
  } else if (want == NULL && rc != 0 && strstr(e.msg, msg) != NULL) {
    passed++;
  } else {
    failed++;
    printf("FAILED: %s -> %s (token_ok %d, immutable %d; error \"%s\"), want %s\n", in,
           rc == 0 ? u.url : "error", rc == 0 ? u.token_ok : -1, rc == 0 ? u.immutable : -1, e.msg,
           want ? want : msg);
  }
  if (rc == 0)
    wt_url_free(&u);
}

int main(void) {
  const char *ep = "http://127.0.0.1:8080/";
  check("hf://org/repo/model.gguf", NULL, "https://huggingface.co/org/repo/resolve/main/model.gguf",
        1, 0, NULL);
  check("hf://org/repo/sub/dir/m-00001-of-00002.gguf", ep,
        "http://127.0.0.1:8080/org/repo/resolve/main/sub/dir/m-00001-of-00002.gguf", 1, 0, NULL);
  check("hf://org/repo@v1.0/a b+c.safetensors", ep,
        "http://127.0.0.1:8080/org/repo/resolve/v1.0/a%20b%2Bc.safetensors", 1, 0, NULL);
  check("hf://org/repo@refs/pr/1/model.gguf", ep,
        "http://127.0.0.1:8080/org/repo/resolve/refs%2Fpr%2F1/model.gguf", 1, 0, NULL);
  check("hf://org/repo@0123456789abcdef0123456789abcdef01234567/x.gguf", ep,
        "http://127.0.0.1:8080/org/repo/resolve/0123456789abcdef0123456789abcdef01234567/x.gguf", 1,
        1, NULL);
  check("hf://datasets/org/data/x.safetensors", ep,
        "http://127.0.0.1:8080/datasets/org/data/resolve/main/x.safetensors", 1, 0, NULL);
  check("hf://spaces/org/app/x.gguf", ep,
        "http://127.0.0.1:8080/spaces/org/app/resolve/main/x.gguf", 1, 0, NULL);
  check("HF://org/repo/x.gguf", "https://hub.example",
        "https://hub.example/org/repo/resolve/main/x.gguf", 1, 0, NULL);
  /* plain URLs: the token only for the endpoint's host and port */
  check("http://127.0.0.1:8080/files/x.gguf", ep, "http://127.0.0.1:8080/files/x.gguf", 1, 0, NULL);
  check("http://127.0.0.1:8081/files/x.gguf", ep, "http://127.0.0.1:8081/files/x.gguf", 0, 0, NULL);
  check("http://localhost:8080/x.gguf", ep, "http://localhost:8080/x.gguf", 0, 0, NULL);
  check("HTTPS://HuggingFace.co/org/r/resolve/main/x", NULL,
        "https://HuggingFace.co/org/r/resolve/main/x", 1, 0, NULL);
  check("http://huggingface.co/org/r/resolve/main/x", NULL,
        "http://huggingface.co/org/r/resolve/main/x", 0, 0, NULL);
  check("https://huggingface.co.evil.com/x", NULL, "https://huggingface.co.evil.com/x", 0, 0, NULL);
  check("https://huggingface.co@evil.com/x", NULL, "https://huggingface.co@evil.com/x", 0, 0, NULL);
  check("http://[::1]:8080/x", "http://[::1]:8080", "http://[::1]:8080/x", 1, 0, NULL);
  /* errors */
  check("hf://org", ep, NULL, 0, 0, "ORG/REPO/FILE");
  check("hf://org/repo", ep, "http://127.0.0.1:8080/api/models/org/repo/tree/main?recursive=true",
        1, 0, NULL);
  check("hf://org/repo@v2/", ep, "http://127.0.0.1:8080/api/models/org/repo/tree/v2?recursive=true",
        1, 0, NULL);
  check("hf://datasets/org/d/sub dir/x/", ep,
        "http://127.0.0.1:8080/api/datasets/org/d/tree/main/sub%20dir%2Fx?recursive=true", 1, 0,
        NULL);
  check("hf://org/repo/a/../", ep, NULL, 0, 0, "folder path");
  check("hf://org/repo@/x", ep, NULL, 0, 0, "revision");
  check("hf://org/../x", ep, NULL, 0, 0, "ORG/REPO/FILE");
  check("hf://org/repo/a/../b", ep, NULL, 0, 0, "'..'");
  check("hf://org/repo/a//b", ep, NULL, 0, 0, "empty");
  check("hf://org/re po/x", ep, NULL, 0, 0, "letters, digits");
  check("http://h/a b", ep, NULL, 0, 0, "spaces");
  check("hf://org/repo/a\tb", ep, NULL, 0, 0, "control");
  check("hf://org/repo/x", "ftp://hub", NULL, 0, 0, "HF_ENDPOINT");
  check("http:///x", ep, NULL, 0, 0, "host");
  check("http://h:99999/x", ep, NULL, 0, 0, "port");
  check("http://h:/x", ep, NULL, 0, 0, "port");
  check("file:///etc/passwd", ep, NULL, 0, 0, "not an http");
  if (wt_url_is_remote("/tmp/x", 6) || !wt_url_is_remote("HTTPS://x", 9) ||
      wt_url_is_remote("hf:/", 4)) {
    failed++;
    printf("FAILED: wt_url_is_remote\n");
  } else {
    passed++;
  }
  printf("url_test: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
