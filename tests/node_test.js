// node_test.js MODULE: the extension from Node.js through better-sqlite3.
// Run by tests/node_test.sh (which installs better-sqlite3 into build/node)
// from the repository root:
//
//   NODE_PATH=build/node/node_modules node tests/node_test.js build/weights.so
//
// better-sqlite3 is built with its own copy of SQLite (newer than Debian's),
// so this also checks the module against another SQLite version.
// The last line is "node: N passed, M failed"; the exit status is 0 only
// when every check passed.  The database is closed before that line.
'use strict';
const fs = require('fs');
const path = require('path');
const Database = require('better-sqlite3');

const MODULE = process.argv[2] || 'build/weights.so';
const DEMO_ST = 'build/demo/tiny-llama.safetensors';
const DEMO_GGUF = 'build/demo/tiny-llama.gguf';
let passed = 0;
let failed = 0;

function ok(cond, what, detail) {
  if (cond) {
    passed++;
  } else {
    failed++;
    console.log('FAILED: ' + what + (detail !== undefined ? ': ' + detail : ''));
  }
}

function throwsLike(fn, re, what) {
  try {
    fn();
    ok(false, what, 'no error');
  } catch (e) {
    ok(re.test(e.message), what, e.message);
  }
}

const version = (fs.readFileSync('Makefile', 'utf8').match(/^VERSION\s*:?=\s*(\S+)\s*$/m) || [])[1];

// Relative path (resolved against the current directory; a path with a '/'),
// without the suffix, and absolute path.
const noSuffix = MODULE.replace(/\.so$/, '');
const relative = path.isAbsolute(noSuffix) || noSuffix.startsWith('./') ? noSuffix : './' + noSuffix;
for (const p of [relative, path.resolve(MODULE)]) {
  const d = new Database(':memory:');
  d.loadExtension(p);
  const v = d.prepare('SELECT weights_version() AS v').get().v;
  ok(v === version, `loadExtension('${p}'): weights_version() is the Makefile's VERSION`, `${v} != ${version}`);
  d.close();
}

const db = new Database(':memory:');
db.loadExtension(relative);

const rows = db.prepare('SELECT name, dtype, shape, numel, offset, nbytes FROM safetensors(?) LIMIT 2').all(DEMO_ST);
ok(JSON.stringify(rows) === JSON.stringify([
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: '[260,64]', numel: 16640, offset: 2152, nbytes: 33280 },
  { name: 'model.layers.0.input_layernorm.weight', dtype: 'BF16', shape: '[64]', numel: 64, offset: 35432, nbytes: 128 },
]), 'safetensors(?) with a bound path', JSON.stringify(rows));

const per = db.prepare(`SELECT dtype, count(*) AS tensors, sum(numel) AS params, sum(nbytes) AS bytes
                        FROM gguf(?) GROUP BY dtype ORDER BY bytes DESC`).all(DEMO_GGUF);
ok(JSON.stringify(per) === JSON.stringify([
  { dtype: 'Q8_0', tensors: 16, params: 107008, bytes: 113696 },
  { dtype: 'F32', tensors: 5, params: 320, bytes: 1280 },
]), 'gguf(): parameters per dtype', JSON.stringify(per));

const hello = db.prepare("SELECT idx, value FROM gguf_array(?, 'tokenizer.ggml.tokens') WHERE value LIKE '%hello%'")
  .all(DEMO_GGUF);
ok(JSON.stringify(hello) === JSON.stringify([{ idx: 259, value: '\u2581hello' }]), 'gguf_array()', JSON.stringify(hello));

// 64-bit integers as BigInt when asked for.
const big = db.prepare('SELECT offset FROM gguf(?) LIMIT 1').safeIntegers(true).get(DEMO_GGUF);
ok(big.offset === 6624n, 'safeIntegers: offset as BigInt', String(big.offset));

// Blobs are Buffers equal to the file's bytes.
const data = fs.readFileSync(DEMO_ST);
const t = db.prepare("SELECT offset, nbytes FROM safetensors(?) WHERE name = 'model.norm.weight'").get(DEMO_ST);
const b = db.prepare("SELECT safetensors_blob(?, 'model.norm.weight') AS b").get(DEMO_ST).b;
ok(Buffer.isBuffer(b) && b.equals(data.subarray(t.offset, t.offset + t.nbytes)),
  'safetensors_blob() is a Buffer equal to the file bytes');

throwsLike(() => db.prepare('SELECT * FROM safetensors(?)').all('build/demo/no-such-file.safetensors'),
  /^safetensors\(\): build\/demo\/no-such-file\.safetensors: cannot open/, 'a missing file throws, naming it');
throwsLike(() => db.prepare('SELECT * FROM gguf(?)').all(DEMO_ST), /^gguf\(\): build\/demo\/tiny-llama\.safetensors/,
  'a safetensors file read as GGUF throws');
db.exec(`CREATE VIEW v AS SELECT name FROM safetensors('${DEMO_ST}')`);
throwsLike(() => db.prepare('SELECT * FROM v').all(), /unsafe use of virtual table/,
  'a view in the database cannot read files (SQLITE_DIRECTONLY)');

const sqliteVersion = db.prepare('SELECT sqlite_version() AS v').get().v;
db.close();
console.log(`node: ${passed} passed, ${failed} failed (better-sqlite3 ${require('better-sqlite3/package.json').version}, ` +
  `SQLite ${sqliteVersion}, Node ${process.version})`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
