/*
** fuzz_gguf_values.c: libFuzzer target for the reading and rendering of
** GGUF metadata values (what gguf_metadata.value and gguf_array show).
**
** The input is not a whole file: its first byte picks the value type, the
** second an array element type, the third the version (1 or 3) and byte
** order, and the rest are the value's bytes.  They are wrapped in a valid
** GGUF header with one key, so the fuzzer spends its time on value bytes
** (string lengths, array counts, invalid UTF-8, NaN...) instead of on
** finding a valid header.  Each accepted value is read as the tables read
** it and rendered to JSON.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"

/* Append a number of width bytes in the chosen byte order. */
static size_t put(uint8_t *p, uint64_t v, int width, int big_endian) {
  int i;
  for (i = 0; i < width; i++)
    p[big_endian ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
  return (size_t)width;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *file;
  size_t n = 0, len;
  int v1, be, w;
  wt_model m;
  wt_error err;
  if (size < 3)
    return 0;
  v1 = data[2] & 1;
  be = (data[2] >> 1) & 1;
  w = v1 ? 4 : 8;
  file = malloc(size + 64);
  memcpy(file, "GGUF", 4);
  n = 4;
  n += put(file + n, v1 ? 1 : 3, 4, be);
  n += put(file + n, 0, w, be); /* tensors */
  n += put(file + n, 1, w, be); /* one KV */
  n += put(file + n, 1, w, be); /* key length */
  file[n++] = 'k';
  n += put(file + n, data[0] % 14, 4, be); /* value type, 13 invalid */
  if (data[0] % 14 == GGUF_TYPE_ARRAY)
    n += put(file + n, data[1] % 14, 4, be);
  len = size - 3;
  memcpy(file + n, data + 3, len);
  n += len;
  if (gguf_parse(file, n, &m, &err) == 0) {
    const wt_meta *kv = &m.meta[0];
    gguf_cursor c;
    gguf_scalar s;
    wt_buf buf = {0};
    uint64_t i;
    gguf_cursor_init(&c, &m, file, kv);
    if (kv->type == GGUF_TYPE_ARRAY) {
      for (i = 0; i < kv->count; i++) {
        if (gguf_read_scalar(&c, kv->elem_type, &s) != 0)
          abort(); /* the parser accepted the value */
      }
      if (gguf_render_array_json(&m, file, kv, &buf) != 0 && !buf.oom)
        abort();
      free(buf.p);
    } else if (gguf_read_scalar(&c, kv->type, &s) != 0) {
      abort();
    }
    wt_model_free(&m);
  }
  free(file);
  return 0;
}
