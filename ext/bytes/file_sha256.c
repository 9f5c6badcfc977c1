/*
** file_sha256.c: the SHA-256 of a whole file (file_sha256.h), with
** OpenSSL's EVP digest interface (libcrypto opened on first use,
** crypto_load.h).
**
** The file is opened once, when stat() says it is a regular file
** (O_NONBLOCK so that a FIFO put there meanwhile does not wait; fstat()
** refuses it) and read by offset, so the
** size taken from fstat() before the first read bounds what is read.
** After the last chunk one more byte is asked for: a file that grew is
** caught there, one that shrank by a read that ends early, and a rewrite
** of the same size by a second fstat() (mtime, inode).
*/
#include "fd.h"
#include "file_sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto_load.h"

/* Whether a and b describe the same version of a file. */
static int wt_same_version(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         wt_stat_mtime_ns(a) == wt_stat_mtime_ns(b);
}

/* Feed the size bytes of fd to ctx. */
static int wt_hash_fd(int fd, uint64_t size, EVP_MD_CTX *ctx, unsigned char *buf, wt_error *err) {
  uint64_t at = 0;
  ssize_t r;
  while (at < size) {
    size_t want = size - at < WT_SHA256_CHUNK ? (size_t)(size - at) : WT_SHA256_CHUNK;
    r = wt_fd_read_full(fd, buf, want, at);
    if (r < 0)
      return wt_fail(err, "read error at byte %llu: %s", (unsigned long long)at, strerror(errno));
    if (r == 0)
      return wt_fail(err, "the file ended at byte %llu of %llu: it changed while it was hashed",
                     (unsigned long long)at, (unsigned long long)size);
    if (wt_crypto.digest_update(ctx, buf, (size_t)r) != 1)
      return wt_fail(err, "SHA-256 failed (OpenSSL EVP_DigestUpdate)");
    at += (uint64_t)r;
  }
  r = wt_fd_read_full(fd, buf, 1, size);
  if (r != 0)
    return wt_fail(err, "the file holds more than its %llu bytes: it changed while it was hashed",
                   (unsigned long long)size);
  return 0;
}

int wt_sha256_file(const char *path, char out_hex[65], wt_error *err) {
  static const char hex[] = "0123456789abcdef";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0, i;
  unsigned char *buf = NULL;
  EVP_MD_CTX *ctx = NULL;
  struct stat st, st2;
  int fd, rc = -1;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* refused unopened */
    return wt_fail(err, "%s",
                   S_ISDIR(st.st_mode) ? "it is a directory, not a file"
                                       : "it is not a regular file");
  if (wt_crypto_load(err) != 0)
    return -1;
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return wt_fail(err, "cannot open the file: %s", strerror(errno));
  if (fstat(fd, &st) != 0) {
    wt_fail(err, "cannot stat the file: %s", strerror(errno));
    goto done;
  }
  if (!S_ISREG(st.st_mode)) {
    wt_fail(err, "%s",
            S_ISDIR(st.st_mode) ? "it is a directory, not a file" : "it is not a regular file");
    goto done;
  }
  buf = malloc(WT_SHA256_CHUNK);
  ctx = wt_crypto.md_ctx_new();
  if (buf == NULL || ctx == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  if (wt_crypto.digest_init_ex(ctx, wt_crypto.sha256(), NULL) != 1) {
    wt_fail(err, "SHA-256 failed (OpenSSL EVP_DigestInit_ex)");
    goto done;
  }
  if (wt_hash_fd(fd, (uint64_t)st.st_size, ctx, buf, err))
    goto done;
  if (fstat(fd, &st2) != 0 || !wt_same_version(&st, &st2)) {
    wt_fail(err, "the file changed while it was hashed (its size or modification time)");
    goto done;
  }
  if (wt_crypto.digest_final_ex(ctx, md, &md_len) != 1 || md_len != 32) {
    wt_fail(err, "SHA-256 failed (OpenSSL EVP_DigestFinal_ex)");
    goto done;
  }
  for (i = 0; i < md_len; i++) {
    out_hex[2 * i] = hex[md[i] >> 4];
    out_hex[2 * i + 1] = hex[md[i] & 15];
  }
  out_hex[64] = 0;
  rc = 0;
done:
  if (ctx != NULL)
    wt_crypto.md_ctx_free(ctx);
  free(buf);
  close(fd);
  return rc;
}
