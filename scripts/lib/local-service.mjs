import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './paths.mjs';

const pidOf = (text) => Number(/^# .* \(pid (\d+)\)/m.exec(text)?.[1] ?? 0);
const alive = (pid) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Writes how to reach the service this script runs (`values`: DATABASE_URL, SANDBOX_URL, TEMPORAL_ADDRESS, ...) where
 * labelctl finds it, readable by this user only (a DATABASE_URL may carry a password). Returns `release()`, for the
 * stop: the file goes back to what another running script wrote before (`npm run dev` while `npm run cluster` ran), or
 * away; a file another script wrote since is left alone.
 */
export function announceLocalService(who, values, dir = dataDir) {
  // The same path as LOCAL_SERVICE_FILE in src/cli/local-service.ts, where labelctl reads it.
  const file = join(dir, 'local-service.env');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : null;
  const text = [
    `# ${who} (pid ${process.pid}): how labelctl reaches it (src/cli/local-service.ts); removed when it stops`,
    ...Object.entries(values).map(([name, value]) => `${name}=${value}`),
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
  return function release() {
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) return;
    if (previous && pidOf(previous) !== process.pid && alive(pidOf(previous)))
      writeFileSync(file, previous, { mode: 0o600 });
    else rmSync(file, { force: true });
  };
}
