/*
** source.c: open a file through the byte-source layer, read its header
** into memory and hand it to the parser of its format.  See source.h.
**
** A header's length is not known before it is parsed (GGUF), so the first
** WT_HEADER_PROBE bytes are read (or the whole file if smaller) and parsed;
** when the parser asks for more (it returns 1 with where it expects the
** header to end) the buffer grows to that, and at least by
** 1/WT_HEADER_GROW, only the new bytes are read, and the parse goes on: a
** GGUF parse (gguf_prefix) from where it stopped, so that no byte is parsed
** twice but for the item it stopped in; a safetensors header is parsed once
** its 8 + N bytes are in.  A remote source
** takes the same path with HTTP ranges, starting from the bytes its open
** already fetched (wt_file.first_read).
**
** An open for a listing (WT_OPEN_DESCRIPTION) of a local GGUF file maps
** the file's first bytes (at most WT_HEADER_MAX) instead and parses them
** in place, in one pass, under the SIGBUS guard; wt_source_load_header()
** reads the header later, for the first reader that needs its bytes.
*/
#include "source.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "formats/byte_load.h"
#include "formats/gguf_parser.h"
#include "formats/safetensors_parser.h"
#include "formats/sniff.h"
#include "mapping.h"

/* The first read: enough for the header of a small file (a LoRA adapter, a
** shard of a folder of many), so that a scan of many small files copies
** only their headers; a larger header is read up to where the parser
** expects it to end (safetensors says it in its first 8 bytes, a GGUF
** parser estimates it from its counts). */
#define WT_HEADER_PROBE ((uint64_t)4 << 10)

/* Each read of a header grows the bytes in memory by at least 1/this. */
#define WT_HEADER_GROW 8

/* The most header bytes read into memory: real headers are under 100 MB
** (safetensors' limit; a GGUF vocabulary of 256k tokens is about 8 MB), and
** a GGUF file may declare arrays of up to 2^30 elements of 8 bytes. */
#define WT_HEADER_MAX ((uint64_t)1 << 30)

static int wt_source_unpark(wt_source *s, wt_error *err);

/* The name tables read an item's name as the wt_str it starts with. */
_Static_assert(offsetof(wt_tensor, name) == 0, "wt_tensor starts with its name");
_Static_assert(offsetof(wt_meta, key) == 0, "wt_meta starts with its key");

const char *wt_format_name(int format) {
  switch (format) {
  case WT_FORMAT_SAFETENSORS:
    return "safetensors";
  case WT_FORMAT_GGUF:
    return "gguf";
  default:
    return "unknown";
  }
}

/* True when the bytes start like a safetensors file whose header length,
** under the limit, runs past the end of the file: a file cut inside its
** header, which format detection does not take for safetensors. */
static int wt_cut_safetensors(const unsigned char *d, uint64_t avail, uint64_t size, uint64_t *n) {
  *n = 0;
  if (avail < 9 || d[8] != '{')
    return 0;
  *n = wt_load_le64(d);
  return *n <= ST_MAX_HEADER && *n > size - 8;
}

