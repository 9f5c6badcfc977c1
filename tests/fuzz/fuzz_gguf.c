/*
** fuzz_gguf.c: libFuzzer target for the GGUF parser and the rendering of
** GGUF metadata values.
**
** Each input is parsed as a whole file; on success every tensor of known
** size must lie inside the file, and every metadata value is read back the
** way gguf_metadata() and gguf_array() read it: scalars with
** gguf_read_scalar(), arrays rendered to JSON and walked element by
** element.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"

/* Read every value of kv the way the SQL tables do. */
static void read_value(const wt_model *m, const uint8_t *data, const wt_meta *kv) {
  gguf_cursor c;
  gguf_scalar s;
  uint64_t i;
  gguf_cursor_init(&c, m, data, kv);
  if (kv->type != GGUF_TYPE_ARRAY) {
    if (gguf_read_scalar(&c, kv->type, &s) != 0)
      abort(); /* the parser validated it */
    return;
  }
  for (i = 0; i < kv->count; i++) {
    if (gguf_read_scalar(&c, kv->elem_type, &s) != 0)
      abort();
  }
  {
    wt_buf buf = {0};
    if (gguf_render_array_json(m, data, kv, &buf) != 0 && !buf.oom)
      abort();
    free(buf.p);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wt_model m;
  wt_error err;
  size_t i;
  if (gguf_parse(data, size, &m, &err) != 0)
    return 0;
  for (i = 0; i < m.n_tensors; i++) {
    const wt_tensor *t = &m.tensors[i];
    if (t->nbytes_known && (t->offset > size || t->nbytes > size - t->offset))
      abort();
  }
  for (i = 0; i < m.n_meta; i++)
    read_value(&m, data, &m.meta[i]);
  wt_model_free(&m);
  return 0;
}
