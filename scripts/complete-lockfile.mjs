#!/usr/bin/env node
// The npm registry mirror on our machines serves only the linux-x64 builds of platform
// packages (biome, unrs-resolver). `npm install` then leaves the other platforms' optional
// dependencies out of package-lock.json, and `npm ci` refuses the lockfile as out of sync.
// This adds the missing optional entries with their os/cpu, which npm ci skips on a
// non-matching machine without fetching anything. Run it after every `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'win32', 'freebsd', 'openharmony', 'linux'];
const CPU = [['arm64'], ['x64'], ['ia32'], ['loong64'], ['ppc64'], ['riscv64'], ['s390x'], ['arm', /-arm-/]];

function platformOf(name) {
  const base = name.split('/').pop();
  const os = OS.find((o) => base.includes(o));
  const cpu = CPU.find(([c, re]) => (re ? re.test(`${base}-`) : base.includes(c)))?.[0];
  if (!os || !cpu) return undefined;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [base.includes('musl') ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const meta of Object.values(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    packages[key] = { version, dev: meta.dev ?? false, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
