/*
** crypto_load.c: libcrypto opened when a SHA is first asked for.  See
** crypto_load.h.
*/
#include "crypto_load.h"

#include "dynlib.h"

wt_crypto_api wt_crypto;

/* The functions, by the names libcrypto exports them under. */
static const wt_dynsym wt_crypto_syms[] = {
    {"EVP_MD_CTX_new", (void **)&wt_crypto.md_ctx_new},
    {"EVP_MD_CTX_free", (void **)&wt_crypto.md_ctx_free},
    {"EVP_DigestInit_ex", (void **)&wt_crypto.digest_init_ex},
    {"EVP_DigestUpdate", (void **)&wt_crypto.digest_update},
    {"EVP_DigestFinal_ex", (void **)&wt_crypto.digest_final_ex},
    {"EVP_sha1", (void **)&wt_crypto.sha1},
    {"EVP_sha256", (void **)&wt_crypto.sha256},
};

/* OpenSSL 3's libcrypto, as Debian 12 (libssl3) and 13 (libssl3t64) ship it. */
static wt_dynlib wt_crypto_lib = {"libcrypto.so.3",
                                  "SQLITE_WEIGHTS_LIBCRYPTO",
                                  "libssl3 (libssl3t64 on Debian 13)",
                                  "SHA-1 and SHA-256",
                                  wt_crypto_syms,
                                  sizeof(wt_crypto_syms) / sizeof(wt_crypto_syms[0]),
                                  0,
                                  {0}};

int wt_crypto_load(wt_error *err) {
  return wt_dynlib_load(&wt_crypto_lib, err);
}
