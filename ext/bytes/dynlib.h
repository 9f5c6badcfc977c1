/*
** dynlib.h: a shared library opened on first use (dlopen), not linked.
**
** The module links only what every query may need (libc, libm, libxxhash,
** libcjson).  libcurl (remote paths) and libcrypto (SHA-1 and SHA-256)
** are opened the first time a query needs them, by their Debian soname:
** linked, they would pull three dozen libraries (TLS, Kerberos, LDAP, SSH,
** ...) into every process that loads the module, about 3.5 ms of CPU per
** `.load` whether or not a remote file or a SHA is ever asked for.
**
** A library that is not installed is the error of the query that needs
** it, naming the file and the Debian package that installs it.  An
** environment variable names another file to open instead (a system
** where the library has another name).  A library once opened stays open
** for the life of the process.  bytes layer; no SQLite.
*/
#ifndef WT_DYNLIB_H
#define WT_DYNLIB_H

#include <stddef.h>

#include "base/model.h"

/* One function to look up: its name, and the pointer it goes into. */
typedef struct wt_dynsym {
  const char *name;
  void **slot;
} wt_dynsym;

/* A library opened on first use. */
typedef struct wt_dynlib {
  const char *soname;  /* the file opened, e.g. "libcurl.so.4" */
  const char *env;     /* the environment variable that names another file */
  const char *package; /* the Debian package that installs soname */
  const char *needed;  /* what needs it, for messages: "remote files" */
  const wt_dynsym *syms;
  size_t n_syms;
  int state;              /* 0 not tried, 1 loaded, -1 failed (msg says why) */
  char msg[WT_ERROR_MAX]; /* why it failed */
} wt_dynlib;

/* Open l and look up its functions, the first time only (safe from several
** threads).  0 when they are all there, else -1 with err set (and the same
** answer on every later call). */
int wt_dynlib_load(wt_dynlib *l, wt_error *err);

#endif
