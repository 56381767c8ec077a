/**
 * The module map of docs/architecture.md as lint reads it: every module of src/, workflows/, activities/ and scripts/,
 * by floor. A module is a folder or a file directly under src/, or a folder of workflows/, activities/ or scripts/ (its
 * files directly inside are the folder's own module). A file of a module the map does not place fails lint, so a new
 * folder is placed on a floor (here and in docs/architecture.md) before it holds code.
 */
export const MODULE_MAP = {
  entry: [
    'src/server.ts',
    'src/worker.ts',
    'src/sandbox-server.ts',
    'src/migrate.ts',
    'src/app.ts',
    'src/dependencies.ts',
    'src/adapters.ts',
    'src/cli/',
    'src/temporal/',
    'src/dev/',
    'src/fixtures/',
    'scripts/',
    'scripts/lib/',
    'scripts/bench/',
    'scripts/screenshots/',
  ],
  edge: ['src/api/', 'src/http/', 'src/idempotency/', 'src/metrics/'],
  workflows: ['workflows/', 'workflows/label-creation/'],
  activities: ['activities/', 'activities/label-creation/'],
  services: [
    'src/creation/',
    'src/documents/',
    'src/orders/',
    'src/pickup-points/',
    'src/webhooks/',
    'src/labels/',
    'src/notifications/',
    'src/locks/',
    'src/limits/',
    'src/access/',
    'src/shopify-app/',
    'src/privacy/',
  ],
  configuration: ['src/config/'],
  ports: ['src/carriers/', 'src/platform/', 'src/pdf/', 'src/net/', 'src/tracing/', 'src/sandbox/'],
  persistence: ['src/db/'],
  domain: ['src/domain/'],
  foundation: ['src/ids.ts', 'src/duration.ts', 'src/crypto/', 'src/logger.ts', 'src/pretty-console.ts'],
};

const ROOTS = ['src', 'workflows', 'activities', 'scripts'];

/** The module a file of the project belongs to (`src/db/`, `src/app.ts`, `workflows/label-creation/`), or null. */
export function moduleOf(path) {
  const parts = path.split('/');
  if (!ROOTS.includes(parts[0]) || parts.length < 2) return null;
  if (parts[0] === 'src') return parts.length === 2 ? `src/${parts[1]}` : `src/${parts[1]}/`;
  return parts.length === 2 ? `${parts[0]}/` : `${parts[0]}/${parts[1]}/`;
}

export const PLACED = new Set(Object.values(MODULE_MAP).flat());

/** The names of a floor's modules of src/ as the import rules match them (`creation`, `app`). */
export const srcNames = (floor) =>
  MODULE_MAP[floor].filter((m) => m.startsWith('src/')).map((m) => m.slice(4).replace(/(\.ts|\/)$/, ''));

/** Fails a file whose module the map does not place. */
export const placedRule = {
  meta: {
    type: 'problem',
    schema: [{ type: 'string' }],
    messages: {
      unplaced:
        '{{module}} is on no floor of the module map: place it in eslint.module-map.mjs and docs/architecture.md',
    },
  },
  create: (context) => ({
    Program(node) {
      const root = context.options[0] ?? context.cwd;
      const relative = context.filename.startsWith(`${root}/`)
        ? context.filename.slice(root.length + 1)
        : context.filename;
      const module = moduleOf(relative);
      if (module && !PLACED.has(module)) context.report({ node, messageId: 'unplaced', data: { module } });
    },
  }),
};
