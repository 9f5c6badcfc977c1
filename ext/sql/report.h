/*
** report.h: weights_report(path) and weights_report(path_a, path_b), the
** HTML/SVG pictures of a model and of the difference of two (report.c: the
** function; report_model.c: the one-model page; report_diff.c: the diff;
** report_read.c: what both read, through SQL).
**
** The report is built only from the extension's public SQL surface: it
** runs queries over tensors(), weights_files(), gguf_metadata(),
** safetensors_metadata() and tensor_values() on the calling connection,
** so it shows what a user's own queries would show.  The drawing is in
** ext/report/ (pure C).  The calls go one way: report.c -> report_model.c,
** report_diff.c -> report_read.c.
*/
#ifndef WT_REPORT_H
#define WT_REPORT_H

#include <sqlite3ext.h>

/* Register weights_report() (SQLITE_DIRECTONLY) on db. */
int wt_register_report(sqlite3 *db);

#endif
