/*
** model_card_file.c: find and read a model card's base_model.  See
** model_card_file.h.
*/
#include "model_card_file.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/file.h"
#include "formats/model_card.h"
#include "remote/url.h"

/* Read the first bytes of the card at path (at most WT_CARD_READ_MAX):
** 0 with *buf (malloc'd) and *n, 1 when there is no card, -1. */
static int card_read(const char *path, char **buf, size_t *n) {
  struct stat st;
  wt_file f;
  wt_error e;
  int remote = wt_url_is_remote(path, strlen(path)), rc = -1;
  *buf = NULL;
  if (!remote && stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    return 1;
  if (wt_file_open(&f, path, strlen(path), &e))
    return remote && strstr(e.msg, "HTTP 404") != NULL ? 1 : -1;
  *n = f.size < WT_CARD_READ_MAX ? (size_t)f.size : WT_CARD_READ_MAX;
  if ((*buf = malloc(*n ? *n : 1)) != NULL && wt_file_read_at(&f, 0, *n, *buf, &e) == 0 &&
      wt_file_unchanged(&f, &e) == 0)
    rc = 0;
  wt_file_close(&f);
  if (rc != 0) {
    free(*buf);
    *buf = NULL;
  }
  return rc;
}

int wt_card_base_model(const char *path, char *out, size_t cap) {
  static const char name[] = "README.md";
  char card_path[PATH_MAX], *buf, items[WT_CARD_READ_MAX / 64];
  const char *slash = strrchr(path, '/'), *item = items;
  size_t dir = slash != NULL ? (size_t)(slash - path) + 1 : 0, n = 0, count = 0, i, at = 0, k;
  wt_error e;
  int rc;
  out[0] = 0;
  if (dir + sizeof(name) > sizeof(card_path) || cap == 0)
    return -1;
  memcpy(card_path, path, dir);
  memcpy(card_path + dir, name, sizeof(name));
  if ((rc = card_read(card_path, &buf, &n)) != 0)
    return rc > 0 ? 0 : -1;
  rc = wt_card_values(buf, n, "base_model", items, sizeof(items), &count, &e);
  free(buf);
  for (i = 0; rc == 0 && i < count; i++, item += k + 1) {
    k = strlen(item);
    if (at + (i ? 2 : 0) + k + 1 > cap) {
      rc = -1; /* does not fit: no name rather than a part of the list */
      break;
    }
    if (i > 0) {
      memcpy(out + at, ", ", 2);
      at += 2;
    }
    memcpy(out + at, item, k + 1);
    at += k;
  }
  if (rc != 0)
    out[0] = 0;
  return rc;
}
