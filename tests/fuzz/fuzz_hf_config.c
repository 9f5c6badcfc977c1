/*
** fuzz_hf_config.c: libFuzzer target for the config.json reader
** (formats/hf_config.h).  The input is the file's text.  Checks, besides
** what the sanitizers see, that each entry's value is itself valid JSON of
** the type the entry says (the whitespace removal keeps it JSON), that a
** parse without flattening finds the same architecture, and that an
** architecture is only ever one of the list.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hf_config.h"
#include "formats/json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const types[] = {"null", "boolean", "number", "string", "array", "object"};
  wt_config c, d;
  wt_error err;
  size_t i;
  if (wt_config_parse((const char *)data, size, 1, &c, &err) != 0)
    return 0;
  for (i = 0; i < c.n; i++) {
    json_doc doc = {0};
    if (c.entries[i].key == NULL ||
        json_parse(c.entries[i].value, strlen(c.entries[i].value), 0, &doc, &err) != 0 ||
        strcmp(types[doc.tok[0].type], c.entries[i].type) != 0)
      abort();
    json_doc_free(&doc);
  }
  if (wt_config_parse((const char *)data, size, 0, &d, &err) != 0 || d.n != 0 || d.arch != c.arch ||
      (c.hf_arch == NULL) != (d.hf_arch == NULL) ||
      (c.hf_arch != NULL && strcmp(c.hf_arch, d.hf_arch) != 0) ||
      (c.arch != NULL && wt_config_gguf_arch(c.hf_arch) != c.arch))
    abort();
  wt_config_free(&c);
  wt_config_free(&d);
  return 0;
}
