/*
** mapping.h: a local file mapped read-only, and the guard that makes
** reading the mapping safe when the file shrinks underneath.  No SQLite.
**
** A page of a mapping past the end of its file (the file was truncated,
** or rewritten in place by a writer that truncates first) raises SIGBUS
** when it is touched, which kills the process by default.  The guard turns
** such a fault into an error instead:
**
**   - wt_guard_ready() installs one SIGBUS handler for the process, the
**     first time it is called, with sigaction(2) (SA_SIGINFO | SA_ONSTACK,
**     so it runs on a thread's alternate signal stack when there is one),
**     keeping the handler it replaces.  It first makes the module stay
**     loaded until the process ends (dlopen RTLD_NODELETE): the handler
**     must outlive the connections, whose last close would unload it.
**   - wt_guarded() runs a function over a range of a mapping with a jump
**     buffer of its own, which a thread-local pointer names only while
**     that function runs.  A SIGBUS whose address lies in that range, raised
**     by the kernel (si_code > 0) in that thread while the pointer is set,
**     jumps back (siglongjmp) and wt_guarded() returns WT_GUARD_FAULT.
**   - Every other SIGBUS goes to the handler that was there before, as
**     the kernel would have called it: a SA_SIGINFO handler with its
**     siginfo and context, a plain handler with the signal number, under
**     the signal mask it asked for (sa_mask, SA_NODEFER); SIG_DFL and
**     SIG_IGN as the default action (a fault cannot be ignored: the kernel
**     kills the process), SIG_IGN silently for a SIGBUS sent by kill(2).
**     (SA_RESETHAND of the previous handler is not reproduced.)
**
** The function run by wt_guarded() must be only a copy or a decoding loop
** over the mapping: no locks taken, no memory allocated or freed, no
** SQLite called, since a fault abandons it where it is.  The jump
** restores no signal mask (a sigsetjmp() that saved it would cost a system
** call per guarded run); SIGBUS, blocked by the kernel while its handler
** runs, is unblocked again after a jump.
**
** When the guard cannot be trusted in this process, wt_guard_ready()
** returns 0 with the reason, for the whole process, and callers read with
** pread(2) instead: the handler could not be installed, or another one took
** its place afterwards (a runtime that owns SIGBUS, a sanitizer run with
** handle_sigbus=2, a host that installed its own handler after this
** module's; checked at every call, one sigaction(2)).
*/
#ifndef WT_MAPPING_H
#define WT_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

/* What wt_guarded() returns when the guarded range faulted. */
#define WT_GUARD_FAULT 1

/* 1 when mappings can be read under the guard in this process (the
** handler is installed at the first call), else 0 with *why (may be NULL)
** set to a sentence saying why not; once 0, always 0. */
int wt_guard_ready(const char **why);

/* Why the guard is off, or NULL while it is ready (or not yet asked). */
const char *wt_guard_off_reason(void);

/* Run fn(arg, err) with a SIGBUS at an address of [lo, lo + n) turned into
** a return of WT_GUARD_FAULT (err untouched).  Returns what fn returns
** otherwise.  Call only after wt_guard_ready() said 1; guards do not nest. */
int wt_guarded(const void *lo, size_t n, int (*fn)(void *arg, wt_error *err), void *arg,
               wt_error *err);

/* Copy n bytes at src, inside a mapping, to dst under the guard: 0, or
** WT_GUARD_FAULT. */
int wt_guarded_copy(void *dst, const void *src, size_t n);

/* Map size bytes of descriptor fd read-only and shared: the address, or
** NULL (an empty file, a size over the address space, mmap(2) failed). */
const unsigned char *wt_map_fd(int fd, uint64_t size);

/* Unmap what wt_map_fd() returned (NULL: nothing). */
void wt_unmap(const unsigned char *p, uint64_t size);

#endif
