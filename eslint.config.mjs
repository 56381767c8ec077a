import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { placedRule, srcNames } from './eslint.module-map.mjs';

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

// The module map (docs/architecture.md, eslint.module-map.mjs): which floor may import which. A folder of `src/` is named
// from any depth.
const SERVICES = srcNames('services');
const EDGE = srcNames('edge');
const ENTRY = srcNames('entry');
const UPS = ['../', '../../', '../../../'];
const srcFolders = (names) => names.flatMap((name) => UPS.flatMap((up) => [`${up}${name}`, `${up}${name}/**`]));
const rootFolders = (names) =>
  names.flatMap((name) => UPS.slice(1).flatMap((up) => [`${up}${name}`, `${up}${name}/**`]));
/**
 * Workflows are started and asked through their contracts only, never imported themselves; a workflow's `details`
 * (the pure text of its Web UI metadata) goes with its contract, since the starter gives the static part.
 */
const WORKFLOWS_BUT_CONTRACTS = String.raw`^(\.\./)+workflows(/(?!([\w-]+/contract|[\w-]+/details|[\w-]+-contract|search-attributes)$).*)?$`;
// MikroORM 6: SQL through getConnection() never joins the EntityManager's transaction (decision 0008).
const NO_GET_CONNECTION = {
  selector: "MemberExpression[property.name='getConnection']",
  message:
    'Use em.execute(...) (or inTransaction from src/db/transaction.ts): getConnection() bypasses the transaction.',
};

/**
 * Tests that share PostgreSQL, the Temporal server and the workers of the global setup, whose clocks run on (npm test
 * moves only the unit project's clock a year ahead, docs/development.md, decision 1151): no fixed instant. A pure use (a value no clock
 * is compared with) is allowed line by line with a reason: `// eslint-disable-next-line no-restricted-syntax -- pure: <why>`.
 */
const ISO_INSTANT = String.raw`/\d{4}-\d\d-\d\dT\d\d:\d\d/`;
const FIXED_INSTANT_MESSAGE =
  'A fixed instant here meets clocks that run on (the app, PostgreSQL, Temporal): build it from Date.now() or set app.clock relative to it (test/helpers/time.ts); a pure use says why: // eslint-disable-next-line no-restricted-syntax -- pure: <why>';
const NO_FIXED_INSTANTS = [
  `Literal[value=${ISO_INSTANT}]`,
  `TemplateElement[value.raw=${ISO_INSTANT}]`,
  "NewExpression[callee.name='Date'][arguments.0.type='Literal']",
  "NewExpression[callee.name='Date'][arguments.0.type='TemplateLiteral']",
  "CallExpression[callee.object.name='Date'][callee.property.name='parse'][arguments.0.type='Literal']",
  "CallExpression[callee.object.name='Date'][callee.property.name='parse'][arguments.0.type='TemplateLiteral']",
  "CallExpression[callee.object.name='Date'][callee.property.name='UTC']",
].map((selector) => ({ selector, message: FIXED_INSTANT_MESSAGE }));

/** Every fixed instant allowed where NO_FIXED_INSTANTS holds says why it is pure, on its own line. */
const pureFixedInstants = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      reason:
        'Allow a fixed instant one line at a time, with its reason: // eslint-disable-next-line no-restricted-syntax -- pure: <why>',
    },
  },
  create: (context) => ({
    Program() {
      for (const comment of context.sourceCode.getAllComments()) {
        const [directive, reason = ''] = comment.value.trim().split(/\s--\s/);
        if (!/^eslint-disable\S*\s.*\bno-restricted-syntax\b/.test(directive)) continue;
        if (!directive.startsWith('eslint-disable-next-line ') || !/^pure: \S/.test(reason.trim()))
          context.report({ loc: comment.loc, messageId: 'reason' });
      }
    },
  }),
};

const floorRule = (files, forbidden, message, typeOnly = [], regex = null) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: forbidden, message: `${message} (docs/architecture.md)` },
          ...(regex ? [{ regex, message: `${message} (docs/architecture.md)` }] : []),
          ...(typeOnly.length ? [{ group: typeOnly, allowTypeImports: true, message: `${message}: types only` }] : []),
        ],
      },
    ],
  },
});

/**
 * A creation's phase changes only through its phase table (src/domain/creation-phases.ts, decision 1110): the
 * workflow's state by `CreationRun.apply` (no assignment to a `state` object's fields, or to `state` itself, in
 * workflow, activity and service code), and the record's status and phase only by the SQL of
 * src/creation/transitions/, which takes its guards and targets from the table. A self-contained block: its own
 * plugin, so it adds to the `no-restricted-syntax` lists of the other blocks instead of replacing them.
 */
