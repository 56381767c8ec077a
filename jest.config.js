const { availableParallelism } = require('node:os');
const { integrationFiles, POSTGRES_DEFAULTS } = require('./scripts/lib/jest-workers.mjs');

/** @type {import('jest').Config} */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};

// The client package (client/) is ESM whose relative imports name the compiled `.js` files; jest runs its TypeScript.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };

module.exports = {
  projects: [
    {
      // Date a year ahead in every unit test file (and only Date): a test pinning today's date fails today (decision 1151).
      displayName: 'unit',
      testEnvironment: '<rootDir>/test/helpers/year-ahead-environment.ts',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      slowTestThreshold: 20,
    },
    {
      // The store-facing suites once more with every test store connected to the fake Shopify (ShopifyPlatform over
      // the Admin GraphQL API) instead of the sandbox platform; the same run as `integration` (decision 0704).
      displayName: 'integration-shopify',
      testEnvironment: 'node',
      transform,
      testMatch: [
        'label-creation',
        'label-dry-run',
        'orders',
        'pickup-points',
        'pickup-point-labels',
        'platform-unavailable',
        'unresolved-creation-hold',
        'unresolved-creation',
      ].map((name) => `<rootDir>/test/integration/${name}.test.ts`),
      setupFiles: ['<rootDir>/test/helpers/on-shopify.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      slowTestThreshold: 20,
    },
    {
      // The README and docs/ as pasted: `npm run dev` in a fresh copy of the checkout, then every runnable example
      // (test/docs/docs-as-pasted.test.ts, decision 0040). Its own stack, so it runs alone, as the cluster does.
      displayName: 'docs',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/docs/**/*.test.ts'],
      slowTestThreshold: 60,
    },
    {
      // The production shape (npm run cluster) started once by its test file: a Temporal server on PostgreSQL, two
      // workers, two API processes.
      displayName: 'cluster',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
      slowTestThreshold: 60,
    },
  ],
  // Files side by side: one more than the cores, and no more than PostgreSQL's connections hold (decision 1152; issue
  // 45, decision 1150, found the files mostly wait). Here PostgreSQL's defaults are assumed: `npm test` reads the
  // server's own budget, passes the result as --maxWorkers and the unit run's own (scripts/lib/jest-workers.mjs), and
  // runs the cluster project alone after the others (scripts/lib/jest-runs.mjs).
  maxWorkers: integrationFiles({ cores: availableParallelism(), ...POSTGRES_DEFAULTS }).count,
  testTimeout: 60_000,
  // A cluster test's build output (npm run cluster builds beside dist/) is no source of tests or modules.
  modulePathIgnorePatterns: ['<rootDir>/.data/'],
};
