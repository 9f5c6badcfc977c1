/*
** fake_curl.c: an in-process stand-in for the libcurl calls of
** ext/remote/http*.c, serving one file held in memory as a server that honours
** Range would (206 with Content-Range and an ETag; 416 past the end), so
** that the real remote source runs in a fuzzer without a network
** (tests/fuzz/fuzz_remote.c).  Only what they use: easy handles, the
** options it sets, perform, getinfo, slists; the multi interface fails to
** start (wt_http_prefetch then does nothing).  Test code, not a library.
*/
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_curl.h"

const unsigned char *fake_curl_data;
size_t fake_curl_size;
size_t fake_curl_piece = 16384;
unsigned long fake_curl_requests;

typedef struct fake_easy {
  char range[64];
  char *url;
  curl_write_callback on_header, on_body;
  void *header_arg, *body_arg;
  long code;
} fake_easy;

CURLcode curl_global_init(long flags) {
  (void)flags;
  return CURLE_OK;
}

CURL *curl_easy_init(void) {
  return calloc(1, sizeof(fake_easy));
}

void curl_easy_cleanup(CURL *c) {
  fake_easy *e = c;
  if (e != NULL)
    free(e->url);
  free(e);
}

CURLcode curl_easy_setopt(CURL *c, CURLoption option, ...) {
  fake_easy *e = c;
  va_list ap;
  va_start(ap, option);
  switch (option) {
  case CURLOPT_RANGE:
    snprintf(e->range, sizeof(e->range), "%s", va_arg(ap, const char *));
    break;
  case CURLOPT_URL:
    free(e->url);
    e->url = strdup(va_arg(ap, const char *));
    break;
  case CURLOPT_HEADERFUNCTION:
    e->on_header = va_arg(ap, curl_write_callback);
    break;
  case CURLOPT_WRITEFUNCTION:
    e->on_body = va_arg(ap, curl_write_callback);
    break;
  case CURLOPT_HEADERDATA:
    e->header_arg = va_arg(ap, void *);
    break;
  case CURLOPT_WRITEDATA:
    e->body_arg = va_arg(ap, void *);
    break;
  default:
    break; /* timeouts, protocols, headers: nothing to do here */
  }
  va_end(ap);
  return CURLE_OK;
}

/* Send header line s through the header callback. */
static void fake_header(fake_easy *e, const char *s) {
  e->on_header((char *)s, 1, strlen(s), e->header_arg);
}

CURLcode curl_easy_perform(CURL *c) {
  fake_easy *e = c;
  unsigned long long a, b;
  char line[128];
  size_t off, end;
  fake_curl_requests++;
  if (sscanf(e->range, "%llu-%llu", &a, &b) != 2 || b < a)
    return CURLE_RANGE_ERROR;
  if (a >= fake_curl_size) { /* past the end */
    e->code = 416;
    fake_header(e, "HTTP/1.1 416 Range Not Satisfiable\r\n");
    snprintf(line, sizeof(line), "Content-Range: bytes */%zu\r\n", fake_curl_size);
    fake_header(e, line);
    fake_header(e, "\r\n");
    return CURLE_OK;
  }
  if (b >= fake_curl_size)
    b = fake_curl_size - 1;
  e->code = 206;
  fake_header(e, "HTTP/1.1 206 Partial Content\r\n");
  snprintf(line, sizeof(line), "Content-Range: bytes %llu-%llu/%zu\r\n", a, b, fake_curl_size);
  fake_header(e, line);
  fake_header(e, "ETag: \"fake\"\r\n");
  fake_header(e, "\r\n");
  for (off = (size_t)a, end = (size_t)b + 1; off < end;) {
    size_t n = end - off < fake_curl_piece ? end - off : fake_curl_piece;
    if (e->on_body((char *)fake_curl_data + off, 1, n, e->body_arg) != n)
      return CURLE_WRITE_ERROR;
    off += n;
  }
  return CURLE_OK;
}

CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...) {
  fake_easy *e = c;
  va_list ap;
  CURLcode rc = CURLE_OK;
  va_start(ap, info);
  if (info == CURLINFO_RESPONSE_CODE)
    *va_arg(ap, long *) = e->code;
  else if (info == CURLINFO_EFFECTIVE_URL)
    *va_arg(ap, char **) = e->url;
  else if (info == CURLINFO_RETRY_AFTER)
    *va_arg(ap, curl_off_t *) = -1;
  else
    rc = CURLE_UNKNOWN_OPTION;
  va_end(ap);
  return rc;
}

const char *curl_easy_strerror(CURLcode rc) {
  return rc == CURLE_OK ? "no error" : "fake transfer error";
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s) {
  struct curl_slist *n = calloc(1, sizeof(*n)), *t;
  if (n == NULL || (n->data = strdup(s)) == NULL) {
    free(n);
    return NULL;
  }
  if (l == NULL)
    return n;
  for (t = l; t->next != NULL; t = t->next)
    ;
  t->next = n;
  return l;
}

void curl_slist_free_all(struct curl_slist *l) {
  while (l != NULL) {
    struct curl_slist *next = l->next;
    free(l->data);
    free(l);
    l = next;
  }
}

CURLM *curl_multi_init(void) {
  return NULL;
}

CURLMcode curl_multi_add_handle(CURLM *m, CURL *c) {
  (void)m;
  (void)c;
  return CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM *m, CURL *c) {
  (void)m;
  (void)c;
  return CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_perform(CURLM *m, int *running) {
  (void)m;
  *running = 0;
  return CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd fds[], unsigned int n, int ms, int *ret) {
  (void)m;
  (void)fds;
  (void)n;
  (void)ms;
  (void)ret;
  return CURLM_INTERNAL_ERROR;
}

CURLMsg *curl_multi_info_read(CURLM *m, int *left) {
  (void)m;
  *left = 0;
  return NULL;
}

CURLMcode curl_multi_cleanup(CURLM *m) {
  (void)m;
  return CURLM_OK;
}
