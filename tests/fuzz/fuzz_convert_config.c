/*
** fuzz_convert_config.c: libFuzzer target for what gguf_convert() reads
** from a checkpoint's small files: config.json (ext/convert/config_values.c,
** plan.c's cv_dims_read, hparams.c, arch.c's generated tensors),
** generation_config.json and the folder's name (general.c), run in
** convert.c's order on a checkpoint of made-up tensors (names and shapes
** only, no data) through cv_plan_build(), then encoded as a GGUF header.
**
** The input: a byte choosing the architecture (low three bits), the
** output type (next two) and the tensors' dtype (top two); a byte that,
** when not zero, picks a tensor whose first dimension is made one larger;
** then config.json, generation_config.json, the folder's name and a
** general.name, separated by the bytes FF FE FD (a part left out is
** absent; an empty folder name is "model").
**
** Checks, besides the sanitizers: every failure has a message; the
** tensors config.json describes (the harness's own table of each
** architecture's names and shapes) are accepted, except llama's q/k when
** a head has an odd number of rows (the permutation's rule), and the one
** made a row larger is refused and is the one named; each output tensor
** has its type by the converter's rule (F32 for one dimension and norms,
** Q8_0 falling back to F16 for rows not a multiple of 32), its shape
** reversed, its size in bytes, and q/k reordered exactly for llama's; the
** parameter count is the sum of the elements; the metadata starts
** general.architecture (the GGUF name), every key is general.* or the
** architecture's and appears once, every value is well formed
** (gw_value_check), every string valid UTF-8, no FLOAT32 a NaN, and a
** config without alternative keys gives block_count, embedding_length,
** head_count and feed_forward_length the dimensions cv_dims_read read; the
** header written from the list and the plan parses back (strict parser)
** with every key, type and value and every tensor's name, type and
** shape; the folder's name through id_to_title keeps its words (compared
** case-insensitively) with single spaces and no '-', and through
** get_model_id_components keeps the organisation before the first '/' and
** the basename's and version's parts as parts of the id.  Built by `make
** fuzz`.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "convert/arch.h"
#include "convert/config_values.h"
#include "convert/general.h"
#include "convert/kv_list.h"
#include "convert/numbers.h"
#include "convert/plan.h"
#include "formats/gguf_parser.h"
#include "formats/gguf_value.h"
#include "formats/hf_config.h"
#include "write/gguf_writer.h"

#define MAX_T 40

static const char *const ARCHS[] = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                    "Qwen3ForCausalLM", "GemmaForCausalLM",   "Gemma2ForCausalLM",
                                    "Phi3ForCausalLM",  "LLaMAForCausalLM"};
static const char *const DTYPES[] = {"F32", "F16", "BF16", "F64"};
static const int FTYPES[] = {CV_FTYPE_F32, CV_FTYPE_F16, CV_FTYPE_Q8_0, CV_FTYPE_BF16};

/* The made-up checkpoint: names, shapes (HF order), what the harness
** expects of each. */
typedef struct fz_ck {
  char name[MAX_T][64];
  char gguf[MAX_T][64]; /* the GGUF name (gguf-py's TensorNameMap) */
  uint64_t dims[MAX_T][2];
  int ndim[MAX_T];
  int permuted[MAX_T]; /* q/k of llama */
  size_t n;
  wt_tensor t[MAX_T];
  cv_in in[MAX_T];
} fz_ck;

static void add(fz_ck *c, const char *name, const char *gguf, unsigned __int128 rows,
                unsigned __int128 cols, int permuted, int *big) {
  size_t i = c->n++;
  if (rows == 0 || rows > ((uint64_t)1 << 40) || cols > ((uint64_t)1 << 40) ||
      rows * (cols ? cols : 1) > ((uint64_t)1 << 40))
    *big = 1;
  snprintf(c->name[i], sizeof(c->name[i]), "%s", name);
  snprintf(c->gguf[i], sizeof(c->gguf[i]), "%s", gguf);
  c->dims[i][0] = (uint64_t)rows;
  c->dims[i][1] = (uint64_t)cols;
  c->ndim[i] = cols ? 2 : 1;
  c->permuted[i] = permuted;
}

