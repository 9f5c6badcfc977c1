// node_pkg_test.js REPO: the npm package sqlite-weights (bindings/node), as
// installed into a temporary npm project by tests/node_pkg_test.sh, which
// copies this file into that project and runs it from there:
//
//   NODE_PATH=REPO/build/node/node_modules node node_pkg_test.js REPO
//
// require('sqlite-weights') comes from the project's node_modules;
// better-sqlite3 12 from REPO/build/node (NODE_PATH), where
// tests/node_test.sh installed it.  The demo model's tensors and bytes are
// checked against the file read here with JSON.parse and Buffer, not against
// the module.  node:sqlite is used for real when this Node has it (22.13 and
// later); otherwise load()'s DatabaseSync path is checked with a stand-in
// object that records the calls.  Last line: "node-pkg: N passed, M failed".
'use strict';
const fs = require('fs');
const path = require('path');

const REPO = path.resolve(process.argv[2] || '.');
const DEMO_ST = path.join(REPO, 'build/demo/tiny-llama.safetensors');
const DEMO_GGUF = path.join(REPO, 'build/demo/tiny-llama.gguf');
const MISSING = path.join(REPO, 'build/demo/no-such-file.safetensors');
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

function errorOf(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

// The safetensors header read here: {name: [dtype, shape, begin, end]} and the data start.
function safetensorsHeader(file) {
  const bytes = fs.readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  delete header.__metadata__;
  return { bytes, header, dataStart: 8 + n };
}

// The demo model through db (run(sql, ...args) -> rows, one(sql, ...args) -> first value).
function checkQueries(what, all, one) {
  const { bytes, header, dataStart } = safetensorsHeader(DEMO_ST);
  const got = all('SELECT name, dtype, shape, data_start, data_end, offset, nbytes FROM safetensors(?)', DEMO_ST)
    .map((r) => JSON.stringify([r.name, r.dtype, r.shape, r.data_start, r.data_end, r.offset, r.nbytes]))
    .sort();
  const want = Object.entries(header)
    .map(([k, v]) => {
      const [b, e] = v.data_offsets;
      return JSON.stringify([k, v.dtype, JSON.stringify(v.shape), b, e, dataStart + b, e - b]);
    })
    .sort();
  ok(JSON.stringify(got) === JSON.stringify(want), `${what}: safetensors() rows match the header read with JSON.parse`,
     `${got.length} rows, want ${want.length}`);
  for (const name of ['model.norm.weight', 'model.embed_tokens.weight']) {
    const [b, e] = header[name].data_offsets;
    const blob = one('SELECT safetensors_blob(?, ?)', DEMO_ST, name);
    ok(Buffer.isBuffer(blob) && blob.equals(bytes.subarray(dataStart + b, dataStart + e)),
       `${what}: safetensors_blob(${name}) is the file's bytes`);
  }
  const count = Number(fs.readFileSync(DEMO_GGUF).readBigUInt64LE(8));
  ok(Number(one('SELECT count(*) FROM gguf(?)', DEMO_GGUF)) === count, `${what}: gguf() has the header's ${count} tensors`);
  let e = errorOf(() => all('SELECT * FROM safetensors(?)', MISSING));
  ok(e && e.message.includes(MISSING), `${what}: a missing file is an error naming it`, e && e.message);
  e = errorOf(() => all("SELECT load_extension('x')"));
  ok(e && /not authorized/.test(e.message), `${what}: SQL's load_extension() refused after load()`, e && e.message);
}

const version = (fs.readFileSync(path.join(REPO, 'Makefile'), 'utf8').match(/^VERSION\s*:?=\s*(\S+)\s*$/m) || [])[1];
const resolved = require.resolve('sqlite-weights');
ok(resolved === path.join(process.cwd(), 'node_modules', 'sqlite-weights', 'index.js') ||
   fs.realpathSync(resolved) === path.join(REPO, 'bindings', 'node', 'index.js'),
   "require('sqlite-weights') is the project's installed package", resolved);
const sqliteWeights = require('sqlite-weights');
ok(sqliteWeights.version === version, "version is the Makefile's VERSION", `${sqliteWeights.version} != ${version}`);
const file = sqliteWeights.getLoadablePath();
ok(file === path.join(REPO, 'build', 'weights.so') && fs.existsSync(file), 'getLoadablePath() is the built weights.so', file);
for (const bad of [null, undefined, {}, 'build/weights.so']) {
  const e = errorOf(() => sqliteWeights.load(bad));
  ok(e instanceof TypeError, `load(${JSON.stringify(bad)}) is a TypeError`, e && e.message);
}

// better-sqlite3.
const Database = require('better-sqlite3');
const db = new Database(':memory:');
sqliteWeights.load(db);
ok(db.prepare('SELECT weights_version() AS v').get().v === version, 'better-sqlite3: weights_version()');
checkQueries('better-sqlite3', (sql, ...a) => db.prepare(sql).all(...a), (sql, ...a) => db.prepare(sql).pluck().get(...a));
db.close();

// node:sqlite, or a stand-in for its DatabaseSync.
let nodeSqlite = null;
try {
  nodeSqlite = require('node:sqlite');
} catch (e) {
  console.log(`skipped: node:sqlite (Node ${process.version} has none: ${e.code}); checking load() with a stand-in`);
}
if (nodeSqlite && typeof nodeSqlite.DatabaseSync.prototype.loadExtension === 'function') {
  const d = new nodeSqlite.DatabaseSync(':memory:', { allowExtension: true });
  sqliteWeights.load(d);
  ok(d.prepare('SELECT weights_version() AS v').get().v === version, 'node:sqlite: weights_version()');
  checkQueries('node:sqlite', (sql, ...a) => d.prepare(sql).all(...a),
               (sql, ...a) => Object.values(d.prepare(sql).get(...a))[0]);
  d.close();
  const closed = new nodeSqlite.DatabaseSync(':memory:');
  const e = errorOf(() => sqliteWeights.load(closed));
  ok(e && /allowExtension: true/.test(e.message), 'node:sqlite without allowExtension: the error says how', e && e.message);
  closed.close();
} else {
  const calls = [];
  const standIn = {
    enableLoadExtension: (on) => calls.push(`enable ${on}`),
    loadExtension: (p) => calls.push(`load ${p}`),
  };
  sqliteWeights.load(standIn);
  ok(JSON.stringify(calls) === JSON.stringify(['enable true', `load ${file}`, 'enable false']),
     'DatabaseSync stand-in: enabled, loaded, disabled', calls.join(', '));
  calls.length = 0;
  standIn.loadExtension = () => { throw new Error('refused'); };
  const e = errorOf(() => sqliteWeights.load(standIn));
  ok(e && e.message === 'refused' && JSON.stringify(calls) === '["enable true","enable false"]',
     'DatabaseSync stand-in: a failed load still disables loading', calls.join(', '));
  standIn.enableLoadExtension = () => { throw new Error('disabled at creation'); };
  const e2 = errorOf(() => sqliteWeights.load(standIn));
  ok(e2 && /allowExtension: true/.test(e2.message), 'DatabaseSync stand-in without allowExtension: the error says how',
     e2 && e2.message);
}

console.log(`node-pkg: ${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
