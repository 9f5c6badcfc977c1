/*
** report_model.h: the one-model page of weights_report(path)
** (report_model.c).  Layer: sql.
*/
#ifndef WT_REPORT_MODEL_H
#define WT_REPORT_MODEL_H

#include "report_read.h"

/* Write the report of model m into r->out.  0, or -1 (error recorded). */
int wt_report_one(wt_report *r, const wt_rmodel *m);

#endif
