#!/bin/sh
# mutation_smoke.sh SLT TEST...: the suite must catch planted faults.
#
# For each mutant below, ext/ and the Makefile are copied (times kept) to
# build/mutants/NAME/, with the objects of build/obj, one line of one source
# is changed, and the copy's own Makefile rebuilds build/weights.so there:
# only the changed file is compiled again, with the flags of the real build.
# The runner SLT then runs the .test files TEST... on that module, and must
# report failed records (exit status 1; 2, a module that does not load, is
# an error of this script, not a catch).
#
# A mutant names its file by the line it changes, not by a path: the line
# must occur exactly once in the .c files of ext/, and the edit must change
# the file, or the script fails, so that a mutant whose code moved or
# changed cannot pass unnoticed.  A control copy, changed only by a
# comment, must pass.
#
# The planner's GPU faults (records_mutant) must also fail
# tests/gpu_records_test.py, llama.cpp's CUDA buffers measured on a GPU
# ($GPU_RECORDS, default ../shared/reference/gpu-memory); where those
# records are absent the .test files must catch them, or the mutant is
# reported as not checked.
#
# MAKE: the make to run (make's own $(MAKE) from the Makefile).
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 SLT TEST..." >&2
  exit 2
fi
SLT=$1
shift
TESTS=$*
MAKE=${MAKE:-make}
OUT=build/mutants
$MAKE --no-print-directory -s build/weights.so
rm -rf "$OUT"
mkdir -p "$OUT"

fail() {
  echo "mutation smoke: $*" >&2
  exit 1
}

# build NAME FROM TO: a copy of the module with the one line of ext/ that
# holds the text FROM (once) holding TO in its place; prints its module.
build() {
  dir=$OUT/$1
  src=$(grep -rlF --include='*.c' -e "$2" ext) || fail "$1: no file of ext/ holds: $2"
  [ "$(printf '%s\n' "$src" | wc -l)" -eq 1 ] || fail "$1: several files hold: $2:" $src
  mkdir -p "$dir/build"
  cp -Rp ext Makefile "$dir/"
  cp -Rp build/obj "$dir/build/"
  awk -v from="$2" -v to="$3" '
    { i = index($0, from) }
    i { $0 = substr($0, 1, i - 1) to substr($0, i + length(from)); n++ }
    { print }
    END { exit n != 1 }' "$src" > "$dir/$src" || fail "$1: $src holds it more than once: $2"
  ! cmp -s "$src" "$dir/$src" || fail "$1: the edit left $src as it was"
  $MAKE --no-print-directory -s -C "$dir" build/weights.so > "$dir/build.log" 2>&1 ||
    { cat "$dir/build.log" >&2; fail "$1: the mutant does not build"; }
  echo "$dir/build/weights.so"
}

# run NAME MODULE: the runner's status on the suite (0 passed, 1 failed),
# its output in build/mutants/NAME/slt.log
run() {
  rc=0
  "$SLT" -e "$2" $TESTS > "$OUT/$1/slt.log" 2>&1 || rc=$?
  [ $rc -le 1 ] || { tail -5 "$OUT/$1/slt.log" >&2; fail "$1: the runner stopped (status $rc)"; }
  return $rc
}

# unit NAME FROM: for a fault in ext/convert/ that the suite passes, the
# converter's unit tests (tests/convert_test*.c, linked without SQLite) on
# the copy, which check the scalar arithmetic that the AVX2 kernels leave
# only NaNs, infinities and tails to on this machine; for a fault in its
# vocabulary (ext/convert/vocab*.c), tests/vocab_test.sh on the copy's
# vocab_test, which compares with llama.cpp's own conversions of real
# tokenizers.  Returns 0 when they fail (unit_by says which), 1 when they
# pass, 2 when what would tell is absent (vocab_test.sh skipped a part).
unit() {
  src=$(grep -rlF --include='*.c' -e "$2" ext)
  mkdir -p "$OUT/$1/tests"
  case $src in
    ext/convert/vocab*)
      cp -p tests/vocab_test.c tests/vocab_test_cases.h tests/check.h "$OUT/$1/tests/"
      $MAKE --no-print-directory -s -C "$OUT/$1" build/vocab_test SAN_FLAGS='-O1' \
        > "$OUT/$1/unit.log" 2>&1 || { cat "$OUT/$1/unit.log" >&2; fail "$1: vocab_test does not build"; }
      if VOCAB_WORK=$OUT/$1/vocab sh tests/vocab_test.sh "$OUT/$1/build/vocab_test" \
        >> "$OUT/$1/unit.log" 2>&1; then
        skips=$(tail -1 "$OUT/$1/unit.log" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
        [ "${skips:-0}" -eq 0 ] || return 2
        return 1
      fi
      unit_by="vocab_test.sh ($(tail -1 "$OUT/$1/unit.log" | sed 's/.* passed, //; s/,.*//'))"
      return 0 ;;
    ext/convert/*)
      cp -p tests/convert_test.c tests/convert_test_numbers.c tests/convert_test.h "$OUT/$1/tests/"
      $MAKE --no-print-directory -s -C "$OUT/$1" build/convert_test SAN_FLAGS='-O1' \
        > "$OUT/$1/unit.log" 2>&1 || { cat "$OUT/$1/unit.log" >&2; fail "$1: convert_test does not build"; }
      if (cd "$OUT/$1" && ./build/convert_test >> unit.log 2>&1); then return 1; fi
      unit_by="convert_test ($(grep -c '^FAIL' "$OUT/$1/unit.log") checks)"
      return 0 ;;
  esac
  return 1
}

# mutant NAME FROM TO: the suite (or, in ext/convert/, the unit tests) must
# fail on this fault
caught=0
mutant() {
  module=$(build "$1" "$2" "$3")
  if run "$1" "$module"; then
    rc=0
    unit "$1" "$2" || rc=$?
    case $rc in
      0) echo "mutation smoke: $1 caught by $unit_by" ;;
      2) echo "mutation smoke: $1 not checked: vocab_test.sh skipped what would tell (see $OUT/$1/unit.log)"
         return 0 ;;
      *) fail "$1: not caught: every test passed with '$2' changed to '$3'" ;;
    esac
  else
    echo "mutation smoke: $1 caught by $(grep -E ': [1-9][0-9]* errors out of' "$OUT/$1/slt.log" |
      sed 's/: .*//; s|.*/||' | tr '\n' ' ')"
  fi
  caught=$((caught + 1))
}

