#!/usr/bin/env node
// The `webhooks` executable. In a source checkout it runs the TypeScript sources through tsx
// (a devDependency); the installed package runs the bundle built at pack time (dist/cli/main.js,
// scripts/bundle-lambdas.mjs), which carries every dependency of the CLI.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');

// Kept in step with "engines" in package.json (docs/decisions.md D20): Node 20 or later.
const [major] = process.versions.node.split('.').map(Number);
if (major < 20) {
  process.stderr.write(
    `webhooks: Node.js ${process.versions.node} is not supported; use Node.js 20 or later (24 recommended).\n`,
  );
  process.exit(1);
}

function fromSource() {
  if (!existsSync(join(__dirname, 'main.ts'))) return false;
  try {
    require.resolve('tsx/cjs');
    return true;
  } catch {
    return false;
  }
}

let entry = '../dist/cli/main.js';
if (fromSource()) {
  require('tsx/cjs');
  entry = './main.ts';
}
require(entry).cli();
