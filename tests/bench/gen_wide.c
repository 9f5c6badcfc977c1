/*
** gen_wide.c: a safetensors file of 100,000 small tensors (a MoE
** checkpoint's tensor count), for the cases that call a function once per
** row of a listing (safetensors_blob, tensor_hash): a name lookup that is a
** scan makes them grow with the square of the tensor count.
**
** Tensors "model.layers.L.mlp.experts.E.w" for L < 1000, E < 100, F16 of
** shape [16] (32 bytes each, bytes i*7+3), in name order, so the header
** is 9.7 MB and the data 3.2 MB.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define WIDE_LAYERS  1000
#define WIDE_EXPERTS 100
#define WIDE_BYTES   32

void gen_wide(bench_inputs *in, int verbose) {
  bench_buf h = {0};
  bench_out o;
  unsigned char data[WIDE_BYTES];
  char entry[200];
  uint64_t size;
  int l, e, i, k = 0;
  snprintf(in->wide_path, sizeof(in->wide_path), "%s/wide-100k.safetensors", in->cache);
  in->wide_n = WIDE_LAYERS * WIDE_EXPERTS;
  in->wide_tensors = calloc((size_t)in->wide_n, sizeof(bench_tensor));
  if (in->wide_tensors == NULL)
    bench_die("out of memory");
  bench_put(&h, "{", 1);
  for (l = 0; l < WIDE_LAYERS; l++) {
    for (e = 0; e < WIDE_EXPERTS; e++, k++) {
      bench_tensor *t = &in->wide_tensors[k];
      snprintf(t->name, sizeof(t->name), "model.layers.%d.mlp.experts.%d.w", l, e);
      snprintf(entry, sizeof(entry),
               "%s\"%s\":{\"dtype\":\"F16\",\"shape\":[16],\"data_offsets\":[%d,%d]}", k ? "," : "",
               t->name, k * WIDE_BYTES, (k + 1) * WIDE_BYTES);
      bench_put(&h, entry, strlen(entry));
      t->nbytes = WIDE_BYTES;
    }
  }
  bench_put(&h, "}", 1);
  while (h.n % 8 != 0)
    bench_put(&h, " ", 1);
  for (k = 0; k < in->wide_n; k++)
    in->wide_tensors[k].offset = 8 + h.n + (uint64_t)k * WIDE_BYTES;
  in->wide_header = 8 + h.n;
  size = 8 + h.n + (uint64_t)in->wide_n * WIDE_BYTES;
  if (bench_file_size(in->wide_path) == (int64_t)size) {
    free(h.p);
    return;
  }
  if (verbose)
    fprintf(stderr, "bench: writing %s\n", in->wide_path);
  bench_out_open(&o, in->wide_path);
  {
    unsigned char len[8];
    for (i = 0; i < 8; i++)
      len[i] = (unsigned char)(h.n >> (8 * i));
    bench_out_write(&o, len, 8);
  }
  bench_out_write(&o, h.p, h.n);
  for (i = 0; i < WIDE_BYTES; i++)
    data[i] = (unsigned char)(i * 7 + 3);
  for (k = 0; k < in->wide_n; k++)
    bench_out_write(&o, data, sizeof(data));
  bench_out_close(&o, 0);
  free(h.p);
}