/* The tensors of layers 0 and 1 (or 0) of a checkpoint of arch with
** dimensions d, in name order as the converter reads them: 0, or 1 when a
** shape is too large to be a tensor of a real file. */
static int made_up(fz_ck *c, const char *arch, const cv_dims *d, const char *dtype) {
  unsigned __int128 hd = d->head_dim, q = d->n_head * hd, kv = d->n_head_kv * hd;
  int big = 0, llama = strcmp(arch, "llama") == 0, phi3 = strcmp(arch, "phi3") == 0;
  char n[64], g[64];
  c->n = 0;
  if (phi3) /* its head_dim is hidden_size / num_attention_heads, whatever head_dim says */
    q = d->n_embd / d->n_head * d->n_head, kv = d->n_embd / d->n_head * d->n_head_kv;
  add(c, "lm_head.weight", "output.weight", d->n_vocab, d->n_embd, 0, &big);
  add(c, "model.embed_tokens.weight", "token_embd.weight", d->n_vocab, d->n_embd, 0, &big);
  for (uint64_t l = 0; l < d->n_layer && l < 2; l++) {
#define T(suffix, stem, r, k, p)                                                                   \
  (snprintf(n, sizeof(n), "model.layers.%llu.%s", (unsigned long long)l, suffix),                  \
   snprintf(g, sizeof(g), "blk.%llu.%s", (unsigned long long)l, stem),                             \
   add(c, n, g, r, k, p, &big))
    T("input_layernorm.weight", "attn_norm.weight", d->n_embd, 0, 0);
    if (phi3) {
      T("mlp.down_proj.weight", "ffn_down.weight", d->n_embd, d->n_ff, 0);
      T("mlp.gate_up_proj.weight", "ffn_up.weight", 2 * (unsigned __int128)d->n_ff, d->n_embd, 0);
    } else {
      T("mlp.down_proj.weight", "ffn_down.weight", d->n_embd, d->n_ff, 0);
      T("mlp.gate_proj.weight", "ffn_gate.weight", d->n_ff, d->n_embd, 0);
      T("mlp.up_proj.weight", "ffn_up.weight", d->n_ff, d->n_embd, 0);
    }
    T("post_attention_layernorm.weight",
      strcmp(arch, "gemma2") == 0 ? "post_attention_norm.weight" : "ffn_norm.weight", d->n_embd, 0,
      0);
    if (strcmp(arch, "gemma2") == 0) {
      T("post_feedforward_layernorm.weight", "post_ffw_norm.weight", d->n_embd, 0, 0);
      T("pre_feedforward_layernorm.weight", "ffn_norm.weight", d->n_embd, 0, 0);
    }
    if (phi3) {
      T("self_attn.o_proj.weight", "attn_output.weight", d->n_embd, q, 0);
      T("self_attn.qkv_proj.weight", "attn_qkv.weight", q + 2 * kv, d->n_embd, 0);
    } else {
      if (strcmp(arch, "qwen2") == 0)
        T("self_attn.k_proj.bias", "attn_k.bias", kv, 0, 0);
      if (strcmp(arch, "qwen3") == 0)
        T("self_attn.k_norm.weight", "attn_k_norm.weight", hd, 0, 0);
      T("self_attn.k_proj.weight", "attn_k.weight", kv, d->n_embd, llama);
      T("self_attn.o_proj.weight", "attn_output.weight", d->n_embd, q, 0);
      if (strcmp(arch, "qwen2") == 0)
        T("self_attn.q_proj.bias", "attn_q.bias", q, 0, 0);
      if (strcmp(arch, "qwen3") == 0)
        T("self_attn.q_norm.weight", "attn_q_norm.weight", hd, 0, 0);
      T("self_attn.q_proj.weight", "attn_q.weight", q, d->n_embd, llama);
      if (strcmp(arch, "qwen2") == 0)
        T("self_attn.v_proj.bias", "attn_v.bias", kv, 0, 0);
      T("self_attn.v_proj.weight", "attn_v.weight", kv, d->n_embd, 0);
    }
#undef T
  }
  add(c, "model.norm.weight", "output_norm.weight", d->n_embd, 0, 0, &big);
  for (size_t i = 0; i < c->n; i++) {
    c->t[i] = (wt_tensor){{c->name[i], strlen(c->name[i])},
                          {dtype, strlen(dtype)},
                          0,
                          c->ndim[i],
                          c->dims[i],
                          0,
                          0,
                          0,
                          0,
                          0,
                          1};
    c->in[i] = (cv_in){NULL, &c->t[i]};
  }
  return big;
}

/* The ggml type and bytes the converter gives a tensor. */
static uint32_t want_type(int ftype, const char *gguf, int ndim, uint64_t ne0) {
  size_t n = strlen(gguf);
  if (ndim == 1 || (n > 12 && !strcmp(gguf + n - 12, "_norm.weight")) || ftype == CV_FTYPE_F32)
    return CV_GGML_F32;
  if (ftype == CV_FTYPE_BF16)
    return CV_GGML_BF16;
  return ftype == CV_FTYPE_Q8_0 && ne0 % 32 == 0 ? CV_GGML_Q8_0 : CV_GGML_F16;
}

