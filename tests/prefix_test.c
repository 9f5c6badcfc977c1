/*
** prefix_test.c: the parsers given only the first bytes of a file say the
** same as when given all of it.
**
**   build/prefix_test FILE...
**
** The io layer reads a header into memory a piece at a time: it gives the
** parser the first avail bytes of a file of size bytes, and when the
** parser needs more (gguf_parse_prefix / safetensors_parse_prefix return 1
** with the bytes they need) it reads more and calls again (source.c).  For
** every file named (by extension: .gguf or else safetensors) and for every
** length L it is cut to (every length of a small file, some 300 of a
** larger one), this runs that loop from a first read of 1, 7 and 64 bytes,
** each time in a buffer of exactly the bytes given (built with
** AddressSanitizer, a read past them fails the test), and checks that it
** ends as a parse of the whole L bytes does: the same success (same
** counts, header length, data offset, names and places) or the same
** message, and that every request for more asks for more than it was given
** and no more than L; a GGUF model is read after its bytes are freed.  A
** GGUF file is parsed a second way too: one parse
** that goes on where it stopped (gguf_prefix_parse), its bytes moved to a
** new block each round, growing by 1/8 or to what it asks for.
**
** Prints "prefix: N passed, M failed"; exit status 1 on a failure.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_parser.h"
#include "formats/safetensors_parser.h"

static int passed, failed;

/* The outcome of a parse, for comparison. */
typedef struct outcome {
  int rc;
  wt_error err;
  size_t n_tensors, n_meta;
  uint64_t header_len, data_offset;
  uint64_t names; /* FNV-1a of every key and tensor name, value place and tensor place */
} outcome;

/* FNV-1a of n bytes into h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  size_t i;
  for (i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

/* Take model m into o. */
static void take(const wt_model *m, outcome *o) {
  size_t i;
  o->n_tensors = m->n_tensors;
  o->n_meta = m->n_meta;
  o->header_len = m->header_len;
  o->data_offset = m->data_offset;
  o->names = 0xcbf29ce484222325ULL;
  for (i = 0; i < m->n_meta; i++) {
    o->names = fnv(o->names, m->meta[i].key.p, m->meta[i].key.n);
    o->names = fnv(o->names, &m->meta[i].value_pos, sizeof(m->meta[i].value_pos));
  }
  for (i = 0; i < m->n_tensors; i++) {
    o->names = fnv(o->names, m->tensors[i].name.p, m->tensors[i].name.n);
    o->names = fnv(o->names, &m->tensors[i].offset, sizeof(m->tensors[i].offset));
  }
}

/* Parse data[0..avail) of a file of size bytes, and free data; rc 1 sets
** *need.  A GGUF model holds no pointer into the bytes parsed (its keys
** and names are copied: gguf_parser.h), so its bytes are freed before it
** is read (AddressSanitizer sees a name left pointing into them). */
static void parse(int gguf, unsigned char *data, uint64_t avail, uint64_t size, uint64_t *need,
                  outcome *o) {
  wt_model m;
  memset(o, 0, sizeof(*o));
  o->rc = gguf ? gguf_parse_prefix(data, avail, size, &m, need, &o->err)
               : safetensors_parse_prefix(data, avail, size, &m, need, &o->err);
  if (gguf)
    free(data);
  if (o->rc == 0) {
    take(&m, o);
    wt_model_free(&m);
  }
  if (!gguf)
    free(data);
}

/* A copy of data[0..n) in a block of exactly n bytes (one byte for n = 0). */
static unsigned char *exact_copy(const unsigned char *data, uint64_t n) {
  unsigned char *p = malloc(n ? (size_t)n : 1);
  if (p == NULL) {
    fprintf(stderr, "prefix_test: out of memory\n");
    exit(2);
  }
  memcpy(p, data, (size_t)n);
  return p;
}

