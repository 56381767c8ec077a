/** @type {import('jest').Config} */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      slowTestThreshold: 20,
    },
    {
      // The production shape (npm run cluster) started once by its test file: a Temporal server on PostgreSQL, two
      // workers, two API processes.
      displayName: 'cluster',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
      slowTestThreshold: 60,
    },
  ],
  testTimeout: 60_000,
  // A cluster test's build output (npm run cluster builds beside dist/) is no source of tests or modules.
  modulePathIgnorePatterns: ['<rootDir>/.data/'],
};
