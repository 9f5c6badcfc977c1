/*
** fuzz_safetensors.c: libFuzzer target for the safetensors parser.
**
** Feeds each input to safetensors_parse() as a whole file, then walks the
** model it returns (every tensor's name, dims and byte range must lie
** inside what the parser promised), so that a bad description is caught
** here rather than by the SQL layer.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/safetensors_parser.h"

static volatile int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wt_model m;
  wt_error err;
  size_t i;
  uint64_t covered = 0;
  if (safetensors_parse(data, size, &m, &err) != 0)
    return 0;
  for (i = 0; i < m.n_tensors; i++) {
    const wt_tensor *t = &m.tensors[i];
    if (t->offset + t->nbytes > size || t->data_start != covered)
      abort();
    covered = t->data_end;
    if (t->name.n > 0 && t->name.p[t->name.n - 1] == 0 && t->name.p[0] == 0)
      sink++; /* reads the first and last byte: ASan checks they are in bounds */
  }
  for (i = 0; i < m.n_meta; i++) {
    if (m.meta[i].key.n > size || m.meta[i].value.n > size)
      abort();
  }
  if (8 + m.header_len + covered != size)
    abort();
  wt_model_free(&m);
  return 0;
}
