/*
** url.c: recognise and resolve remote paths (http, https, hf).  See url.h.
*/
#include "url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A string being built in a fixed buffer; len > WT_URL_MAX marks overflow. */
typedef struct wt_ubuf {
  char s[WT_URL_MAX + 1];
  size_t len;
} wt_ubuf;

/* Append p[0..n). */
static void wt_put(wt_ubuf *b, const char *p, size_t n) {
  if (b->len > WT_URL_MAX || n > WT_URL_MAX - b->len) {
    b->len = WT_URL_MAX + 1;
    return;
  }
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = 0;
}

/* Append p[0..n) percent-encoded: unreserved bytes (RFC 3986) stay, and
** '/' too when keep_slash. */
static void wt_put_encoded(wt_ubuf *b, const char *p, size_t n, int keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    char e[3];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || (c == '/' && keep_slash)) {
      wt_put(b, (const char *)&c, 1);
      continue;
    }
    e[0] = '%';
    e[1] = hex[c >> 4];
    e[2] = hex[c & 15];
    wt_put(b, e, 3);
  }
}

/* Length of the scheme prefix ("http://": 7) when p starts with it. */
static size_t wt_prefix(const char *p, size_t n, const char *z) {
  size_t k = strlen(z);
  return n >= k && strncasecmp(p, z, k) == 0 ? k : 0;
}

int wt_url_is_remote(const char *p, size_t n) {
  return wt_prefix(p, n, "http://") || wt_prefix(p, n, "https://") || wt_prefix(p, n, "hf://");
}

int wt_url_host(const char *url, char *host, size_t size, int *port) {
  size_t n = strlen(url), k = wt_prefix(url, n, "http://"), end, at, i, hn;
  const char *h, *colon;
  *port = 80;
  if (k == 0 && (k = wt_prefix(url, n, "https://")) != 0)
    *port = 443;
  if (k == 0)
    return -1;
  end = k + strcspn(url + k, "/?#");
  /* user info: the last '@' before the path */
  for (at = k, i = k; i < end; i++)
    if (url[i] == '@')
      at = i + 1;
  h = url + at;
  hn = end - at;
  if (hn > 0 && h[0] == '[') { /* IPv6 literal */
    const char *close = memchr(h, ']', hn);
    if (close == NULL)
      return -1;
    colon = close + 1 < h + hn && close[1] == ':' ? close + 1 : NULL;
  } else {
    colon = memchr(h, ':', hn);
  }
  if (colon != NULL) {
    size_t j, pn = (size_t)(h + hn - colon - 1);
    int v = 0;
    if (pn == 0 || pn > 5)
      return -1;
    for (j = 1; j <= pn; j++) {
      if (colon[j] < '0' || colon[j] > '9')
        return -1;
      v = v * 10 + (colon[j] - '0');
    }
    if (v == 0 || v > 65535)
      return -1;
    *port = v;
    hn = (size_t)(colon - h);
  }
  if (hn == 0 || hn >= size)
    return -1;
  for (i = 0; i < hn; i++)
    host[i] = (h[i] >= 'A' && h[i] <= 'Z') ? (char)(h[i] + 32) : h[i];
  host[hn] = 0;
  return 0;
}

/* True when p[0..n) is a commit: 40 hex digits. */
static int wt_is_commit(const char *p, size_t n) {
  size_t i;
  if (n != 40)
    return 0;
  for (i = 0; i < n; i++)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
      return 0;
  return 1;
}