static void check_plan(const cv_arch *a, const cv_dims *d, int ftype, const fz_ck *c,
                       size_t skip_lm, const cv_extra *x, size_t n_x, const cv_plan *p) {
  unsigned __int128 total = 0;
  size_t k = 0;
  if (p->n != c->n - skip_lm + n_x)
    abort();
  for (size_t i = 0; i < p->n; i++) {
    const cv_out_tensor *o = &p->t[i];
    uint64_t ne[2], numel;
    int ndim;
    if (i < n_x) {
      ne[0] = x[i].n, ndim = 1;
      if (strcmp(o->name, x[i].name) != 0)
        abort();
    } else {
      k = i - n_x + skip_lm;
      ndim = c->ndim[k];
      ne[0] = c->dims[k][ndim - 1], ne[1] = c->dims[k][0];
      if ((o->heads > 0) != c->permuted[k] || o->in != &c->in[k] || strcmp(o->name, c->gguf[k]))
        abort();
      if (o->heads > 0 && o->heads != (strstr(c->name[k], "q_proj") ? d->n_head : d->n_head_kv))
        abort();
    }
    numel = ne[0] * (ndim == 2 ? ne[1] : 1);
    total += numel;
    if (o->ndim != ndim || o->ne[0] != ne[0] || (ndim == 2 && o->ne[1] != ne[1]) ||
        o->type != want_type(ftype, o->name, ndim, ne[0]))
      abort();
    if (o->nbytes != (o->type == CV_GGML_F32    ? 4 * numel
                      : o->type == CV_GGML_Q8_0 ? numel / 32 * 34
                                                : 2 * numel))
      abort();
    if (o->plus_one != ((a->rules & CV_RULE_NORM_PLUS_ONE) && strstr(o->name, "norm.weight")))
      abort();
  }
  if (total != p->total_params)
    abort();
}

/* The entries: keys, values, strings and floats (see the comment above). */
static void check_kv(const cv_kv_list *l, const char *arch) {
  size_t al = strlen(arch);
  for (size_t i = 0; i < l->n; i++) {
    const cv_kv_entry *e = &l->e[i];
    char key[256];
    const unsigned char *v = (const unsigned char *)l->bytes.p + e->val_off;
    wt_error err;
    if (e->key_len >= sizeof(key) || gw_value_check(e->type, v, e->val_len, &err) != 0)
      abort();
    memcpy(key, l->bytes.p + e->key_off, e->key_len);
    key[e->key_len] = 0;
    if (i == 0 && strcmp(key, "general.architecture") != 0)
      abort();
    if (strncmp(key, "general.", 8) != 0 && (strncmp(key, arch, al) != 0 || key[al] != '.'))
      abort();
    for (size_t j = 0; j < i; j++)
      if (l->e[j].key_len == e->key_len &&
          memcmp(l->bytes.p + l->e[j].key_off, key, e->key_len) == 0)
        abort();
    if (e->type == GGUF_TYPE_STRING && !wt_utf8_valid((const char *)v + 8, e->val_len - 8))
      abort();
    if (e->type == GGUF_TYPE_FLOAT32) {
      float f;
      memcpy(&f, v, 4);
      if (isnan(f)) /* inf is what Python makes of 1e400, and packs */
        abort();
    }
  }
  if (l->n == 0)
    abort();
}

/* A UINT32 entry's value, or -1 when absent. */
static int64_t kv_u32(const cv_kv_list *l, const char *arch, const char *what) {
  char key[96];
  snprintf(key, sizeof(key), "%s.%s", arch, what);
  const cv_kv_entry *e = cv_kv_find(l, key);
  if (e == NULL || e->type != GGUF_TYPE_UINT32)
    return -1;
  const unsigned char *v = (const unsigned char *)l->bytes.p + e->val_off;
  return (int64_t)(v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24);
}

static void check_dims_keys(const cv_kv_list *l, const wt_config *cfg, const char *arch,
                            const cv_dims *d) {
  static const char *const alt[] = {"n_layers",
                                    "n_layer",
                                    "num_layers",
                                    "n_embd",
                                    "dim",
                                    "n_head",
                                    "n_heads",
                                    "n_inner",
                                    "n_head_kv",
                                    "n_kv_heads",
                                    "prefix_dense_intermediate_size"};
  const struct {
    const char *key;
    uint64_t v;
  } want[] = {{"block_count", d->n_layer},
              {"embedding_length", d->n_embd},
              {"attention.head_count", d->n_head},
              {"feed_forward_length", d->n_ff}};
  for (size_t i = 0; i < sizeof(alt) / sizeof(alt[0]); i++)
    if (cv_cfg_find(cfg, alt[i]) != NULL)
      return;
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    int64_t v = kv_u32(l, arch, want[i].key);
    if (v >= 0 && (uint64_t)v != want[i].v) {
      fprintf(stderr, "%s.%s is %lld, config.json's %llu\n", arch, want[i].key, (long long)v,
              (unsigned long long)want[i].v);
      abort();
    }
  }
}

