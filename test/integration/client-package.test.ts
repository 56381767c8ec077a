import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomToken } from '../../src/ids';
import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { labelctlJson } from '../helpers/labelctl';
import { expectStatus } from '../helpers/status';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { receiverUrl, untilReceived } from '../helpers/webhooks';

/**
 * The installable client as a merchant gets it: `npm pack` of client/ (its prepack builds it with tsc), installed into
 * a project of its own, which type-checks client/examples/create-and-verify.ts against the package's declarations and
 * runs it against the service: a label created and waited for, its PDF, the order's labels paged, a webhook verified.
 */
const root = join(__dirname, '..', '..');
const tsc = join(root, 'node_modules', '.bin', 'tsc');
let project: string;
let app: TestApp;

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * `run` without blocking this process, where the app under test serves: a synchronous tsc of many seconds would stall
 * its event loop, and the sandbox would close this process's idle keep-alive connections meanwhile.
 */
function runAsync(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: process.env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${out}`)),
    );
  });
}

/** The example as a process of the project (asynchronous: the API under test runs in this process). */
function example(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(project, 'out', 'create-and-verify.js'), ...args], {
      cwd: project,
      env: { PATH: process.env.PATH, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'client-package-'));
  run('npm', ['pack', '--pack-destination', project, '--silent'], join(root, 'client'));
  const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'merchant-app', private: true, type: 'module', dependencies: {} }),
  );
  // Its one dependency (openapi-fetch) comes from the npm cache the project's own install filled.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], project);
  copyFileSync(join(root, 'client', 'examples', 'create-and-verify.ts'), join(project, 'create-and-verify.ts'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        outDir: 'out',
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
      },
      files: ['create-and-verify.ts'],
    }),
  );
  app = await startTestApp();
}, 300_000);

afterAll(async () => {
  await app?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed client', () => {
  it('installs with its declarations and nothing of the repository in it', () => {
    const listed = run('tar', ['-tzf', readdirSync(project).find((n) => n.endsWith('.tgz'))!], project).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/generated/schema.d.ts',
      ]),
    );
    expect(listed.filter((path) => path.startsWith('package/src/') || path.includes('examples'))).toEqual([]);
  });

  // The work of this test is processes, not waiting: tsc over the package's declarations (10 to 30 s on a loaded
  // 2-core machine), a labelctl and three runs of the example, each a Node process of its own, and a creation and its
  // webhook in between. The suite's 60 s is a deadline for a test that waits; this one gets a deadline for its work.
  it('type-checks and runs an example against the service: create, PDF, pages, a verified webhook', async () => {
    // The example compiles against the installed package only (strict, as a merchant's project would).
    await runAsync(tsc, ['-p', 'tsconfig.json'], project);

    const shop = await aStoreWithKey(app.orm);
    const account = await aCarrierAAccount(app.orm, shop.storeId);
    await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
    const receiver = `client-${randomToken(10)}`;
    const endpoint = (await labelctlJson('webhooks', 'add', shop.storeId, receiverUrl(receiver))) as { secret: string };
    const order = await anOrderOnPlatform(shop.domain);
    const env = { SHIPPING_LABEL_API_URL: `${app.baseUrl}/v1`, SHIPPING_LABEL_API_KEY: shop.secret };

    const created = await example(['create', order.orderId], env);
    expect(created).toMatchObject({ code: 0, err: '' });
    const result = JSON.parse(created.out);
    expect(result).toMatchObject({ status: 'succeeded', pdfStart: '%PDF-' });
    expect(result.listed).toEqual([result.label_id]);
    const served = await app.request('GET', `/v1/label-creations/${result.creation_id}`, { headers: shop.auth });
    expect(expectStatus(served, 200).labels.map((l: { id: string }) => l.id)).toEqual([result.label_id]);

    const [delivery] = await untilReceived(receiver, 1);
    const file = join(project, 'delivery.json');
    writeFileSync(file, JSON.stringify(delivery));
    const verified = await example(['verify', file], { ...env, WEBHOOK_SECRET: endpoint.secret });
    expect(JSON.parse(verified.out)).toEqual({ verified: { ok: true }, topic: 'label_creation.updated' });
    // A body changed on the way, or another secret, does not verify.
    writeFileSync(file, JSON.stringify({ ...delivery, body: delivery!.body.replace('succeeded', 'failed') }));
    const tampered = await example(['verify', file], { ...env, WEBHOOK_SECRET: endpoint.secret });
    expect(JSON.parse(tampered.out)).toEqual({ verified: { ok: false, reason: 'no_match' }, topic: null });
  }, 240_000);
});
