/*
** url.h: remote paths: recognise http://, https:// and hf://
** arguments and resolve them to the URL to fetch.  Pure C: no I/O, no
** environment (the caller passes HF_ENDPOINT), no SQLite; remote layer.
**
**   http://host[:port]/path, https://...   fetched as given
**   hf://ORG/REPO[@REV]/PATH               ENDPOINT/ORG/REPO/resolve/REV/PATH
**   hf://datasets/ORG/REPO[@REV]/PATH      ENDPOINT/datasets/ORG/REPO/resolve/REV/PATH
**   hf://spaces/ORG/REPO[@REV]/PATH        likewise under spaces/
**
**   hf://ORG/REPO[@REV] and hf://ORG/REPO[@REV]/FOLDER/ (a trailing '/')
**       a repo or a folder of one: ENDPOINT/api/models/ORG/REPO/tree/REV[/FOLDER]
**       ?recursive=true (api/datasets/, api/spaces/ for those), is_tree set
**
** REV defaults to "main"; "refs/pr/N" is one revision (three segments).
** REV is percent-encoded whole ('/' too), PATH keeps its '/', as the Hub's
** own client does.  A revision of 40 hex digits is a commit: immutable.
** The scheme is matched without case; the host is kept lowercased for the
** token rule: the token goes only to ENDPOINT's host (wt_url.token_ok).
*/
#ifndef WT_URL_H
#define WT_URL_H

#include <stddef.h>

#include "base/model.h"

#define WT_URL_MAX 8192

/* The default of HF_ENDPOINT. */
#define WT_HF_ENDPOINT "https://huggingface.co"

typedef struct wt_url {
  char *url;         /* http(s) URL to fetch, malloc'd */
  char *host;        /* its host, lowercased, without port, malloc'd */
  int is_hf;         /* given as hf:// */
  int immutable;     /* the revision is a 40-hex commit */
  int token_ok;      /* url's host and port are the endpoint's: a token may be sent */
  int is_tree;       /* a repo or folder: url is the Hub's tree API for it */
  char *tree_prefix; /* is_tree: "hf://[KIND/]ORG/REPO[@REV]/", before each file's path */
} wt_url;

/* 1 when p[0..n) starts with http://, https:// or hf:// (any case). */
int wt_url_is_remote(const char *p, size_t n);

/* Resolve p[0..n) against endpoint (NULL or "": the default; trailing '/'
** dropped).  Returns 0 with out filled (free with wt_url_free), or -1 with
** err set (no URL in the message beyond what the user wrote). */
int wt_url_resolve(const char *p, size_t n, const char *endpoint, wt_url *out, wt_error *err);

/* The host (lowercased) and port of an http(s) URL into host (size bytes)
** and *port (80/443 by default).  Returns 0, or -1 when it is not one. */
int wt_url_host(const char *url, char *host, size_t size, int *port);

/* Free what resolve allocated; safe on a zeroed wt_url. */
void wt_url_free(wt_url *u);

/* True when the file path p[0..n) inside a repo is relative, without
** empty, "." or ".." segments. */
int wt_url_repo_path_ok(const char *p, size_t n);

#endif
