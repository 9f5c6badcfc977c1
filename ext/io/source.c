/*
** source.c: open a file through the mapped-file layer and hand it to the
** parser of its format.  See source.h.
*/
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_parser.h"
#include "formats/safetensors_parser.h"
#include "formats/sniff.h"

const char *wt_format_name(int format) {
  switch (format) {
  case WT_FORMAT_SAFETENSORS:
    return "safetensors";
  case WT_FORMAT_GGUF:
    return "gguf";
  default:
    return "unknown";
  }
}

/* Run the parser for format on the mapped file. */
static int wt_parse(wt_source *s, int format, wt_error *err) {
  const unsigned char *data = s->file.data;
  uint64_t size = s->file.size;
  if (format == 0 && size == 0)
    return wt_fail(err, "the file is empty (0 bytes)");
  if (format == 0) {
    format = wt_sniff_format(data, size, size);
    if (format == 0) {
      const char *what = wt_sniff_describe(data, size, 0);
      return wt_fail(err, "not a safetensors or GGUF file%s%s", what ? ": this is " : "",
                     what ? what : "");
    }
  }
  if (format == WT_FORMAT_GGUF) {
    if (!gguf_sniff(data, size)) {
      const char *what = wt_sniff_describe(data, size, WT_FORMAT_GGUF);
      if (what != NULL)
        return wt_fail(err, "not a GGUF file: this is %s", what);
    }
    return gguf_parse(data, size, &s->model, err);
  }
  return safetensors_parse(data, size, &s->model, err);
}

int wt_source_open(const char *path, size_t n, int format, wt_source **out, wt_error *err) {
  wt_source *s = calloc(1, sizeof(*s));
  *out = NULL;
  if (s == NULL)
    return wt_fail(err, "out of memory");
  s->refs = 1;
  s->path = malloc(n + 1);
  if (s->path == NULL) {
    free(s);
    return wt_fail(err, "out of memory");
  }
  memcpy(s->path, path, n);
  s->path[n] = 0;
  s->path_len = n;
  if (wt_file_open(&s->file, s->path, n, err) || wt_parse(s, format, err)) {
    wt_source_release(s);
    return -1;
  }
  *out = s;
  return 0;
}

void wt_source_release(wt_source *s) {
  if (s == NULL || --s->refs > 0)
    return;
  wt_model_free(&s->model);
  wt_file_close(&s->file);
  free(s->path);
  free(s);
}

uint64_t wt_source_bytes(const wt_source *s) {
  return s->model.header_len + wt_arena_size(s->model.arena) + sizeof(*s) + s->path_len;
}

const wt_tensor *wt_source_find_tensor(const wt_source *s, const char *p, size_t n) {
  size_t i;
  for (i = 0; i < s->model.n_tensors; i++) {
    const wt_tensor *t = &s->model.tensors[i];
    if (t->name.n == n && memcmp(t->name.p, p, n) == 0)
      return t;
  }
  return NULL;
}

const char *wt_tensor_unknown_size(const wt_tensor *t, char *buf, size_t size) {
  char q[WT_QUOTE_SIZE];
  wt_quote(q, sizeof(q), t->name.p, t->name.n);
  if (t->dtype.n > 0)
    snprintf(buf, size,
             "tensor %s has type %.*s (ggml id %lld), which ggml removed without a known "
             "layout, so its byte size is unknown",
             q, (int)t->dtype.n, t->dtype.p, (long long)t->type_id);
  else
    snprintf(buf, size,
             "tensor %s has ggml type id %lld, which this version does not know, so its byte "
             "size is unknown",
             q, (long long)t->type_id);
  return buf;
}

const wt_meta *wt_source_find_meta(const wt_source *s, const char *p, size_t n) {
  size_t i;
  for (i = 0; i < s->model.n_meta; i++) {
    const wt_meta *m = &s->model.meta[i];
    if (m->key.n == n && memcmp(m->key.p, p, n) == 0)
      return m;
  }
  return NULL;
}
