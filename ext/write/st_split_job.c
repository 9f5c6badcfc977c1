/*
** st_split_job.c: the job of safetensors_split(): a model written as a
** sharded safetensors checkpoint, as transformers' save_pretrained() writes
** one (st_write_job.h).  Layer: write.
**
** The rows go into shards in their order, a new shard starting when the
** next tensor would take the current one past max_shard_bytes (a tensor
** larger than that gets a shard of its own), as huggingface_hub's
** split_torch_state_dict_into_shards() does.  The shards are named
** model-00001-of-0000N.safetensors, written by safetensors_write()'s job
** (st_write_job_int.h), with model.safetensors.index.json beside them:
** {"metadata": {"total_size": bytes of every tensor}, "weight_map": {name:
** shard}}, keys sorted, indented by 2, as transformers writes it.  One
** shard is written as model.safetensors, without an index.
**
** The folder is made when it does not exist (its parent must).  Every
** shard is written and checked in a temporary file first; only when all of
** them are are they renamed into place, the index last.  A failure before
** that leaves the folder as it was (one made by the call is removed).
** Shards of an earlier split with other names are not removed.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "st_write_job.h"
#include "st_write_job_int.h"
#include "write_buf.h"

/* The longest path of a shard or the index. */
#define STS_PATH_MAX 4096

/* Append s as a JSON string as Python's json.dumps() writes it (ASCII:
** other characters as \uXXXX). */
static void sts_json_string(wt_buf *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  WB_LIT(b, "\"");
  while (*p) {
    unsigned c = *p, n = 1, k;
    char esc[32];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      wb_put(b, p++, 1);
      continue;
    }
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      wb_put(b, esc, 2);
      p++;
      continue;
    }
    if (c >= 0xf0)
      c &= 0x07, n = 4;
    else if (c >= 0xe0)
      c &= 0x0f, n = 3;
    else if (c >= 0xc0)
      c &= 0x1f, n = 2;
    for (k = 1; k < n && p[k]; k++)
      c = c << 6 | (p[k] & 0x3f);
    p += k;
    if (c >= 0x10000) { /* a surrogate pair */
      unsigned hi = 0xd800 + ((c - 0x10000) >> 10), lo = 0xdc00 + ((c - 0x10000) & 0x3ff);
      snprintf(esc, sizeof(esc), "\\u%04x\\u%04x", hi, lo);
      wb_put(b, esc, 12);
    } else {
      esc[0] = '\\', esc[1] = 'u';
      for (k = 0; k < 4; k++)
        esc[2 + k] = hex[(c >> (12 - 4 * k)) & 15];
      wb_put(b, esc, 6);
    }
  }
  WB_LIT(b, "\"");
}

static int sts_name_cmp(const void *a, const void *b) {
  return strcmp((*(const stw_row *const *)a)->name, (*(const stw_row *const *)b)->name);
}

/* The index of rows[0..n) (shard[i]: row i's, from 1) with shard file
** names base[k]. */
static int sts_index(const stw_row *rows, size_t n, const int *shard, char **base, wt_buf *b) {
  uint64_t total = 0;
  const stw_row **order = malloc((n + 1) * sizeof(*order));
  size_t i;
  if (order == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    total += rows[i].nbytes;
    order[i] = &rows[i];
  }
  qsort(order, n, sizeof(*order), sts_name_cmp);
  WB_LIT(b, "{\n  \"metadata\": {\n    \"total_size\": ");
  wb_dec(b, total);
  WB_LIT(b, "\n  },\n  \"weight_map\": {");
  for (i = 0; i < n; i++) {
    if (i > 0)
      WB_LIT(b, ",");
    WB_LIT(b, "\n    ");
    sts_json_string(b, order[i]->name);
    WB_LIT(b, ": ");
    sts_json_string(b, base[shard[order[i] - rows] - 1]);
  }
  WB_LIT(b, "\n  }\n}\n");
  free(order);
  return b->oom ? -1 : 0;
}

