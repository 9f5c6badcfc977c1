/*
** interrupt.h: sqlite3_interrupt() reaches a remote transfer in progress.
** The SQL layer.
**
** A remote read (remote/http.h) can wait on the network for a while (a stall,
** a Retry-After).  SQLite 3.41 added sqlite3_is_interrupted(); when the
** SQLite the extension is loaded into has it (checked at run time: the
** module is built against Debian's 3.40 headers, and the function is the
** slot after value_encoding in sqlite3_api_routines, where SQLite appends
** new ones and never moves old ones), the transfers of this thread poll it
** and stop with "interrupted".  With an older SQLite an interrupt takes
** effect when the transfer ends, as before.
*/
#ifndef WT_INTERRUPT_H
#define WT_INTERRUPT_H

#include <sqlite3ext.h>

/* Make this thread's remote transfers stop when db is interrupted, from
** now until the next call (every table and function that reads calls it
** on entry). */
void wt_watch_interrupt(sqlite3 *db);

/* 1 when sqlite3_interrupt() was called on db and the statement running
** should stop: sqlite3_is_interrupted() where the SQLite has it, else a
** statement stepped on db returns SQLITE_INTERRUPT (the VDBE checks the
** flag on entry).  For a function that works for long in one call (a
** copy of gigabytes), polled every few MiB. */
int wt_interrupted(sqlite3 *db);

#endif
