/*
** hf_token.c: the Hugging Face token from the environment or its file.  See
** hf_token.h.
*/
#include "hf_token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wt_hf_token(char *buf, size_t size) {
  const char *v = getenv("HF_TOKEN");
  char path[WT_HF_TOKEN_PATH_MAX];
  size_t n = 0, i, j;
  buf[0] = 0;
  if (v == NULL || *v == 0)
    v = getenv("HUGGING_FACE_HUB_TOKEN");
  if (v != NULL && *v != 0) {
    snprintf(buf, size, "%s", v);
  } else {
    const char *tp = getenv("HF_TOKEN_PATH"), *home = getenv("HF_HOME");
    FILE *fp;
    if (tp != NULL && *tp != 0)
      snprintf(path, sizeof(path), "%s", tp);
    else if (home != NULL && *home != 0)
      snprintf(path, sizeof(path), "%s/token", home);
    else if ((home = getenv("HOME")) != NULL)
      snprintf(path, sizeof(path), "%s/.cache/huggingface/token", home);
    else
      return;
    fp = fopen(path, "re");
    if (fp == NULL)
      return;
    n = fread(buf, 1, size - 1, fp);
    buf[n] = 0;
    fclose(fp);
  }
  for (i = j = 0; buf[i]; i++)
    if (buf[i] != '\r' && buf[i] != '\n')
      buf[j++] = buf[i];
  while (j > 0 && buf[j - 1] == ' ')
    j--;
  buf[j] = 0;
  for (i = 0; buf[i] == ' '; i++)
    ;
  memmove(buf, buf + i, j - i + 1);
  for (i = 0; buf[i]; i++)
    if ((unsigned char)buf[i] < ' ' || buf[i] == 0x7f)
      buf[0] = 0; /* never put control bytes in a header */
}
