/*
** convert.c: one conversion, from the checkpoint to the committed GGUF.
** See convert.h.  Layer: convert.
**
** The metadata is added in the order convert_hf_to_gguf.py adds it to
** gguf-py's GGUFWriter (Model.write: prepare_tensors, then
** prepare_metadata): general.architecture (the writer's constructor);
** what a class adds while it generates tensors (Phi-3's attn_factor);
** general.type and the naming keys (set_gguf_meta_model); the
** hyperparameters (set_gguf_parameters, with general.file_type); then, at
** c392e50, the vocabulary (set_vocab) and general.quantization_version,
** at de3ff815 the other way round.
*/
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "convert/arch.h"
#include "convert/config_values.h"
#include "convert/data.h"
#include "convert/general.h"
#include "convert/hparams.h"
#include "convert/kv_list.h"
#include "convert/plan.h"
#include "convert/vocab.h"
#include "write/gguf_writer.h"
#include "write/out_file.h"
#include "write/write_job.h"

/* ggml's GGML_QNT_VERSION, which gguf-py writes as general.quantization_version. */
#define CV_QUANT_VERSION 2

int cv_ftype_parse(const char *name, int *ftype) {
  static const struct {
    const char *name;
    int ftype;
  } types[] = {{"f32", CV_FTYPE_F32},
               {"f16", CV_FTYPE_F16},
               {"bf16", CV_FTYPE_BF16},
               {"q8_0", CV_FTYPE_Q8_0},
               {"auto", CV_FTYPE_AUTO}};
  size_t i;
  for (i = 0; name != NULL && i < sizeof(types) / sizeof(types[0]); i++)
    if (strcasecmp(name, types[i].name) == 0) {
      *ftype = types[i].ftype;
      return 0;
    }
  return -1;
}

/* Everything one conversion holds. */
typedef struct cv_job {
  const cv_options *opt;
  cv_checkpoint ck;
  wt_config cfg;
  const cv_arch *arch;
  cv_dims dims;
  int ftype;
  cv_extra extras[CV_MAX_EXTRAS];
  size_t n_extras;
  cv_plan plan;
  cv_kv_list kv;
  cv_vocab_files vf;
  wt_buf hdr;
  uint64_t *start, data_size;
  uint64_t alignment;
  cv_data data;
  wt_job job;
  wt_job_tensor *jt;
  wt_job_key *jk;
  const wt_file **files;
  wt_out out;
  const char *where; /* the path an error is about */
} cv_job;

/* ============================= the metadata =============================== */

/* Refuse what the de3ff815 Qwen3 class would turn into another kind of
** model (a reranker, a pooling embedder), which is not converted here. */
static int check_qwen3_kind(cv_job *j, wt_error *err) {
  const char *hints[3] = {j->ck.dir_name, NULL, j->cfg.model_type};
  const wt_config_entry *e = cv_cfg_get(&j->cfg, "_name_or_path");
  char *path = NULL, low[512];
  wt_error ignored;
  int i, rerank = 0;
  size_t k;
  if (e != NULL && cv_cfg_string(e, &path, &ignored) == 0)
    hints[1] = path;
  for (i = 0; i < 3 && !rerank; i++) {
    for (k = 0; hints[i] != NULL && hints[i][k] && k + 1 < sizeof(low); k++)
      low[k] = (char)(hints[i][k] >= 'A' && hints[i][k] <= 'Z' ? hints[i][k] + 32 : hints[i][k]);
    low[hints[i] != NULL ? k : 0] = 0;
    rerank = strstr(low, "qwen3-reranker") != NULL || strstr(low, "qwen3-vl-reranker") != NULL;
  }
  free(path);
  if (rerank)
    return wt_fail(err, "a Qwen3 reranker (named so): converting rerankers is not supported");
  if (cv_checkpoint_read(&j->ck, CV_BESIDE_MODULES, &j->where, err) != 0)
    return -1;
  if (j->ck.files[CV_BESIDE_MODULES].present) {
    j->where = j->ck.files[CV_BESIDE_MODULES].path;
    return wt_fail(err, "a sentence-transformers model (modules.json): converting its pooling is "
                        "not supported");
  }
  return 0;
}

