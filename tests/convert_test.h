/*
** convert_test.h: what the two files of build/convert_test share (the
** check counter).  See convert_test.c.
*/
#ifndef WT_CONVERT_TEST_H
#define WT_CONVERT_TEST_H

#include <stdio.h>

extern int cv_test_passed, cv_test_failed;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      cv_test_passed++;                                                                            \
    } else {                                                                                       \
      cv_test_failed++;                                                                            \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

/* convert_test_numbers.c: F16, BF16, Q8_0, the kernels, gemma's 1 + w. */
void test_f16(void);
void test_bf16(void);
void test_q8_0(void);
void test_kernels(void);
void test_plus_one(void);

#endif
