/*
** gen_iq.c: the IQ2_XXS input of the benchmark, iq2_xxs.gguf: a GGUF v3
** file (little-endian, alignment 32, one key general.architecture =
** "llama") holding one tensor, blk.0.ffn_down.weight, IQ2_XXS of ne =
** [4096, 14336] (Llama-3-8B's ffn_down: 58.7 M values, 15.1 MB of 66-byte
** blocks), written once into the cache and reused while its size is right.
**
** Every byte pattern is a valid IQ2_XXS block (grid indices, sign indices
** and the 4-bit scale take all their values), so the blocks are
** pseudo-random bytes, except the fp16 d of each block, drawn in [2^-10,
** 2^-9) as a real file's scales are (finite, so tensor_stats takes its fast
** path).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { NE0 = 4096, NE1 = 14336, BLOCK = 256, BLOCK_BYTES = 66, T_IQ2_XXS = 16 };

static void put_str(bench_buf *b, const char *s) {
  bench_put_u64(b, strlen(s));
  bench_put(b, s, strlen(s));
}

void gen_iq2xxs(bench_inputs *in, int verbose) {
  const uint64_t nblocks = (uint64_t)NE0 * NE1 / BLOCK, nbytes = nblocks * BLOCK_BYTES;
  const char *name = "blk.0.ffn_down.weight";
  bench_buf b = {0};
  bench_out o;
  uint64_t seed = 0x1a2b0016, i;
  unsigned char blk[BLOCK_BYTES * 64];
  bench_put(&b, "GGUF", 4);
  bench_put_u32(&b, 3);
  bench_put_u64(&b, 1); /* tensors */
  bench_put_u64(&b, 1); /* keys */
  put_str(&b, "general.architecture");
  bench_put_u32(&b, 8); /* STRING */
  put_str(&b, "llama");
  put_str(&b, name);
  bench_put_u32(&b, 2);
  bench_put_u64(&b, NE0);
  bench_put_u64(&b, NE1);
  bench_put_u32(&b, T_IQ2_XXS);
  bench_put_u64(&b, 0);
  while (b.n % 32 != 0)
    bench_put(&b, "", 1);
  snprintf(in->iq_path, sizeof(in->iq_path), "%s/iq2_xxs.gguf", in->cache);
  snprintf(in->iq2xxs.name, sizeof(in->iq2xxs.name), "%s", name);
  in->iq2xxs.offset = b.n;
  in->iq2xxs.nbytes = nbytes;
  if (bench_file_size(in->iq_path) == (int64_t)(b.n + nbytes)) {
    free(b.p);
    return;
  }
  if (verbose)
    fprintf(stderr, "bench: writing %s (%.1f MB)\n", in->iq_path, (double)nbytes / 1e6);
  bench_out_open(&o, in->iq_path);
  bench_out_write(&o, b.p, b.n);
  for (i = 0; i < nblocks; i += 64) {
    size_t k;
    for (k = 0; k < sizeof(blk); k += 8) {
      uint64_t r = bench_rand(&seed);
      memcpy(blk + k, &r, k + 8 <= sizeof(blk) ? 8 : sizeof(blk) - k);
    }
    for (k = 0; k < 64; k++) { /* d = fp16 0x1400 .. 0x17FF: [2^-10, 2^-9) */
      unsigned d = 0x1400 | (unsigned)(bench_rand(&seed) & 0x3ff);
      blk[k * BLOCK_BYTES] = (unsigned char)(d & 255);
      blk[k * BLOCK_BYTES + 1] = (unsigned char)(d >> 8);
    }
    bench_out_write(&o, blk, sizeof(blk)); /* nblocks is a multiple of 64 */
  }
  bench_out_close(&o, b.n + nbytes);
  free(b.p);
}