# records_mutant NAME FROM TO: a fault of the GPU planner, which the
# records of llama.cpp's CUDA buffers must catch (and say so with the
# .test files that catch it too)
GPU_RECORDS=${GPU_RECORDS:-../shared/reference/gpu-memory}
records_mutant() {
  module=$(build "$1" "$2" "$3")
  by=""
  if ! run "$1" "$module"; then
    by=$(grep -E ': [1-9][0-9]* errors out of' "$OUT/$1/slt.log" | sed 's/: .*//; s|.*/||' | tr '\n' ' ')
  fi
  if [ -f "$GPU_RECORDS/records.jsonl" ]; then
    if /usr/bin/python3 tests/gpu_records_test.py "$module" "$GPU_RECORDS" > "$OUT/$1/records.log" 2>&1; then
      fail "$1: not caught by the GPU records with '$2' changed to '$3'"
    fi
    by="$by$(grep -E '^gpu_records: [0-9]+ of' "$OUT/$1/records.log" | sed 's/,.*//')"
  elif [ -z "$by" ]; then
    echo "mutation smoke: $1 not checked: $GPU_RECORDS is absent and no .test file catches it"
    return 0
  fi
  echo "mutation smoke: $1 caught by $by"
  caught=$((caught + 1))
}

# The control: a comment added to a source must leave every test passing
# (else the copies are not built as the real module is).
module=$(build control 'sqlite3_result_blob64(ctx, buf, (sqlite3_uint64)length, sqlite3_free);' \
  'sqlite3_result_blob64(ctx, buf, (sqlite3_uint64)length, sqlite3_free); /* control */')
run control "$module" || fail "control: the suite fails on an unchanged copy (see $OUT/control/slt.log)"

# a blob function returns NULL
mutant blob_null 'sqlite3_result_blob64(ctx, buf, (sqlite3_uint64)length, sqlite3_free);' \
  'sqlite3_free(buf); sqlite3_result_null(ctx);'
# a safetensors tensor's data one byte later
mutant safetensors_offset 't->offset = 8 + p->n + t->data_start;' 't->offset = 9 + p->n + t->data_start;'
# a GGUF tensor's data one byte later
mutant gguf_offset 't->offset = m->data_offset + t->data_start;' \
  't->offset = m->data_offset + t->data_start + 1;'
# decoders that give 0 for every value: F16, and Q8_0 blocks
mutant f16_zero 'void wt_dec_f16(const unsigned char *restrict src, size_t n, float *restrict out) {' \
  'void wt_dec_f16(const unsigned char *restrict src, size_t n, float *restrict out) { memset(out, 0, n * sizeof *out); return;'
mutant q8_0_zero 'void wt_dec_q8_0(const unsigned char *restrict src, size_t n, float *restrict out) {' \
  'void wt_dec_q8_0(const unsigned char *restrict src, size_t n, float *restrict out) { memset(out, 0, n * sizeof *out); return;'
# a shape shown in the other order
mutant shape_order 'uint64_t d = row_major ? t->dims[t->ndim - 1 - k] : t->dims[k];' \
  'uint64_t d = row_major ? t->dims[k] : t->dims[t->ndim - 1 - k];'
# the statistics' sums leave out a chunk's last value (when it is not a
# multiple of the vector step)
mutant stats_last 'sums_scalar(x + i, n - i, k, r);' 'sums_scalar(x + i, n - i - (n > i), k, r);'
# a large read through the mapping copies from one byte later; the mapped
# xxh3 hash reads from one byte later
mutant mapped_copy 'if (wt_guarded_copy(buf, f->map + off, n) == WT_GUARD_FAULT)' \
  'if (wt_guarded_copy(buf, f->map + off + (n > 4096), n) == WT_GUARD_FAULT)'
