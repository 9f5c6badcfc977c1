/*
** convert_test.c: unit tests of the converter's pure parts (ext/convert/:
** numbers, config_values, kv_list, general, hparams, plan), linked
** without SQLite.
**
**   build/convert_test
**
** The expected values are not this code's output:
**  - F16: every 97th float32 bit pattern against the CPU's own conversion
**    (F16C vcvtps2ph, round to nearest even: IEEE 754's rounding, which
**    numpy's astype(float16) implements in software), and hand values;
**  - BF16, Q8_0's ties: worked by hand from ggml's and gguf-py's rules;
**  - Q8_0 blocks, the model-id components, the size labels and titles:
**    what llama.cpp de3ff815's gguf-py (numpy 1.24.2) returned for them,
**    with /tmp/llama.cpp/gguf-py on sys.path:
**      quants.quantize(block.reshape(1, 32), GGMLQuantizationType.Q8_0)
**      Metadata.get_model_id_components(id, total_params)
**      size_label(n, n, 0, 0), Metadata.id_to_title(s)
**    (the three blocks of random normal values are ones where computing
**    in float64 gives other q than gguf-py's float32).
** Prints "convert_test: N passed, M failed"; exits 1 on any failure.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/config_values.h"
#include "convert/general.h"
#include "convert/hparams.h"
#include "convert/kv_list.h"
#include "convert/numbers.h"
#include "convert/plan.h"
#include "decode/decode.h"
#include "convert_test.h"

int cv_test_passed, cv_test_failed;

/* ================================ naming ================================== */

