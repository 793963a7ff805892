/** Jest projects: `unit` (pure, fast), `integration` (emulators + real HTTPS on loopback), `infra` (CDK template). */
const tsJest = ['ts-jest', { diagnostics: false }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
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
      testTimeout: 60_000,
    },
    {
      ...common,
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      testTimeout: 120_000,
    },
  ],
};
