/*
** source.h: a model file opened and parsed: the byte source, its header in
** memory of its own, and the parser's description.  Tables and functions
** get one with wt_source_open() and give it back with wt_source_release().
** No SQLite here.
**
** The header (safetensors: the 8 + N bytes up to the data; GGUF: at least
** up to the end of the tensor infos) is read into s->header and parsed
** from there; the metadata positions of s->model (and a safetensors
** model's strings) point into it, so listings never touch the file again.
**
** An open that needs only the description (WT_OPEN_DESCRIPTION: the
** listings of gguf() and safetensors()) parses a local GGUF file's header
** in place, in a read-only mapping of the file under the SIGBUS guard
** (mapping.h), instead of copying it: an 8 MB header copied into fresh
** memory costs a page fault per 4 KiB page, where the mapping takes the
** page cache's pages 16 at a time.  The GGUF parser copies keys and
** tensor names into the model, so nothing points into the mapping, which
** is unmapped before the open returns; the file is checked unchanged
** after the parse (a file shrunk under it is an error, never a signal).
** s->header is then NULL until wt_source_load_header() reads it (with
** pread, checked the same way), as the cache does for every other
** reader.  Tensor bytes are read with wt_tensor_read() and
** wt_tensor_scan(): through the file's mapping under the SIGBUS guard
** (mapping.h) when s->use_map is set and the guard is ready, else with
** pread.  Tensors and metadata entries are found by name
** through hash tables built once per parse.
*/
#ifndef WT_SOURCE_H
#define WT_SOURCE_H

#include <stddef.h>

#include "file.h"
#include "base/model.h"

typedef struct wt_source {
  int refs;
  char *path; /* NUL-terminated copy */
  size_t path_len;
  wt_file file;
  wt_model model;
  unsigned char *header; /* the first header_avail bytes of the file (NULL: not read) */
  uint64_t header_avail;
  uint32_t *tensor_slots, *meta_slots; /* open addressing: index + 1, 0 = empty */
  uint64_t tensor_cap, meta_cap;       /* powers of two, at least twice the counts */
  unsigned char *ahead;                /* the read-ahead block (wt_tensor_read()), or NULL */
  uint64_t ahead_at, ahead_end;        /* its file offset; where the last small read ended */
  size_t ahead_n;                      /* its bytes (0: none) */
  int use_map; /* read tensor bytes through a mapping (the connection's weights_mmap()) */
} wt_source;

/* Whether a source reads through a mapping when nothing set it: the build's
** default (make MMAP=0 or 1; 0, pread, unless it says); a connection's
** cache sets use_map on every source it hands out (cache.h: wt_cache_mmap). */
#ifndef WT_MMAP_DEFAULT
#define WT_MMAP_DEFAULT 0
#endif

/* Open path (n bytes) and parse it as format (WT_FORMAT_*; 0 = detect from
** the content), with its header in s->header.  Returns 0 with *out set,
** or -1 with err set. */
int wt_source_open(const char *path, size_t n, int format, wt_source **out, wt_error *err);

/* What an open keeps: the header's bytes in s->header, or only what was
** parsed from them (s->header may be NULL: see above). */
#define WT_OPEN_HEADER      0
#define WT_OPEN_DESCRIPTION 1

/* wt_source_open() keeping what open says; with WT_OPEN_DESCRIPTION and
** map set, a local GGUF file's header is parsed in its mapping (else it is
** read as wt_source_open() reads it). */
int wt_source_open_as(const char *path, size_t n, int format, int open, int map, wt_source **out,
                      wt_error *err);

/* Read the header of s into s->header when an open kept only its
** description (nothing to do otherwise): with pread, then checked
** unchanged since the parse (a parked source is reopened and checked
** first).  0, or -1 with err set ("file changed while in use: ..."). */
int wt_source_load_header(wt_source *s, wt_error *err);

/* Drop a reference; the last one closes and frees. */
void wt_source_release(wt_source *s);

