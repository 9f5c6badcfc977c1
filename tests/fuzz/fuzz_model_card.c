/*
** fuzz_model_card.c: libFuzzer target for the model card front matter
** reader (formats/model_card.h).  The input is the card's text; the key is
** base_model.  Checks, besides what the sanitizers see, that what a read
** gives is as promised (at most WT_CARD_MAX_ITEMS values, each valid UTF-8
** without a control character, all inside the buffer), and that a buffer
** of exactly the bytes they take gives the same values while one byte
** fewer is refused.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/model_card.h"

#define CAP 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *out = malloc(CAP), *again;
  size_t count, count2, used = 0, i, k;
  wt_error err;
  if (wt_card_values((const char *)data, size, "base_model", out, CAP, &count, &err) != 0) {
    free(out);
    return 0;
  }
  if (count > WT_CARD_MAX_ITEMS)
    abort();
  for (i = 0; i < count; i++) {
    const char *v = out + used;
    size_t n = strnlen(v, CAP - used);
    if (n == CAP - used || !wt_utf8_valid(v, n))
      abort();
    for (k = 0; k < n; k++)
      if ((unsigned char)v[k] < 0x20 || v[k] == 0x7f)
        abort();
    used += n + 1;
  }
  again = malloc(used ? used : 1);
  if (wt_card_values((const char *)data, size, "base_model", again, used, &count2, &err) != 0 ||
      count2 != count || memcmp(again, out, used) != 0)
    abort();
  if (used > 0 &&
      wt_card_values((const char *)data, size, "base_model", again, used - 1, &count2, &err) == 0)
    abort();
  free(again);
  free(out);
  return 0;
}