/* Give each row its shard (from 1) in shard[]; first[k]: shard k's first
** row.  Returns the number of shards. */
static int sts_assign(const stw_row *rows, size_t n, uint64_t max, int *shard, size_t *first) {
  uint64_t used = 0;
  size_t i;
  int k = 0;
  for (i = 0; i < n; i++) {
    if (k == 0 || (used > 0 && used + rows[i].nbytes > max)) {
      first[k++] = i;
      used = 0;
    }
    used += rows[i].nbytes;
    shard[i] = k;
  }
  first[k] = n;
  return k;
}

int wt_st_split(const char *folder, const stw_row *rows, size_t n_rows, uint64_t max,
                const stw_cancel *cancel, int *n_files, wt_error *err) {
  stw_job *job = NULL;
  char **base = NULL, path[STS_PATH_MAX];
  int *shard = calloc(n_rows + 1, sizeof(*shard));
  size_t *first = calloc(n_rows + 2, sizeof(*first));
  wt_buf index = {0};
  wt_out iout, **po = NULL;
  stw_job all; /* every source, for the metadata they agree on */
  stw_meta meta = {0};
  int n = 0, k, created = 0, rc = -1;
  memset(&iout, 0, sizeof(iout));
  stw_job_init(&all, cancel);
  if (shard == NULL || first == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  if (wt_file_is_remote(folder, strlen(folder))) {
    wt_fail(err, "the output must be a local path");
    goto done;
  }
  n = sts_assign(rows, n_rows, max, shard, first);
  if (mkdir(folder, 0777) == 0)
    created = 1; /* as save_pretrained() makes it; removed again on failure */
  else if (errno != EEXIST) {
    wt_fail(err, "cannot create the folder: %s", strerror(errno));
    goto done;
  }
  if (n == 0) {
    wt_fail(err, "no tensors: nothing to write");
    goto done;
  }
  if (stw_agreed_meta(&all, rows, n_rows, NULL, &meta, err) != 0)
    goto done;
  job = calloc((size_t)n, sizeof(*job));
  base = calloc((size_t)n, sizeof(*base));
  if (job == NULL || base == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (k = 0; k < n; k++)
    stw_job_init(&job[k], cancel);
  for (k = 0; k < n; k++) {
    char name[64];
    if (n == 1)
      snprintf(name, sizeof(name), "model.safetensors");
    else
      snprintf(name, sizeof(name), "model-%05d-of-%05d.safetensors", k + 1, n);
    if ((base[k] = strdup(name)) == NULL) {
      wt_fail(err, "out of memory");
      goto done;
    }
    if (snprintf(path, sizeof(path), "%s/%s", folder, name) >= (int)sizeof(path)) {
      wt_fail(err, "the folder path is too long");
      goto done;
    }
    if (stw_prepare(&job[k], path, rows + first[k], first[k + 1] - first[k], &meta, err) != 0)
      goto done;
  }
  if (n > 1) {
    if (sts_index(rows, n_rows, shard, base, &index) != 0 ||
        snprintf(path, sizeof(path), "%s/model.safetensors.index.json", folder) >=
            (int)sizeof(path)) {
      wt_fail(err, "out of memory");
      goto done;
    }
    if (wt_out_open(&iout, path, err) != 0 || wt_out_write(&iout, index.p, index.n, err) != 0)
      goto done;
  }
  if ((po = calloc((size_t)n + 1, sizeof(*po))) == NULL) {
    wt_fail(err, "out of memory");
    goto done;
  }
  for (k = 0; k < n; k++)
    po[k] = &job[k].out;
  /* the index last */
  po[n] = &iout;
  if (wt_out_commit_all(po, (size_t)n + (n > 1), err) != 0) /* polls the interrupt first */
    goto done;
  *n_files = n + (n > 1);
  created = 0;
  rc = 0;
done:
  wt_out_abort(&iout);
  for (k = 0; k < n; k++) {
    if (job)
      stw_job_free(&job[k]);
    if (base)
      free(base[k]);
  }
  free(job);
  free(po);
  free(base);
  free(shard);
  free(first);
  free(index.p);
  free(meta.v);
  stw_job_free(&all);
  if (created)
    rmdir(folder);
  return rc;
}
