import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_DATABASE_URL_FILE, labelctlEnvironment, packageRoot } from '../../src/cli/database-url';
import { loadConfig } from '../../src/config';

/** The database labelctl opens, as its main() resolves it: environment first, then the dev file, then the default. */
const databaseUrl = (env: NodeJS.ProcessEnv, root: string | undefined) =>
  loadConfig(labelctlEnvironment(env, root)).databaseUrl;

describe('labelctl database URL', () => {
  const dev = 'postgres://postgres:postgres@127.0.0.1:41234/shipping_label_api';
  const own = 'postgres://app@db.internal:5432/labels';
  const fallback = 'postgres://postgres@127.0.0.1:5432/shipping_label_api';
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'labelctl-root-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const writeDevFile = (text: string) => {
    mkdirSync(join(root, '.data'), { recursive: true });
    writeFileSync(join(root, DEV_DATABASE_URL_FILE), text);
  };

  it('takes DATABASE_URL when set, even with the file of a running npm run dev', () => {
    writeDevFile(`${dev}\n`);
    expect(databaseUrl({ DATABASE_URL: own }, root)).toBe(own);
  });

  it('takes the URL npm run dev wrote when DATABASE_URL is unset', () => {
    writeDevFile(`${dev}\n`);
    expect(databaseUrl({}, root)).toBe(dev);
    expect(databaseUrl({ DATABASE_URL: '' }, root)).toBe(dev);
  });

  it('falls back to the default without the file, with an empty one, or without a checkout', () => {
    expect(databaseUrl({}, root)).toBe(fallback);
    writeDevFile('\n');
    expect(databaseUrl({}, root)).toBe(fallback);
    expect(databaseUrl({}, undefined)).toBe(fallback);
  });

  it('never reads the development file in production', () => {
    writeDevFile(`${dev}\n`);
    expect(labelctlEnvironment({ NODE_ENV: 'production' }, root).DATABASE_URL).toBeUndefined();
  });

  it('finds the checkout from labelctl’s own directory (source or dist/)', () => {
    const checkout = join(__dirname, '..', '..');
    expect(packageRoot(join(checkout, 'src', 'cli'))).toBe(checkout);
    expect(packageRoot(join(checkout, 'dist', 'src', 'cli'))).toBe(checkout);
    expect(packageRoot('/')).toBeUndefined();
  });
});