/* Parse the first avail bytes of s, at data, as format (0: detect), a GGUF
** header going on where the last call on *gp stopped (made on the first
** call).  Returns 0, -1 with err set, or 1 with *need and *least set (the
** header probably ends at byte *need; the parse needs at least the first
** *least bytes). */
static int wt_parse(wt_source *s, const unsigned char *data, int format, uint64_t avail,
                    gguf_prefix **gp, uint64_t *need, uint64_t *least, wt_error *err) {
  int rc;
  uint64_t size = s->file.size, n;
  if (format == 0 && size == 0)
    return wt_fail(err, "the file is empty (0 bytes)");
  if (format == 0) {
    format = wt_sniff_format(data, avail, size);
    if (format == 0 && wt_cut_safetensors(data, avail, size, &n))
      return wt_fail(err,
                     "a safetensors file cut inside its header: the file has %llu bytes, the "
                     "header needs %llu (8 + header length %llu)",
                     U(size), U(8 + n), U(n));
    if (format == 0) {
      const char *what = wt_sniff_describe(data, avail, 0);
      return wt_fail(err, "not a safetensors or GGUF file%s%s", what ? ": this is " : "",
                     what ? what : "");
    }
  }
  if (format == WT_FORMAT_GGUF) {
    if (!gguf_sniff(data, avail)) {
      const char *what = wt_sniff_describe(data, avail, WT_FORMAT_GGUF);
      if (what != NULL)
        return wt_fail(err, "not a GGUF file: this is %s", what);
    }
    if (*gp == NULL && (*gp = gguf_prefix_new()) == NULL)
      return wt_fail(err, "out of memory");
    rc = gguf_prefix_parse(*gp, data, avail, size, &s->model, need, err);
    if (rc == 1)
      *least = gguf_prefix_needed(*gp);
    return rc;
  }
  rc = safetensors_parse_prefix(data, avail, size, &s->model, need, err);
  *least = *need;
  return rc;
}

/* Bytes enough to tell a format from (sniff.h). */
#define WT_SNIFF_BYTES 16

int wt_header_need(const unsigned char *d, uint64_t avail, uint64_t size, uint64_t *need) {
  wt_model m;
  wt_error e;
  int format, rc;
  if (avail < WT_SNIFF_BYTES && avail < size) {
    *need = size < WT_SNIFF_BYTES ? size : WT_SNIFF_BYTES;
    return 1;
  }
  format = wt_sniff_format(d, avail, size);
  if (format == WT_FORMAT_GGUF)
    rc = gguf_parse_prefix(d, avail, size, &m, need, &e);
  else if (format == WT_FORMAT_SAFETENSORS)
    rc = safetensors_parse_prefix(d, avail, size, &m, need, &e);
  else
    return 0;
  if (rc == 0)
    wt_model_free(&m);
  return rc == 1;
}

/* The bytes a parse of m's header reads: safetensors' 8 + N, a GGUF's up to
** the end of its tensor infos. */
static uint64_t wt_header_bytes(const wt_model *m) {
  return m->format == WT_FORMAT_SAFETENSORS ? 8 + m->header_len : m->header_len;
}

/* The error of a header that needs its first least bytes, over the limit. */
static int wt_header_too_large(uint64_t least, wt_error *err) {
  return wt_fail(err,
                 "the header needs the first %llu bytes of the file, over the limit of %llu "
                 "bytes that this extension reads into memory",
                 U(least), U(WT_HEADER_MAX));
}

/* Read the header into s->header and parse it, growing as asked. */
static int wt_read_header(wt_source *s, int format, wt_error *err) {
  /* a remote file starts from the bytes its open fetched (a header kept on
  ** disk may be shorter than the probe) */
  uint64_t first = s->file.remote && s->file.first_read > 0 ? s->file.first_read : WT_HEADER_PROBE;
  uint64_t size = s->file.size, want = size < first ? size : first, need = 0, least = 0;
  gguf_prefix *gp = NULL;
  int rc;
  for (;;) {
    unsigned char *p;
    if (want > SIZE_MAX - 1) {
      rc = wt_fail(err, "a header of %llu bytes is too large for memory", U(want));
      break;
    }
    p = realloc(s->header, (size_t)want + 1);
    if (p == NULL) {
      rc = wt_fail(err, "out of memory reading a header of %llu bytes", U(want));
      break;
    }
    s->header = p;
    if (want > s->header_avail &&
        wt_file_read_at(&s->file, s->header_avail, (size_t)(want - s->header_avail),
                        p + s->header_avail, err) != 0) {
      rc = -1;
      break;
    }
    s->header_avail = want;
    rc = wt_parse(s, s->header, format, want, &gp, &need, &least, err);
    if (rc <= 0)
      break;
    if (least <= want || least > need || need > size) { /* cannot happen: the parsers promise it */
      rc = wt_fail(err, "the parser asked for %llu bytes of a %llu-byte file", U(least), U(size));
      break;
    }
    if (least > WT_HEADER_MAX) {
      rc = wt_header_too_large(least, err);
      break;
    }
    /* the parser's estimate of the header's end, or 1/8 more when the
    ** estimate falls short: a few reads, each parsed once */
    want = want > size - want / WT_HEADER_GROW ? size : want + want / WT_HEADER_GROW;
    if (want < need)
      want = need;
    if (want > WT_HEADER_MAX)
      want = WT_HEADER_MAX;
  }
  gguf_prefix_free(gp);
  return rc;
}

