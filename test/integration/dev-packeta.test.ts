import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CarrierAccount } from '../../src/db/entities/carrier-account';
import { DEMO_PACKETA_PASSWORD } from '../../src/carriers/packeta/fake/state';
import { randomToken } from '../../src/ids';
import { packetaLedger } from '../helpers/packeta';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * `npm run dev -- --packeta` (README, docs/carriers/packeta.md): the demo seed it runs puts the demo's carrier A
 * account on the fake Packeta, a demo order's label goes through the Packeta adapter, and a seed without the flag puts
 * the account back on the sandbox.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const seedScript = join(__dirname, '..', '..', 'src', 'dev', 'seed-demo.ts');

/** The seed as `npm run dev` runs it (same environment as the run's processes), its last line parsed. */
function seed(keyFile: string, ...flags: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', seedScript, keyFile, ...flags], { env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').pop()!)) : reject(new Error(`seed: ${stderr}`)),
    );
  });
}

describe('the demo seed with --packeta', () => {
  it('puts ca_demo_a on the fake Packeta, whose packets a demo label makes; without it, back on the sandbox', async () => {
    const keyFile = join(tmpdir(), `demo-key-${randomToken(8)}`);
    const demo = await seed(keyFile, '--packeta');
    const account = () => app.orm.em.fork().findOneOrFail(CarrierAccount, { id: 'ca_demo_a' });
    expect(await account()).toMatchObject({ endpoint: 'packeta', endpointSettings: { eshop: 'demo-shop' } });

    const home = demo.fresh_orders.find((o: { kind: string }) => o.kind === 'home');
    const res = await app.request('POST', '/v1/labels', {
      headers: {
        authorization: `Bearer ${demo.api_key}`,
        'Idempotency-Key': `dev-packeta-${home.order_id}`,
        Prefer: 'wait=30',
      },
      body: { order_id: home.order_id },
    });
    expect([res.status, res.body.error ?? null]).toEqual([201, null]);
    expect(res.body.resolved.carrier_account_id).toBe('ca_demo_a');
    const packets = await packetaLedger(DEMO_PACKETA_PASSWORD);
    expect(packets.at(-1)).toMatchObject({
      number: home.name.replace('#', ''),
      barcode: res.body.labels[0].tracking_number,
    });

    await seed(keyFile);
    expect(await account()).toMatchObject({ endpoint: 'sandbox', endpointSettings: null, apiPasswordSealed: null });
  });
});
