/*
** out_file.h: a new file written whole, then put at its name at once, or
** not at all.  No SQLite.
** Layer: write (uses bytes/, base/).
**
** A target that is a symbolic link is written through, as cp(1) writes:
** the new file replaces the file the link leads to (resolved with
** realpath(3), links to links too), and the link stays; a link that leads
** nowhere is refused (cp: "not writing through dangling symlink").
**
** The bytes go to a temporary file in the target's folder (rename(2) is
** atomic only within one filesystem): one with no name (open(2)'s
** O_TMPFILE, Linux 3.11; a crash leaves nothing behind) or, where the
** filesystem refuses that, ".NAME.tmp-PID-N" beside the target, created
** O_EXCL.  wt_out_commit() then fsyncs the file (write-back errors such as
** ENOSPC or EIO may only show there), gives it a temporary name when it had
** none (linkat(2) of /proc/self/fd/N), polls the caller's interrupt check
** one last time, renames it over the target and fsyncs the folder;
** wt_out_commit_all() does the same for the files of one call (a split),
** every file made durable before the first rename.  wt_out_abort(), and
** every failure up to the rename, removes the temporary file: the target
** keeps what it had, and a reader of the old file keeps reading the old
** inode.  Past the rename one thing can still fail, the fsync of the
** folder: the new file is then in place (its name may not survive a
** crash) and the error says so ("PATH was written, but its folder could
** not be synced"), which the caller reports as it is.  The new file's mode
** is 0666 less the umask, what cp(1) gives a new file.
**
** A zeroed wt_out is a closed one: wt_out_abort() on it does nothing.
**
** Tensor bytes are copied from a byte source by reference: copy_file_range(2)
** from a local file (in the kernel, a reflink where the filesystem offers
** one), falling back to pread/pwrite in chunks of WT_OUT_CHUNK bytes where
** the kernel refuses (EXDEV, EOPNOTSUPP, ENOSYS, EINVAL); a remote source
** through its reads, in the same chunks.  A copy calls the caller's
** interrupt check every WT_OUT_POLL bytes, and checks that the source is
** unchanged when done.  Every 16 MiB written or copied, the disk's
** write-back of them is started (sync_file_range(2), nothing waited for),
** so that the commit's fsync waits only for the tail.
*/
#ifndef WT_OUT_FILE_H
#define WT_OUT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/digest.h"
#include "bytes/file.h"

/* Bytes a fallback copy moves at a time (the memory a copy takes). */
#define WT_OUT_CHUNK ((size_t)4 << 20)
/* Bytes copied between two calls of the interrupt check. */
#define WT_OUT_POLL ((uint64_t)64 << 20)

typedef struct wt_out {
  int open;              /* from wt_out_open() until the commit or abort (0: closed) */
  int fd;                /* the temporary file; -1 when closed */
  int dirfd;             /* the target's folder */
  int named;             /* 1 when tmp names the file in the folder */
  char *target;          /* the target path, as given (for messages) */
  char *base;            /* the last component of the file replaced (a link's target's) */
  char tmp[64 + 256];    /* the temporary name, in the folder */
  uint64_t size;         /* bytes written so far (the file's end) */
  uint64_t written_back; /* bytes whose write-back to disk was started */
  unsigned char *chunk;  /* the fallback copy's buffer (WT_OUT_CHUNK), or NULL */
  /* Called between chunks and before the rename: non-zero stops the
  ** copy or the commit with err set by it. */
  int (*interrupted)(void *ctx, wt_error *err);
  void *ctx;
  uint64_t polled; /* bytes copied since the last check */
} wt_out;

/* Start a new file for path (NUL-terminated): 0, or -1 with err set (a
** folder that does not exist or cannot be written).  *o is ready for
** wt_out_abort() either way. */
int wt_out_open(wt_out *o, const char *path, wt_error *err);

/* Reserve size bytes for the file (fallocate(2)), so that a full disk is
** an error before any byte is copied; filesystems without it are fine. */
int wt_out_reserve(wt_out *o, uint64_t size, wt_error *err);

/* Append n bytes of p. */
int wt_out_write(wt_out *o, const void *p, size_t n, wt_error *err);

/* Append n zero bytes. */
int wt_out_zeros(wt_out *o, uint64_t n, wt_error *err);

/* Append bytes [off, off + n) of src; then check that src is unchanged. */
int wt_out_copy(wt_out *o, const wt_file *src, uint64_t off, uint64_t n, wt_error *err);

/* The same with the bytes of each swap-byte element reversed (the other
** byte order; byte_swap.h), through memory; swap 0 or 1: wt_out_copy(). */
int wt_out_copy_swapped(wt_out *o, const wt_file *src, uint64_t off, uint64_t n, unsigned swap,
                        wt_error *err);

/* Read back n bytes of the new file at off into buf (for the checks made
** before the commit). */
int wt_out_read(const wt_out *o, uint64_t off, size_t n, void *buf, wt_error *err);

/* The XXH3-64 of the n bytes at off of the new file (src NULL) or of src,
** as lower-case hex into hex, read WT_OUT_CHUNK bytes at a time into buf
** (of that size): 0, or -1 with err set. */
int wt_out_digest(const wt_out *o, const wt_file *src, uint64_t off, uint64_t n, unsigned char *buf,
                  char hex[WT_DIGEST_HEX_MAX], wt_error *err);

/* The same with each swap-byte element reversed before it is hashed
** (swap > 1): the digest of the values in the other byte order. */
int wt_out_digest_swapped(const wt_out *o, const wt_file *src, uint64_t off, uint64_t n,
                          unsigned char *buf, unsigned swap, char hex[WT_DIGEST_HEX_MAX],
                          wt_error *err);

/* 0 when the n bytes at out_off of the new file equal those at src_off of
** src (an XXH3-64 of each, read WT_OUT_CHUNK bytes at a time into buf, of
** that size), else -1 with err set (what names them: a tensor's name). */
int wt_out_same_bytes(const wt_out *o, uint64_t out_off, const wt_file *src, uint64_t src_off,
                      uint64_t n, unsigned char *buf, const char *what, wt_error *err);

/* The same for bytes copied with wt_out_copy_swapped(): the new file's
** elements swapped back must be the source's, value for value. */
int wt_out_same_values(const wt_out *o, uint64_t out_off, const wt_file *src, uint64_t src_off,
                       uint64_t n, unsigned swap, unsigned char *buf, const char *what,
                       wt_error *err);

/* Make the file durable and put it at the target's name, unless its
** interrupt check says stop first: 0, or -1 with err set (the temporary
** file removed; after the rename, the folder's fsync failed: see above).
** Frees what open took. */
int wt_out_commit(wt_out *o, wt_error *err);

/* The same for the n files of one call (the parts of a split), in order:
** every one made durable, then the interrupt check of the first that has
** one, then the renames.  A failure before the first rename leaves every
** target as it was; a rename that fails after others says how many are in
** place. */
int wt_out_commit_all(wt_out *const *o, size_t n, wt_error *err);

/* Remove the temporary file and free what open took.  Safe to call twice,
** after a commit, and on a zeroed wt_out. */
void wt_out_abort(wt_out *o);

/* 1 when path names the file f (same device and inode), 0 when it does
** not or does not exist. */
int wt_out_is_file(const char *path, const wt_file *f);

/* The one refusal of every writer whose output would replace one of its
** inputs: 0 when path does not name f; else -1 with err "PATH is an input
** file: refusing to replace it", and what allows it when the call can
** (hint, e.g. the option; NULL: nothing can). */
int wt_out_not_input(const char *path, const wt_file *f, const char *hint, wt_error *err);

#endif
