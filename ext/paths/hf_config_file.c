/*
** hf_config_file.c: locate and read a model's config.json.  See
** hf_config_file.h.
*/
#include "hf_config_file.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/file.h"
#include "remote/url.h"

/* Does path end in suffix? */
static int ends_with(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcmp(path + n - k, suffix) == 0;
}

int wt_config_locate(const char *path, char *out, size_t cap) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash != NULL ? (size_t)(slash - path) + 1 : 0;
  if (ends_with(path, ".json") && !ends_with(path, ".index.json")) {
    if (strlen(path) + 1 > cap)
      return -1;
    memcpy(out, path, strlen(path) + 1);
    return 0;
  }
  if (dir + sizeof("config.json") > cap)
    return -1;
  memcpy(out, path, dir);
  memcpy(out + dir, "config.json", sizeof("config.json"));
  return 0;
}

int wt_config_load(const char *path, int flatten, wt_config *cfg, wt_error *err) {
  struct stat st;
  wt_file f;
  unsigned char *buf = NULL;
  size_t n = 0;
  int rc, remote = wt_url_is_remote(path, strlen(path));
  memset(cfg, 0, sizeof(*cfg));
  if (!remote && stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return 1;
  if (wt_file_open(&f, path, strlen(path), err))
    return remote && strstr(err->msg, "HTTP 404") != NULL ? 1 : -1;
  rc = wt_file_read_all(&f, WT_CONFIG_MAX_BYTES, &buf, &n, err);
  wt_file_close(&f);
  if (rc)
    return -1;
  rc = wt_config_parse((const char *)buf, n, flatten, cfg, err);
  free(buf);
  return rc;
}

const char *wt_config_arch_of(const char *path) {
  char cfg_path[PATH_MAX];
  wt_config cfg;
  wt_error e;
  const char *arch;
  if (wt_config_locate(path, cfg_path, sizeof(cfg_path)) || ends_with(path, ".json"))
    return NULL;
  if (wt_config_load(cfg_path, 0, &cfg, &e) != 0)
    return NULL;
  arch = cfg.arch;
  wt_config_free(&cfg);
  return arch;
}
