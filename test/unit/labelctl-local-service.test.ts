import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_SERVICE_FILE, labelctlEnvironment, packageRoot } from '../../src/cli/local-service';
import { loadConfig } from '../../src/config';

const root = join(__dirname, '..', '..');

/** What labelctl connects to, as its main() resolves it: environment first, then the file, then the defaults. */
const resolved = (env: NodeJS.ProcessEnv, checkout: string | undefined) => {
  const config = loadConfig(labelctlEnvironment(env, checkout));
  return {
    databaseUrl: config.databaseUrl,
    sandboxUrl: config.sandboxUrl,
    temporalAddress: config.temporal.address,
    temporalUiUrl: config.temporal.webUiUrl,
  };
};

describe('where labelctl finds the running service', () => {
  const written = {
    DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:41234/shipping_label_api_cluster',
    SANDBOX_URL: 'http://127.0.0.1:4110',
    TEMPORAL_ADDRESS: '127.0.0.1:7333',
    TEMPORAL_UI_URL: 'http://127.0.0.1:8333',
  };
  const own = 'postgres://app@db.internal:5432/labels';
  let checkout: string;
  beforeEach(() => {
    checkout = mkdtempSync(join(tmpdir(), 'labelctl-root-'));
  });
  afterEach(() => rmSync(checkout, { recursive: true, force: true }));
  const writeFile = (text: string) => {
    mkdirSync(join(checkout, '.data'), { recursive: true });
    writeFileSync(join(checkout, LOCAL_SERVICE_FILE), text);
  };
  // Written by a process that is running: this test's own.
  const fileOf = (values: Record<string, string>, pid = process.pid) =>
    `# npm run cluster (pid ${pid}): how labelctl reaches it\n${Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`;

  it('takes the database, sandbox and Temporal a running npm run dev or cluster wrote', () => {
    writeFile(fileOf(written));
    expect(resolved({}, checkout)).toEqual({
      databaseUrl: written.DATABASE_URL,
      sandboxUrl: written.SANDBOX_URL,
      temporalAddress: written.TEMPORAL_ADDRESS,
      temporalUiUrl: written.TEMPORAL_UI_URL,
    });
    expect(resolved({ DATABASE_URL: '' }, checkout).databaseUrl).toBe(written.DATABASE_URL);
  });

  it('keeps each variable the environment sets, and takes the rest from the file', () => {
    writeFile(fileOf(written));
    expect(resolved({ DATABASE_URL: own }, checkout)).toMatchObject({
      databaseUrl: own,
      sandboxUrl: written.SANDBOX_URL,
    });
    expect(resolved({ SANDBOX_URL: 'http://127.0.0.1:4999' }, checkout)).toMatchObject({
      databaseUrl: written.DATABASE_URL,
      sandboxUrl: 'http://127.0.0.1:4999',
    });
  });

  it('falls back to the defaults without the file, with an empty one, or without a checkout', () => {
    const defaults = {
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/shipping_label_api',
      sandboxUrl: 'http://127.0.0.1:4010',
      temporalAddress: '127.0.0.1:7233',
    };
    expect(resolved({}, checkout)).toMatchObject(defaults);
    writeFile('# nothing\n\n');
    expect(resolved({}, checkout)).toMatchObject(defaults);
    expect(resolved({}, undefined)).toMatchObject(defaults);
  });

  it('ignores a file whose writer is gone (a run killed without its Ctrl-C)', () => {
    writeFile(fileOf(written, 999_999_999));
    expect(resolved({}, checkout)).toMatchObject({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/shipping_label_api',
    });
  });

  it('ignores lines that are no variable of its own', () => {
    writeFile('PATH=/opt/evil\nNODE_OPTIONS=--require /opt/evil.js\nSANDBOX_URL=http://127.0.0.1:4110\n');
    const env = labelctlEnvironment({}, checkout);
    expect(env.PATH).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.SANDBOX_URL).toBe('http://127.0.0.1:4110');
  });

  it('never reads the file in production', () => {
    writeFile(fileOf(written));
    const env = labelctlEnvironment({ NODE_ENV: 'production' }, checkout);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SANDBOX_URL).toBeUndefined();
  });

  it('finds the checkout from labelctl’s own directory (source or dist/)', () => {
    expect(packageRoot(join(root, 'src', 'cli'))).toBe(root);
    expect(packageRoot(join(root, 'dist', 'src', 'cli'))).toBe(root);
    expect(packageRoot('/')).toBeUndefined();
  });
});

describe('the file npm run dev and npm run cluster write (scripts/lib/local-service.mjs)', () => {
  /** Runs announceLocalService in a process of its own with `.data/` in a scratch checkout; `then` runs before exit. */
  const announce = (dataDir: string, who: string, values: Record<string, string>, then: string) =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { announceLocalService } = await import(${JSON.stringify(join(root, 'scripts/lib/local-service.mjs'))});
         const release = announceLocalService(${JSON.stringify(who)}, ${JSON.stringify(values)}, ${JSON.stringify(dataDir)});
         ${then}`,
      ],
      { encoding: 'utf8' },
    );
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'local-service-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const file = () => join(dataDir, 'local-service.env');

  it('is written readable by its user only and removed when its writer stops', () => {
    const seen = announce(
      dataDir,
      'npm run dev',
      { SANDBOX_URL: 'http://127.0.0.1:4010' },
      `const { statSync, readFileSync } = await import('node:fs');
       process.stdout.write(JSON.stringify({ mode: statSync(${JSON.stringify(file())}).mode & 0o777,
         text: readFileSync(${JSON.stringify(file())}, 'utf8') }));
       release();`,
    );
    expect(JSON.parse(seen)).toEqual({
      mode: 0o600,
      text: expect.stringMatching(/^# npm run dev \(pid \d+\): .*\nSANDBOX_URL=http:\/\/127\.0\.0\.1:4010\n$/),
    });
    expect(existsSync(file())).toBe(false);
  });

  it('goes back to what a writer still running wrote before, when the later one stops', () => {
    // A running `npm run dev`: this test process stands for it (its pid is alive).
    writeFileSync(file(), `# npm run dev (pid ${process.pid}): ...\nSANDBOX_URL=http://127.0.0.1:4010\n`);
    const before = readFileSync(file(), 'utf8');
    const during = announce(
      dataDir,
      'npm run cluster',
      { SANDBOX_URL: 'http://127.0.0.1:4110' },
      `process.stdout.write((await import('node:fs')).readFileSync(${JSON.stringify(file())}, 'utf8')); release();`,
    );
    expect(during).toContain('SANDBOX_URL=http://127.0.0.1:4110');
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it('is removed, not restored, when the earlier writer is gone', () => {
    writeFileSync(file(), '# npm run dev (pid 999999999): ...\nSANDBOX_URL=http://127.0.0.1:4010\n');
    announce(dataDir, 'npm run cluster', { SANDBOX_URL: 'http://127.0.0.1:4110' }, 'release();');
    expect(existsSync(file())).toBe(false);
  });
});
