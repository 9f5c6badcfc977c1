/*
** vtab_range.c: the idx range hook of vtab.c (vtab_range.h): which
** constraints on a table's range column xBestIndex passes to xFilter, and
** what xFilter makes of their values (wt_range: a span and an IN list).
** SQLite still tests each row, so a range here may be wider than the
** constraints but never narrower.  Layer: sql.
*/
#include "vtab_range.h"

#include <math.h>
#include <stdlib.h>

SQLITE_EXTENSION_INIT3

#define WT_MAX_RANGE 8 /* range constraints passed to xFilter */

/* Give xFilter the usable constraints on the range column, after the n
** arguments; idxStr names their operators ('=', '<', 'l' for <=, '>',
** 'g' for >=, 'I' for an IN taken whole).  Returns how many. */
int wt_best_range(const wt_table_def *def, sqlite3_index_info *info, int n) {
  char ops[WT_MAX_RANGE + 1];
  int i, k = 0;
  for (i = 0; i < info->nConstraint && k < WT_MAX_RANGE; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    char op;
    if (!c->usable || c->iColumn != def->range_col)
      continue;
    switch (c->op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
      op = sqlite3_vtab_in(info, i, 1) ? 'I' : '=';
      break;
    case SQLITE_INDEX_CONSTRAINT_LT:
      op = '<';
      break;
    case SQLITE_INDEX_CONSTRAINT_LE:
      op = 'l';
      break;
    case SQLITE_INDEX_CONSTRAINT_GT:
      op = '>';
      break;
    case SQLITE_INDEX_CONSTRAINT_GE:
      op = 'g';
      break;
    default:
      continue;
    }
    info->aConstraintUsage[i].argvIndex = n + ++k;
    ops[k - 1] = op;
  }
  if (k > 0) {
    ops[k] = 0;
    info->idxStr = sqlite3_mprintf("%s", ops);
    info->needToFreeIdxStr = 1;
  }
  return k;
}

/* Narrow r to values <= hi (or < hi when strict), from value v. */
static void wt_range_upper(wt_range *r, sqlite3_value *v, int strict) {
  int64_t x;
  if (sqlite3_value_type(v) == SQLITE_INTEGER) {
    x = sqlite3_value_int64(v);
    if (strict && x == INT64_MIN) {
      r->lo = 1, r->hi = 0;
      return;
    }
    x -= strict;
  } else if (sqlite3_value_type(v) == SQLITE_FLOAT) {
    double d = floor(sqlite3_value_double(v)); /* wider than < d: fine */
    if (d >= 9.2e18)
      return;
    x = d < -9.2e18 ? INT64_MIN : (int64_t)d;
  } else {
    if (sqlite3_value_type(v) == SQLITE_NULL)
      r->lo = 1, r->hi = 0; /* nothing compares with NULL */
    return;                 /* text or blob: left to SQLite */
  }
  if (x < r->hi)
    r->hi = x;
}

/* Narrow r to values >= lo (or > lo when strict), from value v. */
static void wt_range_lower(wt_range *r, sqlite3_value *v, int strict) {
  int64_t x;
  if (sqlite3_value_type(v) == SQLITE_INTEGER) {
    x = sqlite3_value_int64(v);
    if (strict && x == INT64_MAX) {
      r->lo = 1, r->hi = 0;
      return;
    }
    x += strict;
  } else if (sqlite3_value_type(v) == SQLITE_FLOAT) {
    double d = ceil(sqlite3_value_double(v));
    if (d <= -9.2e18)
      return;
    x = d > 9.2e18 ? INT64_MAX : (int64_t)d;
  } else {
    if (sqlite3_value_type(v) == SQLITE_NULL)
      r->lo = 1, r->hi = 0;
    return;
  }
  if (x > r->lo)
    r->lo = x;
}

/* Order int64 values. */
static int wt_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Take the values of an IN list (sorted, distinct) into r->in.  A value
** that is neither NULL nor a number leaves the list to SQLite. */
static int wt_range_in(wt_range *r, sqlite3_value *list) {
  sqlite3_value *v;
  size_t n = 0, cap = 0, i, k;
  int64_t *a = NULL;
  int rc;
  if (r->in != NULL) /* a second IN: SQLite tests it */
    return SQLITE_OK;
  for (rc = sqlite3_vtab_in_first(list, &v); rc == SQLITE_OK && v != NULL;
       rc = sqlite3_vtab_in_next(list, &v)) {
    int t = sqlite3_value_type(v);
    double d = t == SQLITE_FLOAT ? sqlite3_value_double(v) : 0;
    if (t == SQLITE_NULL || (t == SQLITE_FLOAT && (d != floor(d) || fabs(d) > 9.2e18)))
      continue; /* matches no integer */
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      sqlite3_free(a);
      return SQLITE_OK;
    }
    if (n == cap) {
      int64_t *b = sqlite3_realloc64(a, (cap = cap ? 2 * cap : 16) * sizeof(*a));
      if (b == NULL) {
        sqlite3_free(a);
        return SQLITE_NOMEM;
      }
      a = b;
    }
    a[n++] = t == SQLITE_INTEGER ? sqlite3_value_int64(v) : (int64_t)d;
  }
  if (rc != SQLITE_DONE) {
    sqlite3_free(a);
    return rc;
  }
  qsort(a, n, sizeof(*a), wt_cmp_i64);
  for (i = k = 0; i < n; i++)
    if (k == 0 || a[i] != a[k - 1])
      a[k++] = a[i];
  r->in = a != NULL ? a : sqlite3_malloc(1); /* an empty list allows nothing */
  r->n_in = k;
  return r->in == NULL ? SQLITE_NOMEM : SQLITE_OK;
}

/* Fill c->range from the range constraints ops[i] with values argv[i]. */
int wt_filter_range(wt_cursor *c, const char *ops, int argc, sqlite3_value **argv) {
  wt_range *r = &c->range;
  int i, rc = SQLITE_OK;
  for (i = 0; ops != NULL && ops[i] != 0 && i < argc && rc == SQLITE_OK; i++) {
    switch (ops[i]) {
    case '=':
      if (sqlite3_value_type(argv[i]) == SQLITE_FLOAT &&
          sqlite3_value_double(argv[i]) != floor(sqlite3_value_double(argv[i])))
        r->lo = 1, r->hi = 0; /* no integer equals 2.5 */
      wt_range_upper(r, argv[i], 0);
      wt_range_lower(r, argv[i], 0);
      break;
    case '<':
    case 'l':
      wt_range_upper(r, argv[i], ops[i] == '<');
      break;
    case '>':
    case 'g':
      wt_range_lower(r, argv[i], ops[i] == '>');
      break;
    case 'I':
      rc = wt_range_in(r, argv[i]);
      break;
    }
  }
  return rc;
}
