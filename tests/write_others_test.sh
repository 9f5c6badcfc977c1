#!/bin/sh
# write_others_test.sh MODULE: two readers that are not ours read a GGUF
# that gguf_rewrite() wrote (tests/write_others.mjs): llama.cpp itself
# (node-llama-cpp's prebuilt CPU build, installed by tests/llama_install.sh)
# and @huggingface/gguf (npm, into the same folder).  The demo model gets a
# new context length, chat template and name, and loses general.file_type;
# checked:
#   llama.cpp loads both files, reads the new context length (4096, was
#   2048), tokenizes a fixed text the same way, and gives the same logits
#   for the next token to the last bit; node-llama-cpp sees the new chat
#   template and name;
#   @huggingface/gguf reads every key of the input with the same value
#   except the ones edited, which have their new values, and the same
#   tensors (names, shapes, types) in the same order;
#   the two-part split GGUF of tests/gen_arch_gguf.py merged by gguf_rewrite():
#   llama.cpp gives the same logits for it as for the split (which it loads
#   from its first part), and @huggingface/gguf reads its 21 tensors and
#   split.count 0;
#   the demo split in 3 parts by gguf_split(): llama.cpp loads it from its
#   first part and gives the original's logits; @huggingface/gguf reads the
#   first part's split keys.
# Last line: "write_others: N passed, M failed" or "write_others: skipped: REASON".
set -u
MODULE=$1
name=write_others
. tests/llama_install.sh
hf_version=0.4.6
if ! (cd "$dir" && node -e "
    if (require('@huggingface/gguf/package.json').version !== '$hf_version') process.exit(1);" \
    >/dev/null 2>&1); then
  if ! (cd "$dir" && npm install --no-save --ignore-scripts --no-audit --no-fund \
        "@huggingface/gguf@$hf_version") >> "$dir/npm.log" 2>&1; then
    echo "write_others: skipped: npm install @huggingface/gguf@$hf_version failed (see $dir/npm.log)"
    exit 0
  fi
fi
[ -f build/demo/tiny-llama.gguf ] || make -s build/demo/.stamp >/dev/null || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sqlite3 -bail -cmd ".load ./$MODULE" :memory: "SELECT gguf_rewrite('$work/edited.gguf',
  'build/demo/tiny-llama.gguf', json_object('llama.context_length', 4096,
  'tokenizer.chat_template', '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}',
  'general.name', 'Edited', 'general.file_type', NULL))" > /dev/null || exit 1
[ -f build/arch/split/tiny-llama-00001-of-00002.gguf ] || make -s build/arch/.stamp >/dev/null || exit 1
sqlite3 -bail -cmd ".load ./$MODULE" :memory: "SELECT gguf_rewrite('$work/merged.gguf',
  'build/arch/split/tiny-llama-00001-of-00002.gguf', NULL)" > /dev/null || exit 1
sqlite3 -bail -cmd ".load ./$MODULE" :memory: "SELECT gguf_split('$work/part',
  'build/demo/tiny-llama.gguf', '{\"max_tensors\": 8}')" > /dev/null || exit 1
cp tests/write_others.mjs "$dir/write_others.mjs"
root=$(pwd)
(cd "$dir" && node write_others.mjs "$root/build/demo/tiny-llama.gguf" "$work/edited.gguf" \
  "$root/build/arch/split/tiny-llama-00001-of-00002.gguf" "$work/merged.gguf" \
  "$work/part-00001-of-00003.gguf") \
  > "$work/out.jsonl" 2> "$work/err" || {
  cat "$work/err"
  echo "write_others: FAILED: a reader failed"
  exit 1
}
/usr/bin/python3 - "$work/out.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
(l0, h0), (l1, h1) = (rows[0], rows[1]), (rows[2], rows[3])
(ls, hs), (lm, hm) = (rows[4], rows[5]), (rows[6], rows[7])
lp, hp = rows[8], rows[9]
passed = failed = 0
def check(ok, what, detail=""):
    global passed, failed
    passed += ok
    failed += not ok
    if not ok:
        print("FAIL:", what, detail)
check(l0["trainContextSize"] == 2048 and l1["trainContextSize"] == 4096,
      "llama.cpp reads the new context length", (l0["trainContextSize"], l1["trainContextSize"]))
check(l1["tokens"] == l0["tokens"] and len(l0["tokens"]) > 0, "llama.cpp tokenizes the same")
check(l1["logits"] == l0["logits"] and len(l0["logits"]) > 100,
      "llama.cpp: the same next-token logits, to the last bit", len(l0["logits"]))
check(l1["chatTemplate"] == "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
      and l0["chatTemplate"] is None, "node-llama-cpp sees the new chat template")
check(l1["name"] == "Edited", "node-llama-cpp sees the new name", l1["name"])
want = dict(h0["metadata"])
want.update({"llama.context_length": 4096, "general.name": "Edited",
             "tokenizer.chat_template": "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"})
del want["general.file_type"]
got = h1["metadata"]
diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
check(diff == [], "@huggingface/gguf: every key as edited", diff)
check(got.get("version") == 3, "@huggingface/gguf: version 3", got.get("version"))
t0 = [t[:3] for t in h0["tensors"]]
t1 = [t[:3] for t in h1["tensors"]]
check(t0 == t1 and len(t0) == 21, "@huggingface/gguf: the same 21 tensors in order", len(t1))
check(lm["logits"] == ls["logits"] and lm["tokens"] == ls["tokens"] and len(ls["logits"]) > 100,
      "llama.cpp: the merged split GGUF gives the split's logits to the last bit")
check(len(hm["tensors"]) == 21 and [t[:3] for t in hm["tensors"][:len(hs["tensors"])]] ==
      [t[:3] for t in hs["tensors"]], "@huggingface/gguf: the merge holds 21 tensors, the first part's first",
      len(hm["tensors"]))
check(hm["metadata"].get("split.count") == 0, "@huggingface/gguf: split.count 0 in the merge",
      hm["metadata"].get("split.count"))
check(lp["logits"] == l0["logits"] and lp["trainContextSize"] == 2048,
      "llama.cpp: the demo split by gguf_split() in 3 parts gives the original's logits")
check(hp["metadata"].get("split.count") == 3 and hp["metadata"].get("split.no") == 0 and
      hp["metadata"].get("split.tensors.count") == 21 and len(hp["tensors"]) == 8,
      "@huggingface/gguf: the first part's split keys and its 8 tensors", hp["metadata"].get("split.count"))
print("write_others: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
