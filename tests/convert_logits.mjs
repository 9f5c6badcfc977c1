// convert_logits.mjs FILE IDS: load the GGUF FILE with llama.cpp
// (node-llama-cpp 3.22.1's prebuilt CPU build, on the CPU, one thread) and
// print, as JSON, the logits llama.cpp computes at every position of the
// token ids IDS (comma-separated), one array of n_vocab numbers a position,
// as node-llama-cpp's controlledEvaluate() gives them (generateNext.logits):
// what tests/convert_logits.py compares between two files and with
// transformers'.  Run from build/llama (where node-llama-cpp is installed).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, idsText] = process.argv.slice(2);
const ids = idsText.split(",").map(Number);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const context = await model.createContext({contextSize: 256, batchSize: 256, threads: 1, sequences: 1});
const sequence = context.getSequence();
const out = await sequence.controlledEvaluate(ids.map((t) => [t, {generateNext: {logits: true}}]));
const rows = out.map((r) => {
  const m = r.next.logits;
  const row = new Array(m.size);
  for (const [token, value] of m)
    row[token] = value;
  return row;
});
console.log(JSON.stringify(rows));
await context.dispose();
await model.dispose();
