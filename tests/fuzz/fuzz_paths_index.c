/*
** fuzz_paths_index.c: libFuzzer target for the sharded-safetensors index
** reader of ext/io/paths_index.c: cJSON, the weight_map walk and the
** shard-name checks (absolute, "..", NUL, not .safetensors, PATH_MAX), and
** the grouping into a model (paths_models.c), through wt_paths_expand().
**
** That code reads the index from a file, so the
** input is written to DIR/model.safetensors.index.json in a folder of
** /dev/shm (memory), beside two small valid shards
** (model-00001-of-00002.safetensors, sub/model-00002-of-00002.safetensors),
** and the path is expanded as safetensors() would.  Checks, beside "no
** crash, no sanitizer report": an error has a message; a success is an
** index whose files are inside DIR (no ".." component), whose models'
** weights are sorted by name with no name twice, and wt_model_find_weight
** finds every one.  The folder is removed at exit.  Built by `make fuzz`.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/http.h"
#include "paths/paths.h"

static char dir[64], index_path[128];

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
    abort();
}

static void cleanup(void) {
  char p[160];
  snprintf(p, sizeof p, "rm -rf '%s'", dir);
  if (system(p) != 0)
    fprintf(stderr, "fuzz_paths_index: could not remove %s\n", dir);
}

/* The folder, its shards and an empty index, once. */
static void setup(void) {
  static const char hdr[] = "{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
  unsigned char st[8 + sizeof hdr - 1 + 4] = {sizeof hdr - 1};
  char p[160];
  memcpy(st + 8, hdr, sizeof hdr - 1);
  snprintf(dir, sizeof dir, "/dev/shm/wt-fuzz-index-%ld", (long)getpid());
  snprintf(p, sizeof p, "%s/sub", dir);
  if (mkdir(dir, 0755) != 0 || mkdir(p, 0755) != 0)
    abort();
  atexit(cleanup);
  snprintf(p, sizeof p, "%s/model-00001-of-00002.safetensors", dir);
  write_file(p, st, sizeof st);
  snprintf(p, sizeof p, "%s/sub/model-00002-of-00002.safetensors", dir);
  write_file(p, st, sizeof st);
  snprintf(index_path, sizeof index_path, "%s/model.safetensors.index.json", dir);
}

static int name_cmp(const wt_weight *a, const wt_weight *b) {
  size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
  int c = memcmp(a->name, b->name, n);
  return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wt_pathlist out;
  wt_error err;
  size_t i, k, dn;
  wt_remote_register(); /* remote paths go to the HTTP source, as in the module */
  if (dir[0] == 0)
    setup();
  write_file(index_path, data, size);
  memset(&out, 0, sizeof out);
  err.msg[0] = 0;
  if (wt_paths_expand(index_path, strlen(index_path), WT_FORMAT_SAFETENSORS, &out, &err) != 0) {
    if (err.msg[0] == 0)
      abort();
    wt_pathlist_free(&out);
    return 0;
  }
  dn = strlen(dir);
  if (out.kind != WT_PATHS_INDEX)
    abort();
  for (i = 0; i < out.n; i++) /* inside dir: no ".." component */
    if (strncmp(out.files[i].path, dir, dn) != 0 || out.files[i].path[dn] != '/' ||
        strstr(out.files[i].path + dn, "/../") != NULL)
      abort();
  for (k = 0; k < out.n_models; k++) {
    const wt_path_model *m = &out.models[k];
    for (i = 0; i < m->n_weights; i++) {
      const wt_weight *w = &m->weights[i];
      if (w->name[w->name_len] != 0)
        abort();
      if (i > 0 && name_cmp(&m->weights[i - 1], w) >= 0)
        abort();
      if (wt_model_find_weight(m, w->name, w->name_len) != w)
        abort();
    }
  }
  wt_pathlist_free(&out);
  return 0;
}
