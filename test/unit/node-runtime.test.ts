import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

// One Node.js for the service: `.node-version` (what npm test, dev, cluster and bench run on, scripts/lib/node-runtime.mjs)
// and the image's base in both stages; package.json admits it and every Node that may launch those scripts.
const root = join(__dirname, '..', '..');
const read = (name: string) => readFileSync(join(root, name), 'utf8');
const pinned = read('.node-version').trim();

describe('the service runtime', () => {
  it('pins one exact version', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('is the base of both stages of the image', () => {
    const bases = [...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases).toEqual([`node:${pinned}-bookworm-slim`, `node:${pinned}-bookworm-slim`]);
  });

  it('is admitted by package.json, whose floor is the Node the README says launches the scripts', () => {
    // `engines` is what may launch `npm run dev`, `npm test` and `npx labelctl` (they re-run themselves on the pinned
    // version); a floor above the machine's Node made npm warn EBADENGINE before every `npx labelctl` (decision 0806).
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toMatch(/^>=\d+\.\d+$/);
    const floor = engines.slice(2);
    expect(read('README.md')).toContain(`Both need only Node.js (${floor} or newer)`);
    const [major, minor] = pinned.split('.').map(Number);
    const [lowestMajor, lowestMinor] = floor.split('.').map(Number);
    expect(major! > lowestMajor! || (major === lowestMajor && minor! >= lowestMinor!)).toBe(true);
  });
});

describe('a script already on the service runtime', () => {
  it("puts its Node's directory first on PATH, so the tools it starts by name (jest, npm ci) run on it", () => {
    const script = `import { runOnServiceNode } from ${JSON.stringify(join(root, 'scripts/lib/node-runtime.mjs'))};
      await runOnServiceNode(); await runOnServiceNode(); process.stdout.write(process.env.PATH);`;
    const path = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_RUNTIME: 'current', PATH: '/opt/none/bin:/usr/local/none/bin' },
      encoding: 'utf8',
    });
    // Once, however often the scripts it imports ask.
    expect(path).toBe(`${dirname(process.execPath)}${delimiter}/opt/none/bin:/usr/local/none/bin`);
  });
});
