/*
** vocab_test.c: unit tests of the converter's vocabulary code
** (ext/convert/vocab*.c), linked without SQLite.
**
**   vocab_test                       the built-in cases: tokenizer files
**                                    written here, expectations worked out
**                                    by hand from the converter's code
**   vocab_test --compare ARCH DIR REF.gguf [KEY...]
**                                    convert DIR's tokenizer files for ARCH
**                                    and compare with REF, a GGUF that
**                                    llama.cpp's converter wrote: with no
**                                    KEY, every tokenizer.* entry of either
**                                    must be in both, with the same type and
**                                    value bytes, in the same order; with
**                                    KEYs, those keys only, in either or in
**                                    none (llama.cpp's own
**                                    ggml-vocab-*.gguf are older than the
**                                    converter and lack some keys); KEY:N
**                                    compares an array's first N elements
**   vocab_test --dump ARCH DIR       print what is written, one entry a line
**                                    (tokens one a line, as JSON-ish text)
**   vocab_test --digest DIR          the pre-tokenizer digest of DIR's
**                                    tokenizer.json (vocab_pre.c's table)
**   vocab_test --fail ARCH DIR TEXT  the conversion must fail with a message
**                                    containing TEXT
**
** Exit status 0 when every check passed.  The last line printed is
** "vocab_test: N passed, M failed".
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/vocab.h"
#include "convert/vocab_int.h"
#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"
#include "write/write_buf.h"

#include "check.h"

/* ---- a sink that keeps what it is given --------------------------------- */

typedef struct entry {
  char *key;
  uint32_t type;
  unsigned char *val;
  size_t n;
} entry;

typedef struct keep {
  entry *e;
  size_t n, cap;
} keep;

static int keep_add(void *ctx, const char *key, uint32_t type, const unsigned char *val, size_t n,
                    wt_error *err) {
  keep *k = ctx;
  for (size_t i = 0; i < k->n; i++)
    if (strcmp(k->e[i].key, key) == 0)
      return wt_fail(err, "sink: %s given twice", key);
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 16;
    k->e = realloc(k->e, k->cap * sizeof(*k->e));
  }
  k->e[k->n].key = strdup(key);
  k->e[k->n].type = type;
  k->e[k->n].val = malloc(n ? n : 1);
  memcpy(k->e[k->n].val, val, n);
  k->e[k->n].n = n;
  k->n++;
  return 0;
}

static void keep_free(keep *k) {
  for (size_t i = 0; i < k->n; i++) {
    free(k->e[i].key);
    free(k->e[i].val);
  }
  free(k->e);
  memset(k, 0, sizeof(*k));
}

static const entry *keep_get(const keep *k, const char *key) {
  for (size_t i = 0; i < k->n; i++)
    if (strcmp(k->e[i].key, key) == 0)
      return &k->e[i];
  return NULL;
}

/* ---- files -------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
  if (p && len > 0 && fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *n = len > 0 ? (size_t)len : 0;
  return p;
}

/* Read every file the architecture wants from dir. */
static void load_dir(const char *arch, const char *dir, cv_vocab_files *f) {
  memset(f, 0, sizeof(*f));
  f->dir_name = dir;
  unsigned want = cv_vocab_files_wanted(arch);
  cv_file_bytes *slot[] = {
      &f->tokenizer_model, &f->tokenizer_json, &f->tokenizer_config,    &f->added_tokens,
      &f->config,          &f->merges_txt,     &f->chat_template_jinja, &f->chat_template_json};
  for (unsigned i = 0; i < 8; i++) {
    if (!(want & (1u << i)))
      continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, cv_vocab_file_name(1u << i));
    slot[i]->p = slurp(path, &slot[i]->n);
  }
}

static void free_files(cv_vocab_files *f) {
  free((void *)f->tokenizer_model.p);
  free((void *)f->tokenizer_json.p);
  free((void *)f->tokenizer_config.p);
  free((void *)f->added_tokens.p);
  free((void *)f->config.p);
  free((void *)f->merges_txt.p);
  free((void *)f->chat_template_jinja.p);
  free((void *)f->chat_template_json.p);
}

static int run(const char *arch, const cv_vocab_files *f, uint64_t n_vocab, keep *k,
               cv_vocab_info *info, wt_error *err) {
  cv_kv_sink sink = {k, keep_add};
  memset(k, 0, sizeof(*k));
  return cv_vocab_write(arch, f, n_vocab, &sink, info, err);
}

/* ---- --compare ---------------------------------------------------------- */

static int is_vocab_key(const char *k, size_t n) {
  return n >= 10 && memcmp(k, "tokenizer.", 10) == 0;
}

