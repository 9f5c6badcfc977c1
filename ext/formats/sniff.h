/*
** sniff.h: tell what a file is from its first bytes, so that errors can say
** "this is a GGUF file" or "this is a git-LFS pointer" instead of a bare
** "header too large".
** Layer: formats (pure C; uses base/).
*/
#ifndef WT_SNIFF_H
#define WT_SNIFF_H

#include <stdint.h>

/* WT_FORMAT_SAFETENSORS or WT_FORMAT_GGUF when the first bytes of a file
** look like one of them (the magic, or a plausible header length followed
** by '{' after optional JSON whitespace), else 0.  data holds the first
** avail bytes of a file of size bytes (avail <= size); a header padded
** with whitespace beyond the bytes available counts as plausible. */
int wt_sniff_format(const unsigned char *data, uint64_t avail, uint64_t size);

/* A short phrase for what the bytes are ("a git-LFS pointer file, not the
** model itself (run `git lfs pull`)", "an HTML page", "a GGUF file ..."),
** or NULL when they say nothing useful or look like reading_as, the
** format the caller tried (WT_FORMAT_*, or 0). */
const char *wt_sniff_describe(const unsigned char *data, uint64_t size, int reading_as);

#endif
