/*
** hf_config_file.h: find and read the config.json of a model.  Layer: io
** (through file.h; the parsing is formats/hf_config.h).
**
** A model's config.json is the file named config.json in the directory of
** the file that names the model (the .safetensors file, the index, a
** shard: they sit together, in a download folder and in a Hugging Face
** snapshot alike).  A path that itself ends in ".json" and is not a
** safetensors index is taken as the config.json to read.  A remote
** model's (http://, hf://) is read through the same byte source; an HTTP
** 404 is no config.json.
*/
#ifndef WT_HF_CONFIG_FILE_H
#define WT_HF_CONFIG_FILE_H

#include <stddef.h>

#include "base/model.h"
#include "formats/hf_config.h"

/* Write the path of the config.json that belongs with path (a model file
** or a config.json) into out.  Returns 0, or -1 when it does not fit. */
int wt_config_locate(const char *path, char *out, size_t cap);

/* Read and parse the config.json at path (at most WT_CONFIG_MAX_BYTES).
** Returns 0 with *cfg filled, 1 when there is no such file (*cfg empty),
** or -1 with err set (unreadable, too big, not a JSON object). */
int wt_config_load(const char *path, int flatten, wt_config *cfg, wt_error *err);

/* The GGUF architecture (static) of the model file at path from the
** config.json beside it, or NULL when it has none, it is missing or it
** does not parse. */
const char *wt_config_arch_of(const char *path);

#endif
