/*
** digest.h: one streaming interface over the content hashes that
** tensor_hash() offers (layer: io; pure C, no SQLite).
**
**   xxh3-128  XXH3 128-bit (libxxhash), the default: 32 hex digits
**   xxh3-64   XXH3 64-bit, what llama-gguf-hash calls "xxh3": 16 digits
**   xxh64     XXH64 with seed 0, llama-gguf-hash's default: 16 digits
**   sha1      SHA-1 (OpenSSL libcrypto): 40 digits
**   sha256    SHA-256 (OpenSSL libcrypto): 64 digits
**
** Every result is lower-case hex of the canonical (big-endian) form of
** the hash, as xxhsum -H0/-H1/-H2/-H3, sha1sum and sha256sum print it, and
** as llama-gguf-hash prints its per-tensor lines.  Feed the bytes with
** wt_digest_update() in as many pieces as wanted; the result does not
** depend on how the bytes were cut.
*/
#ifndef WT_DIGEST_H
#define WT_DIGEST_H

#include <stddef.h>

#include "base/model.h"

/* The longest hex result (SHA-256) and its NUL. */
#define WT_DIGEST_HEX_MAX 65

/* The names wt_digest_begin() accepts, for messages. */
#define WT_DIGEST_NAMES "xxh3-128, xxh3-64, xxh64, sha1, sha256"

typedef struct wt_digest wt_digest;

/* Start a hash of the algorithm named by name (n bytes; case-sensitive,
** one of WT_DIGEST_NAMES): 0 and *out set, or -1 with err set (an unknown
** name, listing the valid ones; out of memory). */
int wt_digest_begin(const char *name, size_t n, wt_digest **out, wt_error *err);

/* Add n bytes.  Returns 0, or -1 with err set. */
int wt_digest_update(wt_digest *d, const void *p, size_t n, wt_error *err);

/* 1 when wt_digest_update() of d is only computation over the bytes (the
** libxxhash kinds): no locks, no allocation, so that it may read a mapping
** under the guard of mapping.h; 0 for OpenSSL's, which are fed copies. */
int wt_digest_in_place(const wt_digest *d);

/* Finish: 0 with hex holding the lower-case hex digits and a NUL, or -1
** with err set.  The digest is freed either way. */
int wt_digest_end(wt_digest *d, char hex[WT_DIGEST_HEX_MAX], wt_error *err);

/* Free a digest that will not be finished (NULL is fine). */
void wt_digest_free(wt_digest *d);

#endif
