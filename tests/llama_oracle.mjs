// llama_oracle.mjs FILE CTX SEQS FA TYPE_K TYPE_V: load FILE with llama.cpp
// (node-llama-cpp's prebuilt CPU build) on the CPU, create a context of CTX
// tokens per sequence, SEQS sequences, flash attention FA (0/1), cache types
// TYPE_K/TYPE_V (f16, q8_0, q4_0), and print one tab-separated line of what
// llama.cpp logs at info level, as it prints it (MiB with two decimals):
//
//   n_ctx n_ubatch caches model_mib output_mib compute_mib insights_kv_mib insights_mib
//
// caches is one "cells/layers/total/K/V" per KV cache llama.cpp creates (the
// dense one first, then the SWA one), joined with "+", or "rs:R/S" for a
// recurrent state; insights_* are node-llama-cpp's own GgufInsights (v1)
// estimate of the KV cache and of the context's whole CPU memory, in MiB.
// Run from build/llama (tests/llama_oracle.sh does).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, ctx, seqs, fa, tk, tv] = process.argv.slice(2);
const ggml = {f16: 1, q4_0: 2, q8_0: 8};
let log = "";
const llama = await getLlama({
  gpu: false, build: "never", logLevel: LlamaLogLevel.info,
  logger: (level, msg) => { log += msg; }
});
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const context = await model.createContext({
  contextSize: +ctx, sequences: +seqs, flashAttention: fa === "1",
  experimentalKvCacheKeyType: tk.toUpperCase(), experimentalKvCacheValueType: tv.toUpperCase()
});
const est = (graph) => model.fileInsights.estimateContextResourceRequirements({
  contextSize: +ctx * +seqs, sequences: +seqs, modelGpuLayers: 0, flashAttention: fa === "1",
  includeGraphOverhead: graph, kvCacheKeyType: ggml[tk], kvCacheValueType: ggml[tv]
}).cpuRam;
await context.dispose();
await model.dispose();

// node-llama-cpp loads the model twice (a simulation, then the real load):
// the real context is the one constructed last.
const modelLog = log;
log = log.slice(log.lastIndexOf("llama_context: n_ctx "));
const one = (re) => { const m = log.match(re); if (!m) throw new Error("no " + re + " in the log"); return m[1]; };
const caches = [];
for (const m of log.matchAll(/llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers,[^)]*\), K \(\w+\): +([\d.]+) MiB, V \(\w+\): +([\d.]+) MiB/g))
  caches.push([m[2], m[3], m[1], m[4], m[5]].join("/"));
for (const m of log.matchAll(/llama_memory_recurrent: size = +[\d.]+ MiB \([^)]*\), R \(\w+\): +([\d.]+) MiB, S \(\w+\): +([\d.]+) MiB/g))
  caches.push("rs:" + m[1] + "/" + m[2]);
const mib = (b) => (b / 1048576).toFixed(2);
console.log([
  one(/llama_context: n_ctx += (\d+)/), one(/llama_context: n_ubatch += (\d+)/),
  caches.join("+"),
  modelLog.match(/model buffer size = +([\d.]+) MiB/)[1], one(/output buffer size = +([\d.]+) MiB/),
  one(/compute buffer size = +([\d.]+) MiB/), mib(est(false)), mib(est(true))
].join("\t"));
