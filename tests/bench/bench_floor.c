/*
** bench_floor.c: the floors, what the same work costs with nothing but
** system calls and a loop, measured in the benchmark's own process.  Each
** function does one repetition.
**
** "Touch every header byte" means: map the file (open, fstat, mmap of the
** whole file, PROT_READ, MAP_PRIVATE, as the extension maps it), read
** every byte of the header with bench_byte_sum() and add the sum to the
** volatile bench_sink (so the loop cannot be removed), then munmap and
** close.  The header is 8 + N bytes for safetensors (N read from the
** mapping), and everything before the data section for GGUF (magic, keys,
** tensor infos, alignment padding).
**
** "pread of the same bytes": malloc a buffer of the tensor's size, pread
** the tensor into it, sum its bytes with bench_byte_sum() (the same
** consumer the extension's blobs get), free it.  A fresh buffer each time,
** as each blob the extension returns is a fresh buffer.
**
** "Sum as 64-bit integers" (the floor of tensor_stats): map the file, sum
** the tensor's bytes as 64-bit words with bench_word_sum(), unmap.
*/
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/* A mapped file. */
typedef struct mapped {
  int fd;
  const unsigned char *p;
  size_t size;
} mapped;

/* open, fstat, mmap the whole file. */
static void map_file(mapped *m, const char *path) {
  struct stat st;
  void *p;
  m->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (m->fd < 0)
    bench_die_sys(path);
  if (fstat(m->fd, &st) != 0)
    bench_die_sys(path);
  m->size = (size_t)st.st_size;
  p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, m->fd, 0);
  if (p == MAP_FAILED)
    bench_die_sys(path);
  m->p = p;
}

/* munmap, close. */
static void unmap_file(mapped *m) {
  munmap((void *)m->p, m->size);
  close(m->fd);
}

/* The safetensors header length, 8 + N, clamped to the file. */
static size_t st_header_bytes(const mapped *m) {
  uint64_t n = 0;
  int k;
  if (m->size < 8)
    return m->size;
  for (k = 0; k < 8; k++)
    n |= (uint64_t)m->p[k] << (8 * k);
  return n > m->size - 8 ? m->size : (size_t)(8 + n);
}

void floor_st_header(void *arg) {
  const floor_map_arg *a = arg;
  mapped m;
  map_file(&m, a->path);
  bench_sink += bench_byte_sum(m.p, st_header_bytes(&m));
  unmap_file(&m);
}

void floor_map_prefix(void *arg) {
  const floor_map_arg *a = arg;
  mapped m;
  map_file(&m, a->path);
  bench_sink += bench_byte_sum(m.p, (size_t)a->n);
  unmap_file(&m);
}

/* readdir the folder (as a directory argument must), then touch the
** header of every file. */
void floor_many(void *arg) {
  const bench_inputs *in = arg;
  char path[4600];
  DIR *d = opendir(in->many_dir);
  struct dirent *e;
  int n = 0;
  if (d == NULL)
    bench_die_sys(in->many_dir);
  while ((e = readdir(d)) != NULL) {
    mapped m;
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof(path), "%s/%s", in->many_dir, e->d_name);
    map_file(&m, path);
    bench_sink += bench_byte_sum(m.p, st_header_bytes(&m));
    unmap_file(&m);
    n++;
  }
  closedir(d);
  if (n != in->many_n)
    bench_die("%s: %d files, expected %d", in->many_dir, n, in->many_n);
}

/* pread t of the open file fd into a fresh buffer and sum its bytes. */
static void pread_tensor(int fd, const bench_tensor *t, const char *path) {
  unsigned char *buf = malloc(t->nbytes ? (size_t)t->nbytes : 1);
  size_t done = 0;
  if (buf == NULL)
    bench_die("out of memory");
  while (done < t->nbytes) {
    ssize_t k = pread(fd, buf + done, (size_t)t->nbytes - done, (off_t)(t->offset + done));
    if (k <= 0)
      bench_die_sys(path);
    done += (size_t)k;
  }
  bench_sink += bench_byte_sum(buf, (size_t)t->nbytes);
  free(buf);
}

void floor_pread_one(void *arg) {
  const bench_inputs *in = arg;
  int fd = open(in->st_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    bench_die_sys(in->st_path);
  pread_tensor(fd, in->st_embed, in->st_path);
  close(fd);
}

void floor_pread_all(void *arg) {
  const bench_inputs *in = arg;
  int fd = open(in->st_path, O_RDONLY | O_CLOEXEC), i;
  if (fd < 0)
    bench_die_sys(in->st_path);
  for (i = 0; i < in->st_n; i++)
    pread_tensor(fd, &in->st_tensors[i], in->st_path);
  close(fd);
}

void floor_words(void *arg) {
  const floor_words_arg *a = arg;
  mapped m;
  map_file(&m, a->path);
  bench_sink += bench_word_sum(m.p + a->offset, (size_t)a->nbytes);
  unmap_file(&m);
}

/* One pass over the 100,000-tensor file: touch the header, then pread
** every tensor on one descriptor and sum its bytes. */
void floor_wide(void *arg) {
  const bench_inputs *in = arg;
  mapped m;
  int fd, i;
  map_file(&m, in->wide_path);
  bench_sink += bench_byte_sum(m.p, (size_t)in->wide_header);
  unmap_file(&m);
  fd = open(in->wide_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    bench_die_sys(in->wide_path);
  for (i = 0; i < in->wide_n; i++)
    pread_tensor(fd, &in->wide_tensors[i], in->wide_path);
  close(fd);
}
