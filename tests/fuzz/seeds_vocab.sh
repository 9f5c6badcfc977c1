#!/bin/sh
# seeds_vocab.sh CORPUS FIXTURES: seed inputs of fuzz_vocab_spm and
# fuzz_vocab_json (tests/fuzz/README.md), written into CORPUS/<target>/.
# A first byte picks the architecture; fuzz_vocab_json's files are
# separated by the bytes FF FE FD FC.  The converter's reference
# tokenizer.model is taken from FIXTURES/../reference/convert when there,
# and models trained by python3-sentencepiece when it is installed.
set -eu
corpus=$1
ref=$(dirname "$2")/reference/convert
spm=$corpus/fuzz_vocab_spm
json=$corpus/fuzz_vocab_json
mkdir -p "$spm" "$json"
sep='\377\376\375\374'

# A two-piece model: <unk> (type UNKNOWN), "a"; and with a byte piece.
printf '\000\012\011\012\005<unk>\030\002\012\003\012\001a' > "$spm/tiny"
printf '\010\012\011\012\005<unk>\030\002\012\012\012\006<0x41>\030\006\022\003\230\002\001' > "$spm/byte"
if [ -f "$ref/hf/llama/tokenizer.model" ]; then
  for sel in 0 1 8 3 4 21; do
    { printf "\\$(printf %03o $sel)"; cat "$ref/hf/llama/tokenizer.model"; } > "$spm/reference-$sel"
  done
fi
if [ -d build/vocab/spm ]; then
  for m in build/vocab/spm/*.model; do
    [ -f "$m" ] || continue
    { printf '\001'; cat "$m"; } > "$spm/trained-$(basename "$m")"
  done
fi

tj='{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<|e|>": 3}, "merges": [["a", "b"]], "ignore_merges": false},
"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}]},
"normalizer": {"type": "NFC"},
"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|e|>"}}, {"Sequence": {"id": "A"}}],
  "pair": [{"SpecialToken": {"id": "<|e|>"}}, {"Sequence": {"id": "A"}}, {"SpecialToken": {"id": "<|e|>"}}, {"Sequence": {"id": "B"}}]},
"added_tokens": [{"id": 3, "content": "<|e|>", "special": true, "normalized": false}, {"id": 4, "content": "\u2581x", "special": false}]}'
tc='{"bos_token": "<|e|>", "eos_token": {"content": "<|e|>"}, "add_bos_token": true, "chat_template": [{"name": "default", "template": "T"}, {"name": "tool use", "template": "U"}],
"added_tokens_decoder": {"5": {"content": "<new>", "special": false}}, "tokenizer_class": "GPT2Tokenizer", "add_prefix_space": null}'
cfg='{"vocab_size": 8, "bos_token_id": 3, "eos_token_id": [3], "text_config": {"pad_token_id": 0}}'
for sel in 0 1 2 3 4; do
  printf "\\$(printf %03o $sel)%s$sep%s$sep%s$sep%s$sep%s" "$tj" "$tc" "$cfg" '{"<a>": 6}' '#v
a b
ab c' > "$json/seed-$sel"
done
printf '\002{"model": {"type": "BPE", "vocab": {}, "merges": ["a b"]}}' > "$json/empty-vocab"