/* general.quantization_version. */
static int add_quant_version(cv_job *j, wt_error *err) {
  return cv_kv_u32(&j->kv, "general.quantization_version", CV_QUANT_VERSION, err);
}

/* The tokenizer's entries (vocab.h), from the files it asks for, for an
** embedding of as many rows as token_embd.weight has.  Its messages name
** the file under the source folder themselves. */
static int add_vocab(cv_job *j, wt_error *err) {
  static const struct {
    unsigned bit;
    int which;
  } files[] = {{CV_FILE_TOKENIZER_MODEL, CV_BESIDE_TOKENIZER_MODEL},
               {CV_FILE_TOKENIZER_JSON, CV_BESIDE_TOKENIZER_JSON},
               {CV_FILE_TOKENIZER_CONFIG, CV_BESIDE_TOKENIZER_CONFIG},
               {CV_FILE_ADDED_TOKENS, CV_BESIDE_ADDED_TOKENS},
               {CV_FILE_MERGES_TXT, CV_BESIDE_MERGES},
               {CV_FILE_CHAT_TEMPLATE_JINJA, CV_BESIDE_CHAT_TEMPLATE},
               {CV_FILE_CHAT_TEMPLATE_JSON, CV_BESIDE_CHAT_TEMPLATE_JSON}};
  cv_file_bytes *slot[] = {&j->vf.tokenizer_model,   &j->vf.tokenizer_json,
                           &j->vf.tokenizer_config,  &j->vf.added_tokens,
                           &j->vf.merges_txt,        &j->vf.chat_template_jinja,
                           &j->vf.chat_template_json};
  cv_kv_sink sink = cv_kv_list_sink(&j->kv);
  unsigned wanted = cv_vocab_files_wanted(j->arch->hf);
  uint64_t n_vocab = 0;
  size_t i;
  for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    const cv_file *f = &j->ck.files[files[i].which];
    if (!(wanted & files[i].bit))
      continue;
    if (cv_checkpoint_read(&j->ck, files[i].which, &j->where, err) != 0)
      return -1;
    *slot[i] = (cv_file_bytes){f->present ? f->p : NULL, f->present ? f->n : 0};
  }
  j->vf.config = (cv_file_bytes){j->ck.files[CV_BESIDE_CONFIG].p, j->ck.files[CV_BESIDE_CONFIG].n};
  j->vf.dir_name = j->ck.dir;
  for (i = 0; i < j->plan.n; i++)
    if (strcmp(j->plan.t[i].name, "token_embd.weight") == 0)
      n_vocab = j->plan.t[i].ne[1];
  j->where = NULL;
  return cv_vocab_write(j->arch->hf, &j->vf, n_vocab, &sink, NULL, err);
}

