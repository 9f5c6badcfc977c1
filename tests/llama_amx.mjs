// llama_amx.mjs FILE: load FILE with llama.cpp's CPU build (node-llama-cpp's,
// from build/llama) on the CPU, create a context of 2048 tokens, one
// sequence, n_batch = n_ubatch = 512, F16 cache, flash attention off, and
// print what llama.cpp logs, one line each: "BUFFER MiB" per model buffer
// (AMX, CPU_Mapped, CPU_REPACK), "compute MiB", and "variant AMX_INT8"
// when the CPU variant llama.cpp runs has AMX.  A graph llama.cpp cannot
// schedule aborts the process (GGML_ASSERT), which the caller sees.  Run
// from build/llama (tests/llama_amx_test.sh does).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file] = process.argv.slice(2);
let log = "";
const llama = await getLlama({
  gpu: false, build: "never", logLevel: LlamaLogLevel.info,
  logger: (level, msg) => { log += msg + "\n"; }
});
if (/AMX_INT8 = 1/.test(llama.systemInfo)) console.log("variant AMX_INT8");
const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
await settle();
for (const m of log.matchAll(/(\S+) model buffer size = +([\d.]+) MiB/g)) console.log(m[1], m[2]);
const context = new llama._bindings.AddonContext(model._model, {
  contextSize: 2048, batchSize: 512, sequences: 1, threads: 1, flashAttention: false,
  kvCacheKeyType: 1, kvCacheValueType: 1, swaFullCache: false
});
if (await context.init()) {
  await settle();
  const m = log.match(/CPU compute buffer size = +([\d.]+) MiB/);
  console.log("compute", m ? m[1] : "?");
  await context.dispose();
}
await model.dispose();
