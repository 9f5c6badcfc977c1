/*
** digest.c: the content hashes of tensor_hash() behind one streaming
** interface (digest.h).  XXH3 and XXH64 come from libxxhash, SHA-1 and
** SHA-256 from OpenSSL's EVP interface, in libcrypto opened on first use
** (crypto_load.h).  Layer: io (pure C, no SQLite).
*/
#include "digest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "crypto_load.h"

enum { WT_XXH3_128, WT_XXH3_64, WT_XXH64, WT_SHA1, WT_SHA256 };

struct wt_digest {
  int kind;
  XXH3_state_t *xxh3;   /* WT_XXH3_128, WT_XXH3_64 */
  XXH64_state_t *xxh64; /* WT_XXH64 */
  EVP_MD_CTX *evp;      /* WT_SHA1, WT_SHA256 */
};

/* The algorithms by name. */
static const struct {
  const char *name;
  int kind;
} wt_digest_kinds[] = {
    {"xxh3-128", WT_XXH3_128}, {"xxh3-64", WT_XXH3_64}, {"xxh64", WT_XXH64},
    {"sha1", WT_SHA1},         {"sha256", WT_SHA256},
};

void wt_digest_free(wt_digest *d) {
  if (d == NULL)
    return;
  XXH3_freeState(d->xxh3);
  XXH64_freeState(d->xxh64);
  if (d->evp != NULL)
    wt_crypto.md_ctx_free(d->evp);
  free(d);
}

int wt_digest_begin(const char *name, size_t n, wt_digest **out, wt_error *err) {
  wt_digest *d;
  size_t i;
  int ok = 0;
  for (i = 0; i < sizeof(wt_digest_kinds) / sizeof(wt_digest_kinds[0]); i++)
    if (strlen(wt_digest_kinds[i].name) == n && memcmp(wt_digest_kinds[i].name, name, n) == 0)
      break;
  if (i == sizeof(wt_digest_kinds) / sizeof(wt_digest_kinds[0])) {
    char q[WT_QUOTE_SIZE];
    wt_quote(q, sizeof(q), name, n);
    return wt_fail(err, "unknown hash algorithm %s: the algorithms are " WT_DIGEST_NAMES, q);
  }
  if ((wt_digest_kinds[i].kind == WT_SHA1 || wt_digest_kinds[i].kind == WT_SHA256) &&
      wt_crypto_load(err) != 0)
    return -1;
  d = calloc(1, sizeof(*d));
  if (d == NULL)
    return wt_fail(err, "out of memory");
  d->kind = wt_digest_kinds[i].kind;
  switch (d->kind) {
  case WT_XXH3_128:
    ok = (d->xxh3 = XXH3_createState()) != NULL && XXH3_128bits_reset(d->xxh3) == XXH_OK;
    break;
  case WT_XXH3_64:
    ok = (d->xxh3 = XXH3_createState()) != NULL && XXH3_64bits_reset(d->xxh3) == XXH_OK;
    break;
  case WT_XXH64:
    ok = (d->xxh64 = XXH64_createState()) != NULL && XXH64_reset(d->xxh64, 0) == XXH_OK;
    break;
  default:
    ok = (d->evp = wt_crypto.md_ctx_new()) != NULL &&
         wt_crypto.digest_init_ex(
             d->evp, d->kind == WT_SHA1 ? wt_crypto.sha1() : wt_crypto.sha256(), NULL) == 1;
    break;
  }
  if (!ok) {
    wt_digest_free(d);
    return wt_fail(err, "out of memory (starting a %s hash)", wt_digest_kinds[i].name);
  }
  *out = d;
  return 0;
}

int wt_digest_update(wt_digest *d, const void *p, size_t n, wt_error *err) {
  int ok;
  switch (d->kind) {
  case WT_XXH3_128:
    ok = XXH3_128bits_update(d->xxh3, p, n) == XXH_OK;
    break;
  case WT_XXH3_64:
    ok = XXH3_64bits_update(d->xxh3, p, n) == XXH_OK;
    break;
  case WT_XXH64:
    ok = XXH64_update(d->xxh64, p, n) == XXH_OK;
    break;
  default:
    ok = wt_crypto.digest_update(d->evp, p, n) == 1;
    break;
  }
  return ok ? 0 : wt_fail(err, "the hash failed while adding bytes");
}

int wt_digest_in_place(const wt_digest *d) {
  return d->kind == WT_XXH3_128 || d->kind == WT_XXH3_64 || d->kind == WT_XXH64;
}

/* Write n bytes as lower-case hex into hex (2n digits and a NUL). */
static void wt_hex(const unsigned char *b, size_t n, char *hex) {
  static const char digits[] = "0123456789abcdef";
  size_t i;
  for (i = 0; i < n; i++) {
    hex[2 * i] = digits[b[i] >> 4];
    hex[2 * i + 1] = digits[b[i] & 15];
  }
  hex[2 * n] = 0;
}

int wt_digest_end(wt_digest *d, char hex[WT_DIGEST_HEX_MAX], wt_error *err) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  int rc = 0;
  if (d->kind == WT_XXH3_128) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(d->xxh3));
    wt_hex(c.digest, sizeof(c.digest), hex);
  } else if (d->kind == WT_XXH3_64 || d->kind == WT_XXH64) {
    XXH64_canonical_t c; /* big-endian, as xxhsum and llama-gguf-hash print it */
    XXH64_canonicalFromHash(&c, d->kind == WT_XXH64 ? XXH64_digest(d->xxh64)
                                                    : XXH3_64bits_digest(d->xxh3));
    wt_hex(c.digest, sizeof(c.digest), hex);
  } else if (wt_crypto.digest_final_ex(d->evp, md, &md_len) == 1 &&
             md_len * 2 < WT_DIGEST_HEX_MAX) {
    wt_hex(md, md_len, hex);
  } else {
    rc = wt_fail(err, "the hash failed while finishing");
  }
  wt_digest_free(d);
  return rc;
}
