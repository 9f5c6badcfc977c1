/*
** cpu_repack.h: which weights llama.cpp's CPU backend copies into a buffer
** of its own (its extra buffer types: AMX, then CPU_REPACK, each laid out
** for its matrix kernels) instead of using them from the mapped file, for
** the CPU features the rules depend on.  Pure C, no SQLite; memory_plan.c
** uses it for the "repack" rows.
**
** The CPU values are the variants of ggml's CPU backend that
** node-llama-cpp 3.22.1 ships (libggml-cpu-*.so; ggml loads the one the
** CPU scores best), grouped by the rules they build in:
**   none    no AVX2 (x64, sse42, sandybridge, ivybridge, piledriver):
**           nothing repacked
**   avx2    AVX2 without AVX-512 (haswell, alderlake): Q4_0, Q4_K, IQ4_NL,
**           MXFP4 repacked (CPU_REPACK)
**   avx512  AVX-512 without AMX (skylakex, cannonlake, cascadelake,
**           cooperlake, icelake, zen4: AMD Zen 4 and 5 too): also Q2_K
**   amx     AMX (sapphirerapids: Intel Xeon 4th generation and later):
**           the matrices of Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K, IQ4_XS and
**           F16 llama.cpp can run with AMX first (an "AMX" buffer), the
**           rest as avx512
**   host    this machine's
*/
#ifndef WT_CPU_REPACK_H
#define WT_CPU_REPACK_H

#include "base/model.h"

/* The CPU a plan is for.  WT_CPU_UNKNOWN: a CPU whose rules the planner
** does not know (not x86-64); WT_CPU_HOST: this machine, resolved by
** wt_cpu_host(). */
enum { WT_CPU_NONE = 0, WT_CPU_AVX2, WT_CPU_AVX512, WT_CPU_UNKNOWN, WT_CPU_HOST, WT_CPU_AMX };

/* Where wt_cpu_repacks puts a weight. */
enum { WT_CPU_MAPPED = 0, WT_CPU_REPACKED = 1, WT_CPU_IN_AMX = 2 };

/* The CPU of this machine as the repack rules see it (amx when the CPU
** has AMX-INT8 and AVX512-VNNI and the kernel lets a process use AMX). */
int wt_cpu_host(void);

/* "none", "avx2", "avx512", "amx", "unknown" */
const char *wt_cpu_name(int cpu);

/* Where llama.cpp puts weight t on cpu: WT_CPU_MAPPED (used from the file),
** WT_CPU_REPACKED (CPU_REPACK), WT_CPU_IN_AMX (AMX), or -1 when it cannot
** be said (cpu WT_CPU_UNKNOWN and t of a type some CPU repacks). */
int wt_cpu_repacks(const wt_tensor *t, int cpu);

/* The bytes t takes in the CPU_REPACK buffer (its size padded to the
** buffer's alignment), or 0 when that overflows. */
uint64_t wt_cpu_repack_size(const wt_tensor *t);

/* The bytes t takes in the AMX buffer, likewise. */
uint64_t wt_cpu_amx_size(const wt_tensor *t);

#endif
