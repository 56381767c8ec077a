const { availableParallelism } = require('node:os');

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
      displayName: 'unit',
      testEnvironment: 'node',
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
  // jest's default is one worker fewer than the cores: on 2 cores one file at a time. The integration files spend most
  // of their time waiting on the servers, timers and processes they drive (one worker kept 2 cores about a sixth
  // busy), so four run side by side on any machine (issue 45, decision 1150). `npm test` runs the cluster project
  // alone after them (scripts/lib/jest-runs.mjs).
  maxWorkers: Math.max(4, availableParallelism() - 1),
  testTimeout: 60_000,
  // A cluster test's build output (npm run cluster builds beside dist/) is no source of tests or modules.
  modulePathIgnorePatterns: ['<rootDir>/.data/'],
};