/* The header from the list and the plan, parsed back. */
static void check_header(const cv_kv_list *l, const cv_plan *p) {
  gw_kv *kv = cv_kv_list_gw(l);
  gw_tensor *t = calloc(p->n + 1, sizeof(*t));
  wt_buf hdr = {0};
  uint64_t align, data_size, need;
  wt_model m;
  wt_error err;
  if (kv == NULL || t == NULL)
    abort();
  for (size_t i = 0; i < p->n; i++) {
    t[i] = (gw_tensor){{p->t[i].name, strlen(p->t[i].name)},
                       p->t[i].type,
                       p->t[i].ndim,
                       {p->t[i].ne[0], p->t[i].ne[1], p->t[i].ne[2], p->t[i].ne[3]},
                       0,
                       0};
  }
  if (gguf_write_header(kv, l->n, t, p->n, &hdr, &align, &data_size, &err) != 0)
    abort(); /* every value was checked above, every shape is a real one */
  if (gguf_parse_prefix((const unsigned char *)hdr.p, hdr.n, hdr.n + data_size, &m, &need, &err) !=
          0 ||
      m.n_meta != l->n || m.n_tensors != p->n)
    abort();
  for (size_t i = 0; i < l->n; i++) {
    const wt_meta *z = &m.meta[i];
    const cv_kv_entry *e = &l->e[i];
    uint64_t vlen = z->value_len + (z->type == GGUF_TYPE_ARRAY ? 12 : 0);
    uint64_t vpos = z->value_pos - (z->type == GGUF_TYPE_ARRAY ? 12 : 0);
    if (z->key.n != e->key_len || memcmp(z->key.p, l->bytes.p + e->key_off, e->key_len) ||
        z->type != e->type || vlen != e->val_len ||
        memcmp(hdr.p + vpos, l->bytes.p + e->val_off, e->val_len) != 0)
      abort();
  }
  for (size_t i = 0; i < p->n; i++) {
    const wt_tensor *s = &m.tensors[i];
    if (s->name.n != strlen(p->t[i].name) || memcmp(s->name.p, p->t[i].name, s->name.n) ||
        s->type_id != p->t[i].type || s->ndim != p->t[i].ndim || s->nbytes != p->t[i].nbytes)
      abort();
    for (int k = 0; k < s->ndim; k++)
      if (s->dims[k] != p->t[i].ne[k])
        abort();
  }
  wt_model_free(&m);
  free(hdr.p);
  free(kv);
  free(t);
}