/* The same loop as check()'s with one GGUF parse that goes on where it
** stopped (gguf_prefix), the bytes in a new block each round (the names
** read so far must move with them: AddressSanitizer sees a stale one). */
static void resumed(const unsigned char *data, uint64_t L, uint64_t first, outcome *o) {
  gguf_prefix *p = gguf_prefix_new();
  uint64_t a = first < L ? first : L, need = 0;
  unsigned char *buf = NULL;
  int rounds = 0;
  wt_model m;
  memset(o, 0, sizeof(*o));
  for (;;) {
    unsigned char *next = exact_copy(data, a);
    free(buf);
    buf = next;
    o->rc = gguf_prefix_parse(p, buf, a, L, &m, &need, &o->err);
    if (o->rc != 1 || need <= a || need > L || ++rounds > 64)
      break;
    a = a + a / 8 + 1 > need ? (a + a / 8 + 1 > L ? L : a + a / 8 + 1) : need;
  }
  if (o->rc == 0) {
    take(&m, o);
    wt_model_free(&m);
  }
  gguf_prefix_free(p);
  free(buf);
}

/* True when two outcomes are the same. */
static int same(const outcome *a, const outcome *b) {
  return a->rc == b->rc && strcmp(a->err.msg, b->err.msg) == 0 && a->n_tensors == b->n_tensors &&
         a->n_meta == b->n_meta && a->header_len == b->header_len &&
         a->data_offset == b->data_offset && a->names == b->names;
}

/* Check file data cut to L bytes, reading first bytes at first. */
static void check(const char *name, int gguf, const unsigned char *data, uint64_t L,
                  uint64_t first) {
  outcome whole, part;
  uint64_t a = first < L ? first : L, need = 0;
  unsigned char *buf = exact_copy(data, L);
  int rounds = 0;
  parse(gguf, buf, L, L, NULL, &whole);
  for (;;) {
    buf = exact_copy(data, a);
    parse(gguf, buf, a, L, &need, &part);
    if (part.rc != 1)
      break;
    if (need <= a || need > L || ++rounds > 64) {
      printf("FAILED: %s cut at %llu, first read %llu: asked for %llu bytes with %llu given\n",
             name, (unsigned long long)L, (unsigned long long)first, (unsigned long long)need,
             (unsigned long long)a);
      failed++;
      return;
    }
    a = a > L / 2 ? L : 2 * a;
    if (a < need)
      a = need;
  }
  if (!same(&part, &whole)) {
    printf("FAILED: %s cut at %llu, first read %llu:\n  whole:  rc %d %s\n  pieces: rc %d %s\n",
           name, (unsigned long long)L, (unsigned long long)first, whole.rc, whole.err.msg, part.rc,
           part.err.msg);
    failed++;
    return;
  }
  passed++;
  if (!gguf)
    return;
  resumed(data, L, first, &part);
  if (!same(&part, &whole)) {
    printf("FAILED: %s cut at %llu, first read %llu, resumed:\n  whole:  rc %d %s\n  resumed: rc "
           "%d %s\n",
           name, (unsigned long long)L, (unsigned long long)first, whole.rc, whole.err.msg, part.rc,
           part.err.msg);
    failed++;
    return;
  }
  passed++;
}

int main(int argc, char **argv) {
  static const uint64_t firsts[] = {1, 7, 64};
  int i;
  size_t k;
  for (i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    unsigned char *data;
    long size;
    uint64_t L, step;
    size_t n = strlen(argv[i]);
    int gguf = n >= 5 && strcmp(argv[i] + n - 5, ".gguf") == 0;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
      fprintf(stderr, "prefix_test: cannot read %s\n", argv[i]);
      return 2;
    }
    data = malloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
      fprintf(stderr, "prefix_test: cannot read %s\n", argv[i]);
      return 2;
    }
    fclose(f);
    step = (uint64_t)size <= 2048 ? 1 : (uint64_t)size / 300 + 1;
    for (L = 0;; L += step) {
      if (L > (uint64_t)size)
        L = (uint64_t)size; /* the whole file last */
      for (k = 0; k < sizeof(firsts) / sizeof(firsts[0]); k++)
        check(argv[i], gguf, data, L, firsts[k]);
      if (L == (uint64_t)size)
        break;
    }
    free(data);
  }
  printf("prefix: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
