/*
** report_diff.h: the diff page of weights_report(path_a, path_b)
** (report_diff.c).  Layer: sql.
*/
#ifndef WT_REPORT_DIFF_H
#define WT_REPORT_DIFF_H

#include "report_read.h"

/* Write the diff report of a against b into r->out.  0, or -1 (error
** recorded). */
int wt_report_diff(wt_report *r, const wt_rmodel *a, const wt_rmodel *b);

#endif
