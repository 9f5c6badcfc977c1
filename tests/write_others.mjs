// write_others.mjs ORIG EDITED: what two other readers make of a GGUF that
// gguf_rewrite() wrote (EDITED) from ORIG, printed as one JSON object per
// reader and file for tests/write_others_test.sh to compare.  Run from
// build/llama (that script does).
//   llama: llama.cpp itself (node-llama-cpp's prebuilt CPU build) loads the
//     file: the training context it reads (llama.context_length), its
//     description of the model, the tokens of a fixed text, and the logits
//     of the next token after them; with them, node-llama-cpp's own reading
//     of the file's chat template and name;
//   hf: @huggingface/gguf (huggingface.js) reads the header: every key and
//     value, and every tensor's name, shape, type and offset.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import {gguf} from "@huggingface/gguf";

const files = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});

// BigInts (64-bit values) as decimal text.
const text = (v) => JSON.stringify(v, (k, x) => typeof x === "bigint" ? x.toString() : x);

for (const file of files) {
  const model = await llama.loadModel({modelPath: file, gpuLayers: 0});
  const context = await model.createContext({contextSize: 128});
  const tokens = model.tokenize("Hello world", false);
  const input = [model.tokens.bos, ...tokens].map((t, i, all) =>
    i === all.length - 1 ? [t, {generateNext: {logits: true}}] : t);
  const out = await context.getSequence().controlledEvaluate(input);
  const logits = [...out[input.length - 1].next.logits.entries()].sort((a, b) => a[0] - b[0]);
  console.log(text({
    reader: "llama", file,
    trainContextSize: model.trainContextSize,
    description: model.typeDescription,
    tokens,
    logits,
    chatTemplate: model.fileInfo.metadata.tokenizer?.chat_template ?? null,
    name: model.fileInfo.metadata.general?.name ?? null,
  }));
  await context.dispose();
  await model.dispose();

  const {metadata, tensorInfos} = await gguf(file, {allowLocalFile: true});
  console.log(text({
    reader: "hf", file, metadata,
    tensors: tensorInfos.map((t) => [t.name, t.shape, t.dtype, t.offset]),
  }));
}