/* ======================= A header parsed in its mapping ======================= */

/* What wt_parse_mapped() returns when the header is not for it: read it. */
#define WT_NOT_MAPPED 2

/* The argument of wt_parse_run. */
typedef struct wt_mapped_parse {
  wt_source *s;
  const unsigned char *map;
  uint64_t len; /* bytes mapped: the file, at most WT_HEADER_MAX */
  int format;
  gguf_prefix *gp;
  uint64_t need, least;
  int rc; /* wt_parse()'s, or WT_NOT_MAPPED */
} wt_mapped_parse;

/* The guarded run of wt_parse_mapped(): a GGUF parse of the mapping, or
** WT_NOT_MAPPED for another format, in a->rc (what the run returns is the
** guard's).  Only the GGUF parser may be abandoned at a fault
** (gguf_parser.h: everything it allocated is reachable from its
** gguf_prefix, and its model holds no pointer into the bytes). */
static int wt_parse_run(void *arg, wt_error *err) {
  wt_mapped_parse *a = arg;
  int format = a->format;
  if (format == 0)
    format = wt_sniff_format(a->map, a->len, a->s->file.size);
  if (format != WT_FORMAT_GGUF || !gguf_sniff(a->map, a->len))
    a->rc = WT_NOT_MAPPED;
  else
    a->rc = wt_parse(a->s, a->map, WT_FORMAT_GGUF, a->len, &a->gp, &a->need, &a->least, err);
  return 0;
}

/* Parse the header of local file s in a read-only mapping of the file,
** under the SIGBUS guard, without copying it (source.h): 0, -1 with err
** set, or WT_NOT_MAPPED (a remote source, an empty file, the guard off,
** mmap(2) failed, not a GGUF file) for wt_read_header(). */
static int wt_parse_mapped(wt_source *s, int format, wt_error *err) {
  uint64_t size = s->file.size;
  wt_mapped_parse a = {s, NULL, size < WT_HEADER_MAX ? size : WT_HEADER_MAX, format, NULL, 0, 0, 0};
  struct stat st;
  int rc;
  if (s->file.remote || !wt_guard_ready(NULL) || (a.map = wt_map_fd(s->file.fd, a.len)) == NULL)
    return WT_NOT_MAPPED;
  if (wt_guarded(a.map, (size_t)a.len, wt_parse_run, &a, err) == WT_GUARD_FAULT)
    rc = wt_fail(err,
                 "file changed while in use: it shrank to %llu bytes while its header was parsed "
                 "from its mapping",
                 U(fstat(s->file.fd, &st) == 0 ? (uint64_t)st.st_size : 0));
  else if (a.rc == 1 && a.least > a.len && a.len == WT_HEADER_MAX)
    rc = wt_header_too_large(a.least, err);
  else if (a.rc == 1) /* cannot happen: the whole file was given */
    rc = wt_fail(err, "the parser asked for %llu bytes of a %llu-byte file", U(a.least), U(size));
  else
    rc = a.rc;
  wt_unmap(a.map, a.len);
  gguf_prefix_free(a.gp);
  if (rc != 0)
    return rc;
  /* the bytes parsed were one version of the file: its identity at open */
  return wt_file_unchanged(&s->file, err);
}

