/*
** fuzz_vocab_spm.c: libFuzzer target for the SentencePiece reader
** (ext/convert/vocab_spm.c) and the SentencePiece recipes.
**
** The input is a tokenizer.model; its first byte picks the architecture
** (Llama, Qwen2, Qwen3, Gemma, Gemma2, Phi-3) and whether config.json
** gives a vocab_size (the pieces' count, one more, or one less).  Checked:
** cv_spm_parse() either fails with a message or gives pieces that are
** non-empty, valid UTF-8, unique and exactly one of them the unknown piece;
** a model re-encoded from those pieces parses to the same pieces; and
** cv_vocab_write()'s output is as vocab_check.h says.  Built by `make fuzz`.
*/
#include <stdio.h>

#include "convert/vocab_int.h"
#include "vocab_check.h"
#include "write/write_buf.h"

static const char *const archs[] = {"LlamaForCausalLM", "Qwen2ForCausalLM",  "Qwen3ForCausalLM",
                                    "GemmaForCausalLM", "Gemma2ForCausalLM", "Phi3ForCausalLM"};

static void put_varint(wt_buf *b, uint64_t v) {
  do {
    unsigned char c = v & 0x7f;
    v >>= 7;
    if (v)
      c |= 0x80;
    wb_put(b, &c, 1);
  } while (v);
}

/* The pieces written back as a ModelProto. */
static void encode(const cv_spm *m, wt_buf *out) {
  wt_buf p = {0};
  for (size_t i = 0; i < m->n; i++) {
    uint32_t u;
    p.n = 0;
    put_varint(&p, 1 << 3 | 2);
    put_varint(&p, m->piece[i].n);
    wb_put(&p, m->piece[i].p, m->piece[i].n);
    put_varint(&p, 2 << 3 | 5);
    memcpy(&u, &m->piece[i].score, 4);
    wb_u32(&p, u);
    put_varint(&p, 3 << 3 | 0);
    put_varint(&p, (uint64_t)m->piece[i].type);
    put_varint(out, 1 << 3 | 2);
    put_varint(out, p.n);
    wb_put(out, p.p, p.n);
  }
  put_varint(out, 2 << 3 | 2); /* trainer_spec {byte_fallback}: a key of 2 bytes, a value of 1 */
  put_varint(out, 3);
  put_varint(out, 35 << 3 | 0);
  wb_put(out, m->byte_fallback ? "\x01" : "\x00", 1);
  free(p.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned sel = data[0];
  const unsigned char *p = data + 1;
  size_t n = size - 1;
  cv_spm m;
  wt_error err;
  if (cv_spm_parse(p, n, &m, &err) == 0) {
    int unk = 0;
    for (size_t i = 0; i < m.n; i++) {
      if (!m.piece[i].n || !wt_utf8_valid(m.piece[i].p, m.piece[i].n))
        abort();
      if (m.piece[i].type < 1 || m.piece[i].type > 6)
        abort();
      unk += m.piece[i].type == 2;
      for (size_t k = i + 1; k < m.n && k < i + 64; k++)
        if (m.piece[k].n == m.piece[i].n && !memcmp(m.piece[k].p, m.piece[i].p, m.piece[i].n))
          abort();
    }
    if (unk != 1)
      abort();
    wt_buf again = {0};
    cv_spm m2;
    encode(&m, &again);
    if (cv_spm_parse((const unsigned char *)again.p, again.n, &m2, &err) == 0) {
      if (m2.n != m.n)
        abort();
      for (size_t i = 0; i < m.n; i++)
        if (m2.piece[i].n != m.piece[i].n || memcmp(m2.piece[i].p, m.piece[i].p, m.piece[i].n) ||
            m2.piece[i].type != m.piece[i].type || memcmp(&m2.piece[i].score, &m.piece[i].score, 4))
          abort();
      cv_spm_free(&m2);
    } else {
      abort();
    }
    free(again.p);
    cv_spm_free(&m);
  } else if (!err.msg[0]) {
    abort();
  }
  cv_vocab_files f = {0};
  char config[64];
  f.dir_name = "fuzz";
  f.tokenizer_model = (cv_file_bytes){p, n};
  int mode = (sel >> 3) % 4;
  if (mode) {
    size_t pieces = 0;
    if (cv_spm_parse(p, n, &m, &err) == 0) {
      pieces = m.n;
      cv_spm_free(&m);
    }
    snprintf(config, sizeof(config), "{\"vocab_size\": %zu}",
             pieces + (size_t)mode - 2 + (pieces == 0));
    f.config = (cv_file_bytes){(const unsigned char *)config, strlen(config)};
  }
  fz_check(archs[sel % 6], &f, 0);
  return 0;
}
