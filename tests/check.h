/*
** check.h: the counted check of the C unit tests (write_test.c,
** write_job_test.c, write_interrupt_test.c, vocab_test.c): CHECK(cond, fmt, ...) counts
** a pass, or a failure printed as "FAIL file:line: message".  The test
** prints its passed and failed counts at the end and exits 1 on a failure.
*/
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      passed++;                                                                                    \
    } else {                                                                                       \
      failed++;                                                                                    \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

#endif
