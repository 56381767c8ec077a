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
  testTimeout: 60_000,
  // A cluster test's build output (npm run cluster builds beside dist/) is no source of tests or modules.
  modulePathIgnorePatterns: ['<rootDir>/.data/'],
};
