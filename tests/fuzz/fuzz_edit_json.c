/*
** fuzz_edit_json.c: libFuzzer target for the edits of gguf_rewrite() and
** safetensors_rewrite() (ext/write/edit_json.c, then edit_list.c).
**
** An input is any bytes, read as the edits argument.  Checked: a parse
** that fails says why; one that succeeds gives as many edits as the
** object has members (json_parse() of the same text counts them), each
** key a NUL-terminated string without a NUL inside, each text value as
** long as the bytes json_unescape() makes of its token; then the edits are
** applied to an empty GGUF list and an empty safetensors list, which
** fails with a message or leaves every value well formed
** (gw_value_check()).  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "formats/json_check.h"
#include "write/edit_json.h"
#include "write/edit_list.h"
#include "write/gguf_writer.h"

/* Apply e to an empty list of format; every value it leaves well formed. */
static void apply(const rw_edits *e, int format) {
  rw_list l = {0};
  wt_error err;
  size_t i;
  if (rw_apply(&l, format, e->e, e->n, &err) != 0) {
    if (err.msg[0] == 0)
      abort();
  } else if (format == WT_FORMAT_GGUF) {
    for (i = 0; i < l.n; i++)
      if (gw_value_check(l.e[i].type, rw_val(&l, i), l.e[i].val_len, &err) != 0)
        abort();
  }
  rw_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  rw_edits e;
  wt_error err;
  json_doc d = {0};
  size_t i, k;
  if (rw_edits_parse(text, size, &e, &err) != 0) {
    if (err.msg[0] == 0)
      abort();
    rw_edits_free(&e);
    return 0;
  }
  if (!wt_utf8_valid(text, size) || json_parse(text, size, 0, &d, &err) != 0 ||
      d.tok[0].type != JSON_OBJECT || d.tok[0].len != e.n)
    abort();
  for (i = 0, k = 1; i < e.n; i++, k = d.tok[k + 1].next) {
    const json_token *v = &d.tok[k + 1];
    char *buf = malloc((size_t)d.tok[k].len + (size_t)v->len + 1);
    size_t n = json_unescape(text + d.tok[k].pos, d.tok[k].len, buf);
    if (e.e[i].key == NULL || strlen(e.e[i].key) != n || memcmp(e.e[i].key, buf, n) != 0)
      abort();
    if (v->type == JSON_STRING) {
      n = json_unescape(text + v->pos, v->len, buf);
      if (e.e[i].value.kind != RW_JSON_TEXT || e.e[i].value.n != n ||
          memcmp(e.e[i].value.text, buf, n) != 0)
        abort();
    }
    free(buf);
  }
  json_doc_free(&d);
  apply(&e, WT_FORMAT_GGUF);
  apply(&e, WT_FORMAT_SAFETENSORS);
  rw_edits_free(&e);
  return 0;
}
