/*
** cpu_repack.h: which weights llama.cpp's CPU backend copies into its
** CPU_REPACK buffer (interleaved for its matrix kernels) instead of using
** them from the mapped file, for the CPU features the rules depend on.
** Pure C, no SQLite; memory_plan.c uses it for the "repack" rows.
*/
#ifndef WT_CPU_REPACK_H
#define WT_CPU_REPACK_H

#include "base/model.h"

/* The CPU a plan is for.  WT_CPU_UNKNOWN: a CPU whose rules the planner
** does not know (not x86-64); WT_CPU_HOST: this machine, resolved by
** wt_cpu_host(). */
enum { WT_CPU_NONE = 0, WT_CPU_AVX2, WT_CPU_AVX512, WT_CPU_UNKNOWN, WT_CPU_HOST };

/* The CPU of this machine as the repack rules see it. */
int wt_cpu_host(void);

/* "none", "avx2", "avx512", "unknown" */
const char *wt_cpu_name(int cpu);

/* 1 when llama.cpp repacks tensor t on cpu, 0 when it does not, -1 when it
** cannot be said (cpu WT_CPU_UNKNOWN and t of a type some CPU repacks). */
int wt_cpu_repacks(const wt_tensor *t, int cpu);

/* The bytes t takes in the CPU_REPACK buffer (its size padded to the
** buffer's alignment), or 0 when that overflows. */
uint64_t wt_cpu_repack_size(const wt_tensor *t);

#endif
