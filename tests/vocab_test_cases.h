/*
** vocab_test_cases.h: vocab_test's built-in cases (included by
** vocab_test.c once).  Every expected value is worked out by hand from the
** converter's code (conversion/base.py, gguf-py/gguf/vocab.py of llama.cpp
** de3ff815, and c392e50's convert_hf_to_gguf.py where the two differ).
*/

/* ---- a SentencePiece model written here --------------------------------- */

static void pb_varint(wt_buf *b, uint64_t v) {
  do {
    unsigned char c = v & 0x7f;
    v >>= 7;
    if (v)
      c |= 0x80;
    wb_put(b, &c, 1);
  } while (v);
}

static void pb_len(wt_buf *b, unsigned field, const void *p, size_t n) {
  pb_varint(b, (uint64_t)field << 3 | 2);
  pb_varint(b, n);
  wb_put(b, p, n);
}

/* One SentencePiece {piece, score, type}. */
static void pb_piece(wt_buf *model, const char *piece, float score, int type) {
  wt_buf b = {0};
  uint32_t u;
  pb_len(&b, 1, piece, strlen(piece));
  pb_varint(&b, 2 << 3 | 5);
  memcpy(&u, &score, 4);
  wb_u32(&b, u);
  if (type != 1) {
    pb_varint(&b, 3 << 3 | 0);
    pb_varint(&b, (uint64_t)type);
  }
  pb_len(model, 1, b.p, b.n);
  free(b.p);
}

/* trainer_spec {model_type: BPE, byte_fallback} */
static void pb_trainer(wt_buf *model, int byte_fallback) {
  wt_buf b = {0};
  pb_varint(&b, 3 << 3 | 0);
  pb_varint(&b, 2);
  pb_varint(&b, 35 << 3 | 0);
  pb_varint(&b, (uint64_t)byte_fallback);
  pb_len(model, 2, b.p, b.n);
  free(b.p);
}

#define FILE_OF(s) ((cv_file_bytes){(const unsigned char *)(s), strlen(s)})

/* Array element i of an entry's value: a string's bytes, or a 4-byte number. */
static const unsigned char *elem(const entry *e, uint64_t i, uint64_t *len) {
  uint32_t et = rd32(e->val);
  size_t o = 12;
  for (uint64_t k = 0;; k++) {
    uint64_t n = et == GGUF_TYPE_STRING ? rd64(e->val + o) : 4;
    const unsigned char *p = e->val + o + (et == GGUF_TYPE_STRING ? 8 : 0);
    if (k == i) {
      *len = n;
      return p;
    }
    o += (et == GGUF_TYPE_STRING ? 8 : 0) + n;
  }
}

static int tok_is(const keep *k, uint64_t i, const char *s) {
  uint64_t n;
  const entry *e = keep_get(k, "tokenizer.ggml.tokens");
  const unsigned char *p = e ? elem(e, i, &n) : NULL;
  return p && n == strlen(s) && memcmp(p, s, n) == 0;
}

static int32_t type_of(const keep *k, uint64_t i) {
  uint64_t n;
  const entry *e = keep_get(k, "tokenizer.ggml.token_type");
  return e ? (int32_t)rd32(elem(e, i, &n)) : -1;
}