/* 1 when a and b are both NULL or equal strings. */
static int same(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void test_model_ids(void) {
  static const struct {
    uint64_t total;
    const char *id, *full, *org, *basename, *finetune, *version, *size;
  } rows[] = {
      {0ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", NULL, NULL, "135M"},
      {0ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL, "Meta-Llama-3.1",
       "Instruct", NULL, "8B"},
      {0ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", NULL, NULL, "0.6B"},
      {0ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "it", NULL, "2B"},
      {0ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3-mini", "instruct",
       NULL, "4K"},
      {0ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral", "Instruct",
       "v0.3", "7B"},
      {0ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", NULL, NULL, "7.1B"},
      {0ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1", "8x7B"},
      {0ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF", NULL,
       NULL},
      {0ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "Instruct-AWQ", NULL, "1.5B"},
      {0ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama", "Chat",
       "v1.0", "1.1B"},
      {0ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {0ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", NULL, NULL,
       "135M"},
      {0ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {0ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "chat-hf", NULL, "7B"},
      {0ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", NULL, NULL, "30B-A3B"},
      {0ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", NULL, NULL, "130M-128K"},
      {0ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL, "v01", NULL},
      {0ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", NULL, NULL, "1.5B"},
      {0ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {0ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL, "small"},
      {125248ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", "135m", NULL, NULL},
      {125248ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "8b-Instruct", NULL, NULL},
      {125248ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {125248ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "2b-it", NULL, NULL},
      {125248ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3", "4k-instruct",
       NULL, "mini"},
      {125248ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "7b-Instruct", "v0.3", NULL},
      {125248ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", "7.1b", NULL, NULL},
      {125248ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1", "8x7B"},
      {125248ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF", NULL,
       NULL},
      {125248ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "1.5b-Instruct-AWQ", NULL, NULL},
      {125248ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "1.1b-Chat", "v1.0", NULL},
      {125248ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {125248ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", "135m",
       NULL, NULL},
      {125248ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {125248ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "7b-chat-hf", NULL,
       NULL},
      {125248ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {125248ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "130m", NULL, "128K"},
      {125248ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL, "v01",
       NULL},
      {125248ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", "1.5b", NULL, NULL},
      {125248ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {125248ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
      {134515008ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", NULL, NULL, "135M"},
      {134515008ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "8b-Instruct", NULL, NULL},
      {134515008ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {134515008ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "2b-it", NULL, NULL},
      {134515008ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3",
       "4k-instruct", NULL, "mini"},
      {134515008ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "7b-Instruct", "v0.3", NULL},
      {134515008ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", "7.1b", NULL, NULL},
      {134515008ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1",
       "8x7B"},
      {134515008ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF",
       NULL, NULL},
      {134515008ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "1.5b-Instruct-AWQ", NULL, NULL},
      {134515008ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "1.1b-Chat", "v1.0", NULL},
      {134515008ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {134515008ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2", NULL,
       NULL, "135M"},
      {134515008ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {134515008ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "7b-chat-hf",
       NULL, NULL},
      {134515008ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {134515008ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "128k", NULL, "130M"},
      {134515008ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL,
       "v01", NULL},
      {134515008ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", "1.5b", NULL, NULL},
      {134515008ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {134515008ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
      {7241732096ULL, "SmolLM2-135M", "SmolLM2-135M", NULL, "SmolLM2", "135m", NULL, NULL},
      {7241732096ULL, "Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct", NULL,
       "Meta-Llama-3.1", "Instruct", NULL, "8B"},
      {7241732096ULL, "Qwen3-0.6B", "Qwen3-0.6B", NULL, "Qwen3", "0.6b", NULL, NULL},
      {7241732096ULL, "gemma-2-2b-it", "gemma-2-2b-it", NULL, "gemma-2", "it", NULL, "2B"},
      {7241732096ULL, "Phi-3-mini-4k-instruct", "Phi-3-mini-4k-instruct", NULL, "Phi-3",
       "4k-instruct", NULL, "mini"},
      {7241732096ULL, "Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3", NULL, "Mistral",
       "Instruct", "v0.3", "7B"},
      {7241732096ULL, "llama", "llama", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "gemma", "gemma", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "bloom-7b1", "bloom-7b1", NULL, "bloom", NULL, NULL, "7.1B"},
      {7241732096ULL, "Mixtral-8x7B-v0.1", "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1",
       "8x7B"},
      {7241732096ULL, "tiny-llama-q8_0-GGUF", "tiny-llama-q8_0-GGUF", NULL, "tiny-llama", "GGUF",
       NULL, NULL},
      {7241732096ULL, "Qwen2.5-Coder-1.5B-Instruct-AWQ", "Qwen2.5-Coder-1.5B-Instruct-AWQ", NULL,
       "Qwen2.5-Coder", "Instruct-AWQ", NULL, "1.5B"},
      {7241732096ULL, "TinyLlama-1.1B-Chat-v1.0", "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama",
       "Chat", "v1.0", "1.1B"},
      {7241732096ULL, "phi-2", "phi-2", NULL, "phi", NULL, "2", NULL},
      {7241732096ULL, "my model", "my model", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "HuggingFaceTB/SmolLM2-135M", "SmolLM2-135M", "HuggingFaceTB", "SmolLM2",
       "135m", NULL, NULL},
      {7241732096ULL, "./local", "local", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "gpt2-xl", "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl"},
      {7241732096ULL, "Llama-2-7b-chat-hf", "Llama-2-7b-chat-hf", NULL, "Llama-2", "chat-hf", NULL,
       "7B"},
      {7241732096ULL, "Qwen3-30B-A3B", "Qwen3-30B-A3B", NULL, "Qwen3", "30b", NULL, "A3B"},
      {7241732096ULL, "mamba-130m-128k", "mamba-130m-128k", NULL, "mamba", "130m-128k", NULL, NULL},
      {7241732096ULL, "c4ai-command-r-v01", "c4ai-command-r-v01", NULL, "c4ai-command-r", NULL,
       "v01", NULL},
      {7241732096ULL, "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-1.5B", NULL,
       "DeepSeek-R1-Distill-Qwen", NULL, NULL, "1.5B"},
      {7241732096ULL, "v2-model", "v2-model", NULL, NULL, NULL, NULL, NULL},
      {7241732096ULL, "model-iter3-small", "model-iter3-small", NULL, "model-iter3", NULL, NULL,
       "small"},
  };
  size_t i;
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    cv_model_id m;
    if (cv_model_id_parse(rows[i].id, rows[i].total, &m) != 0) {
      CHECK(0, "model id %s: out of memory", rows[i].id);
      continue;
    }
    CHECK(same(m.full, rows[i].full) && same(m.org, rows[i].org) &&
              same(m.basename, rows[i].basename) && same(m.finetune, rows[i].finetune) &&
              same(m.version, rows[i].version) && same(m.size_label, rows[i].size),
          "model id %s (%llu params): %s|%s|%s|%s|%s|%s", rows[i].id,
          (unsigned long long)rows[i].total, m.full, m.org, m.basename, m.finetune, m.version,
          m.size_label);
    cv_model_id_free(&m);
  }
}

static void test_labels(void) {
  static const struct {
    uint64_t n;
    const char *label;
  } sizes[] = {{125248, "125K"},         {96000, "96K"},          {999, "1.0K"},
               {1000, "1.0K"},           {1001, "1.0K"},          {134515008, "135M"},
               {1235814400, "1.2B"},     {7241732096, "7.2B"},    {70553706496, "71B"},
               {1000000000000, "1000B"}, {1500000000001, "1.5T"}, {46702792704, "47B"}};
  static const struct {
    const char *in, *out;
  } titles[] = {{"llama", "Llama"},   {"smollm2-135m", "Smollm2 135m"},
                {"gpt2xl", "Gpt2Xl"}, {"Meta-Llama", "Meta Llama"},
                {"v0.3", "v0.3"},     {"mistral v0.3 instruct", "Mistral v0.3 Instruct"},
                {"a-b--c", "A B C"},  {"3b", "3b"}};
  char label[32];
  size_t i;
  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    cv_size_label(sizes[i].n, label, sizeof(label));
    CHECK(strcmp(label, sizes[i].label) == 0, "size_label(%llu) = %s, not %s",
          (unsigned long long)sizes[i].n, label, sizes[i].label);
  }
  for (i = 0; i < sizeof(titles) / sizeof(titles[0]); i++) {
    char *t = cv_id_to_title(titles[i].in);
    CHECK(t != NULL && strcmp(t, titles[i].out) == 0, "id_to_title(%s) = %s, not %s", titles[i].in,
          t, titles[i].out);
    free(t);
  }
}

/* ============================ config and metadata ========================= */

/* Parse config text into c (flattened). */
static int config(const char *text, wt_config *c) {
  wt_error e;
  if (wt_config_parse(text, strlen(text), 1, c, &e) != 0) {
    CHECK(0, "config does not parse: %s", e.msg);
    return -1;
  }
  return 0;
}

/* The keys of l, comma-separated. */
static void keys_of(const cv_kv_list *l, char *out, size_t cap) {
  size_t i;
  out[0] = 0;
  for (i = 0; i < l->n; i++)
    snprintf(out + strlen(out), cap - strlen(out), "%s%.*s", i ? "," : "", (int)l->e[i].key_len,
             l->bytes.p + l->e[i].key_off);
}

/* The UINT32 or FLOAT32 of key in l, as a double; NAN when absent. */
static double kv_number(const cv_kv_list *l, const char *key) {
  const cv_kv_entry *e = cv_kv_find(l, key);
  uint32_t u;
  float f;
  if (e == NULL || e->val_len != 4)
    return NAN;
  memcpy(&u, l->bytes.p + e->val_off, 4);
  memcpy(&f, &u, 4);
  return e->type == GGUF_TYPE_FLOAT32 ? (double)f : (double)u;
}

/* What the naming keys refuse: strings gguf-py cannot write as UTF-8 (a
** folder name or a name that is not; config.json's parser refuses such
** strings itself), and generation_config.json's values of the wrong kind, named with the
** file. */
static void test_general_refusals(void) {
  static const struct {
    const char *dir, *name, *config, *gen, *msg;
  } rows[] = {
      {"tiny-\xff", NULL, "{}", NULL, "the folder name 'tiny-\\xff' is not UTF-8"},
      {"tiny", "my \xc3(", "{}", NULL, "the name 'my \\xc3(' is not UTF-8"},
      {"tiny", NULL, "{}", "{\"top_k\": 1.5}",
       "generation_config.json: top_k is 1.5, not an integer"},
      {"tiny", NULL, "{}", "{\"top_p\": \"x\"}", "generation_config.json: top_p is"},
  };
  size_t i;
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    cv_kv_list l;
    wt_config c;
    wt_error e;
    cv_naming n;
    int rc;
    memset(&l, 0, sizeof(l));
    memset(&n, 0, sizeof(n));
    if (config(rows[i].config, &c) != 0)
      continue;
    n.dir_name = rows[i].dir;
    n.name = rows[i].name;
    n.cfg = &c;
    n.total_params = 1000;
    n.gen_config = rows[i].gen;
    n.gen_config_n = rows[i].gen ? strlen(rows[i].gen) : 0;
    n.sampling = 1;
    e.msg[0] = 0;
    rc = cv_general_meta(&l, &n, &e);
    CHECK(rc != 0 && strstr(e.msg, rows[i].msg) != NULL, "naming refusal %zu: %d %s", i, rc, e.msg);
    cv_kv_list_free(&l);
    wt_config_free(&c);
  }
}

static void test_hparams(void) {
  static const char llama[] =
      "{\"architectures\":[\"LlamaForCausalLM\"],\"num_hidden_layers\":2,"
      "\"max_position_embeddings\":2048,\"hidden_size\":64,\"intermediate_size\":128,"
      "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"rope_theta\":500000,"
      "\"rms_norm_eps\":1e-05,\"vocab_size\":400,\"head_dim\":16,\"head_dim\":32,"
      "\"rope_scaling\":{\"type\":\"linear\",\"factor\":2}}";
  /* LlamaModel: Model.set_gguf_parameters' keys, file_type, then its own */
  static const char llama_keys[] =
      "llama.block_count,llama.context_length,llama.embedding_length,"
      "llama.feed_forward_length,llama.attention.head_count,llama.attention.head_count_kv,"
      "llama.rope.freq_base,llama.attention.layer_norm_rms_epsilon,llama.attention.key_length,"
      "llama.attention.value_length,general.file_type,llama.vocab_size,"
      "llama.rope.dimension_count,llama.rope.scaling.type,llama.rope.scaling.factor";
  static const char gemma[] =
      "{\"max_position_embeddings\":8192,\"hidden_size\":64,\"num_hidden_layers\":2,"
      "\"intermediate_size\":128,\"num_attention_heads\":4,\"rms_norm_eps\":1e-06,"
      "\"head_dim\":16}";
  static const char gemma_keys[] =
      "gemma.context_length,gemma.embedding_length,gemma.block_count,gemma.feed_forward_length,"
      "gemma.attention.head_count,gemma.attention.head_count_kv,"
      "gemma.attention.layer_norm_rms_epsilon,gemma.attention.key_length,"
      "gemma.attention.value_length,general.file_type";
  wt_config c;
  cv_kv_list l;
  cv_hp h;
  wt_error e;
  char keys[2048];
  memset(&l, 0, sizeof(l));
  if (config(llama, &c) == 0) {
    h = (cv_hp){&c, "llama", 7, &l};
    CHECK(cv_hparams_llama(&h, &e) == 0, "llama hparams: %s", e.msg);
    keys_of(&l, keys, sizeof(keys));
    CHECK(strcmp(keys, llama_keys) == 0, "llama keys: %s", keys);
    CHECK(kv_number(&l, "llama.attention.key_length") == 32, "the last head_dim wins");
    CHECK(kv_number(&l, "llama.rope.freq_base") == 500000.0, "an int rope_theta as FLOAT32");
    CHECK(kv_number(&l, "llama.attention.layer_norm_rms_epsilon") == (double)1e-05f,
          "1e-05 rounded to float32");
    CHECK(kv_number(&l, "general.file_type") == 7, "file_type");
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config(gemma, &c) == 0) {
    h = (cv_hp){&c, "gemma", 1, &l};
    CHECK(cv_hparams_gemma(&h, &e) == 0, "gemma hparams: %s", e.msg);
    keys_of(&l, keys, sizeof(keys));
    CHECK(strcmp(keys, gemma_keys) == 0, "gemma keys: %s", keys);
    CHECK(kv_number(&l, "gemma.attention.head_count_kv") == 4,
          "gemma: no num_key_value_heads is num_attention_heads");
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  /* what the converter refuses: struct.pack of 4.0 as an int, a key it indexes */
  if (config("{\"num_hidden_layers\":2,\"num_attention_heads\":4.0,\"hidden_size\":64,"
             "\"vocab_size\":10}",
             &c) == 0) {
    h = (cv_hp){&c, "llama", 1, &l};
    CHECK(cv_hparams_llama(&h, &e) != 0 && strstr(e.msg, "num_attention_heads is '4.0'") != NULL,
          "a float head count: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config("{\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4}", &c) == 0) {
    h = (cv_hp){&c, "llama", 1, &l};
    CHECK(cv_hparams_llama(&h, &e) != 0 && strstr(e.msg, "no vocab_size") != NULL,
          "no vocab_size: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
  if (config("{\"n_layers\":null,\"num_hidden_layers\":2}", &c) == 0) {
    h = (cv_hp){&c, "qwen2", 1, &l};
    CHECK(cv_hparams_qwen2(&h, &e) != 0 && strstr(e.msg, "n_layers is 'null'") != NULL,
          "find_hparam takes the first key present, null or not: %s", e.msg);
    wt_config_free(&c);
  }
  cv_kv_list_free(&l);
}

static void test_kv_list(void) {
  cv_kv_list l;
  wt_error e;
  memset(&l, 0, sizeof(l));
  CHECK(cv_kv_u32(&l, "a", 1, &e) == 0 && cv_kv_str(&l, "b", "", &e) == 0 && l.n == 1,
        "an empty string is not added");
  CHECK(cv_kv_u32(&l, "a", 2, &e) != 0 && strstr(e.msg, "given twice") != NULL,
        "c392e50 refuses a key given twice");
  CHECK(cv_kv_u32(&l, "c", 1ULL << 32, &e) != 0 && strstr(e.msg, "does not fit") != NULL,
        "2^32 is no UINT32");
  CHECK(cv_kv_f32(&l, "c", 1e39, &e) != 0, "1e39 is no FLOAT32");
  l.replace = 1;
  CHECK(cv_kv_u32(&l, "x", 1, &e) == 0 && cv_kv_u32(&l, "a", 9, &e) == 0 && l.n == 2 &&
            kv_number(&l, "a") == 9 && l.e[0].key_len == 1 && l.bytes.p[l.e[0].key_off] == 'a',
        "de3ff815 replaces the value where the key stands");
  cv_kv_list_free(&l);
}

/* ================================== plan ================================== */

/* A checkpoint tensor for the plan (no file behind it). */
typedef struct fake {
  const char *name, *dtype;
  int ndim;
  uint64_t dims[2];
} fake;

/* Plan the fakes f[0..n) for hf architecture arch at ftype: 0, or -1 with
** e set (and *p empty). */
static int plan_of(const char *arch, const cv_dims *d, int ftype, const fake *f, size_t n,
                   cv_plan *p, wt_error *e) {
  static wt_tensor t[16];
  static cv_in in[16];
  size_t i, bad;
  for (i = 0; i < n; i++) {
    memset(&t[i], 0, sizeof(t[i]));
    t[i].name = (wt_str){f[i].name, strlen(f[i].name)};
    t[i].dtype = (wt_str){f[i].dtype, strlen(f[i].dtype)};
    t[i].ndim = f[i].ndim;
    t[i].dims = f[i].dims;
    in[i] = (cv_in){NULL, &t[i]};
  }
  return cv_plan_build(cv_arch_find(arch), d, ftype, in, n, NULL, 0, p, &bad, e);
}

static void test_plan(void) {
  static const fake llama[] = {
      {"model.embed_tokens.weight", "BF16", 2, {10, 64}},
      {"model.layers.0.input_layernorm.weight", "BF16", 1, {64}},
      {"model.layers.0.mlp.down_proj.weight", "F16", 2, {64, 80}},
      {"model.layers.0.self_attn.k_proj.weight", "F32", 2, {32, 64}},
      {"model.layers.0.self_attn.q_proj.weight", "BF16", 2, {64, 64}},
      {"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", 1, {8}},
      {"model.norm.weight", "BF16", 1, {64}},
  };
  static const struct {
    const char *name;
    uint32_t type;
    uint64_t ne0, ne1, heads;
  } want[] = {{"token_embd.weight", CV_GGML_Q8_0, 64, 10, 0},
              {"blk.0.attn_norm.weight", CV_GGML_F32, 64, 0, 0},
              {"blk.0.ffn_down.weight", CV_GGML_F16, 80, 64, 0}, /* 80 is no multiple of 32 */
              {"blk.0.attn_k.weight", CV_GGML_Q8_0, 64, 32, 2},
              {"blk.0.attn_q.weight", CV_GGML_Q8_0, 64, 64, 4},
              {"output_norm.weight", CV_GGML_F32, 64, 0, 0}};
  static const fake gemma[] = {{"lm_head.weight", "BF16", 2, {10, 64}},
                               {"model.norm.weight", "F16", 1, {64}}};
  static const struct {
    fake f;
    const char *msg;
  } bad[] = {
      {{"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", 2, {64, 64}}, "is F8_E4M3"},
      {{"model.layers.0.self_attn.q_proj.weight", "I32", 2, {64, 64}}, "is I32"},
      {{"model.layers.0.self_attn.q_proj.weight", "BF16", 2, {48, 64}},
       "has shape [48,64], but config.json gives [64,64]"},
      {{"model.layers.1.input_layernorm.weight", "BF16", 1, {64}},
       "of layer 1, but config.json has 1"},
      {{"model.layers.0.mlp.gate.weight", "BF16", 2, {80, 64}}, "has no GGUF name"},
      {{"model.norm.weight_scale", "F32", 1, {64}}, "has no GGUF name"},
  };
  cv_dims d = {1, 64, 4, 2, 16, 80, 10};
  cv_plan p;
  wt_error e;
  size_t i;
  if (plan_of("LlamaForCausalLM", &d, CV_FTYPE_Q8_0, llama, 7, &p, &e) != 0) {
    CHECK(0, "llama plan: %s", e.msg);
  } else {
    CHECK(p.n == 6, "llama plan: %zu tensors, not 6", p.n);
    for (i = 0; i < p.n && i < 6; i++)
      CHECK(strcmp(p.t[i].name, want[i].name) == 0 && p.t[i].type == want[i].type &&
                p.t[i].ne[0] == want[i].ne0 && p.t[i].ne[1] == want[i].ne1 &&
                p.t[i].heads == want[i].heads,
            "llama plan #%zu: %s type %u ne %llu,%llu heads %llu", i, p.t[i].name, p.t[i].type,
            (unsigned long long)p.t[i].ne[0], (unsigned long long)p.t[i].ne[1],
            (unsigned long long)p.t[i].heads);
    CHECK(p.total_params == 640 + 64 + 5120 + 2048 + 4096 + 64, "llama plan: parameters %llu",
          (unsigned long long)p.total_params);
    cv_plan_free(&p);
  }
  if (plan_of("GemmaForCausalLM", &d, CV_FTYPE_F16, gemma, 2, &p, &e) != 0) {
    CHECK(0, "gemma plan: %s", e.msg);
  } else {
    CHECK(p.n == 1 && strcmp(p.t[0].name, "output_norm.weight") == 0 && p.t[0].plus_one &&
              p.t[0].type == CV_GGML_F32,
          "gemma plan: lm_head dropped, the norm shifted and F32");
    cv_plan_free(&p);
  }
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    CHECK(plan_of("LlamaForCausalLM", &d, CV_FTYPE_F16, &bad[i].f, 1, &p, &e) != 0 &&
              strstr(e.msg, bad[i].msg) != NULL,
          "refused %s: %s", bad[i].f.name, e.msg);
}

int main(void) {
  test_f16();
  test_bf16();
  test_q8_0();
  test_kernels();
  test_plus_one();
  test_model_ids();
  test_labels();
  test_general_refusals();
  test_hparams();
  test_kv_list();
  test_plan();
  printf("convert_test: %d passed, %d failed\n", cv_test_passed, cv_test_failed);
  return cv_test_failed != 0;
}
