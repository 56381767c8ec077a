import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a running `npm run dev` or `npm run cluster` writes how to reach it (scripts/lib/local-service.mjs), relative to
 * the checkout: the database (on the embedded-PostgreSQL path it is on a port chosen at start), the sandbox, the
 * Temporal server and its Web UI. The one started last wins; when it stops, the file goes back to the other one's, or
 * away.
 */
export const LOCAL_SERVICE_FILE = join('.data', 'local-service.env');

/** The variables the file may set, each only where the environment does not. */
export const LOCAL_SERVICE_VARIABLES = [
  'DATABASE_URL',
  'SANDBOX_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_UI_URL',
] as const;

/** The checkout (or the image's app directory): the nearest directory at or above `from` holding package.json. */
export function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The process that wrote the file (its first line: `# npm run dev (pid 1234): ...`); 0 when it names none. */
export function writerPid(text: string): number {
  return Number(/^# .* \(pid (\d+)\)/m.exec(text)?.[1] ?? 0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The `NAME=value` lines of the file; `#` starts a comment line. */
export function parseLocalService(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match && (LOCAL_SERVICE_VARIABLES as readonly string[]).includes(match[1]!) && match[2]!.trim())
      values[match[1]!] = match[2]!.trim();
  }
  return values;
}

/**
 * The environment labelctl loads its configuration from: each variable as set; where unset (or empty), outside
 * production, the value a running `npm run dev` or `npm run cluster` wrote under `root` (a file whose writer is gone
 * is ignored); else the configuration's default.
 */
export function labelctlEnvironment(env: NodeJS.ProcessEnv, root: string | undefined): NodeJS.ProcessEnv {
  if (env.NODE_ENV === 'production' || !root) return env;
  let text: string;
  try {
    text = readFileSync(join(root, LOCAL_SERVICE_FILE), 'utf8');
  } catch {
    return env;
  }
  // A file a killed run left behind names servers that are gone: the defaults are a better guess.
  const pid = writerPid(text);
  if (pid !== 0 && !isAlive(pid)) return env;
  const written = parseLocalService(text);
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries(written)) if (!env[name]) merged[name] = value;
  return merged;
}
