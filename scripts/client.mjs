#!/usr/bin/env node
// `npm run client:pack` and `npm run client:build`: the installable client of client/ from a checkout, a fresh clone
// included. The root's dependencies come first (the client builds with the root's tsc against the root's
// openapi-fetch), then `npm pack` in client/ (its prepack builds dist/) or the build alone. Arguments after `--` go to
// npm pack; a relative `--pack-destination` is taken from where the command was typed.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ensureDependencies } from './lib/deps.mjs';
import { projectRoot } from './lib/paths.mjs';

const [mode, ...rest] = process.argv.slice(2);
if (mode !== 'build' && mode !== 'pack') {
  process.stderr.write('usage: node scripts/client.mjs build | pack [npm pack options]\n');
  process.exit(2);
}
ensureDependencies();
const client = join(projectRoot, 'client');
const typedAt = process.env.INIT_CWD || process.cwd();
const packArgs = rest.map((arg, i) => (rest[i - 1] === '--pack-destination' ? resolve(typedAt, arg) : arg));
const result =
  mode === 'build'
    ? spawnSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
        cwd: client,
        stdio: 'inherit',
      })
    : spawnSync('npm', ['pack', ...packArgs], { cwd: client, stdio: 'inherit' });
process.exit(result.status ?? 1);
