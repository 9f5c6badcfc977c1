/*
** mapped_file.h: the one way this extension reads a file.
**
** wt_file_open() opens a path read-only (O_CLOEXEC), refuses anything that
** is not a regular file, and maps the whole file read-only.  Parsers read
** the header through the mapping; blob functions copy tensor bytes out of
** it after wt_file_check() has confirmed that the file still holds them
** (a mapping read past the file's current end raises SIGBUS).
*/
#ifndef WT_MAPPED_FILE_H
#define WT_MAPPED_FILE_H

#include <stdint.h>
#include <sys/types.h>

#include "base/model.h"

typedef struct wt_file {
  int is_open;
  int fd;
  const unsigned char *data; /* NULL for an empty file */
  uint64_t size;             /* size when mapped */
  uint64_t dev, ino;         /* identity, for caches */
  int64_t mtime_ns;
} wt_file;

/* Open and map path (n bytes, may contain no NUL).  On failure returns -1
** with err set and f left closed. */
int wt_file_open(wt_file *f, const char *path, size_t n, wt_error *err);

/* Return 0 if the file still has at least end bytes (so that the mapping
** can be read up to end), -1 with err set otherwise. */
int wt_file_check(const wt_file *f, uint64_t end, wt_error *err);

/* The format of the file at path from its first bytes (WT_FORMAT_* or 0),
** without mapping it; 0 for anything that is not a readable regular file.
** Never blocks (a FIFO is not read). */
int wt_file_sniff(const char *path);

/* Unmap and close.  Safe on a closed or zeroed wt_file. */
void wt_file_close(wt_file *f);

#endif
