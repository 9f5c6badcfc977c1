// sqlite-weights for Node.js: the SQLite extension that reads model-weight
// files (safetensors, GGUF) as SQL tables, loaded into a connection.
//
//   const Database = require('better-sqlite3');
//   const sqliteWeights = require('sqlite-weights');
//   const db = new Database(':memory:');
//   sqliteWeights.load(db);
//   db.prepare("SELECT name, shape FROM gguf('model.gguf')").all();
//
// load(db) takes a better-sqlite3 Database (version 12 on Node 20) or, on a
// Node that has node:sqlite (22.13 and later), a DatabaseSync opened with
// { allowExtension: true }; for the latter it enables extension loading for
// the load and disables it again.  getLoadablePath() is the module's absolute
// path.  The module is the repository's build/weights.so, which the package's
// install script builds (install.js); the SQL reference is docs/reference.md.
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const MODULE = path.join(ROOT, 'build', 'weights.so');

/** The absolute path of weights.so (its name gives SQLite the entry point). */
function getLoadablePath() {
  if (!fs.existsSync(MODULE)) {
    throw new Error(`sqlite-weights: ${MODULE} not found: build it with \`make -C ${ROOT} build/weights.so\` ` +
                    '(npm install runs it, unless scripts are ignored)');
  }
  return MODULE;
}

/** Load sqlite-weights into db: a better-sqlite3 Database or a node:sqlite DatabaseSync. */
function load(db) {
  if (db === null || typeof db !== 'object' || typeof db.loadExtension !== 'function') {
    throw new TypeError('sqlite-weights: load(db) expects a better-sqlite3 Database or a node:sqlite DatabaseSync');
  }
  const file = getLoadablePath();
  if (typeof db.enableLoadExtension !== 'function') {
    db.loadExtension(file); // better-sqlite3: SQL's load_extension() stays off
    return;
  }
  try {
    db.enableLoadExtension(true);
  } catch (e) {
    throw new Error('sqlite-weights: extension loading is disabled on this DatabaseSync: ' +
                    `open it with new DatabaseSync(path, { allowExtension: true }) (${e.message})`, { cause: e });
  }
  try {
    db.loadExtension(file);
  } finally {
    db.enableLoadExtension(false);
  }
}

module.exports = { load, getLoadablePath, version: require('./package.json').version };