int wt_source_load_header(wt_source *s, wt_error *err) {
  uint64_t n = wt_header_bytes(&s->model);
  unsigned char *p;
  if (s->header != NULL)
    return 0;
  if (n > SIZE_MAX - 1 || (p = malloc((size_t)n + 1)) == NULL)
    return wt_fail(err, "out of memory reading a header of %llu bytes", U(n));
  if ((wt_source_parked(s) && wt_source_unpark(s, err)) ||
      wt_file_read_at(&s->file, 0, (size_t)n, p, err) || wt_file_unchanged(&s->file, err)) {
    free(p);
    return -1;
  }
  s->header = p;
  s->header_avail = n;
  return 0;
}

/* ================================ Name tables ================================ */

/* Slot of name p[0..n) in a table of cap slots whose entry i is named by
** name_of(i): the matching slot, or the empty slot where it goes. */
static uint64_t wt_slot(const uint32_t *slots, uint64_t cap, const void *items, size_t stride,
                        const char *p, size_t n) {
  uint64_t j = XXH3_64bits(p, n) & (cap - 1);
  for (; slots[j] != 0; j = (j + 1) & (cap - 1)) {
    const wt_str *s = (const wt_str *)((const char *)items + (slots[j] - 1) * stride);
    if (s->n == n && memcmp(s->p, p, n) == 0)
      return j;
  }
  return j;
}

/* Build the name table of count items (each stride bytes, starting with a
** wt_str name).  A repeated name keeps its first item, as a scan would. */
static int wt_index_names(const void *items, size_t count, size_t stride, uint32_t **out,
                          uint64_t *cap_out, wt_error *err) {
  uint64_t cap = 16, j;
  size_t i;
  uint32_t *slots;
  if (count >= UINT32_MAX / 2)
    return wt_fail(err, "%zu entries are too many to index", count);
  while (cap < 2 * (uint64_t)count)
    cap *= 2;
  slots = calloc((size_t)cap, sizeof(*slots));
  if (slots == NULL)
    return wt_fail(err, "out of memory indexing %zu names", count);
  for (i = 0; i < count; i++) {
    const wt_str *s = (const wt_str *)((const char *)items + i * stride);
    j = wt_slot(slots, cap, items, stride, s->p, s->n);
    if (slots[j] == 0)
      slots[j] = (uint32_t)(i + 1);
  }
  *out = slots;
  *cap_out = cap;
  return 0;
}

int wt_source_open(const char *path, size_t n, int format, wt_source **out, wt_error *err) {
  return wt_source_open_as(path, n, format, WT_OPEN_HEADER, 0, out, err);
}

int wt_source_open_as(const char *path, size_t n, int format, int open, int map, wt_source **out,
                      wt_error *err) {
  wt_source *s = calloc(1, sizeof(*s));
  int parsed = WT_NOT_MAPPED;
  *out = NULL;
  if (s == NULL)
    return wt_fail(err, "out of memory");
  s->refs = 1;
  s->use_map = WT_MMAP_DEFAULT;
  s->path = malloc(n + 1);
  if (s->path == NULL) {
    free(s);
    return wt_fail(err, "out of memory");
  }
  memcpy(s->path, path, n);
  s->path[n] = 0;
  s->path_len = n;
  if (wt_file_open(&s->file, s->path, n, err) ||
      (open == WT_OPEN_DESCRIPTION && map && (parsed = wt_parse_mapped(s, format, err)) < 0) ||
      (parsed == WT_NOT_MAPPED && wt_read_header(s, format, err)) ||
      wt_index_names(s->model.tensors, s->model.n_tensors, sizeof(wt_tensor), &s->tensor_slots,
                     &s->tensor_cap, err) ||
      wt_index_names(s->model.meta, s->model.n_meta, sizeof(wt_meta), &s->meta_slots, &s->meta_cap,
                     err)) {
    wt_source_release(s);
    return -1;
  }
  /* a remote source keeps the header's bytes, not what was read past it */
  if (s->header != NULL)
    wt_file_header_read(&s->file, s->header, (size_t)wt_header_bytes(&s->model));
  *out = s;
  return 0;
}

