import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run client:pack` (`npm pack` in client/), as docs/client.md says, writes the package's tarball into client/:
 * git ignores it, so it never shows as an untracked file or gets committed by accident.
 */
const root = join(__dirname, '..', '..');

it('ignores the tarball npm pack writes in client/', () => {
  // The file name npm pack would write, without building or writing anything.
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: join(root, 'client'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ filename: string }>;
  expect(packed!.filename).toMatch(/^shipping-label-api-client-\d+\.\d+\.\d+\.tgz$/);
  const ignored = spawnSync('git', ['check-ignore', '--quiet', '--no-index', `client/${packed!.filename}`], {
    cwd: root,
  });
  expect(ignored.status).toBe(0);
  // Only that: the package's sources stay tracked.
  const source = spawnSync('git', ['check-ignore', '--quiet', '--no-index', 'client/src/index.ts'], { cwd: root });
  expect(source.status).toBe(1);
}, 30_000);
