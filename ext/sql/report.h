/*
** report.h: weights_report(path) and weights_report(path_a, path_b), the
** HTML/SVG pictures of a model and of the difference of two (report.c: the
** function; report_read.c: the models read through SQL; the pages are
** ext/report/'s: model_page.c, diff_page.c).
**
** The report is built only from the extension's public SQL surface: it
** runs queries over tensors(), weights_files(), gguf_metadata(),
** safetensors_metadata() and tensor_values() on the calling connection,
** so it shows what a user's own queries would show.  Choosing what to
** sample, pairing and drawing are in ext/report/ (pure C), which reads
** values only through the reader report_read.c hands it.  The calls go
** one way: report.c -> report_read.c, and report.c -> ext/report.
*/
#ifndef WT_REPORT_H
#define WT_REPORT_H

#include <sqlite3ext.h>

/* Register weights_report() (SQLITE_DIRECTONLY) on db. */
int wt_register_report(sqlite3 *db);

#endif
