/*
** report_job.c: what the pages of weights_report() share (report_job.h):
** the error of a report, strings, the order of ints, the labels of layer
** groups.  Layer: report.
*/
#include "report_job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "names.h"

/* A new malloc'd string of fmt and ap, or NULL. */
static char *wt_report_vprintf(const char *fmt, va_list ap) {
  va_list again;
  char *s;
  int n;
  va_copy(again, ap);
  n = vsnprintf(NULL, 0, fmt, again);
  va_end(again);
  if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
    return NULL;
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

char *wt_report_printf(const char *fmt, ...) {
  va_list ap;
  char *s;
  va_start(ap, fmt);
  s = wt_report_vprintf(fmt, ap);
  va_end(ap);
  return s;
}

int wt_report_fail(wt_report *r, const char *fmt, ...) {
  va_list ap;
  if (r->err == NULL) {
    va_start(ap, fmt);
    r->err = wt_report_vprintf(fmt, ap);
    va_end(ap);
  }
  return -1;
}

int wt_report_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

void wt_report_layer_label(int layer, char *out, size_t n) {
  if (layer >= 0)
    snprintf(out, n, "layer %d", layer);
  else
    snprintf(out, n, "%s",
             layer == WT_LAYER_EMBED    ? "embedding"
             : layer == WT_LAYER_OUTPUT ? "output"
                                        : "other");
}
