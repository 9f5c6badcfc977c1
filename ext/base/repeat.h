/*
** repeat.h: the first name that repeats in a list of named entries (a
** GGUF header's keys or tensor names, a writer's), found by sorting, so
** n log n whatever the names.  libc only.
*/
#ifndef WT_REPEAT_H
#define WT_REPEAT_H

#include <stddef.h>

/* In the n entries of `stride` bytes at base, each holding its name as a
** wt_str (model.h) `off` bytes in, the first entry in list order whose name
** an earlier entry has: 1 with *dup its index and *first the index of the
** earlier one; 0 when the names all differ; -1 when memory ran out. */
int wt_first_repeat(const void *base, size_t n, size_t stride, size_t off, size_t *dup,
                    size_t *first);

#endif