/* The value bytes of a parsed GGUF entry, after the type tag. */
static void ref_value(const unsigned char *data, const wt_meta *m, const unsigned char **p,
                      size_t *n) {
  uint64_t start = m->type == GGUF_TYPE_ARRAY ? m->value_pos - 12 : m->value_pos;
  *p = data + start;
  *n = (size_t)(m->value_pos + m->value_len - start);
}

static uint64_t rd64(const unsigned char *p);
static uint32_t rd32(const unsigned char *p);

/* The bytes an array value's first n elements end at (0: fewer). */
static size_t array_prefix(const unsigned char *v, size_t len, uint64_t n) {
  uint32_t et = rd32(v);
  size_t o = 12;
  if (rd64(v + 4) < n)
    return 0;
  for (uint64_t i = 0; i < n && o < len; i++)
    o += et == GGUF_TYPE_STRING ? 8 + rd64(v + o) : 4;
  return o;
}

static int compare(int argc, char **argv) {
  const char *arch = argv[2], *dir = argv[3], *ref = argv[4];
  cv_vocab_files f;
  keep k;
  wt_error err;
  size_t rn;
  unsigned char *data = slurp(ref, &rn);
  wt_model m;
  if (!data || gguf_parse(data, rn, &m, &err) != 0) {
    printf("FAIL: cannot read %s\n", ref);
    return 1;
  }
  load_dir(arch, dir, &f);
  uint64_t n_vocab = 0;
  for (size_t i = 0; i < m.n_meta; i++)
    if (m.meta[i].key.n == 21 && memcmp(m.meta[i].key.p, "tokenizer.ggml.tokens", 21) == 0)
      n_vocab = m.meta[i].count;
  if (run(arch, &f, 0, &k, NULL, &err) != 0) {
    printf("FAIL %s %s: %s\n", arch, dir, err.msg);
    failed++;
  } else {
    size_t last = 0; /* the order: each key of ours found after the last one */
    for (size_t i = 0; i < k.n; i++) {
      const char *key = k.e[i].key;
      int wanted = argc <= 5;
      uint64_t prefix = 0;
      for (int a = 5; a < argc; a++) {
        size_t kl = strlen(key);
        if (strncmp(argv[a], key, kl) == 0 && (argv[a][kl] == 0 || argv[a][kl] == ':')) {
          wanted = 1;
          if (argv[a][kl] == ':')
            prefix = strtoull(argv[a] + kl + 1, NULL, 10);
        }
      }
      if (!wanted)
        continue;
      size_t j;
      for (j = 0; j < m.n_meta; j++)
        if (m.meta[j].key.n == strlen(key) && memcmp(m.meta[j].key.p, key, m.meta[j].key.n) == 0)
          break;
      CHECK(j < m.n_meta, "%s: we write %s, the converter does not", ref, key);
      if (j == m.n_meta)
        continue;
      const unsigned char *p;
      size_t n;
      ref_value(data, &m.meta[j], &p, &n);
      CHECK(m.meta[j].type == k.e[i].type, "%s: %s has type %u, the converter's %u", ref, key,
            k.e[i].type, m.meta[j].type);
      if (prefix) { /* the first elements only: their bytes after the count */
        size_t a = array_prefix(k.e[i].val, k.e[i].n, prefix), b = array_prefix(p, n, prefix);
        CHECK(a && a == b && memcmp(k.e[i].val + 12, p + 12, a - 12) == 0,
              "%s: the first %llu of %s differ", ref, (unsigned long long)prefix, key);
        continue;
      }
      int same = n == k.e[i].n && memcmp(p, k.e[i].val, n) == 0;
      size_t at = 0;
      while (!same && at < n && at < k.e[i].n && p[at] == k.e[i].val[at])
        at++;
      CHECK(same,
            "%s: %s differs from the converter's (%zu bytes against %zu, first difference at byte "
            "%zu)",
            ref, key, k.e[i].n, n, at);
      CHECK(argc > 5 || j >= last, "%s: %s is out of the converter's order", ref, key);
      last = j;
    }
    for (size_t j = 0; argc <= 5 && j < m.n_meta; j++) {
      if (!is_vocab_key(m.meta[j].key.p, m.meta[j].key.n))
        continue;
      char key[256];
      snprintf(key, sizeof(key), "%.*s", (int)m.meta[j].key.n, m.meta[j].key.p);
      CHECK(keep_get(&k, key), "%s: the converter writes %s, we do not", ref, key);
    }
    for (int a = 5; a < argc; a++) {
      char key[256];
      snprintf(key, sizeof(key), "%s", argv[a]);
      if (strchr(key, ':'))
        *strchr(key, ':') = 0;
      int in_ref = 0;
      for (size_t j = 0; j < m.n_meta; j++)
        if (m.meta[j].key.n == strlen(key) && memcmp(m.meta[j].key.p, key, m.meta[j].key.n) == 0)
          in_ref = 1;
      CHECK(keep_get(&k, key) || !in_ref, "%s: the converter writes %s, we do not", ref, key);
    }
    (void)n_vocab;
  }
  keep_free(&k);
  free_files(&f);
  wt_model_free(&m);
  free(data);
  return 0;
}

