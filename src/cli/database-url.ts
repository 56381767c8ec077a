import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where `npm run dev` writes the URL of the database it runs on (scripts/dev.mjs), relative to the checkout. On the
 * embedded-PostgreSQL path that database is on a free port chosen at start, so labelctl could not guess it.
 */
export const DEV_DATABASE_URL_FILE = join('.data', 'database-url');

/** The checkout (or the image's app directory): the nearest directory at or above `from` holding package.json. */
export function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The environment labelctl loads its configuration from: `DATABASE_URL` when set; else, outside production, the URL a
 * running `npm run dev` wrote under `root`; else unchanged, so the configuration's default applies.
 */
export function labelctlEnvironment(env: NodeJS.ProcessEnv, root: string | undefined): NodeJS.ProcessEnv {
  if (env.DATABASE_URL || env.NODE_ENV === 'production' || !root) return env;
  let written: string;
  try {
    written = readFileSync(join(root, DEV_DATABASE_URL_FILE), 'utf8').trim();
  } catch {
    return env;
  }
  return written ? { ...env, DATABASE_URL: written } : env;
}
