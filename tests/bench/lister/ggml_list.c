/*
** ggml_list.c: ggml's own GGUF parser as a lister, a baseline of the
** benchmark's whole-process rows (`make bench`; not part of the extension).
**
**   build/bench-ggml-list LIBGGML_BASE FILE
**
** Opens ggml's shared library (libggml-base.so, as node-llama-cpp ships it:
** tests/llama_install.sh puts it under build/llama) with dlopen, parses the
** header with gguf_init_from_file() without allocating tensor data (as
** llama.cpp's loader and its gguf tools start), then prints every key with
** its type and array length and every tensor as "name|type|offset|size",
** as `gguf-tools show` and `sqlite3` print theirs.  The declarations below
** are those of ggml's gguf.h and ggml.h (llama.cpp de3ff815), written here
** so that the benchmark builds without ggml's headers.
*/
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct gguf_init_params {
  bool no_alloc;
  void **ctx; /* struct ggml_context **: NULL, no tensor data */
};

/* The functions used, by name. */
static struct {
  void *(*init_from_file)(const char *fname, struct gguf_init_params params);
  void (*free_ctx)(void *ctx);
  int64_t (*n_kv)(const void *ctx);
  const char *(*key)(const void *ctx, int64_t id);
  int (*kv_type)(const void *ctx, int64_t id);
  size_t (*arr_n)(const void *ctx, int64_t id);
  int64_t (*n_tensors)(const void *ctx);
  const char *(*tensor_name)(const void *ctx, int64_t id);
  int (*tensor_type)(const void *ctx, int64_t id);
  size_t (*tensor_offset)(const void *ctx, int64_t id);
  size_t (*tensor_size)(const void *ctx, int64_t id);
  const char *(*type_name)(int type);
} g;

#define GGUF_TYPE_ARRAY 9 /* gguf.h: enum gguf_type */

static void die(const char *what, const char *detail) {
  fprintf(stderr, "ggml_list: %s: %s\n", what, detail);
  exit(1);
}

/* The function name of lib, or exit. */
static void *sym(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (f == NULL)
    die("no such function in the library", name);
  return f;
}

int main(int argc, char **argv) {
  struct gguf_init_params params = {true, NULL};
  void *lib, *ctx;
  int64_t i;
  if (argc != 3)
    die("usage", "ggml_list LIBGGML_BASE FILE");
  if ((lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL)
    die("cannot open", dlerror());
  *(void **)&g.init_from_file = sym(lib, "gguf_init_from_file");
  *(void **)&g.free_ctx = sym(lib, "gguf_free");
  *(void **)&g.n_kv = sym(lib, "gguf_get_n_kv");
  *(void **)&g.key = sym(lib, "gguf_get_key");
  *(void **)&g.kv_type = sym(lib, "gguf_get_kv_type");
  *(void **)&g.arr_n = sym(lib, "gguf_get_arr_n");
  *(void **)&g.n_tensors = sym(lib, "gguf_get_n_tensors");
  *(void **)&g.tensor_name = sym(lib, "gguf_get_tensor_name");
  *(void **)&g.tensor_type = sym(lib, "gguf_get_tensor_type");
  *(void **)&g.tensor_offset = sym(lib, "gguf_get_tensor_offset");
  *(void **)&g.tensor_size = sym(lib, "gguf_get_tensor_size");
  *(void **)&g.type_name = sym(lib, "ggml_type_name");
  if ((ctx = g.init_from_file(argv[2], params)) == NULL)
    die("gguf_init_from_file failed", argv[2]);
  for (i = 0; i < g.n_kv(ctx); i++) {
    int t = g.kv_type(ctx, i);
    printf("%s|%d|%zu\n", g.key(ctx, i), t, t == GGUF_TYPE_ARRAY ? g.arr_n(ctx, i) : (size_t)1);
  }
  for (i = 0; i < g.n_tensors(ctx); i++)
    printf("%s|%s|%zu|%zu\n", g.tensor_name(ctx, i), g.type_name(g.tensor_type(ctx, i)),
           g.tensor_offset(ctx, i), g.tensor_size(ctx, i));
  g.free_ctx(ctx);
  return 0;
}
