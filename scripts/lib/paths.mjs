import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dataDir = join(projectRoot, '.data');

// Shared by every clone on the machine, so a fresh clone reuses the Temporal CLI built once.
export function userCacheDir() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'shipping-label-api');
}
