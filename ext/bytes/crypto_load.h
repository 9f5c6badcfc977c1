/*
** crypto_load.h: the functions of OpenSSL's libcrypto that the SHA-1 and
** SHA-256 hashes use (digest.c, file_sha256.c), looked up in libcrypto.so.3
** the first time a SHA is asked for (dynlib.h), so that a process that
** never asks does not load it.  bytes layer; no SQLite.
*/
#ifndef WT_CRYPTO_LOAD_H
#define WT_CRYPTO_LOAD_H

#include <openssl/evp.h>

#include "base/model.h"

/* OpenSSL's EVP digest functions of the same names (EVP_MD_CTX_new, ...). */
typedef struct wt_crypto_api {
  EVP_MD_CTX *(*md_ctx_new)(void);
  void (*md_ctx_free)(EVP_MD_CTX *ctx);
  int (*digest_init_ex)(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
  int (*digest_update)(EVP_MD_CTX *ctx, const void *p, size_t n);
  int (*digest_final_ex)(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *n);
  const EVP_MD *(*sha1)(void);
  const EVP_MD *(*sha256)(void);
} wt_crypto_api;

/* Filled by the first successful wt_crypto_load(). */
extern wt_crypto_api wt_crypto;

/* Load libcrypto (once): 0, or -1 with err naming the missing library and
** its Debian package. */
int wt_crypto_load(wt_error *err);

#endif
