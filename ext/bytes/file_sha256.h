/*
** file_sha256.h: the SHA-256 of a whole file, read as a stream.  Pure C
** (OpenSSL's libcrypto), no SQLite: the bytes layer.
**
** The file is read with pread() in chunks of WT_SHA256_CHUNK bytes, never
** mapped, so that a file cut short while it is read is an error and not a
** SIGBUS.  A file whose size, modification time or inode changes while it
** is hashed, or that holds more or fewer bytes than its size said, is an
** error: the hash of a file that changed is the hash of no version of it.
** Only regular files are hashed (a FIFO or a device would never end).
*/
#ifndef WT_FILE_SHA256_H
#define WT_FILE_SHA256_H

#include "base/model.h"

#define WT_SHA256_CHUNK (1024 * 1024)

/* Hash the file at path: 0 with out_hex holding 64 lower-case hex digits
** and a NUL, or -1 with err set (one sentence, without the path). */
int wt_sha256_file(const char *path, char out_hex[65], wt_error *err);

#endif
