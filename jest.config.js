/**
 * Jest projects: `unit` (pure, fast), `integration` (emulators + real HTTPS on loopback),
 * `security` (the adversarial egress suite: loopback HTTPS, no emulators), `infra` (CDK template),
 * `contract` (each port's behaviour tests, written once, run against its in-memory implementation and its
 * production adapter on the emulators: test/contract/),
 * `faults` (reliability scenarios with the no-loss ledger: quick by default, FAULTS=full for all sizes),
 * `browser` (the web console in a real Chromium against local mode's API).
 */
const tsJest = ['ts-jest', { diagnostics: false }];
/** Dependencies published as ES modules only; Jest's CommonJS runtime gets them through esbuild. */
const ESM_ONLY = ['commander', 'jose'];
const common = {
  // Quiet unless a test fails (test/setup/quiet-environment.js; WEBHOOKS_TEST_LOGS=1 shows all).
  testEnvironment: '<rootDir>/test/setup/quiet-environment.js',
  transform: {
    '^.+\\.ts$': tsJest,
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: '<rootDir>/test/setup/esm-to-cjs.js',
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
    {
      ...common,
      displayName: 'contract',
      testMatch: ['<rootDir>/test/contract/**/*.test.ts'],
      // The integration project's emulators: one set, shared when both projects run.
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
    {
      ...common,
      displayName: 'security',
      testMatch: ['<rootDir>/test/security/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      globalSetup: '<rootDir>/test/faults/global-setup.ts',
      globalTeardown: '<rootDir>/test/faults/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.ts',
      globalTeardown: '<rootDir>/test/browser/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
    {
      ...common,
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/long-timeout.ts'],
    },
  ],
};
