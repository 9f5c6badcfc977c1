// llama_oracle.mjs FILE SETTING...: load FILE with llama.cpp (node-llama-cpp's
// prebuilt CPU build) on the CPU and, for each SETTING "CTX,SEQS,FA,TYPE_K,TYPE_V",
// create a context of CTX tokens per sequence, SEQS sequences, flash attention
// FA (0/1), cache types TYPE_K/TYPE_V (f32, f16, q8_0, q4_0), and print one
// tab-separated line: the setting's five fields, then what llama.cpp logs at
// info level, as it prints it (MiB with two decimals):
//
//   n_ctx n_ubatch caches model_mib output_mib compute_mib insights_kv_mib insights_mib
//
// caches is one "cells/layers/total/K/V" per KV cache llama.cpp creates (the
// dense one first, then the SWA one), joined with "+", or "rs:R/S" for a
// recurrent state; insights_* are node-llama-cpp's own GgufInsights (v1)
// estimate of the KV cache and of the context's whole CPU memory, in MiB.
// Run from build/llama (tests/llama_oracle.sh does).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, ...settings] = process.argv.slice(2);
const ggml = {f32: 0, f16: 1, q4_0: 2, q8_0: 8};
let log = "", all = "";
const llama = await getLlama({
  gpu: false, build: "never", logLevel: LlamaLogLevel.info,
  logger: (level, msg) => { log += msg; all += msg; }
});
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const mib = (b) => (b / 1048576).toFixed(2);

for (const setting of settings) {
  const [ctx, seqs, fa, tk, tv] = setting.split(",");
  log = "";
  const context = await model.createContext({
    contextSize: +ctx, sequences: +seqs, flashAttention: fa === "1",
    experimentalKvCacheKeyType: tk.toUpperCase(), experimentalKvCacheValueType: tv.toUpperCase()
  });
  const est = (graph) => model.fileInsights.estimateContextResourceRequirements({
    contextSize: +ctx * +seqs, sequences: +seqs, modelGpuLayers: 0, flashAttention: fa === "1",
    includeGraphOverhead: graph, kvCacheKeyType: ggml[tk], kvCacheValueType: ggml[tv]
  }).cpuRam;
  await context.dispose();
  // this context's log, from the last "n_ctx" line (node-llama-cpp may
  // construct a context twice)
  const clog = log.slice(log.lastIndexOf("llama_context: n_ctx "));
  const one = (re) => {
    const m = clog.match(re);
    if (!m) throw new Error("no " + re + " in the log of " + setting);
    return m[1];
  };
  const caches = [];
  for (const m of clog.matchAll(/llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers,[^)]*\), K \(\w+\): +([\d.]+) MiB, V \(\w+\): +([\d.]+) MiB/g))
    caches.push([m[2], m[3], m[1], m[4], m[5]].join("/"));
  for (const m of clog.matchAll(/llama_memory_recurrent: size = +[\d.]+ MiB \([^)]*\), R \(\w+\): +([\d.]+) MiB, S \(\w+\): +([\d.]+) MiB/g))
    caches.push("rs:" + m[1] + "/" + m[2]);
  console.log([
    ctx, seqs, fa, tk, tv,
    one(/llama_context: n_ctx += (\d+)/), one(/llama_context: n_ubatch += (\d+)/), caches.join("+"),
    all.match(/model buffer size = +([\d.]+) MiB/)[1], one(/output buffer size = +([\d.]+) MiB/), one(/compute buffer size = +([\d.]+) MiB/),
    mib(est(false)), mib(est(true))
  ].join("\t"));
}
await model.dispose();
