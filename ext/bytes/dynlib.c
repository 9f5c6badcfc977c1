/*
** dynlib.c: a shared library opened on first use.  See dynlib.h.
*/
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* One lock for every library: taken only until a library's first answer. */
static pthread_mutex_t wt_dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

/* Open l and fill its slots: 1, or -1 with l->msg set. */
static int wt_dynlib_open(wt_dynlib *l) {
  const char *name = l->env != NULL ? getenv(l->env) : NULL;
  const char *why;
  void *handle;
  size_t i;
  if (name == NULL || *name == 0)
    name = l->soname;
  handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    why = dlerror();
    snprintf(l->msg, sizeof(l->msg),
             "%s need %s, which could not be loaded (%s): install Debian's package %s, or name "
             "the library's file in %s",
             l->needed, name, why != NULL ? why : "not found", l->package, l->env);
    return -1;
  }
  for (i = 0; i < l->n_syms; i++) {
    *l->syms[i].slot = dlsym(handle, l->syms[i].name);
    if (*l->syms[i].slot == NULL) {
      snprintf(l->msg, sizeof(l->msg),
               "%s need %s, and the one loaded has no function %s (too old?): install Debian's "
               "package %s",
               l->needed, name, l->syms[i].name, l->package);
      dlclose(handle);
      return -1;
    }
  }
  return 1; /* never closed: its functions are used until the process ends */
}

int wt_dynlib_load(wt_dynlib *l, wt_error *err) {
  int state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
  if (state == 0) {
    pthread_mutex_lock(&wt_dynlib_lock);
    state = l->state;
    if (state == 0) {
      state = wt_dynlib_open(l);
      __atomic_store_n(&l->state, state, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&wt_dynlib_lock);
  }
  return state == 1 ? 0 : wt_fail(err, "%s", l->msg);
}