/* id_to_title and get_model_id_components of the folder's name. */
static void check_names(const char *s, uint64_t total) {
  char *t = cv_id_to_title(s), *w = malloc(strlen(s) + 2);
  size_t m = 0;
  cv_model_id id;
  if (t == NULL || w == NULL)
    abort();
  for (const char *p = s; *p;) { /* the words, single-spaced */
    while (*p == '-' || *p == ' ' || (*p >= '\t' && *p <= '\r'))
      p++;
    if (*p && m)
      w[m++] = ' ';
    while (*p && *p != '-' && *p != ' ' && !(*p >= '\t' && *p <= '\r'))
      w[m++] = *p++;
  }
  w[m] = 0;
  if (strcasecmp(t, w) != 0)
    abort();
  free(t);
  free(w);
  if (cv_model_id_parse(s, total, &id) != 0)
    abort();
  if (strchr(s, ' ') == NULL) {
    const char *slash = strchr(s, '/');
    if (id.org != NULL &&
        (slash == NULL || strncmp(s, id.org, strlen(id.org)) || s + strlen(id.org) != slash))
      abort();
    if (id.full == NULL || strcmp(id.full, slash ? slash + 1 : s) != 0)
      abort();
    char *const joined[] = {id.basename, id.version};
    for (int j = 0; j < 2; j++) { /* each '-' part one of the id's */
      for (char *p = joined[j]; p != NULL && *p;) {
        size_t len = strcspn(p, "-");
        int found = 0;
        for (const char *q = id.full; *q && !found;) {
          size_t ql = strcspn(q, "-");
          found = ql == len && memcmp(p, q, len) == 0;
          q += ql + (q[ql] == '-');
        }
        if (!found)
          abort();
        p += len + (p[len] == '-');
      }
    }
  } else if (id.full == NULL || strcmp(id.full, s) != 0) {
    abort();
  }
  cv_model_id_free(&id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *part[4] = {NULL, NULL, NULL, NULL};
  size_t len[4] = {0, 0, 0, 0}, np = 0, off = 2, skip_lm;
  char *buf, *folder, *name = NULL;
  const cv_arch *a;
  wt_config cfg;
  wt_error err;
  cv_dims d;
  cv_extra x[CV_MAX_EXTRAS];
  size_t n_x = 0, bad;
  cv_plan p;
  cv_kv_list kv;
  fz_ck *c;
  int ftype, rc;
  if (size < 2)
    return 0;
  buf = malloc(size);
  memcpy(buf, data, size);
  while (np < 4) { /* the parts, each NUL-terminated in place of its separator */
    size_t i = off;
    while (i + 3 <= size && memcmp(buf + i, "\xff\xfe\xfd", 3) != 0)
      i++;
    if (i + 3 > size)
      i = size;
    part[np] = buf + off;
    len[np++] = i - off;
    if (i == size)
      break;
    buf[i] = 0;
    off = i + 3;
  }
  a = cv_arch_find(ARCHS[data[0] & 7]);
  ftype = FTYPES[(data[0] >> 3) & 3];
  folder = strndup(part[2] && len[2] ? part[2] : "model", part[2] && len[2] ? len[2] : 5);
  if (part[3])
    name = strndup(part[3], len[3]);
  check_names(folder, (uint64_t)data[1] << (data[1] & 63));
  if (cv_config_parse(part[0], len[0], &cfg, &err) != 0) {
    free(buf), free(folder), free(name);
    return 0;
  }
  memset(&kv, 0, sizeof(kv));
  kv.replace = a->converter == CV_CONV_DE3FF815;
  c = calloc(1, sizeof(*c));
  cv_hp hp = {&cfg, a->gguf, (uint32_t)ftype, &kv};
  err.msg[0] = 0;
  if (cv_dims_read(a, &cfg, &d, &err) != 0) {
    if (!err.msg[0])
      abort();
    goto done;
  }
  if (cv_kv_str(&kv, "general.architecture", a->gguf, &err) != 0)
    abort();
  if (a->extras != NULL && a->extras(&hp, x, &n_x, &err) != 0) {
    if (!err.msg[0])
      abort();
    goto done;
  }
  if (n_x > CV_MAX_EXTRAS || made_up(c, a->gguf, &d, DTYPES[data[0] >> 6]))
    goto done;
  if (data[1] != 0) /* one tensor a row larger: refused, and the one named */
    c->dims[data[1] % c->n][0]++;
  skip_lm = (a->rules & CV_RULE_SKIP_LM_HEAD) ? 1 : 0;
  rc = cv_plan_build(a, &d, ftype, c->in, c->n, x, n_x, &p, &bad, &err);
  {
    int odd = !strcmp(a->gguf, "llama") && (d.head_dim & 1);
    size_t first_qk = c->n;
    for (size_t i = 0; i < c->n && first_qk == c->n; i++)
      if (c->permuted[i])
        first_qk = i;
    if (data[1] != 0 && !(skip_lm && data[1] % c->n == 0)) {
      size_t k = data[1] % c->n;
      if (rc == 0 || !err.msg[0] || (bad != k && !(odd && first_qk < k && bad == first_qk)))
        abort();
      goto done;
    }
    if (odd && first_qk < c->n) {
      if (rc == 0 || bad != first_qk)
        abort();
      goto done;
    }
    if (rc != 0)
      abort();
  }
  check_plan(a, &d, ftype, c, skip_lm, x, n_x, &p);
  cv_naming nm = {
      folder, &cfg, name, p.total_params, part[1], len[1], a->converter == CV_CONV_DE3FF815};
  err.msg[0] = 0;
  rc = cv_general_meta(&kv, &nm, &err);
  if (rc == 0)
    rc = a->hparams(&hp, &err);
  if (rc != 0) {
    if (!err.msg[0])
      abort();
  } else {
    check_kv(&kv, a->gguf);
    check_dims_keys(&kv, &cfg, a->gguf, &d);
    check_header(&kv, &p);
  }
  cv_plan_free(&p);
done:
  cv_extras_free(x, n_x);
  cv_kv_list_free(&kv);
  wt_config_free(&cfg);
  free(c);
  free(buf);
  free(folder);
  free(name);
  return 0;
}
