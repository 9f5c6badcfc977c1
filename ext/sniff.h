/*
** sniff.h: tell what a file is from its first bytes, so that errors can say
** "this is a GGUF file" or "this is a git-LFS pointer" instead of a bare
** "header too large".
*/
#ifndef WT_SNIFF_H
#define WT_SNIFF_H

#include <stdint.h>

/* WT_FORMAT_SAFETENSORS or WT_FORMAT_GGUF when the bytes look like one of
** them (magic or a plausible header start), else 0.  Cheap: looks at the
** first few bytes only. */
int wt_sniff_format(const unsigned char *data, uint64_t size);

/* A short phrase for a well-known non-model file ("a git-LFS pointer file
** (run `git lfs pull` to fetch the real file)", "an HTML page", ...), or
** NULL when the bytes say nothing useful. */
const char *wt_sniff_describe(const unsigned char *data, uint64_t size);

#endif