/* True when a repo name part is made of the Hub's characters. */
static int wt_repo_part_ok(const char *p, size_t n) {
  size_t i;
  if (n == 0 || (n <= 2 && p[0] == '.' && (n == 1 || p[1] == '.')))
    return 0;
  for (i = 0; i < n; i++) {
    char c = p[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.'))
      return 0;
  }
  return 1;
}

int wt_url_repo_path_ok(const char *p, size_t n) {
  size_t i = 0;
  if (n == 0)
    return 0;
  while (i <= n) {
    size_t j = i;
    while (j < n && p[j] != '/')
      j++;
    if (j == i || (j - i == 1 && p[i] == '.') || (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
      return 0;
    i = j + 1;
  }
  return 1;
}

/* Resolve hf://... (p points past "hf://"). */
static int wt_resolve_hf(wt_ubuf *b, const char *p, size_t n, wt_url *out, wt_error *err) {
  const char *kind = "";
  const char *p0 = p, *org, *repo, *rev = "main", *path, *slash, *end = p + n;
  size_t org_n, repo_n, rev_n = 4;
  if (n >= 9 && memcmp(p, "datasets/", 9) == 0)
    kind = "datasets/", p += 9;
  else if (n >= 7 && memcmp(p, "spaces/", 7) == 0)
    kind = "spaces/", p += 7;
  org = p;
  slash = memchr(p, '/', (size_t)(end - p));
  if (slash == NULL)
    return wt_fail(err, "an hf:// path needs ORG/REPO/FILE");
  org_n = (size_t)(slash - org);
  repo = slash + 1;
  slash = memchr(repo, '/', (size_t)(end - repo));
  repo_n = (size_t)((slash ? slash : end) - repo);
  {
    const char *a = memchr(repo, '@', repo_n);
    if (a != NULL) {
      rev = a + 1;
      rev_n = repo_n - (size_t)(rev - repo);
      repo_n = (size_t)(a - repo);
      /* refs/pr/N is one revision of three segments */
      if (slash != NULL && rev_n == 4 && memcmp(rev, "refs", 4) == 0) {
        const char *s2 = slash + 1, *s3;
        s3 = memchr(s2, '/', (size_t)(end - s2));
        if (s3 != NULL) {
          s3 = memchr(s3 + 1, '/', (size_t)(end - s3 - 1));
          slash = s3;
          rev_n = (size_t)((s3 ? s3 : end) - rev);
        }
      }
    }
  }
  if (!wt_repo_part_ok(org, org_n) || !wt_repo_part_ok(repo, repo_n))
    return wt_fail(err, "an hf:// path needs ORG/REPO/FILE, with names of letters, digits, "
                        "'-', '_' and '.'");
  if (rev_n == 0 || memchr(rev, '@', rev_n) != NULL)
    return wt_fail(err, "an hf:// path has an empty or malformed revision after '@'");
  out->is_hf = 1;
  if (slash == NULL || slash + 1 >= end || end[-1] == '/') { /* a repo or a folder: its tree */
    size_t fn = slash == NULL || slash + 1 >= end ? 0 : (size_t)(end - 1 - slash - 1);
    wt_ubuf *pre = malloc(sizeof(*pre));
    if (pre == NULL)
      return wt_fail(err, "out of memory");
    if (fn > 0 && !wt_url_repo_path_ok(slash + 1, fn)) {
      free(pre);
      return wt_fail(err, "an hf:// folder path may not have empty, '.' or '..' segments");
    }
    pre->len = 0;
    wt_put(pre, "hf://", 5);
    wt_put(pre, p0, (size_t)((slash ? slash : end) - p0));
    wt_put(pre, "/", 1);
    out->tree_prefix = pre->len <= WT_URL_MAX ? strdup(pre->s) : NULL;
    free(pre);
    if (out->tree_prefix == NULL)
      return wt_fail(err, "out of memory");
    wt_put(b, "/api/", 5);
    wt_put(b, kind[0] ? kind : "models/", kind[0] ? strlen(kind) : 7);
    wt_put(b, org, org_n);
    wt_put(b, "/", 1);
    wt_put(b, repo, repo_n);
    wt_put(b, "/tree/", 6);
    wt_put_encoded(b, rev, rev_n, 0);
    if (fn > 0) {
      wt_put(b, "/", 1);
      wt_put_encoded(b, slash + 1, fn, 0);
    }
    wt_put(b, "?recursive=true", 15);
    out->is_tree = 1;
    out->immutable = wt_is_commit(rev, rev_n);
    return 0;
  }
  path = slash + 1;
  if (!wt_url_repo_path_ok(path, (size_t)(end - path)))
    return wt_fail(err, "an hf:// file path may not have empty, '.' or '..' segments");
  wt_put(b, "/", 1);
  wt_put(b, kind, strlen(kind));
  wt_put(b, org, org_n);
  wt_put(b, "/", 1);
  wt_put(b, repo, repo_n);
  wt_put(b, "/resolve/", 9);
  wt_put_encoded(b, rev, rev_n, 0);
  wt_put(b, "/", 1);
  wt_put_encoded(b, path, (size_t)(end - path), 1);
  out->is_hf = 1;
  out->immutable = wt_is_commit(rev, rev_n);
  return 0;
}

int wt_url_resolve(const char *p, size_t n, const char *endpoint, wt_url *out, wt_error *err) {
  wt_ubuf *b;
  char host[256], ehost[256];
  int port, eport, rc = -1;
  size_t i, en;
  memset(out, 0, sizeof(*out));
  if (endpoint == NULL || endpoint[0] == 0)
    endpoint = WT_HF_ENDPOINT;
  en = strlen(endpoint);
  while (en > 0 && endpoint[en - 1] == '/')
    en--;
  /* hf:// paths are percent-encoded here; http URLs must come encoded */
  for (i = 0; i < n; i++)
    if ((unsigned char)p[i] < ' ' || p[i] == 0x7f || (p[i] == ' ' && !wt_prefix(p, n, "hf://")))
      return wt_fail(err, "a URL may not contain spaces or control characters");
  b = malloc(sizeof(*b));
  if (b == NULL)
    return wt_fail(err, "out of memory");
  b->len = 0;
  b->s[0] = 0;
  if (wt_prefix(p, n, "hf://")) {
    wt_put(b, endpoint, en);
    if (wt_url_host(b->s, ehost, sizeof(ehost), &eport) != 0) {
      wt_fail(err, "HF_ENDPOINT is not an http:// or https:// URL");
      goto done;
    }
    if (wt_resolve_hf(b, p + 5, n - 5, out, err) != 0)
      goto done;
  } else if (wt_url_is_remote(p, n)) {
    wt_put(b, p, n);
    for (i = 0; b->s[i] != ':'; i++) /* the scheme in lower case */
      if (b->s[i] >= 'A' && b->s[i] <= 'Z')
        b->s[i] = (char)(b->s[i] + 32);
  } else {
    wt_fail(err, "not an http://, https:// or hf:// URL");
    goto done;
  }
  if (b->len > WT_URL_MAX) {
    wt_fail(err, "the URL is longer than %d bytes", WT_URL_MAX);
    goto done;
  }
  if (wt_url_host(b->s, host, sizeof(host), &port) != 0) {
    wt_fail(err, "the URL has no valid host or port");
    goto done;
  }
  /* the token goes to the endpoint's host and port only */
  {
    wt_ubuf *e = malloc(sizeof(*e));
    if (e == NULL) {
      wt_fail(err, "out of memory");
      goto done;
    }
    e->len = 0;
    wt_put(e, endpoint, en);
    out->token_ok = wt_url_host(e->s, ehost, sizeof(ehost), &eport) == 0 &&
                    strcmp(host, ehost) == 0 && port == eport;
    free(e);
  }
  out->url = strdup(b->s);
  out->host = strdup(host);
  if (out->url == NULL || out->host == NULL) {
    wt_url_free(out);
    wt_fail(err, "out of memory");
    goto done;
  }
  rc = 0;
done:
  free(b);
  if (rc != 0)
    wt_url_free(out);
  return rc;
}

void wt_url_free(wt_url *u) {
  free(u->url);
  free(u->host);
  free(u->tree_prefix);
  memset(u, 0, sizeof(*u));
}
