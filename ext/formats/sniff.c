/*
** sniff.c: recognise model formats and common look-alikes by their first
** bytes.  See sniff.h.
** Layer: formats (pure C; uses base/).
*/
#include "sniff.h"

#include <string.h>

#include "base/model.h"
#include "byte_load.h"
#include "safetensors_parser.h"

/* True when data starts with the n bytes of prefix. */
static int wt_starts(const unsigned char *data, uint64_t size, const char *prefix) {
  size_t n = strlen(prefix);
  return size >= n && memcmp(data, prefix, n) == 0;
}

int wt_sniff_format(const unsigned char *data, uint64_t avail, uint64_t size) {
  uint64_t n;
  uint64_t i;
  if (wt_starts(data, avail, "GGUF"))
    return WT_FORMAT_GGUF;
  if (avail < 9 || size < avail)
    return 0;
  n = wt_load_le64(data);
  if (n < 2 || n > ST_MAX_HEADER || n > size - 8)
    return 0;
  /* The JSON header starts with '{', possibly after JSON whitespace. */
  for (i = 8; i < 8 + n; i++) {
    unsigned char c;
    if (i >= avail)
      return WT_FORMAT_SAFETENSORS; /* whitespace as far as we can see */
    c = data[i];
    if (c == '{')
      return WT_FORMAT_SAFETENSORS;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      return 0;
  }
  return 0;
}

const char *wt_sniff_describe(const unsigned char *data, uint64_t size, int reading_as) {
  if (wt_starts(data, size, "GGUF") && reading_as != WT_FORMAT_GGUF)
    return "a GGUF file (read it with gguf())";
  if (wt_starts(data, size, "version https://git-lfs"))
    return "a git-LFS pointer file, not the model itself (run `git lfs pull`)";
  if (wt_starts(data, size, "<!DOCTYPE") || wt_starts(data, size, "<!doctype") ||
      wt_starts(data, size, "<html") || wt_starts(data, size, "<HTML"))
    return "an HTML page (a failed download?)";
  if (wt_starts(data, size, "PK\x03\x04"))
    return "a zip archive (a PyTorch .bin/.pt checkpoint?)";
  if (size >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
    return "a Python pickle (a PyTorch .bin/.pt checkpoint?)";
  if (wt_starts(data, size, "\x93NUMPY"))
    return "a NumPy .npy array";
  if (wt_starts(data, size, "\x89HDF\r\n\x1a\n"))
    return "an HDF5 file";
  if (wt_starts(data, size, "FUGG"))
    return "a pre-release GGUF draft (magic FUGG), which is not supported";
  if (size >= 9 && data[8] == '{' && reading_as != WT_FORMAT_SAFETENSORS)
    return wt_load_le64(data) > ST_MAX_HEADER
               ? "a safetensors file whose header length is over the limit (safetensors() "
                 "says by how much)"
               : "a safetensors file (read it with safetensors())";
  return NULL;
}
