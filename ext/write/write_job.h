/*
** write_job.h: the one way a model file is written.  Every writer (the
** jobs of gguf_rewrite(), safetensors_rewrite(), gguf_split(),
** safetensors_write(), safetensors_split(), and any new one, such as a
** converter to GGUF) describes the file it wants as a wt_job and hands it
** to wt_job_write(), which
**
**   1. opens a temporary file beside the target (out_file.h) and reserves
**      the file's whole size, so that a full disk fails before any copy;
**   2. writes the header the caller encoded (gguf_writer.h,
**      safetensors_writer.h), then each tensor's bytes at the place the
**      header gives it, zeros between: copied by reference from a byte
**      source (WT_FROM_FILE: copy_file_range(2), a reflink where the
**      filesystem has one), given in memory (WT_FROM_MEMORY), or made by
**      the caller's encoder as they are written (WT_FROM_ENCODER: a
**      conversion or a quantization, read from its sources a piece at a
**      time, never a whole tensor of a large model in memory);
**   3. reads the header back, parses it with the strict parser of
**      formats/, and compares every key (name, type, value bytes) and
**      every tensor (name, type, shape, place) with what the job asked;
**      then every tensor's bytes: a copy by an XXH3-64 against its source,
**      bytes given in memory byte for byte, encoded bytes by an XXH3-64
**      against the bytes the encoder gave; and checks that every source is
**      unchanged;
**   4. leaves the file unnamed, or under a temporary name: the caller
**      commits it (wt_out_commit, or wt_out_commit_all for the files of
**      one call: fsync, the interrupt check once more, rename over the
**      target, fsync of the folder) when every file of the call is
**      written and checked, or aborts it (wt_out_abort).  On any failure
**      wt_job_write() has already removed it: the target keeps what it
**      had.  An interrupt that comes while the file is read back is so
**      honoured before the rename: the statement never both fails and
**      replaces the target.
**
** A new writer plugs in by building a wt_job: encode the header from its
** keys and tensor infos, list the tensors in data order with the place the
** encoder gave each (gw_tensor.data_start, sw_tensor.data_start) and where
** their bytes come from; for a converted tensor, an encoder function that
** reads its source and calls wt_job_put() until the tensor's nbytes are
** given.  No SQLite here: the SQL layer converts arguments, calls a job and
** turns its error into an SQL error; the only call back up is the
** interrupt check the caller passes in (polled every WT_OUT_POLL bytes and
** once more before the rename).
** Layer: write (uses bytes/, formats/, base/).
*/
#ifndef WT_WRITE_JOB_H
#define WT_WRITE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/file.h"
#include "out_file.h"

/* Where a tensor's bytes come from. */
enum { WT_FROM_FILE = 1, WT_FROM_MEMORY, WT_FROM_ENCODER };

/* What an encoder writes through (wt_job_put()). */
typedef struct wt_job_sink wt_job_sink;

/* An encoder: give tensor i's bytes, exactly its nbytes in all, with any
** number of wt_job_put() calls.  0, or -1 with err set. */
typedef int (*wt_encode_fn)(void *ctx, size_t i, wt_job_sink *sink, wt_error *err);

/* Append n bytes of the tensor being encoded: 0, or -1 with err set (a
** write error, more bytes than the tensor has, an interrupt). */
int wt_job_put(wt_job_sink *sink, const void *p, size_t n, wt_error *err);

/* One tensor of the new file, as its header describes it and as the
** format's parser will read it back. */
typedef struct wt_job_tensor {
  wt_str name;
  int64_t type_id;      /* the parser's: a ggml type id (GGUF), a dtype index (safetensors) */
  int ndim;             /* and dims in the parser's order: ne[0] first (GGUF), */
  const uint64_t *dims; /* outermost first (safetensors) */
  uint64_t nbytes;
  uint64_t data_start; /* its offset in the data section (the header encoder's) */
  int from;            /* WT_FROM_* */
  const wt_file *file; /* WT_FROM_FILE: bytes [file_off, file_off + nbytes) of file */
  uint64_t file_off;
  /* WT_FROM_FILE: 2, 4 or 8 to reverse each element of that many bytes
  ** (the other byte order, byte_swap.h); 0: the bytes as they are */
  unsigned swap;
  /* WT_FROM_FILE, optional: the XXH3-64 of those bytes (hex, as bytes/digest.h
  ** writes it) when the caller has read them already (a converter that
  ** looked at them before copying): the read-back compares with it instead
  ** of reading the file again (the new file's elements swapped back when
  ** swap says); the file is still checked unchanged. */
  const char *file_hash;
  const unsigned char *mem; /* WT_FROM_MEMORY: nbytes bytes */
  wt_encode_fn encode;      /* WT_FROM_ENCODER: called with encode_ctx and the index */
  void *encode_ctx;
} wt_job_tensor;

/* One metadata entry the header must read back as: GGUF, a type and the
** value's bytes as version 3 stores them after the type (gw_kv's form);
** safetensors, a __metadata__ string (type unused). */
typedef struct wt_job_key {
  wt_str key;
  uint32_t type;
  const unsigned char *val;
  size_t val_len;
} wt_job_key;

/* A file to write. */
typedef struct wt_job {
  const char *path;            /* the target (NUL-terminated, local) */
  int format;                  /* WT_FORMAT_GGUF or WT_FORMAT_SAFETENSORS: how it is read back */
  const unsigned char *header; /* the encoded header: the file's first header_len bytes */
  size_t header_len;
  uint64_t data_size;           /* the data section's bytes, padding included */
  const wt_job_tensor *tensors; /* in data order */
  size_t n_tensors;
  const wt_job_key *keys; /* the metadata, in order */
  size_t n_keys;
  uint64_t alignment; /* GGUF: the alignment the header asks (checked); 0: not checked */
  int verify;         /* 0: the tensors' bytes are not compared (all else is) */
  /* When set, the data section is copied whole from this file's bytes at
  ** data_from_off (as many as the file has, zeros past its end) instead of
  ** tensor by tensor: a rewrite that keeps its input's layout.  The
  ** tensors still say where their bytes are (WT_FROM_FILE), to be checked. */
  const wt_file *data_from;
  uint64_t data_from_off;
  const wt_file *const *sources; /* checked unchanged once the bytes are compared */
  size_t n_sources;
  /* Polled during copies and encodes, and by wt_out_commit() before the
  ** rename: non-zero stops the job, err set. */
  int (*interrupted)(void *ctx, wt_error *err);
  void *ctx;
} wt_job;

/* Write j to a temporary file for j->path (into *out, which must be
** closed: zeroed, committed or aborted), read it back and compare it: 0,
** the file ready for wt_out_commit(out), which polls j->interrupted once
** more before the rename, or -1 with err set and the file removed. */
int wt_job_write(const wt_job *j, wt_out *out, wt_error *err);

#endif
