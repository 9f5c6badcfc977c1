/*
** gpu_probe.c: what llama.cpp's CUDA build allocates for a model, read from
** its own log.  Not part of `make test` (it needs an NVIDIA GPU and
** node-llama-cpp's CUDA build); tests/gpu/README.md says how the records
** of tests/gpu/ were taken with it.
**
**   gpu_probe LIBDIR < JOBS > RECORDS.jsonl
**
** LIBDIR holds llama.cpp's shared libraries (libllama, libggml-base, the
** backends libggml-cuda.so and libggml-cpu-*.so, loaded from there).  Each
** line of JOBS is
**
**   MODEL NGL N_CTX TYPE_K TYPE_V FA N_SEQ N_UBATCH [N_BATCH [KV_UNIFIED [SWA_FULL]]]
**
** (FA: -1 auto, 0 off, 1 on; types f32, f16, bf16, q8_0, q4_0, q4_1, q5_0,
** q5_1, iq4_nl).  Consecutive lines with the same MODEL and NGL share one
** model load.  For each line one JSON object is printed: the settings,
** llama.cpp's log lines of the load (once per load) and of the context's
** creation, and what cudaMemGetInfo saw leave the device during each.
** Settings are llama_context_default_params() otherwise (llama.cpp
** de3ff815: n_batch 2048, offload_kqv, op_offload, mmap on).
*/
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "llama.h"

#define MAX_LOG (8 << 20)

static char *log_buf;
static size_t log_len;

/* llama.cpp's and ggml's log lines, kept but for the per-key and per-tensor
** lines of the loader, which only repeat the header. */
static void on_log(enum ggml_log_level level, const char *text, void *user) {
  (void)level;
  (void)user;
  size_t n = strlen(text);
  if (log_len + n + 1 > MAX_LOG) return;
  memcpy(log_buf + log_len, text, n);
  log_len += n;
  log_buf[log_len] = 0;
}

/* cudaMemGetInfo through libcudart, or -1 where it cannot be had. */
typedef int (*mem_get_info_fn)(size_t *, size_t *);
static mem_get_info_fn mem_get_info;

static long long device_free(void) {
  size_t free_b = 0, total = 0;
  if (!mem_get_info || mem_get_info(&free_b, &total) != 0) return -1;
  return (long long)free_b;
}

/* Print s as a JSON string. */
static void put_json_string(const char *s, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c == '\n') fputs("\\n", stdout);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

/* The log since mark, without the loader's per-key and per-tensor lines. */
static void put_log(size_t mark) {
  static char kept[MAX_LOG];
  size_t k = 0;
  const char *p = log_buf + mark, *end = log_buf + log_len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
    if (!strstr(p, "llama_model_loader: - kv") && !(n < 400 && strstr(p, "llama_model_loader: - tensor")) &&
        !strstr(p, "load: control token") && !strstr(p, "llama_model_loader: - type")) {
      memcpy(kept + k, p, n);
      k += n;
    }
    p += n;
  }
  put_json_string(kept, k);
}

static enum ggml_type type_named(const char *s) {
  static const struct {
    const char *name;
    enum ggml_type t;
  } types[] = {{"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16},
               {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
               {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1}, {"iq4_nl", GGML_TYPE_IQ4_NL}};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (!strcmp(s, types[i].name)) return types[i].t;
  fprintf(stderr, "gpu_probe: unknown type %s\n", s);
  exit(2);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gpu_probe LIBDIR < JOBS\n");
    return 2;
  }
  log_buf = malloc(MAX_LOG);
  void *cudart = dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL);
  if (cudart) mem_get_info = (mem_get_info_fn)dlsym(cudart, "cudaMemGetInfo");
  llama_log_set(on_log, NULL);
  ggml_backend_load_all_from_path(argv[1]);
  llama_backend_init();

  char line[4096], model_path[2048] = "";
  int loaded_ngl = -2;
  struct llama_model *model = NULL;
  size_t load_mark = 0, load_end = 0;
  long long load_bytes = 0;
  int first = 1;
  while (fgets(line, sizeof line, stdin)) {
    char path[2048], tk[16], tv[16];
    int ngl, fa, n_seq, n_ubatch, n_batch = 2048, unified = 0, swa_full = 1;
    unsigned n_ctx;
    int got = sscanf(line, "%2047s %d %u %15s %15s %d %d %d %d %d %d", path, &ngl, &n_ctx, tk, tv, &fa,
                     &n_seq, &n_ubatch, &n_batch, &unified, &swa_full);
    if (got < 8) continue;
    int new_load = strcmp(path, model_path) || ngl != loaded_ngl;
    if (new_load) {
      if (model) llama_model_free(model);
      snprintf(model_path, sizeof model_path, "%s", path);
      loaded_ngl = ngl;
      load_mark = log_len;
      long long before = device_free();
      struct llama_model_params mp = llama_model_default_params();
      mp.n_gpu_layers = ngl < 0 ? 999 : ngl;
      model = llama_model_load_from_file(path, mp);
      load_bytes = before - device_free();
      load_end = log_len;
    }
    size_t ctx_mark = log_len;
    int ok = 0;
    long long ctx_bytes = 0;
    if (model) {
      struct llama_context_params cp = llama_context_default_params();
      cp.n_ctx = n_ctx;
      cp.n_batch = (uint32_t)n_batch;
      cp.n_ubatch = (uint32_t)n_ubatch;
      cp.n_seq_max = (uint32_t)n_seq;
      cp.flash_attn_type = fa < 0 ? LLAMA_FLASH_ATTN_TYPE_AUTO
                                  : fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
      cp.type_k = type_named(tk);
      cp.type_v = type_named(tv);
      cp.kv_unified = unified != 0;
      cp.swa_full = swa_full != 0;
      cp.n_threads = cp.n_threads_batch = 4;
      long long before = device_free();
      struct llama_context *ctx = llama_init_from_model(model, cp);
      ctx_bytes = before - device_free();
      ok = ctx != NULL;
      if (ctx) llama_free(ctx);
    }
    printf("{\"model\":");
    put_json_string(path, strlen(path));
    printf(",\"ngl\":%d,\"n_ctx\":%u,\"type_k\":\"%s\",\"type_v\":\"%s\",\"fa\":%d,\"n_seq\":%d,"
           "\"n_ubatch\":%d,\"n_batch\":%d,\"kv_unified\":%d,\"swa_full\":%d,\"loaded\":%s,\"context\":%s,"
           "\"device_bytes\":{\"load\":%lld,\"context\":%lld}",
           ngl, n_ctx, tk, tv, fa, n_seq, n_ubatch, n_batch, unified, swa_full, model ? "true" : "false",
           ok ? "true" : "false", new_load ? load_bytes : 0, ctx_bytes);
    if (new_load || first) {
      printf(",\"load_log\":");
      size_t save = log_len;
      log_len = load_end;
      put_log(load_mark);
      log_len = save;
    }
    printf(",\"context_log\":");
    put_log(ctx_mark);
    printf("}\n");
    fflush(stdout);
    first = 0;
    /* keep the buffer from filling over many settings */
    if (log_len > MAX_LOG / 2) {
      log_len = 0;
      load_mark = load_end = 0;
    }
  }
  if (model) llama_model_free(model);
  printf("{\"system_info\":");
  const char *si = llama_print_system_info();
  put_json_string(si, strlen(si));
  printf("}\n");
  return 0;
}
