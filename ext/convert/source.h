/*
** source.h: the checkpoint a conversion reads, found as llama.cpp's
** converter finds it, and the small files beside it.  No SQLite.  Layer:
** convert (uses paths/, bytes/).
**
** The source is what the tables take that names one checkpoint (paths.h):
**   a folder, local or hf://ORG/REPO[@REV][/FOLDER]: the model of its
**     model.safetensors.index.json, else its one model*.safetensors
**     (convert_hf_to_gguf.py reads the files named model*.safetensors);
**   a .safetensors file, an index .json, or a URL of one: that model,
**     in the folder that holds it.
** Shards are checked against their index both ways (paths/models.h: a
** weight_map entry its shard lacks, a name in two shards; here: a
** shard's tensor the weight_map does not place there, which the
** converter refuses as "Mismatch between weight map and model parts").
** The tensors come in the converter's order: the shards by name, each
** shard's tensors by name.
**
** Beside the checkpoint: config.json (required), read at the open, and
** the files the converter's parts ask for (cv_checkpoint_read: the
** tokenizer's, generation_config.json, modules.json), each at most
** CV_BESIDE_MAX bytes, fetched through the same byte source (a remote file
** that answers 404 is absent).
*/
#ifndef WT_CV_SOURCE_H
#define WT_CV_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"
#include "bytes/cache.h"
#include "convert/plan.h"
#include "paths/paths.h"

/* The files read beside the checkpoint. */
enum {
  CV_BESIDE_CONFIG,             /* config.json */
  CV_BESIDE_GENERATION_CONFIG,  /* generation_config.json */
  CV_BESIDE_TOKENIZER_MODEL,    /* tokenizer.model (SentencePiece) */
  CV_BESIDE_TOKENIZER_JSON,     /* tokenizer.json */
  CV_BESIDE_TOKENIZER_CONFIG,   /* tokenizer_config.json */
  CV_BESIDE_ADDED_TOKENS,       /* added_tokens.json */
  CV_BESIDE_MERGES,             /* merges.txt */
  CV_BESIDE_CHAT_TEMPLATE_JSON, /* chat_template.json */
  CV_BESIDE_CHAT_TEMPLATE,      /* chat_template.jinja */
  CV_BESIDE_MODULES,            /* modules.json (sentence-transformers) */
  CV_BESIDE_COUNT
};

/* The most bytes read of one of them. */
#define CV_BESIDE_MAX ((uint64_t)64 << 20)

typedef struct cv_file {
  const char *name; /* "config.json" */
  char *path;       /* where it was looked for */
  unsigned char *p; /* its bytes (malloc'd, NUL after them), or NULL */
  size_t n;
  int present;
} cv_file;

typedef struct cv_checkpoint {
  char *dir;      /* the folder, as the source names it (no trailing '/') */
  char *dir_name; /* its last component, or the real folder's name for "." */
  wt_pathlist list;
  size_t model;      /* in list */
  wt_source **parts; /* the shards, in name order */
  size_t n_parts;
  cv_in *in; /* every tensor, in the converter's order */
  size_t n_in;
  cv_file files[CV_BESIDE_COUNT];
} cv_checkpoint;

/* Open the checkpoint that source names through cache: 0, or -1 with err
** set and *where the path it is about (the source, a shard, the index,
** config.json).  c is ready for cv_checkpoint_close() either way. */
int cv_checkpoint_open(wt_cache *cache, const char *source, cv_checkpoint *c, const char **where,
                       wt_error *err);

/* Read file which (CV_BESIDE_*) beside the checkpoint unless it was read:
** 0 (c->files[which].present says whether it is there), or -1 with err
** set and *where its path (unreadable, over CV_BESIDE_MAX bytes). */
int cv_checkpoint_read(cv_checkpoint *c, int which, const char **where, wt_error *err);

/* The path of the shard that holds in[i]. */
const char *cv_checkpoint_file_of(const cv_checkpoint *c, size_t i);

void cv_checkpoint_close(cv_checkpoint *c);

#endif
