/*
** gguf_list.c: a minimal GGUF lister, the baseline of the benchmark's
** whole-process rows (`make bench`; not part of the extension).
**
**   build/bench-gguf-list FILE
**
** Reads the header as a plain reader would: read(2) into a 64 KiB buffer,
** front to back, once: magic, version (2 or 3, little-endian), the
** counts, every key-value pair (values skipped, strings by their lengths),
** then every tensor info, printed as "name|type|dim,dim,...|offset" (one
** line each, as `sqlite3` prints the rows of gguf()).  Checks only what it
** needs to go on; exits 1 with a message on a malformed file.  Layout from
** ggml's docs/gguf.md (ggml-org/ggml, commit 2f0ce29).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define BUF_SIZE (64 << 10)

/* The byte sizes of GGUF value types 0-12 (8, STRING, 9, ARRAY: 0). */
static const unsigned type_size[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

static int fd;
static unsigned char buf[BUF_SIZE];
static size_t pos, len; /* buf[pos, len) not read yet */

static void die(const char *what) {
  fprintf(stderr, "gguf_list: %s\n", what);
  exit(1);
}

/* The next bytes into the buffer, once it is all read. */
static void fill(void) {
  ssize_t n = read(fd, buf, sizeof(buf));
  if (n <= 0)
    die("truncated");
  pos = 0;
  len = (size_t)n;
}

/* The next n bytes into p, or skipped when p is NULL. */
static void get(void *p, size_t n) {
  while (n > 0) {
    size_t take;
    if (pos == len)
      fill();
    take = len - pos < n ? len - pos : n;
    if (p != NULL) {
      memcpy(p, buf + pos, take);
      p = (char *)p + take;
    }
    pos += take;
    n -= take;
  }
}

static uint32_t u32(void) {
  uint32_t v;
  get(&v, 4);
  return v;
}

static uint64_t u64(void) {
  uint64_t v;
  get(&v, 8);
  return v;
}

/* Skip n bytes (read through: a header is read whole). */
static void skip(uint64_t n) {
  get(NULL, (size_t)n);
}

/* A string into buf (at most size - 1 bytes kept, the rest skipped). */
static void string(char *buf, size_t size) {
  uint64_t n = u64(), keep = n < size - 1 ? n : size - 1;
  get(buf, (size_t)keep);
  buf[keep] = 0;
  skip(n - keep);
}

/* Skip a value of type t. */
static void skip_value(uint32_t t) {
  if (t == 8) {
    skip(u64());
  } else if (t == 9) {
    uint32_t et = u32();
    uint64_t count = u64(), i;
    if (et == 8)
      for (i = 0; i < count; i++)
        skip(u64());
    else if (et < 13 && type_size[et] > 0)
      skip(count * type_size[et]);
    else
      die("bad array type");
  } else if (t < 13 && type_size[t] > 0) {
    skip(type_size[t]);
  } else {
    die("bad value type");
  }
}

int main(int argc, char **argv) {
  char name[256];
  uint64_t n_tensors, n_kv, i, j;
  uint32_t version;
  if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0)
    die("usage: gguf_list FILE");
  get(name, 4);
  if (memcmp(name, "GGUF", 4) != 0)
    die("not GGUF");
  version = u32();
  if (version != 2 && version != 3)
    die("version 2 or 3 only");
  n_tensors = u64();
  n_kv = u64();
  for (i = 0; i < n_kv; i++) {
    string(name, sizeof(name));
    skip_value(u32());
  }
  for (i = 0; i < n_tensors; i++) {
    uint32_t n_dims, type;
    string(name, sizeof(name));
    n_dims = u32();
    if (n_dims > 4)
      die("more than 4 dimensions");
    printf("%s|", name);
    for (j = 0; j < n_dims; j++)
      printf(j ? ",%llu" : "%llu", (unsigned long long)u64());
    type = u32();
    printf("|%u|%llu\n", type, (unsigned long long)u64());
  }
  close(fd);
  return 0;
}