static float score_of(const keep *k, uint64_t i) {
  uint64_t n;
  const entry *e = keep_get(k, "tokenizer.ggml.scores");
  uint32_t u = e ? rd32(elem(e, i, &n)) : 0;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint32_t u32_of(const keep *k, const char *key) {
  const entry *e = keep_get(k, key);
  return e && e->type == GGUF_TYPE_UINT32 ? rd32(e->val) : 0xffffffffu;
}

static int bool_of(const keep *k, const char *key) {
  const entry *e = keep_get(k, key);
  return e && e->type == GGUF_TYPE_BOOL ? e->val[0] : -1;
}

static int order_is(const keep *k, const char *const *keys) {
  size_t i = 0;
  for (; keys[i]; i++)
    if (i >= k->n || strcmp(k->e[i].key, keys[i]) != 0)
      return 0;
  return i == k->n;
}

/* A small SentencePiece model: 7 pieces, byte fallback. */
static void small_model(wt_buf *m) {
  pb_piece(m, "<unk>", 0, 2);
  pb_piece(m, "<s>", 0, 3);
  pb_piece(m, "</s>", 0, 3);
  pb_piece(m, "<0x0A>", 0, 6);
  pb_piece(m,
           "\xe2\x96\x81"
           "a",
           -1.5f, 1);
  pb_piece(m, "b", -2.25f, 4); /* USER_DEFINED: the converter writes NORMAL */
  pb_piece(m, "u", -3.0f, 5);
  pb_trainer(m, 1);
}

static void case_sentencepiece(void) {
  wt_buf m = {0};
  keep k;
  wt_error err;
  cv_vocab_info info;
  small_model(&m);
  cv_vocab_files f = {0};
  f.dir_name = "tiny";
  f.tokenizer_model = (cv_file_bytes){(const unsigned char *)m.p, m.n};
  f.config = FILE_OF(
      "{\"vocab_size\": 10, \"bos_token_id\": 1, \"eos_token_id\": 2, \"pad_token_id\": 99}");
  f.tokenizer_config = FILE_OF(
      "{\"bos_token\": \"<s>\", \"add_bos_token\": true, \"add_eos_token\": false, "
      "\"chat_template\": \"T\","
      " \"added_tokens_decoder\": {\"7\": {\"content\": \"<|im_end|>\", \"special\": false},"
      " \"8\": {\"content\": \"\xe2\x96\x81x\xe2\x96\x81\", \"special\": false}}}");
  f.added_tokens = FILE_OF("{\"<added>\": 9, \"<far>\": 10}");
  int rc = run("LlamaForCausalLM", &f, 10, &k, &info, &err);
  CHECK(rc == 0, "sentencepiece: %s", err.msg);
  if (rc == 0) {
    static const char *const order[] = {"tokenizer.ggml.model",
                                        "tokenizer.ggml.pre",
                                        "tokenizer.ggml.tokens",
                                        "tokenizer.ggml.scores",
                                        "tokenizer.ggml.token_type",
                                        "tokenizer.ggml.bos_token_id",
                                        "tokenizer.ggml.eos_token_id",
                                        "tokenizer.ggml.add_bos_token",
                                        "tokenizer.ggml.add_eos_token",
                                        "tokenizer.chat_template",
                                        NULL};
    CHECK(order_is(&k, order), "sentencepiece: keys or their order differ (%zu keys)", k.n);
    CHECK(info.n_tokens == 10, "sentencepiece: %llu tokens", (unsigned long long)info.n_tokens);
    CHECK(tok_is(&k, 0, "<unk>") && type_of(&k, 0) == 2, "unk piece");
    CHECK(type_of(&k, 1) == 3 && type_of(&k, 3) == 6, "control and byte pieces");
    CHECK(score_of(&k, 4) == -1.5f && type_of(&k, 4) == 1, "normal piece keeps its score");
    CHECK(score_of(&k, 5) == -2.25f && type_of(&k, 5) == 1,
          "a user-defined piece is written NORMAL");
    CHECK(type_of(&k, 6) == 5, "an unused piece stays UNUSED");
    CHECK(tok_is(&k, 7, "<|im_end|>") && type_of(&k, 7) == 3 && score_of(&k, 7) == -1000.0f,
          "a token that looks special is CONTROL, score -1000");
    CHECK(tok_is(&k, 8, " x ") && type_of(&k, 8) == 4,
          "U+2581 in a user-defined token becomes a space");
    CHECK(tok_is(&k, 9, "<added>") && type_of(&k, 9) == 4, "added_tokens.json: USER_DEFINED");
    CHECK(u32_of(&k, "tokenizer.ggml.bos_token_id") == 1 &&
              u32_of(&k, "tokenizer.ggml.eos_token_id") == 2,
          "bos/eos from config.json; pad 99 is past the vocabulary and skipped");
    CHECK(bool_of(&k, "tokenizer.ggml.add_bos_token") == 1 &&
              bool_of(&k, "tokenizer.ggml.add_eos_token") == 0,
          "add_bos/add_eos");
  }
  keep_free(&k);
  /* the vocabulary padded: config.json says 12 */
  f.config = FILE_OF("{\"vocab_size\": 12}");
  f.tokenizer_config = (cv_file_bytes){0};
  f.added_tokens = (cv_file_bytes){0};
  rc = run("LlamaForCausalLM", &f, 12, &k, &info, &err);
  CHECK(rc == 0 && tok_is(&k, 11, "[PAD11]") && type_of(&k, 11) == 5 &&
            score_of(&k, 11) == -10000.0f,
        "padding: [PAD11], UNUSED, -10000 (%s)", rc ? err.msg : "");
  keep_free(&k);
  /* the embedding disagrees */
  rc = run("LlamaForCausalLM", &f, 13, &k, &info, &err);
  CHECK(rc != 0 && strstr(err.msg, "tiny/config.json") && strstr(err.msg, "13 rows") && k.n == 0,
        "an embedding of another size is an error naming the file (%s)", err.msg);
  keep_free(&k);
  /* fewer tokens in config.json than pieces: c392e50 stops (IndexError) */
  f.config = FILE_OF("{\"vocab_size\": 5}");
  rc = run("LlamaForCausalLM", &f, 0, &k, &info, &err);
  CHECK(rc != 0 && strstr(err.msg, "tiny/tokenizer.model") && strstr(err.msg, "7 pieces"),
        "more pieces than vocab_size: %s", err.msg);
  keep_free(&k);
  /* a vocab_size that would make the table unbounded by the input */
  f.config = FILE_OF("{\"vocab_size\": 2000000}");
  rc = run("LlamaForCausalLM", &f, 0, &k, &info, &err);
  CHECK(rc != 0 && strstr(err.msg, "far larger"), "an unbounded vocab_size: %s", err.msg);
  keep_free(&k);
  /* Gemma: eot 107 without a range check, FIM ids skipped, add_space_prefix last */
  f.config = FILE_OF("{\"vocab_size\": 7, \"pad_token_id\": 0}");
  f.tokenizer_config = FILE_OF("{\"chat_template\": \"T\", \"add_bos_token\": true}");
  rc = run("GemmaForCausalLM", &f, 7, &k, &info, &err);
  static const char *const gemma[] = {"tokenizer.ggml.model",
                                      "tokenizer.ggml.pre",
                                      "tokenizer.ggml.tokens",
                                      "tokenizer.ggml.scores",
                                      "tokenizer.ggml.token_type",
                                      "tokenizer.ggml.padding_token_id",
                                      "tokenizer.ggml.add_bos_token",
                                      "tokenizer.chat_template",
                                      "tokenizer.ggml.eot_token_id",
                                      "tokenizer.ggml.add_space_prefix",
                                      NULL};
  CHECK(rc == 0 && order_is(&k, gemma) && u32_of(&k, "tokenizer.ggml.eot_token_id") == 107 &&
            bool_of(&k, "tokenizer.ggml.add_space_prefix") == 0,
        "gemma's recipe (%s)", rc ? err.msg : "");
  keep_free(&k);
  /* c392e50's LlamaModel: add_prefix_space after the vocabulary, a null
  ** written as false (de3ff815 writes it first, and skips a null) */
  f.config = FILE_OF("{\"vocab_size\": 7}");
  f.tokenizer_config = FILE_OF("{\"add_prefix_space\": null, \"add_eos_token\": true}");
  rc = run("LlamaForCausalLM", &f, 7, &k, &info, &err);
  static const char *const prefix_last[] = {"tokenizer.ggml.model",
                                            "tokenizer.ggml.pre",
                                            "tokenizer.ggml.tokens",
                                            "tokenizer.ggml.scores",
                                            "tokenizer.ggml.token_type",
                                            "tokenizer.ggml.add_eos_token",
                                            "tokenizer.ggml.add_space_prefix",
                                            NULL};
  CHECK(rc == 0 && order_is(&k, prefix_last) && bool_of(&k, "tokenizer.ggml.add_space_prefix") == 0,
        "c392e50's add_space_prefix (%s)", rc ? err.msg : "order");
  keep_free(&k);
  /* SmolLM's size under c392e50: add_bos_token given by the files, then
  ** forced false: gguf-py raised "Duplicated key name" */
  f.config = FILE_OF("{\"vocab_size\": 49152}");
  f.tokenizer_config = FILE_OF("{\"add_bos_token\": true}");
  rc = run("LlamaForCausalLM", &f, 0, &k, &info, &err);
  CHECK(rc != 0 && strstr(err.msg, "add_bos_token twice"), "duplicate key under c392e50: %s",
        err.msg);
  keep_free(&k);
  free(m.p);
}

/* tokenizer.model's malformed forms. */
static void case_spm_errors(void) {
  static const struct {
    const char *what, *expect;
  } cases[] = {{"cut", "past its message"},   {"dup", "again"},
               {"nounk", "no unknown piece"}, {"byte", "byte_fallback is off"},
               {"group", "wire type"},        {"empty", "is empty"}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    wt_buf m = {0};
    cv_spm spm;
    wt_error err;
    const char *w = cases[c].what;
    if (!strcmp(w, "cut")) {
      small_model(&m);
      m.n -= 3;
    } else if (!strcmp(w, "dup")) {
      pb_piece(&m, "<unk>", 0, 2);
      pb_piece(&m, "a", 0, 1);
      pb_piece(&m, "a", 0, 1);
    } else if (!strcmp(w, "nounk")) {
      pb_piece(&m, "a", 0, 1);
    } else if (!strcmp(w, "byte")) {
      pb_piece(&m, "<unk>", 0, 2);
      pb_piece(&m, "<0x41>", 0, 6);
      pb_trainer(&m, 0);
    } else if (!strcmp(w, "group")) {
      pb_piece(&m, "<unk>", 0, 2);
      pb_varint(&m, 7 << 3 | 3);
    } else {
      pb_piece(&m, "<unk>", 0, 2);
      pb_piece(&m, "", 0, 1);
    }
    int rc = cv_spm_parse((const unsigned char *)m.p, m.n, &spm, &err);
    CHECK(rc != 0 && strstr(err.msg, cases[c].expect), "tokenizer.model %s: %s", w,
          rc ? err.msg : "accepted");
    if (rc == 0)
      cv_spm_free(&spm);
    free(m.p);
  }
  /* unknown fields and an unknown enum value are skipped, as protobuf does */
  wt_buf m = {0};
  cv_spm spm;
  wt_error err;
  pb_piece(&m, "<unk>", 0, 2);
  pb_varint(&m, 99 << 3 | 1);
  wb_u64(&m, 7);
  pb_piece(&m, "z", 0.5f, 9);
  int rc = cv_spm_parse((const unsigned char *)m.p, m.n, &spm, &err);
  CHECK(rc == 0 && spm.n == 2 && spm.piece[1].type == 1 && spm.piece[1].score == 0.5f,
        "unknown fields skipped, type 9 leaves NORMAL (%s)", rc ? err.msg : "");
  if (rc == 0)
    cv_spm_free(&spm);
  free(m.p);
}

static void case_looks_special(void) {
  static const struct {
    const char *s;
    int yes;
  } t[] = {{"<|im_start|>", 1},
           {"<|>", 1},
           {"<|", 0},
           {"<pad>", 1},
           {"<unused12>", 1},
           {"<mask>", 1},
           {"<s>", 0},
           {"[@BOS@]", 1},
           {"<\xef\xbd\x9c"
            "x\xef\xbd\x9c>",
            1},
           {"|>", 0}};
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
    CHECK(cv_looks_special(t[i].s, strlen(t[i].s)) == t[i].yes, "looks special: %s", t[i].s);
}

/* Byte-level BPE: a pre-tokenizer llama.cpp would not name is an error. */
static void case_bpe_unnamed(void) {
  keep k;
  wt_error err;
  cv_vocab_files f = {0};
  f.dir_name = "bpe";
  f.tokenizer_json =
      FILE_OF("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2},"
              " \"merges\": [[\"a\", \"b\"]]}, \"pre_tokenizer\": {\"type\": \"Whitespace\"},"
              " \"added_tokens\": [{\"id\": 3, \"content\": \"<|x|>\", \"special\": true}]}");
  int rc = run("Qwen2ForCausalLM", &f, 0, &k, NULL, &err);
  CHECK(rc != 0 && strstr(err.msg, "bpe/tokenizer.json") && strstr(err.msg, "would not name") &&
            strstr(err.msg, "Whitespace") && strstr(err.msg, "3 tokens, 1 merges"),
        "an unnamed pre-tokenizer: %s", err.msg);
  keep_free(&k);
  /* an added token at an id the tokenizers library would not give it */
  f.tokenizer_json =
      FILE_OF("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []},"
              " \"added_tokens\": [{\"id\": 5, \"content\": \"<|x|>\", \"special\": true}]}");
  rc = run("Qwen2ForCausalLM", &f, 0, &k, NULL, &err);
  CHECK(rc != 0 && strstr(err.msg, "declares id 5") && strstr(err.msg, "id 1"),
        "added token id: %s", err.msg);
  keep_free(&k);
  /* config.json's vocab_size below an id: the converter's assertion */
  f.tokenizer_json = FILE_OF("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}}}");
  f.config = FILE_OF("{\"vocab_size\": 1}");
  rc = run("Qwen2ForCausalLM", &f, 0, &k, NULL, &err);
  CHECK(rc != 0 && strstr(err.msg, "bpe/config.json") && strstr(err.msg, "AssertionError"),
        "assert: %s", err.msg);
  keep_free(&k);
  /* neither file */
  f = (cv_vocab_files){0};
  rc = run("Qwen3ForCausalLM", &f, 0, &k, NULL, &err);
  CHECK(rc != 0 && strstr(err.msg, "tokenizer.json: is missing"), "no tokenizer: %s", err.msg);
  keep_free(&k);
  CHECK(run("FooForCausalLM", &f, 0, &k, NULL, &err) != 0 && strstr(err.msg, "FooForCausalLM") &&
            strstr(err.msg, "Phi3ForCausalLM"),
        "unknown architecture: %s", err.msg);
  keep_free(&k);
}

/* SpecialVocab alone: merges in both forms, de3ff815's post_processor. */
static void case_special(void) {
  cv_run r;
  wt_error err;
  cv_vocab_files f = {0};
  f.tokenizer_json = FILE_OF(
      "{\"model\": {\"merges\": [[\"a b\", \"c\"], [\"d\", \"e\"]]},"
      " \"added_tokens\": [{\"id\": 0, \"content\": \"<s>\"}, {\"id\": 1, \"content\": \"</s>\"}],"
      " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Lowercase\"}]},"
      " \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": "
      "{\"id\": \"<s>\"}},"
      " {\"Sequence\": {\"id\": \"A\"}}, {\"SpecialToken\": {\"id\": \"</s>\"}}]}}");
  f.tokenizer_config = FILE_OF("{\"bos_token\": \"<s>\", \"eos_token\": {\"content\": \"</s>\"}}");
  for (int era = 0; era < 2; era++) {
    memset(&r, 0, sizeof(r));
    r.f = &f;
    r.era = era ? CV_DE3FF815 : CV_C392E50;
    r.kv.era = r.era;
    cvj_open(&r.tok_json, &f.tokenizer_json, "tokenizer.json", &f, 1, &err);
    cvj_open(&r.tok_config, &f.tokenizer_config, "tokenizer_config.json", &f, 1, &err);
    cv_special_opts o = {0};
    o.load_merges = 1;
    o.n_vocab = -1;
    int rc = cv_special_vocab(&r, &o, &err);
    keep k = {0};
    cv_kv_sink sink = {&k, keep_add};
    if (rc == 0)
      rc = cvk_emit(&r.kv, &sink, &err);
    CHECK(rc == 0, "special vocab: %s", err.msg);
    const entry *e = keep_get(&k, "tokenizer.ggml.merges");
    uint64_t n = 0;
    const unsigned char *p = e ? elem(e, 0, &n) : NULL;
    CHECK(p && n == 6 &&
              memcmp(p,
                     "a\xc4\xa0"
                     "b c",
                     6) == 0,
          "a space inside a merge part is U+0120");
    CHECK(u32_of(&k, "tokenizer.ggml.bos_token_id") == 0 &&
              u32_of(&k, "tokenizer.ggml.eos_token_id") == 1,
          "ids by content in added_tokens (a string and an object's content)");
    if (era) {
      CHECK(bool_of(&k, "tokenizer.ggml.add_bos_token") == 1 &&
                bool_of(&k, "tokenizer.ggml.add_eos_token") == 1 &&
                bool_of(&k, "tokenizer.ggml.normalizer.lowercase") == 1,
            "de3ff815: TemplateProcessing adds bos and eos; Lowercase");
    } else {
      CHECK(!keep_get(&k, "tokenizer.ggml.add_bos_token") &&
                !keep_get(&k, "tokenizer.ggml.normalizer.lowercase"),
            "c392e50 reads neither the post_processor nor the normalizer");
    }
    keep_free(&k);
    cvk_free(&r.kv);
    cvj_close(&r.tok_json);
    cvj_close(&r.tok_config);
  }
}

/* merges.txt when tokenizer.json has no merges: a "#" first line dropped,
** CR, CR LF and LF end lines, lines of other than two parts dropped. */
static void case_merges_txt(void) {
  cv_run r;
  wt_error err;
  cv_vocab_files f = {0};
  f.merges_txt = FILE_OF("#version: 0.2\r\na b\rc  d \n\nx y z\n\x1f e\tf");
  memset(&r, 0, sizeof(r));
  r.f = &f;
  r.kv.era = r.era = CV_C392E50;
  cv_special_opts o = {0};
  o.load_merges = 1;
  o.n_vocab = -1;
  keep k = {0};
  cv_kv_sink sink = {&k, keep_add};
  int rc = cv_special_vocab(&r, &o, &err);
  if (rc == 0)
    rc = cvk_emit(&r.kv, &sink, &err);
  const entry *e = keep_get(&k, "tokenizer.ggml.merges");
  uint64_t n0 = 0, n1 = 0, n2 = 0;
  const unsigned char *m0 = e ? elem(e, 0, &n0) : NULL, *m1 = e ? elem(e, 1, &n1) : NULL,
                      *m2 = e ? elem(e, 2, &n2) : NULL;
  CHECK(rc == 0 && e && rd64(e->val + 4) == 3 && n0 == 3 && !memcmp(m0, "a b", 3) && n1 == 3 &&
            !memcmp(m1, "c d", 3) && n2 == 3 && !memcmp(m2, "e f", 3),
        "merges.txt (%s)", rc ? err.msg : "merges");
  keep_free(&k);
  cvk_free(&r.kv);
  f.merges_txt = FILE_OF("a \xff");
  memset(&r, 0, sizeof(r));
  r.f = &f;
  rc = cv_special_vocab(&r, &o, &err);
  CHECK(rc != 0 && strstr(err.msg, "merges.txt") && strstr(err.msg, "UTF-8"),
        "merges.txt not UTF-8: %s", err.msg);
  cvk_free(&r.kv);
}

/* A chat template given as a list of named templates. */
static void case_template_list(void) {
  wt_buf m = {0};
  keep k;
  wt_error err;
  small_model(&m);
  cv_vocab_files f = {0};
  f.tokenizer_model = (cv_file_bytes){(const unsigned char *)m.p, m.n};
  f.tokenizer_config = FILE_OF(
      "{\"chat_template\": [{\"name\": \"tool use\", \"template\": \"X\"},"
      " {\"name\": \"default\", \"template\": \"D\"}, {\"name\": \"rag\", \"template\": \"R\"}]}");
  int rc = run("Gemma2ForCausalLM", &f, 0, &k, NULL, &err);
  static const char *const order[] = {"tokenizer.ggml.model",
                                      "tokenizer.ggml.pre",
                                      "tokenizer.ggml.tokens",
                                      "tokenizer.ggml.scores",
                                      "tokenizer.ggml.token_type",
                                      "tokenizer.chat_template.tool_use",
                                      "tokenizer.chat_template.rag",
                                      "tokenizer.chat_templates",
                                      "tokenizer.chat_template",
                                      "tokenizer.ggml.add_space_prefix",
                                      NULL};
  CHECK(rc == 0 && order_is(&k, order), "a list of chat templates (%s)", rc ? err.msg : "order");
  keep_free(&k);
  free(m.p);
}

static void builtin_cases(void) {
  case_sentencepiece();
  case_spm_errors();
  case_looks_special();
  case_bpe_unnamed();
  case_special();
  case_template_list();
  case_merges_txt();
}
