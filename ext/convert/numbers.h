/*
** numbers.h: the element arithmetic of llama.cpp's converter, bit for bit.
** Pure C, no SQLite, no file access.  Layer: convert.
**
** convert_hf_to_gguf.py (llama.cpp c392e50, and de3ff815 for Qwen3) turns
** every tensor that is neither F16 nor F32 into float32 with torch (exact
** for BF16 and F16; F64 rounds to nearest even), applies its rules in that
** type (gemma's norms + 1, the q/k row order) and hands numpy the result,
** which gguf-py (gguf/quants.py) encodes:
**
**   F32   as it is;
**   F16   numpy's astype(float16): round to nearest, ties to even, with
**         subnormals, overflow to infinity (numpy/_core/src/npymath/
**         halffloat.c, npy_floatbits_to_halfbits);
**   BF16  gguf-py's BF16.quantize_blocks, ggml's ggml_compute_fp32_to_bf16:
**         a NaN made quiet (its top half with bit 6 set), every other value
**         rounded to nearest, ties to even, on the bit pattern;
**   Q8_0  gguf-py's Q8_0.quantize_blocks, which mirrors ggml's
**         quantize_row_q8_0_ref (ggml/src/ggml-quants.c): per block of 32,
**         d = max|x| / 127 and id = 1 / d (0 when d is 0), both float32
**         (numpy keeps float32 for a float32 array and a Python number);
**         q = x * id in float32 rounded half away from zero (np_roundf);
**         d stored as F16 (numpy's rounding above), then the 32 int8.
**
** Where a NaN meets numpy: max() propagates it (d and every q of its block
** are NaN: the q cast to int8 gives 0 on x86, as numpy's C cast does), and
** float16 keeps a NaN's sign and top payload bits (a payload that would
** vanish becomes 1), as npy_floatbits_to_halfbits does.
*/
#ifndef WT_CV_NUMBERS_H
#define WT_CV_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* ggml type ids of what the converter reads and writes (ggml.h). */
#define CV_GGML_F32  0
#define CV_GGML_F16  1
#define CV_GGML_Q8_0 8
#define CV_GGML_BF16 30

/* Q8_0: elements per block, and bytes per block (an F16 scale, 32 int8). */
#define CV_QK8_0      32
#define CV_Q8_0_BYTES 34

/* Source element types (the safetensors dtypes the converter accepts). */
#define CV_SRC_F32  1
#define CV_SRC_F16  2
#define CV_SRC_BF16 3
#define CV_SRC_F64  4

/* Bytes of one element of source type t (0 for an unknown t). */
size_t cv_src_size(int t);

/* n elements of source type t at src (little-endian) as float32. */
void cv_src_to_f32(int t, const unsigned char *src, size_t n, float *out);

/* float32 to F16 as numpy's astype(np.float16) rounds. */
uint16_t cv_f32_to_f16(float f);

/* float32 to BF16 as gguf-py and ggml round. */
uint16_t cv_f32_to_bf16(float f);

/* Bytes that n elements take as ggml type t (F32, F16, BF16; Q8_0 with n a
** multiple of CV_QK8_0), or 0 for another type. */
uint64_t cv_type_bytes(int t, uint64_t n);

/* Encode n float32 values x as ggml type t (F32, F16, BF16, or Q8_0 with n
** a multiple of CV_QK8_0) into out, cv_type_bytes(t, n) bytes. */
void cv_encode(int t, const float *x, size_t n, unsigned char *out);

/* BF16 kept as BF16: the n values at src into dst as the converter's
** float32 round trip leaves them, every value as it is but a signaling
** NaN (exponent all ones, a mantissa without the quiet bit 0x40), made
** quiet. */
void cv_bf16_quiet(const unsigned char *src, size_t n, unsigned char *dst);

/* One Q8_0 block of x[0..32) into out[0..34). */
void cv_q8_0_block(const float *x, unsigned char *out);

/* x[i] + 1 for a gemma norm weight: in float32, or, when the checkpoint
** holds it as F16 (half16 non-zero), as torch adds 1 to a float16 tensor:
** the float32 sum rounded to F16 and back (the converter keeps F16 tensors
** in F16). */
void cv_plus_one(float *x, size_t n, int half16);

#endif