/* Every metadata entry and the plan, in the converter's order. */
static int build(cv_job *j, wt_error *err) {
  cv_hp hp = {&j->cfg, NULL, 0, &j->kv};
  cv_naming nm;
  char names[512];
  size_t bad;
  const cv_file *cfg = &j->ck.files[CV_BESIDE_CONFIG];
  j->where = cfg->path;
  if (cv_config_parse((const char *)cfg->p, cfg->n, &j->cfg, err) != 0)
    return -1;
  j->arch = cv_arch_find(j->cfg.hf_arch);
  if (j->arch == NULL) {
    cv_arch_names(names, sizeof(names));
    if (j->cfg.hf_arch == NULL)
      return wt_fail(err, "config.json names no architecture (architectures[0]); converted are %s",
                     names);
    return wt_fail(err, "architecture %.100s is not supported; converted are %s", j->cfg.hf_arch,
                   names);
  }
  if (cv_dims_read(j->arch, &j->cfg, &j->dims, err) != 0 ||
      (j->arch->converter == CV_CONV_DE3FF815 && check_qwen3_kind(j, err) != 0))
    return -1;
  j->where = cfg->path;
  j->ftype =
      j->opt->ftype == CV_FTYPE_AUTO ? cv_plan_auto_ftype(j->ck.in, j->ck.n_in) : j->opt->ftype;
  hp.arch = j->arch->gguf;
  hp.ftype = (uint32_t)j->ftype;
  j->kv.replace = j->arch->converter == CV_CONV_DE3FF815;
  if (cv_kv_str(&j->kv, "general.architecture", j->arch->gguf, err) != 0 ||
      (j->arch->extras != NULL && j->arch->extras(&hp, j->extras, &j->n_extras, err) != 0))
    return -1;
  if (cv_plan_build(j->arch, &j->dims, j->ftype, j->ck.in, j->ck.n_in, j->extras, j->n_extras,
                    &j->plan, &bad, err) != 0) {
    j->where = cv_checkpoint_file_of(&j->ck, bad);
    return -1;
  }
  memset(&nm, 0, sizeof(nm));
  nm.dir_name = j->ck.dir_name;
  nm.cfg = &j->cfg;
  nm.name = j->opt->name;
  nm.total_params = j->plan.total_params;
  nm.sampling = j->arch->converter == CV_CONV_DE3FF815;
  nm.gen_config = (const char *)j->ck.files[CV_BESIDE_GENERATION_CONFIG].p;
  nm.gen_config_n = j->ck.files[CV_BESIDE_GENERATION_CONFIG].n;
  j->where = j->ck.dir; /* the folder's name, generation_config.json: the message says which */
  if (cv_general_meta(&j->kv, &nm, err) != 0)
    return -1;
  j->where = cfg->path;
  if (j->arch->hparams(&hp, err) != 0)
    return -1;
  j->where = j->ck.dir;
  if (j->arch->converter == CV_CONV_DE3FF815)
    return add_quant_version(j, err) != 0 || add_vocab(j, err) != 0 ? -1 : 0;
  return add_vocab(j, err) != 0 || add_quant_version(j, err) != 0 ? -1 : 0;
}

