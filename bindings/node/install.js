// install.js: npm's install script of the sqlite-weights package.  It builds
// the module with the repository's Makefile (`make -C ../.. build/weights.so`,
// the same sources and flags as every other build), so that
// `npm install ./bindings/node` from a clean clone leaves a loadable module.
// The package is not published: npm links it from the repository (the
// default for a folder), and index.js loads ../../build/weights.so.  When the
// folder is not inside the repository (npm install --install-links copies it)
// the build cannot run and the install fails, saying so.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');

function fail(message) {
  console.error('sqlite-weights: ' + message);
  process.exit(1);
}

if (!fs.existsSync(path.join(root, 'Makefile')) || !fs.existsSync(path.join(root, 'ext'))) {
  fail(`${root} is not the sqlite-weights repository (no Makefile and ext/ there): install the package ` +
       'as a link to its folder in the repository (npm install <repository>/bindings/node, without --install-links)');
}
const make = process.env.MAKE || 'make';
console.log(`sqlite-weights: ${make} -C ${root} WERROR= build/weights.so`);
// WERROR= : a warning of the user's compiler must not fail the install.
const r = spawnSync(make, ['-C', root, 'WERROR=', 'build/weights.so'], { stdio: 'inherit' });
if (r.error) fail(`cannot run ${make} (${r.error.message}): it builds weights.so (Debian: apt-get install make gcc)`);
if (r.status !== 0) fail(`building weights.so failed (${make} exited with ${r.signal ? 'signal ' + r.signal : 'status ' + r.status}); \`make deps\` lists the Debian packages it needs`);
