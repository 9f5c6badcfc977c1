/*
** model_arch.c: an opened model's architecture and its GGUF numbers.  See
** model_arch.h.
*/
#include "model_arch.h"

#include <stdio.h>
#include <string.h>

#include "hf_config_file.h"

int wt_source_gguf_scalar(const wt_source *s, const char *key, gguf_scalar *v) {
  const wt_meta *kv;
  gguf_cursor c;
  if (s->model.format != WT_FORMAT_GGUF)
    return -1;
  kv = wt_source_find_meta(s, key, strlen(key));
  if (kv == NULL || kv->type == GGUF_TYPE_ARRAY)
    return -1;
  gguf_cursor_init(&c, &s->model, s->header, kv);
  return gguf_read_scalar(&c, kv->type, v);
}

size_t wt_source_arch(const wt_source *s, char *out, size_t cap) {
  const char *arch;
  size_t n;
  gguf_scalar v;
  if (cap == 0)
    return 0;
  out[0] = 0;
  if (s->model.format == WT_FORMAT_GGUF) {
    if (wt_source_gguf_scalar(s, "general.architecture", &v) != 0 || v.kind != GGUF_SCALAR_TEXT ||
        v.s.n + 1 > cap || memchr(v.s.p, 0, v.s.n) != NULL)
      return 0;
    memcpy(out, v.s.p, v.s.n);
    out[v.s.n] = 0;
    return v.s.n;
  }
  arch = wt_config_arch_of(s->path);
  if (arch == NULL || (n = strlen(arch)) + 1 > cap)
    return 0;
  memcpy(out, arch, n + 1);
  return n;
}

int wt_source_arch_uint(const wt_source *s, const char *key, uint64_t *v) {
  char arch[64], full[160];
  gguf_scalar x;
  if (s->model.format != WT_FORMAT_GGUF || wt_source_arch(s, arch, sizeof(arch)) == 0)
    return -1;
  snprintf(full, sizeof(full), "%s.%s", arch, key);
  if (wt_source_gguf_scalar(s, full, &x) != 0)
    return -1;
  if (x.kind == GGUF_SCALAR_BIGUINT) {
    *v = x.u;
    return 0;
  }
  if (x.kind != GGUF_SCALAR_INT || x.i < 0)
    return -1;
  *v = (uint64_t)x.i;
  return 0;
}