/* The header's bytes and every tensor's place. */
static int encode_header(cv_job *j, wt_error *err) {
  gw_kv *kv = cv_kv_list_gw(&j->kv);
  gw_tensor *t = calloc(j->plan.n + 1, sizeof(*t));
  size_t i;
  int k, rc = -1;
  j->start = calloc(j->plan.n + 1, sizeof(*j->start));
  if (kv == NULL || t == NULL || j->start == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (i = 0; i < j->plan.n; i++) {
    const cv_out_tensor *o = &j->plan.t[i];
    t[i].name.p = o->name;
    t[i].name.n = strlen(o->name);
    t[i].type = o->type;
    t[i].ndim = o->ndim;
    for (k = 0; k < o->ndim; k++)
      t[i].dims[k] = o->ne[k];
  }
  if (gguf_write_header(kv, j->kv.n, t, j->plan.n, &j->hdr, &j->alignment, &j->data_size, err) != 0)
    goto done;
  for (i = 0; i < j->plan.n; i++) {
    if (t[i].nbytes != j->plan.t[i].nbytes) {
      wt_fail(err, "tensor %s: %llu bytes planned, %llu in the header", j->plan.t[i].name,
              (unsigned long long)j->plan.t[i].nbytes, (unsigned long long)t[i].nbytes);
      goto done;
    }
    j->start[i] = t[i].data_start;
  }
  rc = 0;
done:
  free(kv);
  free(t);
  return rc;
}

/* ============================ write and check ============================= */

/* The job: every tensor copied by reference or encoded (data.h), every key
** to read back as asked, the shards to be unchanged at the end. */
static int build_job(cv_job *j, const char *path, wt_error *err) {
  size_t i, k;
  j->jt = calloc(j->plan.n + 1, sizeof(*j->jt));
  j->jk = calloc(j->kv.n + 1, sizeof(*j->jk));
  j->files = calloc(j->ck.n_parts + 1, sizeof(*j->files));
  if (j->jt == NULL || j->jk == NULL || j->files == NULL)
    return wt_fail(err, "out of memory");
  j->data.plan = &j->plan;
  j->data.hash = calloc(j->plan.n + 1, sizeof(*j->data.hash));
  if (j->data.hash == NULL)
    return wt_fail(err, "out of memory");
  for (i = 0; i < j->plan.n; i++) {
    const cv_out_tensor *o = &j->plan.t[i];
    wt_job_tensor *t = &j->jt[i];
    int copy;
    t->name.p = o->name;
    t->name.n = strlen(o->name);
    t->type_id = o->type;
    t->ndim = o->ndim;
    t->dims = o->ne;
    t->nbytes = o->nbytes;
    t->data_start = j->start[i];
    if (cv_data_is_copy(&j->data, i, j->opt->verify, &copy, err) != 0) {
      j->where = o->in->src->path;
      return -1;
    }
    if (copy) {
      t->from = WT_FROM_FILE;
      t->file = &o->in->src->file;
      t->file_off = o->in->t->offset;
      t->file_hash = j->data.hash[i][0] ? j->data.hash[i] : NULL;
    } else {
      t->from = WT_FROM_ENCODER;
      t->encode = cv_data_encode;
      t->encode_ctx = &j->data;
    }
  }
  for (i = 0; i < j->kv.n; i++) {
    const cv_kv_entry *e = &j->kv.e[i];
    j->jk[i] = (wt_job_key){{j->kv.bytes.p + e->key_off, e->key_len},
                            e->type,
                            (const unsigned char *)j->kv.bytes.p + e->val_off,
                            e->val_len};
  }
  for (k = 0; k < j->ck.n_parts; k++) {
    j->files[k] = &j->ck.parts[k]->file;
    if (wt_out_not_input(path, j->files[k], NULL, err) != 0)
      return -1;
  }
  j->job = (wt_job){0};
  j->job.path = path;
  j->job.format = WT_FORMAT_GGUF;
  j->job.header = (const unsigned char *)j->hdr.p;
  j->job.header_len = j->hdr.n;
  j->job.data_size = j->data_size;
  j->job.tensors = j->jt;
  j->job.n_tensors = j->plan.n;
  j->job.keys = j->jk;
  j->job.n_keys = j->kv.n;
  j->job.alignment = j->alignment;
  j->job.verify = j->opt->verify;
  j->job.sources = j->files;
  j->job.n_sources = j->ck.n_parts;
  j->job.interrupted = j->opt->interrupted;
  j->job.ctx = j->opt->ctx;
  return 0;
}

int cv_convert(wt_cache *cache, const char *out, const char *source, const cv_options *o,
               cv_result *r, wt_error *err) {
  cv_job j;
  int rc = -1;
  memset(&j, 0, sizeof(j));
  memset(r, 0, sizeof(*r));
  j.opt = o;
  j.where = out;
  if (wt_file_is_remote(out, strlen(out))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  if (cv_checkpoint_open(cache, source, &j.ck, &j.where, err) != 0 || build(&j, err) != 0 ||
      encode_header(&j, err) != 0)
    goto done;
  j.where = out;
  if (build_job(&j, out, err) != 0 || wt_job_write(&j.job, &j.out, err) != 0 ||
      wt_out_commit(&j.out, err) != 0)
    goto done;
  r->size = j.out.size;
  rc = 0;
done:
  if (rc != 0 && j.where != NULL)
    r->where = strdup(j.where);
  wt_out_abort(&j.out);
  cv_data_free(&j.data);
  free(j.jt);
  free(j.jk);
  free(j.files);
  free(j.hdr.p);
  free(j.start);
  cv_kv_list_free(&j.kv);
  cv_plan_free(&j.plan);
  cv_extras_free(j.extras, j.n_extras);
  wt_config_free(&j.cfg);
  cv_checkpoint_close(&j.ck);
  return rc;
}
