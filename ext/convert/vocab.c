/*
** vocab.c: cv_vocab_write(), the vocabulary recipes of llama.cpp's
** converter, one per architecture (vocab.h has the API).
** Layer: convert (pure C; uses write/, formats/, base/).
**
** The recipes, as each model class's set_vocab() runs them:
**
**   LlamaForCausalLM, MistralForCausalLM (LlamaModel, c392e50's
**   convert_hf_to_gguf.py): tokenizer.model's SentencePiece vocabulary; or,
**   without one, tokenizer.json: a SentencePiece-style BPE (byte_fallback,
**   a Sequence decoder) is LlamaHfVocab's, which needs transformers' own
**   reading and is refused here; anything else is byte-level BPE
**   (_set_vocab_gpt2, Llama 3).  Then CodeLlama's FIM tokens when
**   vocab_size is 32016 (only eot has a key: 32010), then
**   tokenizer_config.json's add_prefix_space as add_space_prefix, then
**   add_bos_token false when vocab_size is 49152 (the converter's rule for
**   granite's small models, which SmolLM's vocabulary size meets too).
**   (de3ff815 writes add_space_prefix first, and only when not null.)
**
**   Qwen2ForCausalLM (c392e50), Qwen3ForCausalLM (de3ff815): SentencePiece
**   when tokenizer.model exists, else byte-level BPE.
**
**   GemmaForCausalLM: SentencePiece, then a second SpecialVocab for the FIM
**   types with ids 67, 69, 68, 70 and eot 107 (only eot has a key; an id
**   the files give first wins), its chat template dropped; then
**   add_space_prefix false.  Gemma2ForCausalLM: SentencePiece, then
**   add_space_prefix false.
**
**   Phi3ForCausalLM (Phi3MiniModel): byte-level BPE when
**   tokenizer_config.json's tokenizer_class is GPT2Tokenizer (Phi-4), else
**   its own SentencePiece reading (vocab_sp.c).  tokenizer_config.json
**   without tokenizer_class stops the converter (KeyError), and us.
*/
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"

typedef enum { R_LLAMA, R_QWEN2, R_GEMMA, R_GEMMA2, R_PHI3 } recipe_kind;

#define BASE_FILES                                                                                 \
  (CV_FILE_TOKENIZER_MODEL | CV_FILE_TOKENIZER_JSON | CV_FILE_TOKENIZER_CONFIG |                   \
   CV_FILE_ADDED_TOKENS | CV_FILE_CONFIG | CV_FILE_MERGES_TXT)

static const struct arch {
  const char *name;
  recipe_kind kind;
  cv_era era;
  const char *recipe;
  unsigned files;
} archs[] = {
    {"LlamaForCausalLM", R_LLAMA, CV_C392E50, "LlamaModel.set_vocab", BASE_FILES},
    {"MistralForCausalLM", R_LLAMA, CV_C392E50, "LlamaModel.set_vocab", BASE_FILES},
    {"Qwen2ForCausalLM", R_QWEN2, CV_C392E50, "Qwen2Model.set_vocab", BASE_FILES},
    {"Qwen3ForCausalLM", R_QWEN2, CV_DE3FF815, "Qwen3Model.set_vocab",
     BASE_FILES | CV_FILE_CHAT_TEMPLATE_JINJA | CV_FILE_CHAT_TEMPLATE_JSON},
    {"GemmaForCausalLM", R_GEMMA, CV_C392E50, "GemmaModel.set_vocab", BASE_FILES},
    {"Gemma2ForCausalLM", R_GEMMA2, CV_C392E50, "Gemma2Model.set_vocab", BASE_FILES},
    {"Phi3ForCausalLM", R_PHI3, CV_C392E50, "Phi3MiniModel.set_vocab", BASE_FILES},
};

static const char *const file_names[] = {
    "tokenizer.model", "tokenizer.json", "tokenizer_config.json", "added_tokens.json",
    "config.json",     "merges.txt",     "chat_template.jinja",   "chat_template.json"};

static const struct arch *find_arch(const char *name) {
  for (size_t i = 0; name && i < sizeof(archs) / sizeof(archs[0]); i++)
    if (strcmp(archs[i].name, name) == 0)
      return &archs[i];
  return NULL;
}

int cv_vocab_arch_supported(const char *hf_arch, wt_error *err) {
  char q[WT_QUOTE_SIZE];
  if (find_arch(hf_arch))
    return 1;
  wt_fail(err,
          "architecture %s is not one the converter's vocabulary code supports (LlamaForCausalLM, "
          "MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GemmaForCausalLM, "
          "Gemma2ForCausalLM, "
          "Phi3ForCausalLM)",
          hf_arch ? CV_Q(q, hf_arch, strlen(hf_arch)) : "(none)");
  return 0;
}

