#!/bin/sh
# convert_logits.sh MODULE: llama.cpp loads what gguf_convert() writes and
# computes with it what it computes with llama.cpp's own converter's file.
# llama.cpp is node-llama-cpp 3.22.1's prebuilt CPU build (tests/llama_install.sh;
# skipped, and said so, where it cannot be installed); tests/convert_logits.mjs
# prints its logits at every position of a row of token ids.
#
# 1. The reference checkpoints (../shared/reference/convert; skipped where
#    absent): converted at f32, f16, bf16 and q8_0, our file's logits equal
#    those of the converter's file exactly, and transformers' float32 logits
#    (transformers-logits.json) within 2e-3 (f32, f16), 1e-2 (bf16: llama.cpp
#    multiplies BF16 weights by BF16 activations) and 5e-2 (q8_0).
# 2. Our own checkpoints (tests/gen_convert.py: every architecture, a
#    vocabulary of 288): their f16 and q8_0 conversions load, and every
#    logit is a finite number (but tiny-llama3's and tiny-odd's, which hold
#    a NaN and values past F16's range on purpose).
set -eu
name=convert_logits
MODULE=$1
. tests/llama_install.sh
cp tests/convert_logits.mjs "$dir/convert_logits.mjs"
out=build/convert-logits
rm -rf "$out"
mkdir -p "$out"
REF=${REFERENCE:-../shared/reference/convert}
IDS=1,343,347,355,359,356,308,343,273,388,379,321,277,328,391
checks=0

convert() { # convert OUT SOURCE TYPE
  sqlite3 -bail -cmd ".load ./$MODULE" :memory: \
    "SELECT gguf_convert('$1', '$2', json_object('outtype', '$3'))" > /dev/null
}

logits() { # logits GGUF JSON [IDS]
  (cd "$dir" && node convert_logits.mjs "../../$1" "${3:-$IDS}") > "$2" 2> "$out/node.err" ||
    { cat "$out/node.err"; echo "$name: FAILED: llama.cpp could not run $1"; exit 1; }
}

if [ -f "$REF/transformers-logits.json" ]; then
  for m in llama gemma; do
    for t in f32 f16 bf16 q8_0; do
      convert "$out/$m-$t.gguf" "$REF/hf/$m" $t
      logits "$out/$m-$t.gguf" "$out/$m-$t.ours.json"
      logits "$REF/gguf/$m-$t.gguf" "$out/$m-$t.theirs.json"
      /usr/bin/python3 - "$out/$m-$t" "$REF/transformers-logits.json" $m $t <<'PY'
import json, sys
stem, ref, m, t = sys.argv[1:]
ours, theirs = json.load(open(stem + ".ours.json")), json.load(open(stem + ".theirs.json"))
hf = json.load(open(ref))[m]
tol = {"f32": 2e-3, "f16": 2e-3, "bf16": 1e-2, "q8_0": 5e-2}[t]
if ours != theirs:
    sys.exit("convert_logits: FAILED: %s %s: llama.cpp's logits differ between our file and the converter's" % (m, t))
worst = max(abs(a - b) for ra, rb in zip(ours, hf) for a, b in zip(ra, rb))
if worst > tol:
    sys.exit("convert_logits: FAILED: %s %s: %.3g from transformers' logits (over %g)" % (m, t, worst, tol))
print("convert_logits: %s %s: the converter's logits exactly; %.2g from transformers'" % (m, t, worst))
PY
      checks=$((checks + 2))
    done
  done
else
  echo "$name: $REF absent: the reference conversions are not compared (8 skipped)"
fi

for d in build/convert/tiny-*; do
  [ -f "$d/config.json" ] || continue
  for t in f16 q8_0; do
    f="$out/$(basename "$d")-$t.gguf"
    convert "$f" "$d" $t
    logits "$f" "$f.json" 1,270,280,262,0,2,287,3,100,259,200,284,17,271,268
    /usr/bin/python3 - "$f.json" <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))
# weights that are not finite on purpose: a NaN (tiny-llama3), values past F16's range (tiny-odd)
nan_ok = "tiny-llama3" in sys.argv[1] or "tiny-odd" in sys.argv[1]
ok = lambda x: (nan_ok and x is None) or (isinstance(x, (int, float)) and math.isfinite(x))  # NaN: null
if len(rows) != 15 or not all(len(r) == 288 and all(ok(x) for x in r) for r in rows):
    sys.exit("convert_logits: FAILED: %s: logits missing or not finite" % sys.argv[1])
PY
    checks=$((checks + 1))
  done
done
echo "$name: $checks checks passed"
