/** The throwaway PKI global-setup made, for HTTPS receivers in tests. */
import { readFileSync } from 'node:fs';
import { TEST_ENV } from './emulators-process';

export interface TestTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export function testTls(): TestTls {
  const read = (key: string) => {
    const file = process.env[key];
    if (!file) throw new Error(`${key} is not set: run through the integration project (global-setup)`);
    return readFileSync(file, 'utf8');
  };
  return { ca: read(TEST_ENV.caFile), cert: read(TEST_ENV.certFile), key: read(TEST_ENV.keyFile) };
}