void wt_source_release(wt_source *s) {
  if (s == NULL || --s->refs > 0)
    return;
  wt_model_free(&s->model);
  wt_file_close(&s->file);
  free(s->header);
  free(s->ahead);
  free(s->tensor_slots);
  free(s->meta_slots);
  free(s->path);
  free(s);
}

int wt_source_park(wt_source *s) {
  wt_file id = s->file;
  if (s->file.ops == NULL || s->file.ino == 0)
    return 0;
  wt_file_close(&s->file);
  s->file.size = id.size;
  s->file.dev = id.dev;
  s->file.ino = id.ino;
  s->file.mtime_ns = id.mtime_ns;
  return 1;
}

int wt_source_parked(const wt_source *s) {
  return s->file.ops == NULL;
}

/* Reopen parked source s: 0 when its path still is the file parsed, else
** -1 with err set. */
static int wt_source_unpark(wt_source *s, wt_error *err) {
  wt_file f;
  if (wt_file_open(&f, s->path, s->path_len, err))
    return -1;
  if (f.dev != s->file.dev || f.ino != s->file.ino)
    wt_fail(err, "file changed while in use: the path names another file than the one whose "
                 "header was read (replaced)");
  else if (f.size != s->file.size || f.mtime_ns != s->file.mtime_ns)
    wt_fail(err,
            "file changed while in use: it had %llu bytes when its header was read and now has "
            "%llu%s",
            U(s->file.size), U(f.size),
            f.size == s->file.size ? ", with a new modification time" : "");
  else {
    s->file = f;
    return 0;
  }
  wt_file_close(&f);
  return -1;
}

uint64_t wt_source_bytes(const wt_source *s) {
  return s->header_avail + wt_arena_size(s->model.arena) +
         (s->tensor_cap + s->meta_cap) * sizeof(uint32_t) + sizeof(*s) + s->path_len;
}

const wt_tensor *wt_source_find_tensor(const wt_source *s, const char *p, size_t n) {
  uint64_t j;
  if (s->tensor_cap == 0)
    return NULL;
  j = wt_slot(s->tensor_slots, s->tensor_cap, s->model.tensors, sizeof(wt_tensor), p, n);
  return s->tensor_slots[j] ? &s->model.tensors[s->tensor_slots[j] - 1] : NULL;
}

const char *wt_tensor_unknown_size(const wt_tensor *t, char *buf, size_t size) {
  char q[WT_QUOTE_SIZE];
  wt_quote(q, sizeof(q), t->name.p, t->name.n);
  if (t->dtype.n > 0)
    snprintf(buf, size,
             "tensor %s has type %.*s (ggml id %lld), which ggml removed without a known "
             "layout, so its byte size is unknown",
             q, (int)t->dtype.n, t->dtype.p, (long long)t->type_id);
  else
    snprintf(buf, size,
             "tensor %s has ggml type id %lld, which this version does not know, so its byte "
             "size is unknown",
             q, (long long)t->type_id);
  return buf;
}

const wt_meta *wt_source_find_meta(const wt_source *s, const char *p, size_t n) {
  uint64_t j;
  if (s->meta_cap == 0)
    return NULL;
  j = wt_slot(s->meta_slots, s->meta_cap, s->model.meta, sizeof(wt_meta), p, n);
  return s->meta_slots[j] ? &s->model.meta[s->meta_slots[j] - 1] : NULL;
}

/* Read n bytes at file offset at into buf: a copy from the mapping when s
** maps (file.h: wt_file_map()), else pread. */
static int wt_source_read(wt_source *s, uint64_t at, size_t n, void *buf, wt_error *err) {
  if (s->use_map && wt_file_map(&s->file))
    return wt_file_read_mapped(&s->file, at, n, buf, err);
  return wt_file_read_at(&s->file, at, n, buf, err);
}

