// llama_rss.mjs FILE N_CTX MODE: what a llama.cpp process keeps resident
// (node-llama-cpp's prebuilt CPU build), for tests/llama_rss_test.py.
//
// MODE "vocab": load FILE's vocabulary alone (llama.cpp's vocab_only) and
// print one line "vocab ANON FILE" (RssAnon and RssFile of /proc/self/status,
// bytes), before and after: what llama.cpp keeps beside its buffers for the
// vocabulary and the model's description.
//
// MODE "run": print "cpu CPU" (the repack rules of the CPU variant
// llama.cpp runs, as gguf_memory's cpu names them) and "base ANON FILE"; load FILE on the CPU (mmap on, no
// layer on a GPU), print "loaded ANON FILE MAPPED" (MAPPED: the Rss of
// FILE's mapping in /proc/self/smaps); create a context of N_CTX tokens,
// one sequence, n_batch = n_ubatch = 512, F16 cache, flash attention on;
// decode one batch of 512 tokens and print "decoded ANON FILE MAPPED"; then
// print "ready PID" and wait for a line on stdin (the test pages the
// mapping out meanwhile), decode 512 more tokens and print "again ANON FILE
// MAPPED": what the model needs resident, the pages read once gone.  Run
// from build/llama.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import {readFileSync, realpathSync} from "node:fs";
import {createInterface} from "node:readline";

const [file, nCtx, mode] = process.argv.slice(2);
const path = realpathSync(file);

/* RssAnon and RssFile of this process, in bytes. */
function status() {
  const s = readFileSync("/proc/self/status", "utf8");
  const kb = (key) => +s.match(new RegExp(key + ":\\s+(\\d+) kB"))[1] * 1024;
  return [kb("RssAnon"), kb("RssFile")];
}

/* The resident bytes of FILE's mappings. */
function mapped() {
  let total = 0, inside = false;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (head) inside = head[1] === path;
    else if (inside && line.startsWith("Rss:")) total += +line.match(/(\d+) kB/)[1] * 1024;
  }
  return total;
}

const say = (what, ...rest) => console.log([what, ...status(), ...rest].join(" "));
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.warn});
if (mode === "vocab") {
  say("before");
  const model = await llama.loadModel({modelPath: file, vocabOnly: true});
  say("vocab");
  await model.dispose();
  process.exit(0);
}
// the repack rules of the CPU variant llama.cpp runs, as gguf_memory's cpu
console.log("cpu " + (/AMX_INT8 = 1/.test(llama.systemInfo) ? "amx"
  : /AVX512 = 1/.test(llama.systemInfo) ? "avx512" : /AVX2 = 1/.test(llama.systemInfo) ? "avx2" : "none"));
say("base");
const model = await llama.loadModel({modelPath: file, gpuLayers: 0, useMmap: true});
say("loaded", mapped());
const context = await model.createContext({
  contextSize: +nCtx, batchSize: 512, sequences: 1, flashAttention: true, threads: 2
});
const sequence = context.getSequence();
const tokens = (from) => Array.from({length: 512}, (_, i) => 300 + ((from + i) * 7919) % 100000);
await sequence.evaluateWithoutGeneratingNewTokens(tokens(0));
say("decoded", mapped());
console.log("ready " + process.pid);
const lines = createInterface({input: process.stdin});
for await (const line of lines) {
  void line;
  break;
}
await sequence.evaluateWithoutGeneratingNewTokens(tokens(512));
say("again", mapped());
await context.dispose();
await model.dispose();
process.exit(0);