const STATE_NAMED = ":matches(Identifier[name='state'], PrivateIdentifier[name='state'])";
const CREATION_STATE_WRITES = [
  `AssignmentExpression > MemberExpression.left ${STATE_NAMED}`,
  `UpdateExpression > MemberExpression.argument ${STATE_NAMED}`,
  `UnaryExpression[operator='delete'] > MemberExpression.argument ${STATE_NAMED}`,
  `CallExpression[callee.object.name='Object'][callee.property.name='assign'] > MemberExpression.arguments:first-child ${STATE_NAMED}`,
];
/** An `update label_creations ... set` that writes `status` or `phase` before its `where`. */
const RECORD_PHASE_SQL = String.raw`/update\s+label_creations(\s+\w+)?\s+set\s((?!where)[^;])*\b(status|phase)\s*=/`;
const CREATION_RECORD_WRITES = [`Literal[value=${RECORD_PHASE_SQL}]`, `TemplateElement[value.raw=${RECORD_PHASE_SQL}]`];
const selectorRule = (selectors, message) => ({
  meta: { type: 'problem', schema: [], messages: { write: message } },
  create: (context) =>
    Object.fromEntries(selectors.map((selector) => [selector, (node) => context.report({ node, messageId: 'write' })])),
});
export const creationPhasesPlugin = {
  rules: {
    'state-through-table': selectorRule(
      CREATION_STATE_WRITES,
      "A creation's state changes only through its phase table: run.apply(event) (src/domain/creation-phases.ts).",
    ),
    'record-through-transitions': selectorRule(
      CREATION_RECORD_WRITES,
      "A creation record's status and phase are written only by src/creation/transitions/ (guards from the phase table).",
    ),
  },
};
export const creationPhasesBlocks = [
  {
    // The table's own module is the one place a creation's state may be built field by field.
    files: ['workflows/**/*.ts', 'activities/**/*.ts', 'src/creation/**/*.ts', 'src/domain/**/*.ts'],
    ignores: ['src/domain/creation-phases.ts'],
    plugins: { 'creation-phases': creationPhasesPlugin },
    rules: { 'creation-phases/state-through-table': 'error' },
  },
  {
    files: ['workflows/**/*.ts', 'activities/**/*.ts', 'src/**/*.ts'],
    ignores: ['src/creation/transitions/**', 'src/db/migrations/**'],
    plugins: { 'creation-phases': creationPhasesPlugin },
    rules: { 'creation-phases/record-through-transitions': 'error' },
  },
];

export default tseslint.config(
  {
    // A disable comment that no longer disables anything (a fixed instant converted since) goes too.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    ignores: [
      'node_modules/',
      '.data/',
      'dist/',
      'coverage/',
      'jest.config.js',
      'bin/',
      'client/generated/',
      'client/dist/',
      'client/examples/',
    ],
  },
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
      'no-restricted-syntax': ['error', NO_GET_CONNECTION],
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
    files: ['test/integration/**/*.ts', 'test/cluster/**/*.ts', 'test/helpers/**/*.ts'],
    plugins: { tests: { rules: { 'pure-fixed-instants': pureFixedInstants } } },
    rules: {
      'no-restricted-syntax': ['error', NO_GET_CONNECTION, ...NO_FIXED_INSTANTS],
      'tests/pure-fixed-instants': 'error',
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
                `${up}activities`,
                `${up}activities/**`,
              ]),
              allowTypeImports: true,
              message:
                'Workflows import pure decisions from src/domain/ (with the carrier catalogue); other code with `import type` only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Domain decisions are pure: values only from the domain itself (the carrier catalogue, static data, is part of it).
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
              group: ['../*', '@mikro-orm/*', '@temporalio/*', 'koa', 'pg'],
              allowTypeImports: true,
              message: 'Domain decisions import only the domain; other code with `import type`.',
            },
          ],
        },
      ],
    },
  },
  {
    // The map is an allow-list: a module it does not place fails, whatever it imports.
    files: ['src/**/*.{ts,mts,mjs,js}', 'workflows/**/*.ts', 'activities/**/*.ts', 'scripts/**/*.{ts,mts,mjs,js}'],
    plugins: { 'module-map': { rules: { placed: placedRule } } },
    rules: { 'module-map/placed': ['error', import.meta.dirname] },
  },
  floorRule(
    ['src/db/**/*.ts'],
    [...srcFolders([...SERVICES, ...EDGE, ...ENTRY]), ...rootFolders(['activities', 'workflows'])],
    'Persistence imports only the domain',
  ),
  floorRule(
    ['src/carriers/**/*.ts', 'src/platform/**/*.ts', 'src/pdf/**/*.ts', 'src/net/**/*.ts', 'src/tracing/**/*.ts'],
    [...srcFolders([...SERVICES, ...EDGE, ...ENTRY]), ...rootFolders(['activities', 'workflows'])],
    'Ports and adapters talk to the outside and know no service above them',
    srcFolders(['db']),
  ),
  floorRule(
    SERVICES.map((name) => `src/${name}/**/*.ts`),
    ['koa', '@koa/*', ...srcFolders([...EDGE, ...ENTRY]), ...rootFolders(['activities'])],
    'Services return outcomes and throw domain refusals; the HTTP edge renders them',
    [],
    WORKFLOWS_BUT_CONTRACTS,
  ),
  floorRule(
    ['activities/**/*.ts'],
    srcFolders(['src/api', 'src/http', 'src/idempotency', ...ENTRY.map((name) => `src/${name}`)]),
    'Activities do side effects through services and ports; they start workflows through contracts',
    [],
    WORKFLOWS_BUT_CONTRACTS,
  ),
  floorRule(
    EDGE.map((name) => `src/${name}/**/*.ts`),
    [...srcFolders(ENTRY), ...rootFolders(['activities'])],
    'The HTTP edge calls services and starts workflows through their contracts',
    [],
    WORKFLOWS_BUT_CONTRACTS,
  ),
  {
    // No function over 150 lines outside tests and migrations (issue 45, decision 1140): a longer one does several jobs,
    // so it is split by job (a command group, a phase, a route). Every line counts, blank and comment lines too: the
    // limit is the length a reader scrolls through, and 150 leaves room for the comments that say why.
    files: [
      'src/**/*.{ts,mjs,js}',
      'workflows/**/*.ts',
      'activities/**/*.ts',
      'scripts/**/*.{ts,mjs,js}',
      'client/**/*.{ts,mjs,js}',
    ],
    ignores: ['src/db/migrations/**'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false }] },
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
  ...creationPhasesBlocks,
);
