import { aCarrierAAccount, anOrderOnPlatform, aRule } from '../helpers/creation';
import { expectError } from '../helpers/errors';
import { ledger } from '../helpers/sandbox';
import { aStoreWithKey } from '../helpers/stores';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Spec "Wire format": money amounts are decimal strings with two decimals, in error details too (`max`, `min`,
// `received`), for a dry run and a live POST /labels alike.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

async function aShop() {
  const shop = await aStoreWithKey(app.orm);
  const account = await aCarrierAAccount(app.orm, shop.storeId);
  await aRule(app.orm, shop.storeId, { priority: 1, carrierAccountId: account.id, serviceCode: 'a_home' });
  return { shop, account };
}

const AMOUNT_REFUSALS: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  [
    'COD above 9999999.99',
    { cod: { amount: '10000000.00', currency: 'CZK' } },
    { parameter: 'cod.amount', received: '10000000.00', max: '9999999.99' },
  ],
  [
    'a declared value above 9999999.99, sent with one decimal',
    { declared_value: { amount: '10000000.5', currency: 'CZK' } },
    { parameter: 'declared_value.amount', received: '10000000.50', max: '9999999.99' },
  ],
  [
    'a negative COD',
    { cod: { amount: '-1', currency: 'CZK' } },
    { parameter: 'cod.amount', received: '-1.00', min: '0.00' },
  ],
];

describe('amounts out of range: details with decimal strings', () => {
  it.each(AMOUNT_REFUSALS)('dry run: %s', async (_name, amount, details) => {
    const { shop } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    const res = await app.request('POST', '/v1/labels', {
      headers: shop.auth,
      body: { order_id: order.orderId, dry_run: true, ...amount },
    });
    expectError(res, 422, 'validation_error', { ...details, retry: 'after_fix', next_action: 'fix_and_retry' });
  });

  it.each(AMOUNT_REFUSALS)('live: %s; nothing is created and the key stays free', async (_name, amount, details) => {
    const { shop, account } = await aShop();
    const order = await anOrderOnPlatform(shop.domain);
    const create = (body: Record<string, unknown>) =>
      app.request('POST', '/v1/labels', {
        headers: { ...shop.auth, 'Idempotency-Key': `amount-${order.orderId}`, Prefer: 'wait=30' },
        body: { order_id: order.orderId, ...body },
      });
    expectError(await create(amount), 422, 'validation_error', {
      ...details,
      retry: 'after_fix',
      next_action: 'fix_and_retry',
    });
    expect(await ledger(account.id)).toEqual([]);
    // The same key with an amount in range creates the label: the refused request bound nothing.
    const [field] = Object.keys(amount);
    const fixed = await create({ [field!]: { amount: '100', currency: 'CZK' } });
    expect([fixed.status, fixed.body.error ?? null]).toEqual([201, null]);
    expect(fixed.body.requested[field!]).toEqual({ amount: '100.00', currency: 'CZK' });
  });

  it('the OpenAPI document says so: the error details and the POST /labels example', async () => {
    const doc = (await app.request('GET', '/v1/openapi.json')).body;
    const details = doc.components.schemas.Error.properties.error.properties.details;
    expect(details.description).toMatch(/decimal strings with two decimals/);
    const example =
      doc.paths['/labels'].post.responses['422'].content['application/json'].examples.validation_error.value;
    expect(example.error.details).toMatchObject({ parameter: 'cod.amount', max: '9999999.99' });
  });
});