unsigned cv_vocab_files_wanted(const char *hf_arch) {
  const struct arch *a = find_arch(hf_arch);
  return a ? a->files : 0;
}

const char *cv_vocab_file_name(unsigned bit) {
  for (unsigned i = 0; i < sizeof(file_names) / sizeof(file_names[0]); i++)
    if (bit == 1u << i)
      return file_names[i];
  return NULL;
}

/* config.json's vocab_size (-1 when absent); hparams.get('vocab_size', ...)
** then range(vocab_size): anything but an int stops the converter. */
static int read_hparams(cv_run *r, wt_error *err) {
  r->hp_vocab_size = -1;
  if (!cvj_present(&r->config))
    return 0;
  size_t v = cvj_get(&r->config, 0, "vocab_size");
  int64_t n;
  if (!v)
    return 0;
  if (!cvj_int(&r->config, v, 0, &n) || n < 0)
    return cv_fail(err, r->f, "config.json", "vocab_size is not a non-negative integer");
  if ((uint64_t)n > CV_MAX_TOKENS)
    return cv_fail(err, r->f, "config.json", "vocab_size %lld is too large", (long long)n);
  r->hp_vocab_size = n;
  return 0;
}

/* tokenizer.json is SentencePiece-style (LlamaHfVocab's), byte-level (0), or
** stops the converter. */
static int llama_hf_kind(cv_run *r, int *llama_hf, wt_error *err) {
  cv_json *j = &r->tok_json;
  *llama_hf = 0;
  if (!cvj_present(j))
    return 0;
  size_t model = cvj_get(j, 0, "model");
  if (!model || cvj_type(j, model) != JSON_OBJECT)
    return cv_fail(err, r->f, j->file, "has no model object (the converter stops: KeyError)");
  size_t ty = cvj_get(j, model, "type"), im = cvj_get(j, model, "ignore_merges"),
         bf = cvj_get(j, model, "byte_fallback");
  int bpe = cvj_is(j, ty, "BPE");
  int byte_fallback_dflt_true = bf ? cvj_truthy(j, bf) : 1, byte_fallback = bf && cvj_truthy(j, bf);
  if (bpe && im && cvj_truthy(j, im) && !byte_fallback_dflt_true)
    return 0; /* Llama 3: TypeError */
  size_t dec = cvj_get(j, 0, "decoder");
  size_t dty = dec && cvj_type(j, dec) == JSON_OBJECT ? cvj_get(j, dec, "type") : 0;
  *llama_hf = bpe && byte_fallback && cvj_is(j, dty, "Sequence");
  return 0;
}

/* tokenizer_config.json's add_prefix_space as add_space_prefix. */
static int add_prefix_space(cv_run *r, wt_error *err) {
  size_t v = cvj_present(&r->tok_config) ? cvj_get(&r->tok_config, 0, "add_prefix_space") : 0;
  if (!v)
    return 0;
  if (r->era == CV_DE3FF815 && cvj_type(&r->tok_config, v) == JSON_NULL)
    return 0;
  return cvk_bool(&r->kv, "tokenizer.ggml.add_space_prefix", cvj_truthy(&r->tok_config, v), err);
}

static int recipe_llama(cv_run *r, wt_error *err) {
  if (r->era == CV_DE3FF815 && add_prefix_space(r, err) != 0)
    return -1;
  int rc = cv_sp_vocab(r, err);
  if (rc == CV_NOT_FOUND) {
    int llama_hf;
    if (llama_hf_kind(r, &llama_hf, err) != 0)
      return -1;
    if (llama_hf)
      return cv_fail(err, r->f, "tokenizer.json",
                     "is a SentencePiece-style BPE (byte_fallback) without tokenizer.model: the "
                     "converter reads it "
                     "with transformers (LlamaHfVocab), which is not supported");
    rc = cv_bpe_vocab(r, err);
  }
  if (rc != 0)
    return -1;
  int64_t vs = r->hp_vocab_size >= 0 ? r->hp_vocab_size : 32000;
  if (vs == 32016) { /* CodeLlama */
    static const char *const fim[] = {"prefix", "suffix", "middle", "eot", NULL};
    cv_special_opts o = {0};
    o.types = fim;
    o.n_vocab = -1;
    o.set[0].type = "prefix", o.set[0].id = 32007;
    o.set[1].type = "suffix", o.set[1].id = 32008;
    o.set[2].type = "middle", o.set[2].id = 32009;
    o.set[3].type = "eot", o.set[3].id = 32010;
    if (cv_special_vocab(r, &o, err) != 0)
      return -1;
  }
  if (r->era == CV_C392E50 && add_prefix_space(r, err) != 0)
    return -1;
  if (vs == 49152 && cvk_bool(&r->kv, "tokenizer.ggml.add_bos_token", 0, err) != 0)
    return -1;
  return 0;
}