/* Close the descriptor of a source of a local file, keeping its header,
** description and identity (models.c parks the sources it keeps, so that
** they hold no descriptors).  Returns 1 when parked, 0 when it cannot be
** (a remote source, or already parked).  wt_tensor_read() of a parked
** source reopens the file by its path and reads only if it still is the
** file that was parsed (device, inode, size, modification time), else it
** fails ("file changed while in use: ..."). */
int wt_source_park(wt_source *s);

/* True when s is parked. */
int wt_source_parked(const wt_source *s);

/* The tensor named p[0..n), or NULL.  O(1). */
const wt_tensor *wt_source_find_tensor(const wt_source *s, const char *p, size_t n);

/* Why tensor t's byte size is unknown (t->nbytes_known == 0), as a
** sentence naming the tensor and its type, written into buf. */
const char *wt_tensor_unknown_size(const wt_tensor *t, char *buf, size_t size);

/* The metadata entry with key p[0..n), or NULL.  O(1). */
const wt_meta *wt_source_find_meta(const wt_source *s, const char *p, size_t n);

/* Memory a source takes: its parsed description, header bytes and name
** tables: what a cache counts against its bound. */
uint64_t wt_source_bytes(const wt_source *s);

/* Read bytes [off, off + n) of tensor t (off + n <= t->nbytes) into buf,
** then check that the file is unchanged since it was parsed: 0, or -1
** with err set ("file changed while in use: ...").  A parked source is
** reopened first (wt_source_park()).
**
** Reads of at most WT_AHEAD_SMALL bytes that go forward through the file
** (a function called once per row of a listing: one tensor after the
** other) are served from a block of WT_AHEAD_BLOCK bytes read ahead with
** one pread(2) and checked with one fstat(2), instead of a pread and an
** fstat per tensor.  The block's bytes are the version the source parsed
** (the fstat after its read says so), so a call served from it returns
** that version's bytes, consistently with the header; a source whose file
** changed since is replaced at the next statement's check (cache.h).  A
** source holds at most one block (64 KiB; not counted in
** wt_source_bytes()). */
#define WT_AHEAD_SMALL ((size_t)4 << 10)
#define WT_AHEAD_BLOCK ((uint64_t)64 << 10)
int wt_tensor_read(const wt_source *s, const wt_tensor *t, uint64_t off, size_t n, void *buf,
                   wt_error *err);

/* Run fn over bytes [off, off + n) of tensor t (off + n <= t->nbytes), then
** check that the file is unchanged since it was parsed, as
** wt_tensor_read() does: in place in the file's mapping, under the guard
** (fn must only copy or decode: file.h, wt_scan_fn), when s maps and n is
** over WT_AHEAD_SMALL; else after reading them into buf (n bytes) with
** wt_tensor_read().  What fn returns, or -1 with err set. */
int wt_tensor_scan(const wt_source *s, const wt_tensor *t, uint64_t off, size_t n,
                   unsigned char *buf, wt_scan_fn fn, void *arg, wt_error *err);

/* Bytes read at a time when a tensor is streamed (hash, statistics,
** values): 256 KiB, so that the copy pread makes is still in the CPU's L2
** cache when it is decoded (1 MiB measured about 10% slower). */
#define WT_READ_CHUNK ((size_t)1 << 18)

/* The name of a format: "safetensors", "gguf". */
const char *wt_format_name(int format);

/* How much of a file a header reader needs, given its first avail bytes
** (of size): 1 with *need set (more than avail: the header probably ends
** there) while they hold the start of a safetensors or GGUF header that
** is not complete, else 0 (the header is complete, or the bytes are no
** header: the parse will say why).  For a reader that cannot ask for
** ranges and takes a stream from byte 0 (remote/http.c). */
int wt_header_need(const unsigned char *d, uint64_t avail, uint64_t size, uint64_t *need);

#endif
