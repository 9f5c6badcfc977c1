// llama_oracle.mjs FILE SETTING...: load FILE with llama.cpp (node-llama-cpp's
// prebuilt CPU build) on the CPU and, for each SETTING "CTX,SEQS,FA,TYPE_K,TYPE_V",
// create a llama.cpp context of n_ctx CTX (all sequences together), n_seq_max
// SEQS, n_batch = n_ubatch = 512, flash attention FA (auto, 1, 0), cache types
// TYPE_K/TYPE_V (f32, f16, q8_0, q4_0), and print one tab-separated line: the
// setting's five fields, then what llama.cpp logs at info level, as it prints
// it (MiB with two decimals):
//
//   cpu n_ctx n_ubatch flash_attn caches mapped_mib repack_mib output_mib compute_mib
//
// or cpu, "refused" and its error message when llama.cpp refuses the setting.
// cpu is the repack rules of the CPU variant llama.cpp runs, from its system
// info: "avx512" (AVX512 = 1), "avx2" (AVX2 = 1) or "none".
// flash_attn is "on" or "off" as llama.cpp resolved it; caches is one
// "cells/layers/total/K/V" per KV cache llama.cpp creates (the dense one
// first, then the SWA one), joined with "+", or "rs:R/S" for a recurrent
// state; mapped and repack are the CPU_Mapped and CPU_REPACK model buffers
// (0.00 when llama.cpp makes none).
//
// The context is made with node-llama-cpp's binding (AddonContext) rather
// than LlamaContext: createContext() would pad the context to 256 and
// multiply it by the sequences, and add 1 to the batch of a sliding-window
// model, before llama.cpp sees them.  So llama.cpp gets exactly these
// arguments, as from llama_init_from_model(); swa_full is false, kv_unified
// false (node-llama-cpp's defaults).  Run from build/llama
// (tests/llama_oracle.sh does).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, ...settings] = process.argv.slice(2);
const ggml = {f32: 0, f16: 1, q4_0: 2, q8_0: 8};
let log = "", all = "", errors = [];
const llama = await getLlama({
  gpu: false, build: "never", logLevel: LlamaLogLevel.info,
  logger: (level, msg) => {
    log += msg + "\n";
    all += msg + "\n";
    if (level === LlamaLogLevel.error) errors.push(msg);
  }
});
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const cpu = /AVX512 = 1/.test(llama.systemInfo) ? "avx512" : /AVX2 = 1/.test(llama.systemInfo) ? "avx2" : "none";
const buffer = (name) => {
  const m = all.match(new RegExp(name + " model buffer size = +([\\d.]+) MiB"));
  return m ? m[1] : "0.00";
};
// the logger is called asynchronously: wait for the lines of one context
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

for (const setting of settings) {
  const [ctx, seqs, fa, tk, tv] = setting.split(",");
  log = "";
  errors = [];
  const context = new llama._bindings.AddonContext(model._model, {
    contextSize: +ctx, batchSize: 512, sequences: +seqs, threads: 1,
    flashAttention: fa === "auto" ? "auto" : fa === "1",
    kvCacheKeyType: ggml[tk], kvCacheValueType: ggml[tv], swaFullCache: false
  });
  const ok = await context.init();
  await settle();
  if (!ok) {
    const m = errors.join("\n").match(/llama_init_from_model: (?:failed to initialize the context: )?([^\n]+)/);
    if (!m) throw new Error("llama.cpp refused " + setting + " without a message:\n" + log);
    console.log([ctx, seqs, fa, tk, tv, cpu, "refused", m[1]].join("\t"));
    continue;
  }
  await context.dispose();
  const one = (re) => {
    const m = log.match(re);
    if (!m) throw new Error("no " + re + " in the log of " + setting);
    return m[1];
  };
  const asked = one(/llama_context: flash_attn += (\w+)/);
  const flash = asked === "auto" ? (/Flash Attention enabled/.test(log) ? "on" : "off")
    : asked === "enabled" ? "on" : "off";
  const caches = [];
  for (const m of log.matchAll(/llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers,[^)]*\), K \(\w+\): +([\d.]+) MiB, V \(\w+\): +([\d.]+) MiB/g))
    caches.push([m[2], m[3], m[1], m[4], m[5]].join("/"));
  for (const m of log.matchAll(/llama_memory_recurrent: size = +[\d.]+ MiB \([^)]*\), R \(\w+\): +([\d.]+) MiB, S \(\w+\): +([\d.]+) MiB/g))
    caches.push("rs:" + m[1] + "/" + m[2]);
  console.log([
    ctx, seqs, fa, tk, tv, cpu,
    one(/llama_context: n_ctx += (\d+)/), one(/llama_context: n_ubatch += (\d+)/), flash, caches.join("+"),
    buffer("CPU_Mapped"), buffer("CPU_REPACK"), one(/output buffer size = +([\d.]+) MiB/),
    one(/compute buffer size = +([\d.]+) MiB/)
  ].join("\t"));
}
await model.dispose();