static int recipe_qwen2(cv_run *r, wt_error *err) {
  int rc = cv_sp_vocab(r, err);
  if (rc == CV_NOT_FOUND)
    rc = cv_bpe_vocab(r, err);
  return rc;
}

static int recipe_gemma(cv_run *r, int gemma2, wt_error *err) {
  int rc = cv_sp_vocab(r, err);
  if (rc == CV_NOT_FOUND)
    return cv_fail(err, r->f, "tokenizer.model", "is missing (%s needs it)",
                   gemma2 ? "Gemma2Model.set_vocab" : "GemmaModel.set_vocab");
  if (rc != 0)
    return -1;
  if (!gemma2) {
    static const char *const fim[] = {"prefix", "suffix", "middle", "fsep", "eot", NULL};
    cv_special_opts o = {0};
    o.types = fim;
    o.n_vocab = -1;
    o.no_chat_template = 1;
    o.set[0].type = "prefix", o.set[0].id = 67;
    o.set[1].type = "suffix", o.set[1].id = 69;
    o.set[2].type = "middle", o.set[2].id = 68;
    o.set[3].type = "fsep", o.set[3].id = 70;
    o.set[4].type = "eot", o.set[4].id = 107;
    if (cv_special_vocab(r, &o, err) != 0)
      return -1;
  }
  return cvk_bool(&r->kv, "tokenizer.ggml.add_space_prefix", 0, err);
}

static int recipe_phi3(cv_run *r, wt_error *err) {
  cv_json *c = &r->tok_config;
  if (cvj_present(c)) {
    size_t cls = cvj_get(c, 0, "tokenizer_class");
    if (!cls)
      return cv_fail(err, r->f, c->file,
                     "has no tokenizer_class (Phi3MiniModel.set_vocab stops: KeyError)");
    if (cvj_is(c, cls, "GPT2Tokenizer"))
      return cv_bpe_vocab(r, err);
  }
  return cv_sp_vocab_phi3(r, err);
}

int cv_vocab_write(const char *hf_arch, const cv_vocab_files *f, uint64_t n_vocab, cv_kv_sink *sink,
                   cv_vocab_info *info, wt_error *err) {
  const struct arch *a = find_arch(hf_arch);
  cv_run r;
  int rc = -1;
  if (!a)
    return cv_vocab_arch_supported(hf_arch, err) ? 0 : -1;
  memset(&r, 0, sizeof(r));
  r.f = f;
  r.era = a->era;
  r.kv.era = a->era;
  r.kv.files = f;
  if (cvj_open(&r.config, &f->config, "config.json", f, 1, err) != 0 ||
      cvj_open(&r.tok_config, &f->tokenizer_config, "tokenizer_config.json", f, 1, err) != 0 ||
      cvj_open(&r.tok_json, &f->tokenizer_json, "tokenizer.json", f, 1, err) != 0 ||
      read_hparams(&r, err) != 0)
    goto done;
  switch (a->kind) {
  case R_LLAMA:
    rc = recipe_llama(&r, err);
    break;
  case R_QWEN2:
    rc = recipe_qwen2(&r, err);
    break;
  case R_GEMMA:
  case R_GEMMA2:
    rc = recipe_gemma(&r, a->kind == R_GEMMA2, err);
    break;
  case R_PHI3:
    rc = recipe_phi3(&r, err);
    break;
  }
  if (rc != 0) {
    rc = -1;
    goto done;
  }
  rc = -1;
  if (n_vocab && r.n_tokens != n_vocab) {
    cv_fail(err, f,
            r.hp_vocab_size >= 0                ? "config.json"
            : r.pre && strcmp(r.pre, "default") ? "tokenizer.json"
                                                : "tokenizer.model",
            "the vocabulary has %llu tokens%s, the embedding %llu rows",
            (unsigned long long)r.n_tokens, r.hp_vocab_size >= 0 ? " (vocab_size)" : "",
            (unsigned long long)n_vocab);
    goto done;
  }
  if (cvk_emit(&r.kv, sink, err) != 0)
    goto done;
  if (info) {
    info->n_tokens = r.n_tokens;
    info->n_merges = r.n_merges;
    info->model = r.pre && strcmp(r.pre, "default") == 0 ? "llama" : "gpt2";
    info->pre = r.pre;
    info->recipe = a->recipe;
    info->llama_cpp = a->era == CV_C392E50 ? "c392e50" : "de3ff815";
  }
  rc = 0;
done:
  cvk_free(&r.kv);
  cvj_close(&r.config);
  cvj_close(&r.tok_config);
  cvj_close(&r.tok_json);
  return rc;
}
