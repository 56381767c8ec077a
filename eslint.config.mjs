import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'jest.config.js', 'bin/', 'client/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'error',
      'no-restricted-syntax': [
        'error',
        {
          // MikroORM 6: SQL through getConnection() never joins the EntityManager's transaction (decision 0008).
          selector: "MemberExpression[property.name='getConnection']",
          message:
            'Use em.execute(...) (or inTransaction from src/db/transaction.ts): getConnection() bypasses the transaction.',
        },
      ],
    },
  },
  {
    // Test helpers read loosely typed JSON bodies on purpose.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Workflow code is replayed: no I/O, no clocks, no randomness outside Temporal's APIs. The pure decisions of
    // src/domain/ run inside workflows too, so they follow the same rules.
    files: ['workflows/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'fetch', message: 'Workflows and domain decisions must not do I/O.' },
        { name: 'process', message: 'Workflows and domain decisions must not read the environment.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Time comes from the input or Temporal APIs, never from the clock.',
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: 'Time comes from the input or Temporal APIs, never from the clock.',
        },
        {
          selector: "MemberExpression[object.name='Math'][property.name='random']",
          message: 'Use uuid4() or workflow input.',
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .flatMap((m) => [m, `node:${m}`])
            .map((name) => ({ name, message: 'Workflows must not do I/O.' })),
          patterns: [
            {
              // Workflow modules sit one or two floors below the root (`workflows/`, `workflows/label-creation/`).
              group: ['../', '../../'].flatMap((up) => [
                `${up}src/**`,
                `!${up}src/domain`,
                `!${up}src/domain/**`,
                `!${up}src/carriers`,
                `${up}src/carriers/*`,
                `!${up}src/carriers/catalog`,
                `${up}activities`,
                `${up}activities/**`,
              ]),
              allowTypeImports: true,
              message:
                'Workflows import pure decisions from src/domain/ and the carrier catalogue; other code with `import type` only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Domain decisions are pure: values only from the domain itself and the carrier catalogue (static data).
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .flatMap((m) => [m, `node:${m}`])
            .map((name) => ({ name, message: 'Domain decisions must not do I/O.' })),
          patterns: [
            {
              group: [
                '../*',
                '!../carriers',
                '../carriers/*',
                '!../carriers/catalog',
                '@mikro-orm/*',
                '@temporalio/*',
                'koa',
                'pg',
              ],
              allowTypeImports: true,
              message:
                'Domain decisions import only the domain and the carrier catalogue; other code with `import type`.',
            },
          ],
        },
      ],
    },
  },
  {
    // Services return outcomes and throw domain refusals; the HTTP edge renders them (docs/architecture.md).
    files: ['src/creation/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['koa', '@koa/*', '../api', '../api/**', '../http/state', '../http/api-error', '../http/route*'],
              message:
                'The creation service knows no HTTP: return an outcome, throw a DomainError (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