/* Read n (at most WT_AHEAD_SMALL) bytes at file offset at into buf through
** the read-ahead block (source.h): from the block when it holds them; else
** when the reads go forward through the file (this one starts at most
** WT_AHEAD_SMALL bytes after the last one ended), read the next block
** first; else read just the n bytes.  Every pread is checked with
** wt_file_unchanged(). */
static int wt_read_small(wt_source *s, uint64_t at, size_t n, void *buf, wt_error *err) {
  uint64_t last = s->ahead_end, block;
  s->ahead_end = at + n;
  if (s->ahead_n > 0 && at >= s->ahead_at && at + n <= s->ahead_at + s->ahead_n) {
    memcpy(buf, s->ahead + (at - s->ahead_at), n);
    return 0;
  }
  if (last == 0 || at < last || at - last > WT_AHEAD_SMALL || at >= s->file.size ||
      (s->ahead == NULL && (s->ahead = malloc(WT_AHEAD_BLOCK)) == NULL)) {
    if (wt_source_read(s, at, n, buf, err) != 0)
      return -1;
    return wt_file_unchanged(&s->file, err);
  }
  block = s->file.size - at < WT_AHEAD_BLOCK ? s->file.size - at : WT_AHEAD_BLOCK;
  s->ahead_n = 0;
  if (block < n || wt_source_read(s, at, (size_t)block, s->ahead, err) != 0 ||
      wt_file_unchanged(&s->file, err) != 0)
    return block < n ? wt_fail(err, "bytes past the end of the file") : -1;
  s->ahead_at = at;
  s->ahead_n = (size_t)block;
  memcpy(buf, s->ahead, n);
  return 0;
}

/* Check that [off, off + n) lies in tensor t and reopen a parked s: 0, or
** -1 with err set. */
static int wt_tensor_prepare(wt_source *s, const wt_tensor *t, uint64_t off, size_t n,
                             wt_error *err) {
  if (off > t->nbytes || n > t->nbytes - off)
    return wt_fail(err, "bytes [%llu, %llu + %zu) are outside the tensor's %llu bytes", U(off),
                   U(off), n, U(t->nbytes));
  if (wt_source_parked(s) && wt_source_unpark(s, err))
    return -1;
  return 0;
}

int wt_tensor_read(const wt_source *cs, const wt_tensor *t, uint64_t off, size_t n, void *buf,
                   wt_error *err) {
  /* reopening a parked source, the read-ahead block and the mapping change
  ** only how s reads, never what it describes: so a source held as const
  ** reads */
  wt_source *s = (wt_source *)cs;
  if (wt_tensor_prepare(s, t, off, n, err) != 0)
    return -1;
  if (n == 0)
    return wt_file_unchanged(&s->file, err);
  if (n <= WT_AHEAD_SMALL)
    return wt_read_small(s, t->offset + off, n, buf, err);
  if (wt_source_read(s, t->offset + off, n, buf, err) != 0)
    return -1;
  return wt_file_unchanged(&s->file, err);
}

int wt_tensor_scan(const wt_source *cs, const wt_tensor *t, uint64_t off, size_t n,
                   unsigned char *buf, wt_scan_fn fn, void *arg, wt_error *err) {
  wt_source *s = (wt_source *)cs;
  if (wt_tensor_prepare(s, t, off, n, err) != 0)
    return -1;
  /* a small read is copied through the read-ahead block: one check per block */
  if (n <= WT_AHEAD_SMALL || !s->use_map || !wt_file_map(&s->file)) {
    if (wt_tensor_read(s, t, off, n, buf, err) != 0)
      return -1;
    return fn(arg, buf, n, err);
  }
  if (wt_file_scan_mapped(&s->file, t->offset + off, n, fn, arg, err) != 0)
    return -1;
  return wt_file_unchanged(&s->file, err);
}
