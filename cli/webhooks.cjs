#!/usr/bin/env node
// The `webhooks` executable. In this repository it runs the TypeScript sources through tsx
// (a devDependency); an installed package without tsx runs the compiled dist/ instead.
'use strict';

function hasTsx() {
  try {
    require.resolve('tsx/cjs');
    return true;
  } catch {
    return false;
  }
}

let entry = '../dist/cli/main.js';
if (hasTsx()) {
  require('tsx/cjs');
  entry = './main.ts';
}
require(entry).cli();
