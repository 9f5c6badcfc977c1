/*
** file.h: the one way this extension reads bytes: a byte source.
**
** A wt_file is a source of bytes with a size and an identity.  Parsers
** never see it: the bytes layer reads a header into memory of its own
** (source.c) and hands the parsers bytes.  Tensor bytes are read with
** wt_file_read_at() into the caller's buffer, or, for a local file mapped
** with wt_file_map(), copied or decoded from the mapping inside the SIGBUS
** guard of mapping.h (wt_file_read_mapped(), wt_file_scan_mapped()).
** Either way a file truncated or rewritten while a statement reads it is
** an error, never a signal that kills the process.
**
** The operations go through a table of functions (wt_file_ops), so that
** this interface knows none of its implementations: the local one
** (local_file.c: pread(2) on a descriptor opened O_RDONLY | O_CLOEXEC |
** O_NOCTTY | O_NONBLOCK, regular files only) and the remote one
** (remote/http.c: HTTP Range requests), which registers itself with
** wt_file_set_remote() for the paths it claims (http://, https://, hf://).
**
** Identity: for a local file (dev, ino, size, mtime_ns) at open, taken by
** a settled fstat (fd.h: no write(2) under way, and a later write moves
** the modification time), so that equal identities mean equal bytes.  The
** cache (cache.c) compares it with stat(2) to notice a changed file;
** wt_file_unchanged() compares it with fstat(2) after bytes were read, so
** that a statement returns the old content consistently or an error,
** never a mix.  A file replaced by rename(2) keeps the old inode open:
** its old content, consistently.
*/
#ifndef WT_FILE_H
#define WT_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/model.h"

typedef struct wt_file wt_file;

/* What a kind of byte source implements. */
typedef struct wt_file_ops {
  /* Read exactly n bytes at off into buf; a short read is an error. */
  int (*read_at)(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err);
  /* 0 when the source still is what was opened, else -1 with err set. */
  int (*unchanged)(const wt_file *f, wt_error *err);
  /* Release what open took. */
  void (*close)(wt_file *f);
  /* Optional (NULL: nothing to do): the header of f was read and parsed,
  ** and is its first n bytes; a remote source keeps them for its next open. */
  void (*header_read)(const wt_file *f, const unsigned char *bytes, size_t n);
} wt_file_ops;

struct wt_file {
  const wt_file_ops *ops; /* NULL when closed */
  int fd;                 /* local files */
  uint64_t size;          /* size at open */
  uint64_t dev, ino;      /* identity, for caches (0 for a remote source) */
  int64_t mtime_ns;
  const unsigned char *map; /* local files: the whole file mapped (wt_file_map), or NULL */
  int remote;               /* 1 for a remote source */
  uint64_t first_read;      /* bytes the open already fetched (0 for a local file) */
  void *impl;               /* the remote source's state */
};

/* A kind of byte source chosen by the form of its path. */
typedef struct wt_file_kind {
  /* Non-zero when path[0..n) is this kind's (e.g. a URL). */
  int (*claims)(const char *path, size_t n);
  /* Open path[0..n) as f; 0, or -1 with err set and f closed. */
  int (*open)(wt_file *f, const char *path, size_t n, wt_error *err);
} wt_file_kind;

/* Make kind the source of the paths it claims; every other path is a local
** file.  Called once, before any open (remote/http.h: wt_remote_register). */
void wt_file_set_remote(const wt_file_kind *kind);

/* Non-zero when path[0..n) names a remote source (see wt_file_set_remote). */
int wt_file_is_remote(const char *path, size_t n);

/* Open path[0..n) as a local file: regular files only, never blocking (a
** FIFO is not opened for reading).  -1 with err set and f closed on failure. */
int wt_file_open_local(wt_file *f, const char *path, size_t n, wt_error *err);

/* Open path (n bytes, may contain no NUL) as a local file, or as a remote
** source when the registered remote kind claims it.  On failure returns -1
** with err set and f left closed. */
int wt_file_open(wt_file *f, const char *path, size_t n, wt_error *err);

/* Read bytes [off, off + n) into buf.  Returns 0, or -1 with err set
** ("file changed while in use: it now has N bytes, but the data needed
** runs to byte M" when the file got shorter). */
int wt_file_read_at(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err);

/* 0 when the file still has the size and modification time it had at
** open (call it after reading bytes that must all come from one
** version), -1 with err set ("file changed while in use: ...") otherwise. */
int wt_file_unchanged(const wt_file *f, wt_error *err);

/* Map local file f whole, read-only, once (wt_file_close() unmaps it), when
** the guard of mapping.h is ready: 1 when f is mapped, 0 when it can only
** be read with wt_file_read_at() (a remote source, an empty file, the
** guard off in this process, mmap(2) failed). */
int wt_file_map(wt_file *f);

/* wt_file_read_at() of a mapped file: a copy from the mapping, under the
** guard.  The same errors, and for a fault (the file got shorter while it
** was read) "file changed while in use: it shrank to N bytes while bytes
** up to byte M were read from its mapping". */
int wt_file_read_mapped(const wt_file *f, uint64_t off, size_t n, void *buf, wt_error *err);

/* What wt_file_scan_mapped() runs on mapped bytes p[0..n): only a copy or
** a decoding loop, no locks, no allocation (mapping.h).  0, or -1 with err
** set. */
typedef int (*wt_scan_fn)(void *arg, const unsigned char *p, size_t n, wt_error *err);

/* Run fn over bytes [off, off + n) of mapped file f, in place, under the
** guard: what fn returns, or -1 with err set as wt_file_read_mapped() sets
** it. */
int wt_file_scan_mapped(const wt_file *f, uint64_t off, size_t n, wt_scan_fn fn, void *arg,
                        wt_error *err);

/* The whole file, at most max bytes, in a malloc'd buffer (*out, *n); the
** caller frees it.  Returns -1 with err set (size over max included). */
int wt_file_read_all(const wt_file *f, uint64_t max, unsigned char **out, size_t *n, wt_error *err);

/* The header of f was read and parsed: its first n bytes (see
** wt_file_ops.header_read). */
void wt_file_header_read(const wt_file *f, const unsigned char *bytes, size_t n);

/* Close.  Safe on a closed or zeroed wt_file. */
void wt_file_close(wt_file *f);

#endif
