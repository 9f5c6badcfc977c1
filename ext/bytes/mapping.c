/*
** mapping.c: read-only mappings of local files, and the SIGBUS guard over
** the loops that read them.  See mapping.h.
*/
#define _GNU_SOURCE /* sigorset */
#include "mapping.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

/* A guarded run: where to jump back to, and the addresses it covers. */
typedef struct wt_guard {
  sigjmp_buf jump;
  uintptr_t lo, hi;
} wt_guard;

/* This thread's guarded run, or NULL.  The initial-exec model makes reading
** it in the handler one load: a dlopen'd module's TLS in the default model
** goes through __tls_get_addr(), which may allocate on a thread's first
** use, which a signal handler must not do. */
static __thread wt_guard *volatile wt_guard_now __attribute__((tls_model("initial-exec")));

static struct sigaction wt_bus_prev; /* the handler this module's replaced */
static pthread_once_t wt_bus_once = PTHREAD_ONCE_INIT;
static _Atomic(const char *) wt_bus_off; /* why the guard is off; NULL: on */

/* A SIGBUS that is not the guard's: what the previous handler would have
** done with it (mapping.h). */
static void wt_bus_chain(int sig, siginfo_t *si, void *ctx) {
  const struct sigaction *p = &wt_bus_prev;
  sigset_t mask, old;
  if (!(p->sa_flags & SA_SIGINFO) && (p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN)) {
    struct sigaction dfl;
    if (p->sa_handler == SIG_IGN && si != NULL && si->si_code <= 0)
      return; /* sent by kill(2) or raise(3): ignored, as before */
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si == NULL || si->si_code <= 0)
      raise(sig); /* pending while this handler runs, then the default action */
    return;       /* a fault: the instruction runs again, under the default action */
  }
  if (ctx != NULL)
    mask = ((ucontext_t *)ctx)->uc_sigmask; /* the thread's mask when the signal came */
  else
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
  sigorset(&mask, &mask, &p->sa_mask);
  if (p->sa_flags & SA_NODEFER)
    sigdelset(&mask, sig);
  else
    sigaddset(&mask, sig);
  pthread_sigmask(SIG_SETMASK, &mask, &old);
  if (p->sa_flags & SA_SIGINFO)
    p->sa_sigaction(sig, si, ctx);
  else
    p->sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The process's SIGBUS handler while this module's guard is on. */
static void wt_bus_handler(int sig, siginfo_t *si, void *ctx) {
  wt_guard *g = wt_guard_now;
  if (g != NULL && si != NULL && si->si_code > 0 && (uintptr_t)si->si_addr >= g->lo &&
      (uintptr_t)si->si_addr < g->hi) {
    wt_guard_now = NULL;
    siglongjmp(g->jump, 1);
  }
  wt_bus_chain(sig, si, ctx);
}

/* Keep this module loaded for the life of the process: SQLite unloads an
** extension when the last connection that loaded it closes, which would
** leave the process's SIGBUS handler pointing at unmapped code.  0, or -1. */
static int wt_bus_pin(void) {
  Dl_info self;
  if (dladdr((void *)wt_bus_handler, &self) == 0 || self.dli_fname == NULL)
    return -1;
  return dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL ? 0 : -1;
}

/* Install the handler, keeping the one it replaces (once per process). */
static void wt_bus_install(void) {
  struct sigaction sa;
  if (wt_bus_pin() != 0) {
    atomic_store(&wt_bus_off, "this module cannot be kept loaded (dlopen RTLD_NODELETE), so its "
                              "SIGBUS handler is not installed and tensor bytes are read with "
                              "pread");
    return;
  }
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = wt_bus_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  /* read the previous one first, so that the handler never runs before
  ** wt_bus_prev holds it */
  if (sigaction(SIGBUS, NULL, &wt_bus_prev) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
    atomic_store(&wt_bus_off, "sigaction(SIGBUS) failed, so tensor bytes are read with pread");
}

int wt_guard_ready(const char **why) {
  struct sigaction now;
  const char *off;
  pthread_once(&wt_bus_once, wt_bus_install);
  off = atomic_load(&wt_bus_off);
  if (off == NULL && (sigaction(SIGBUS, NULL, &now) != 0 || !(now.sa_flags & SA_SIGINFO) ||
                      now.sa_sigaction != wt_bus_handler)) {
    off = "the SIGBUS handler in place is not this module's (another replaced it, or the host "
          "refused it), so tensor bytes are read with pread in this process";
    atomic_store(&wt_bus_off, off);
  }
  if (why != NULL)
    *why = off;
  return off == NULL;
}

const char *wt_guard_off_reason(void) {
  return atomic_load(&wt_bus_off);
}

int wt_guarded(const void *lo, size_t n, int (*fn)(void *arg, wt_error *err), void *arg,
               wt_error *err) {
  wt_guard g;
  int rc;
  g.lo = (uintptr_t)lo;
  g.hi = g.lo + n;
  if (sigsetjmp(g.jump, 0) != 0) {
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, NULL); /* blocked since the handler was entered */
    return WT_GUARD_FAULT;
  }
  wt_guard_now = &g;
  atomic_signal_fence(memory_order_seq_cst); /* set before fn reads the mapping */
  rc = fn(arg, err);
  atomic_signal_fence(memory_order_seq_cst);
  wt_guard_now = NULL;
  return rc;
}

/* The argument of wt_copy_fn. */
typedef struct wt_copy_arg {
  void *dst;
  const void *src;
  size_t n;
} wt_copy_arg;

/* wt_guarded_copy()'s run: memcpy (no lock, no allocation). */
static int wt_copy_fn(void *arg, wt_error *err) {
  wt_copy_arg *a = arg;
  (void)err;
  memcpy(a->dst, a->src, a->n);
  return 0;
}

int wt_guarded_copy(void *dst, const void *src, size_t n) {
  wt_copy_arg a = {dst, src, n};
  wt_error unused;
  return wt_guarded(src, n, wt_copy_fn, &a, &unused);
}

const unsigned char *wt_map_fd(int fd, uint64_t size) {
  void *p;
  if (size == 0 || size > (uint64_t)SIZE_MAX)
    return NULL;
  p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

void wt_unmap(const unsigned char *p, uint64_t size) {
  if (p != NULL)
    munmap((void *)p, (size_t)size);
}