mutant mapped_scan 'a.p = f->map + off;' 'a.p = f->map + off + 1;'
# the compute buffer's model of ggml-alloc never reuses a source in place;
# it forgets that views keep their source alive
mutant no_inplace 'if (gm_can_inplace(t->op))' 'if (gm_can_inplace(t->op) && t->op == WT_GM_NONE)'
mutant views_ignored 'st[t->view_src].n_views++;' '(void)0;'
# a quantized cache's Hadamard rotations left out of llama's graph
mutant no_rotation 'return ti != NULL && ti->block_size > 1 && head > 0 && head % LG_ROT_MIN == 0;' \
  'return 0 * (ti != NULL && ti->block_size > 1 && head > 0 && head % LG_ROT_MIN == 0);'

# the converter (tests/convert*.test, tests/convert_test*.c): llama's q/k
# rows left in the checkpoint's order; gemma's norms not shifted by 1, or
# shifted in float32 where the converter rounds an F16 checkpoint's to F16;
# gemma's lm_head written; Q8_0's halves rounded to even (the portable code)
# or down (the AVX2 kernel); F16 rounding by truncation; a BF16 NaN not made
# quiet, or a BF16 tensor's signaling NaN passed through as it is (the AVX2
# kernel, the portable code); a shard's tensors in file order, not name order
mutant cv_no_permute 'o->heads = wt_qk_heads(' 'o->heads = 0 * wt_qk_heads('
mutant cv_no_shift 'o->plus_one = (a->rules & CV_RULE_NORM_PLUS_ONE)' \
  'o->plus_one = 0 && (a->rules & CV_RULE_NORM_PLUS_ONE)'
mutant cv_shift_f32 'cv_plus_one(f, n, o->src_type == CV_SRC_F16);' 'cv_plus_one(f, n, 0);'
mutant cv_lm_head '{"GemmaForCausalLM", "gemma", CV_CONV_C392E50, CV_RULE_NORM_PLUS_ONE | CV_RULE_SKIP_LM_HEAD,' \
  '{"GemmaForCausalLM", "gemma", CV_CONV_C392E50, CV_RULE_NORM_PLUS_ONE,'
mutant cv_q8_0_even 'q = t + ((a - (float)t) >= 0.5f);' \
  'q = t + ((a - (float)t) > 0.5f || ((a - (float)t) == 0.5f && (t & 1)));'
mutant cv_f16_truncate 'if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))' 'if (rest > 0x10000u)'
mutant cv_bf16_nan 'return (uint16_t)((u >> 16) | 0x40u);' 'return (uint16_t)(u >> 16);'
mutant cv_q8_0_avx2_down 'half, _CMP_GE_OQ));' 'half, _CMP_GT_OQ));'
mutant cv_snan_kept '_mm256_storeu_si256((__m256i *)(dst + 2 * i), _mm256_or_si256(h, _mm256_and_si256(sig, quiet)));' \
  '_mm256_storeu_si256((__m256i *)(dst + 2 * i), _mm256_or_si256(h, _mm256_and_si256(sig, _mm256_and_si256(quiet, zero))));'
mutant cv_snan_kept_portable 'h |= 0x40u;' 'h |= 0x00u;'
mutant cv_unsorted 'qsort(c->in + first, c->n_in - first, sizeof(*c->in), cmp_in);' \
  'qsort(c->in + first, 0, sizeof(*c->in), cmp_in);'
# the vocabulary: SentencePiece's byte pieces written as normal ones; a
# byte-level BPE tokenizer's special added tokens as user-defined, not
# control (only llama.cpp's own conversions of real tokenizers tell)
mutant cv_sp_byte_type 'case CV_TOK_BYTE:' ''
mutant cv_bpe_control 'type = CV_TOK_CONTROL;' 'type = CV_TOK_USER_DEFINED;'

# The GPU planner: the layers offloaded one fewer (the layer assignment);
# each layer's KV cells on the next layer's device (the KV split); the
# CPU's large products never offloaded (op_offload), and a split reading
# another backend's tensors in place instead of copies (the compute split)
records_mutant gpu_layers 'x->gpu_first = ngl >= all ? 0 : all - ngl; /* i_gpu_start */' \
  'x->gpu_first = ngl >= all ? 0 : all - ngl + 1;'
records_mutant kv_split 'return mp_layer_gpu(x, il) ? WT_DEV_CUDA : WT_DEV_CPU;' \
  'return mp_layer_gpu(x, il + 1) ? WT_DEV_CUDA : WT_DEV_CPU;'
records_mutant no_op_offload 'if (c->p->op_offload && sb == WT_SCHED_CPU && gs_supports_op(c, WT_SCHED_GPU, t) &&' \
  'if (0 && sb == WT_SCHED_CPU && gs_supports_op(c, WT_SCHED_GPU, t) &&'
records_mutant no_input_copies 'if (c->bid[s] == cur || gs_buffer_ok(c, s, cur))' 'if (1)'

echo "mutation smoke: all $caught faults caught"