/* ---- --dump ------------------------------------------------------------- */

static void print_str(const unsigned char *p, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned c = p[i];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      printf("\\u%04x", c);
    else
      putchar((int)c);
  }
  putchar('"');
}

static uint64_t rd64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One value: scalars and strings on the line, arrays one element a line. */
static void print_value(uint32_t type, const unsigned char *p, size_t n) {
  size_t o = 0;
  if (type == GGUF_TYPE_STRING) {
    print_str(p + 8, rd64(p));
  } else if (type == GGUF_TYPE_UINT32) {
    printf("%u", rd32(p));
  } else if (type == GGUF_TYPE_BOOL) {
    printf("%s", p[0] ? "true" : "false");
  } else if (type == GGUF_TYPE_ARRAY) {
    uint32_t et = rd32(p);
    uint64_t count = rd64(p + 4);
    o = 12;
    printf("[%llu]", (unsigned long long)count);
    for (uint64_t i = 0; i < count && o < n; i++) {
      printf("\n  %llu ", (unsigned long long)i);
      if (et == GGUF_TYPE_STRING) {
        uint64_t len = rd64(p + o);
        print_str(p + o + 8, len);
        o += 8 + len;
      } else if (et == GGUF_TYPE_INT32) {
        printf("%d", (int32_t)rd32(p + o));
        o += 4;
      } else if (et == GGUF_TYPE_FLOAT32) {
        uint32_t u = rd32(p + o);
        float x;
        memcpy(&x, &u, 4);
        printf("%.9g", x);
        o += 4;
      } else {
        printf("?");
        break;
      }
    }
  }
  putchar('\n');
}

static int dump(const char *arch, const char *dir) {
  cv_vocab_files f;
  keep k;
  wt_error err;
  cv_vocab_info info;
  load_dir(arch, dir, &f);
  int rc = run(arch, &f, 0, &k, &info, &err);
  if (rc != 0) {
    printf("error: %s\n", err.msg);
  } else {
    printf("# %s (llama.cpp %s), %llu tokens, %llu merges, pre %s\n", info.recipe, info.llama_cpp,
           (unsigned long long)info.n_tokens, (unsigned long long)info.n_merges, info.pre);
    for (size_t i = 0; i < k.n; i++) {
      printf("%s %s ", k.e[i].key, gguf_type_name(k.e[i].type));
      print_value(k.e[i].type, k.e[i].val, k.e[i].n);
    }
  }
  keep_free(&k);
  free_files(&f);
  return rc ? 1 : 0;
}

/* ---- --digest ----------------------------------------------------------- */

static int digest(const char *dir) {
  cv_vocab_files f;
  keep k;
  wt_error err;
  load_dir("Qwen2ForCausalLM", dir, &f);
  free((void *)f.tokenizer_model.p);
  f.tokenizer_model.p = NULL;
  int rc = run("Qwen2ForCausalLM", &f, 0, &k, NULL, &err);
  printf("%s\n", rc ? err.msg : "named: no digest printed (the table knows it)");
  keep_free(&k);
  free_files(&f);
  return 0;
}

static int expect_fail(const char *arch, const char *dir, const char *text) {
  cv_vocab_files f;
  keep k;
  wt_error err;
  load_dir(arch, dir, &f);
  int rc = run(arch, &f, 0, &k, NULL, &err);
  CHECK(rc != 0, "%s %s: converted, but should fail with '%s'", arch, dir, text);
  if (rc != 0)
    CHECK(strstr(err.msg, text) != NULL, "%s %s: error '%s' lacks '%s'", arch, dir, err.msg, text);
  CHECK(rc != 0 ? k.n == 0 : 1, "%s %s: the sink got entries before the error", arch, dir);
  keep_free(&k);
  free_files(&f);
  return 0;
}

#include "vocab_test_cases.h"

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "--compare") == 0)
    compare(argc, argv);
  else if (argc == 4 && strcmp(argv[1], "--dump") == 0)
    return dump(argv[2], argv[3]);
  else if (argc == 3 && strcmp(argv[1], "--digest") == 0)
    return digest(argv[2]);
  else if (argc == 5 && strcmp(argv[1], "--fail") == 0)
    expect_fail(argv[2], argv[3], argv[4]);
  else if (argc == 1)
    builtin_cases();
  else {
    fprintf(stderr, "usage: vocab_test [--compare ARCH DIR REF.gguf [KEY...] | --dump ARCH DIR | "
                    "--digest DIR | "
                    "--fail ARCH DIR TEXT]\n");
    return 2;
  }
  printf("vocab_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
